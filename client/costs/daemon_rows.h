// What the daemon source (NewDaemonRowSource, row_source.h) says beyond a RowSource: which
// daemon of the address list answered.
#ifndef TOPORR_CLIENT_COSTS_DAEMON_ROWS_H_
#define TOPORR_CLIENT_COSTS_DAEMON_ROWS_H_

#include <string>

namespace toporr::client {

// The daemon that answered the calling thread's most recent Prepare or Row of a daemon source
// (DaemonEndpoint::Name(): "mgmt02:7575", or the socket's path); "" when that call reached no
// daemon, or the thread made none. Per thread, so that decisions running in several threads
// each see their own: right after a decision's rows were fetched on rank 0 (which asks for
// its own host's row), it names the daemon that served them.
std::string LastAnsweringDaemon();

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_DAEMON_ROWS_H_
