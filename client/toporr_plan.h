/* toporr_plan.h: rank orders from the fabric for programs that are not MPI jobs (a PyTorch
 * training job, a launcher, a scheduler's prolog), in libtoporr_plan.so. No MPI: the caller
 * knows which host each of its processes runs on and asks for the order in which they should
 * take their ranks, for one collective.
 *
 * The costs come from toporrd, reached exactly as libtoporr reaches it (the site file
 * /etc/toporr/client.conf or TOPORR_CONFIG, then the TOPORR_* environment: socket, address,
 * TLS, deadline_ms), or offline from a fabric dump (`fabric`) or a TOPORRC cost file
 * (`costs`). The orders are those of `toporrctl plan` for the same hosts and request (the
 * same planner, the same costs): the new order of a launch-order host list, predicted never
 * slower than that list.
 *
 * Errors: every call returns a status code (0, or one of the codes below, which are the gRPC
 * and absl canonical codes); toporr_plan_last_error() gives the message of the calling
 * thread's last failed call, which names the daemon and its own reason, the file and line of
 * a bad dump, or the host that is not in the fabric. Thread-safety: one planner may be used
 * from several threads; toporr_plan_last_error is per thread.
 */
#ifndef TOPORR_CLIENT_TOPORR_PLAN_H_
#define TOPORR_CLIENT_TOPORR_PLAN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a function is added or a signature or a struct changes; the Python package
 * checks it. */
#define TOPORR_PLAN_API_VERSION 2

enum {
  TOPORR_PLAN_OK = 0,
  TOPORR_PLAN_INVALID_ARGUMENT = 3,    /* a bad setting, host list, collective or algorithm */
  TOPORR_PLAN_DEADLINE_EXCEEDED = 4,   /* toporrd did not answer within deadline_ms */
  TOPORR_PLAN_NOT_FOUND = 5,           /* a host not in the fabric; a dump that cannot be read */
  TOPORR_PLAN_RESOURCE_EXHAUSTED = 8,  /* the daemon's rate limit for job reports */
  TOPORR_PLAN_FAILED_PRECONDITION = 9, /* the daemon has no snapshot yet; TLS files refused */
  TOPORR_PLAN_UNAVAILABLE = 14,        /* toporrd cannot be reached */
  TOPORR_PLAN_DATA_LOSS = 15           /* an answer or file that does not decode */
  /* other nonzero values: the daemon's code, passed on */
};

typedef struct toporr_planner toporr_planner;

/* int toporr_plan_api_version(void): TOPORR_PLAN_API_VERSION of the library loaded. */
int toporr_plan_api_version(void);

/* Opens a planner with `num_settings` "key=value" settings applied over the site file and
 * the environment: every key of client.conf (socket, address, tls_ca, tls_cert, tls_key,
 * tls_server_name, insecure, costs, deadline_ms, ...) and
 *   fabric=PATH    a fabric dump to plan on instead of the daemon (routes modelled)
 *   format=NAME    its format (ibnetdiscover, the default; opareport, ...)
 * Nothing is contacted yet. On error *out is NULL. */
int toporr_planner_open(const char* const* settings, int num_settings, toporr_planner** out);

void toporr_planner_close(toporr_planner* planner);

/* Where the costs come from, for people ("toporrd at /run/toporr/toporrd.sock", "fabric
 * f.topo"); valid until the planner is closed. */
const char* toporr_planner_source(const toporr_planner* planner);

/* The cost between two hosts: one-way latency of a small message (ns) and the bottleneck
 * rate of the path (Gb/s). */
int toporr_plan_cost(toporr_planner* planner, const char* host_a, const char* host_b,
                     double* latency_ns, double* bottleneck_gbps);

/* The path between two hosts as JSON {"snapshot_id", "hops", "latency_ns",
 * "bottleneck_gbps", "path": [{"guid", "type", "description", "in_port", "out_port",
 * "out_rate_gbps"}, ...]} (the fields of `toporrctl path --json`), in a buffer the caller
 * frees with toporr_plan_free. */
int toporr_plan_path(toporr_planner* planner, const char* host_a, const char* host_b, char** json);

void toporr_plan_free(void* p);

/* What a plan predicts, for reports. */
typedef struct toporr_plan_info {
  char algorithm[64];    /* the algorithm planned for */
  char source[256];      /* where the costs came from */
  int64_t snapshot_id;   /* the daemon's snapshot; 0 offline */
  int reordered;         /* 1 when the order differs from the launch order */
  double launch_ns;      /* predicted time on the launch order */
  double planned_ns;     /* on the new order */
  double leaf_sorted_ns; /* on the launch order's hosts grouped by leaf switch */
} toporr_plan_info;

/* The order for `num_ranks` processes, process i running on host rank_hosts[i] (i is its
 * launch rank; a host's processes in their local order): order[new_rank] = launch rank, for
 * `collective` (allreduce, bcast, reduce, allgather, gather) of `message_bytes` (allreduce,
 * bcast, reduce: the whole buffer; allgather, gather: per process) rooted at `root`, run
 * with `algorithm` (a name of toporrctl plan's --algorithm: "ring" for NCCL's and Gloo's
 * rings, "binomial" or "recursive_doubling" for trees; NULL or "auto": the best predicted).
 * `info` may be NULL. */
int toporr_plan_order(toporr_planner* planner, const char* const* rank_hosts, int num_ranks,
                      const char* collective, const char* algorithm, int64_t message_bytes,
                      int root, int32_t* order, toporr_plan_info* info);

/* The rank process `launch_rank` takes in `order` (its inverse), or -1 when it is not in it.
 * For NCCL: ncclCommInitRank(&comm, n, id, toporr_plan_new_rank(...)), or from an existing
 * communicator ncclCommSplit(comm, 0, toporr_plan_new_rank(...), &ordered, NULL): one color,
 * the new rank as key. */
int toporr_plan_new_rank(const int32_t* order, int num_ranks, int launch_rank);

/* 1 when the site file or the environment switch toporr off (disable = true,
 * TOPORR_DISABLE=1): launchers and wrappers then keep the launch order, as libtoporr does. */
int toporr_plan_disabled(void);

/* A job's outcome in toporrd's metrics (toporr_job_decisions_total, toporr_job_fallbacks_total,
 * toporr_job_gain_ratio; `toporrctl stats`), as libtoporr reports an MPI job's at MPI_Finalize.
 * A planner on the daemon's costs counts every toporr_plan_order: an answer as a decision of
 * (collective, "daemon") with its predicted gain (launch_ns / planned_ns), a failure as a
 * fallback by its cause (no_daemon, timeout, tls, unknown_host, ..., other). An offline
 * planner (fabric, costs) counts nothing. Call this from one process of the job (the one that
 * planned): its processes' fallbacks of its own (e.g. a rank exchange that failed), with a
 * status code of this header and the reason, counted by the cause the reason shows. */
int toporr_plan_record_fallback(toporr_planner* planner, int code, const char* reason);

/* Sends what the planner counted since its last report that went through to the daemon: one
 * call, done within min(deadline_ms, 500 ms), no retry; on success the counts start again.
 * Returns 0 without sending when the planner is offline, has counted nothing, or the site's
 * configuration says job_metrics = false (TOPORR_JOB_METRICS=0); else the failure (UNAVAILABLE
 * or DEADLINE_EXCEEDED: no daemon answered in time; RESOURCE_EXHAUSTED (8): the daemon's rate
 * limit for this caller), the counts kept. */
int toporr_plan_report_job(toporr_planner* planner);

/* The message of the calling thread's last failed call ("" when none). */
const char* toporr_plan_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TOPORR_CLIENT_TOPORR_PLAN_H_ */
