// What libtoporr decided and measured, as TOPORR_REPORT=FILE records it: rank 0 of the
// communicator appends one JSON object per line (JSON Lines), so several jobs or calls can
// share a file. Two kinds of lines, told apart by "event":
//
// "decision": one per reordering decision. Fields:
//   event                  "decision"
//   collective, algorithm  as requested ("auto" allowed), names as in mapping/schedules/pattern.h
//   chosen_algorithm       what the mapping engine chose (differs only for "auto")
//   bytes, root, size      the call's message size, root (old rank) and communicator size
//   hosts                  distinct hosts of the communicator
//   source                 "daemon", "file", "local" (one host: no cost source asked) or
//                          "fallback"
//   fallback_reason        null, or why the identity order was kept
//   daemon_address         with source "daemon": the daemon that served the rows, as
//                          configured (HOST:PORT of the address list, or the socket's path);
//                          null otherwise
//   snapshot_id            the snapshot the costs came from (null on fallback before any)
//   cost_form              "rows" (n x n, one shared window per host) or "groups" (the
//                          leaf-group form of large jobs); null on fallback
//   contention             what link sharing the prediction modelled: "routes" (every fabric
//                          link, from the routes gathered with the rows) or "host links" (the
//                          hosts' own cables: the source has no routes, or the job has more
//                          than TOPORR_ROUTES_MAX_HOSTS hosts); null on fallback
//   new_order              new rank i = old rank new_order[i]
//   predicted_before_ns, predicted_after_ns   the mapping engine's prediction (null on
//                          fallback)
//   leaf_sorted            the free baseline (client/plan/plan.h LeafSortedMapping): {algorithm,
//                          effective, predicted_ns} of what the communicator would run in
//                          the leaf-sorted order (the MPI library's own call where it is a
//                          candidate); null unless a report is written and the job has at
//                          most kLeafSortedMaxHosts hosts, and on fallback
//   candidates             what the choice was among (rank 0's view): [{algorithm, mapping,
//                          predicted_ns, effective}], in evaluation order; [] when not
//                          planned. "mpi_library" is the MPI library's own call on the
//                          caller's communicator (effective: the algorithm its rules pick,
//                          mapping/prediction/library_rules.h); for allreduce and bcast a
//                          second one, mapping "leaf-sorted", runs it on the leaf-sorted
//                          order. The faster of them wins ties and predicted gains within
//                          client/plan/plan.h's kLibraryMargin; chosen_algorithm
//                          "mpi_library" with a new_order other than the identity is the
//                          library's call on the leaf-sorted order. The multi-level
//                          version is {algorithm "multilevel", mapping "levels"}
//   levels                 the fabric levels the multi-level version was planned over
//                          (mapping/levels/levels.h names: ["host", "leaf", "top"]); null when it
//                          was not considered
//   stages                 the multi-level version's stages when it was considered, in
//                          execution order: [{level, collective, algorithm, groups,
//                          max_members, predicted_ns}] (client/plan/plan.h PlanStage); null
//                          when it was not considered
//   cached                 true when the decision came from the communicator's cache
//   retry                  0 for a first decision; n for the n-th new attempt at a decision
//                          that had fallen back because the cost source did not answer
//                          (library.h: when fallbacks are retried)
//   elapsed_us             time spent in toporr for this call on rank 0
//
// "verified": one per decision of toporr's collectives whose run-time check (client/
// verification.h) completed. Fields: event ("verified"), collective, algorithm,
// chosen_algorithm, bytes, root, size as in its decision; toporr_us and library_us (the
// slowest rank's time of each measured call of each path, in call order), toporr_median_us,
// library_median_us, library_order ("caller": the library's path is its call on the caller's
// communicator; "leaf-sorted": on one in the leaf-sorted order, where the plan predicted the
// library's call fastest: client/plan/plan.h PlanResult::library_mapping), and verdict
// ("toporr" or "mpi_library": what runs from then on; "toporr" is the decision,
// "mpi_library" the library's path).
#ifndef TOPORR_CLIENT_REPORT_DECISION_REPORT_H_
#define TOPORR_CLIENT_REPORT_DECISION_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/plan/plan.h"
#include "client/report/verification.h"
#include "common/json_writer.h"

namespace toporr::client {

struct CandidateTime {
  std::string algorithm;
  std::string mapping;  // "identity" or the reordering heuristic's name
  double predicted_ns = 0;
  std::string effective;  // the algorithm that runs (after fallbacks / the library's rules)
};

struct Decision {
  std::string collective;
  std::string algorithm;
  std::string chosen_algorithm;
  int64_t bytes = 0;
  int root = 0;
  int size = 0;
  int hosts = 0;
  std::string source;           // "daemon", "file", "local", "fallback"
  std::string fallback_reason;  // empty: null
  std::string daemon_address;   // empty: null
  int64_t snapshot_id = 0;      // 0: null
  std::string cost_form;        // "rows" or "groups"; empty: null
  std::string contention;       // "routes" or "host links"; empty: null
  std::vector<int32_t> new_order;
  double predicted_before_ns = -1;  // < 0: null
  double predicted_after_ns = -1;
  std::optional<CandidateTime> leaf_sorted;  // mapping "leaf-sorted"
  std::vector<CandidateTime> candidates;
  std::vector<std::string> levels;  // empty: null
  std::vector<PlanStage> stages;    // with levels; empty: null
  bool cached = false;
  int retry = 0;
  int64_t elapsed_us = 0;
};

// The JSON object of `d` on one line, with a trailing newline.
std::string DecisionJsonLine(const Decision& d);

// The "verified" line of a completed check of decision `d`.
// `library_leaf_sorted`: the library's path ran on the leaf-sorted order.
std::string VerificationJsonLine(const Decision& d, const Verification& v,
                                 bool library_leaf_sorted = false);

// `stages` as the report's JSON array, or null when empty (also toporrctl plan's).
void StagesJson(const std::vector<PlanStage>& stages, JsonWriter& w);

// Appends `line` to `path` in one write(2) with O_APPEND (created 0644), under
// common/output_file.h's AppendToFile rule: a regular file only, another user's link in a
// shared sticky directory refused, never blocking. Errors name the path.
absl::Status AppendReportLine(const std::string& path, const std::string& line);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_REPORT_DECISION_REPORT_H_
