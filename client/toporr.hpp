// A thin C++ layer over the C API (client/toporr.h): communicators owned by RAII handles,
// errors as exceptions, the process-default or an explicit configuration.
//
//   toporr::Context toporr;                       // process default (TOPORR_* environment)
//   toporr::Comm ring = toporr.Reorder(MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_RING,
//                                      1 << 20);
//   MPI_Allreduce(..., ring);                     // freed when `ring` goes out of scope
//
// As in C, a fallback is not an error: the handle then holds an identity-order duplicate and
// `decision` says why. Only TOPORR_ERR_* codes throw toporr::Error.
#ifndef TOPORR_CLIENT_TOPORR_HPP_
#define TOPORR_CLIENT_TOPORR_HPP_

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "client/toporr.h"

namespace toporr {

class Error : public std::runtime_error {
 public:
  explicit Error(int code)
      : std::runtime_error(std::string("toporr: ") + toporr_strerror(code)), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Owns a communicator (MPI_Comm_free on destruction unless null). Move-only.
class Comm {
 public:
  Comm() = default;
  explicit Comm(MPI_Comm comm) : comm_(comm) {}
  Comm(Comm&& other) noexcept : comm_(other.release()) {}
  Comm& operator=(Comm&& other) noexcept {
    if (this != &other) {
      reset();
      comm_ = other.release();
    }
    return *this;
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm() { reset(); }

  MPI_Comm get() const { return comm_; }
  operator MPI_Comm() const { return comm_; }  // NOLINT: drop-in where MPI wants a handle
  MPI_Comm release() { return std::exchange(comm_, MPI_COMM_NULL); }
  void reset() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// A configuration: the process default, or options of its own.
class Context {
 public:
  Context() = default;
  explicit Context(const toporr_options& options) {
    Check(toporr_context_create(&options, &context_));
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() {
    if (context_ != nullptr) toporr_context_free(&context_);
  }

  // toporr_comm_reorder.
  Comm Reorder(MPI_Comm comm, toporr_collective collective, toporr_algorithm algorithm,
               size_t bytes, int root = 0, toporr_decision* decision = nullptr) const {
    MPI_Comm out = MPI_COMM_NULL;
    Check(toporr_comm_reorder(context_, comm, collective, algorithm, bytes, root, &out, decision));
    return Comm(out);
  }

  // toporr_cart_create; `periods` nonzero = periodic.
  Comm CartCreate(MPI_Comm comm, const std::vector<int>& dims, const std::vector<int>& periods,
                  bool reorder = true) const {
    if (dims.size() != periods.size()) throw Error(TOPORR_ERR_ARG);
    MPI_Comm out = MPI_COMM_NULL;
    Check(toporr_cart_create(context_, comm, static_cast<int>(dims.size()), dims.data(),
                             periods.data(), reorder ? 1 : 0, &out));
    return Comm(out);
  }

  toporr_context get() const { return context_; }

 private:
  static void Check(int code) {
    if (code != TOPORR_SUCCESS) throw Error(code);
  }
  toporr_context context_ = nullptr;
};

inline std::string Version() { return toporr_version(); }

}  // namespace toporr

#endif  // TOPORR_CLIENT_TOPORR_HPP_
