// A RowSource whose calls run one at a time, for processes that decide from several threads
// at once (MPI_THREAD_MULTIPLE: one decision per communicator, each thread on its own). The
// daemon source keeps one gRPC channel per process and creates it on first use; the sources
// themselves are not thread-safe.
//
// The lock is held for one Prepare or Row call only (each bounded by the source's deadline),
// never across an MPI call: a thread waiting for it waits at most for the calls queued before
// it, and cannot deadlock with ranks of other processes.
// Thread-safety: thread-safe.
#ifndef TOPORR_CLIENT_SERIALIZED_ROW_SOURCE_H_
#define TOPORR_CLIENT_SERIALIZED_ROW_SOURCE_H_

#include <memory>

#include "client/row_source.h"

namespace toporr::client {

std::unique_ptr<RowSource> SerializedRowSource(std::unique_ptr<RowSource> source);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_SERIALIZED_ROW_SOURCE_H_
