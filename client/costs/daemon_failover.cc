#include "client/costs/daemon_failover.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toporr::client {
namespace {

bool Unanswered(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s);
}

}  // namespace

std::chrono::steady_clock::duration DaemonShare(std::chrono::steady_clock::duration left,
                                                int daemons_left) {
  const auto fair = left / std::max(daemons_left, 1);
  return std::min<std::chrono::steady_clock::duration>(
      left, std::max<std::chrono::steady_clock::duration>(fair, kMinDaemonShare));
}

DaemonFailover::DaemonFailover(Options options)
    : names_(std::move(options.names)),
      backoff_(options.backoff),
      now_(std::move(options.now)),
      daemons_(names_.size()) {}

bool DaemonFailover::AnsweredBefore(int index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return daemons_[index].answered_before;
}

int DaemonFailover::first() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_;
}

absl::Status DaemonFailover::Record(int index, Clock::time_point started, const Attempt& attempt) {
  std::lock_guard<std::mutex> lock(mu_);
  Daemon& d = daemons_[index];
  absl::Status result = attempt.status;
  if (backoff_ && absl::IsDeadlineExceeded(result) && !d.answered_before &&
      absl::IsUnavailable(d.unanswered)) {
    result = d.unanswered;
  }
  if (Unanswered(result) && backoff_) {
    const Clock::time_point now = now_();
    const Clock::duration base =
        std::max<Clock::duration>(kMinDaemonBackoff, kDaemonBackoffPerCallTime * (now - started));
    d.backoff = std::min<Clock::duration>(
        d.unanswered.ok() ? base : std::max<Clock::duration>(2 * d.backoff, base),
        kMaxDaemonBackoff);
    d.quiet_until = now + d.backoff;
    d.unanswered = result;
    d.unanswered_is_answer = !attempt.failover;
  } else if (!Unanswered(result) && !attempt.failover) {
    d.unanswered = absl::OkStatus();
    d.answered_before = true;
  }  // else: no request was made (no channel), or an unanswered one without back-off
  if (!attempt.failover) first_ = index;
  return result;
}

DaemonFailover::Result DaemonFailover::Run(Clock::time_point deadline, const Ask& ask) {
  const int n = size();
  std::vector<int> order;
  std::vector<absl::Status> quiet(n);  // the failure of a daemon in its back-off
  std::vector<bool> quiet_is_answer(n, false);
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point now = now_();
    for (int k = 0; k < n; ++k) order.push_back((first_ + k) % n);
    for (int i = 0; i < n; ++i) {
      const Daemon& d = daemons_[i];
      if (!d.unanswered.ok() && now < d.quiet_until) {
        quiet[i] = d.unanswered;
        quiet_is_answer[i] = d.unanswered_is_answer;
      }
    }
  }
  int to_ask = 0;
  for (int i = 0; i < n; ++i) to_ask += quiet[i].ok() ? 1 : 0;

  Result r;
  for (int i : order) {
    if (!quiet[i].ok()) {
      if (quiet_is_answer[i]) {  // the daemon's own answer, e.g. a TLS failure: it stands
        r.status = quiet[i];
        r.daemon = i;
        return r;
      }
      r.unanswered.emplace_back(i, quiet[i]);  // as it was: the same cause, the same words
      continue;
    }
    const Clock::time_point started = now_();
    if (started >= deadline) {
      r.unanswered.emplace_back(i, absl::DeadlineExceededError(absl::StrCat(
                                       names_[i], ": not asked, the deadline had passed")));
      --to_ask;
      continue;
    }
    const Clock::time_point share = started + DaemonShare(deadline - started, to_ask);
    const Attempt attempt = ask(i, std::min(share, deadline));
    --to_ask;
    absl::Status result = Record(i, started, attempt);
    if (!attempt.failover) {
      r.status = std::move(result);
      r.daemon = i;
      return r;
    }
    r.unanswered.emplace_back(i, std::move(result));
  }
  return Combined(std::move(r));
}

DaemonFailover::Result DaemonFailover::RunOn(int index, Clock::time_point deadline,
                                             const Ask& ask) {
  Result r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Daemon& d = daemons_[index];
    if (!d.unanswered.ok() && now_() < d.quiet_until) {
      r.status = d.unanswered;
      if (d.unanswered_is_answer) {
        r.daemon = index;
      } else {
        r.unanswered.emplace_back(index, d.unanswered);
      }
      return r;
    }
  }
  const Clock::time_point started = now_();
  const Attempt attempt = ask(index, deadline);
  absl::Status result = Record(index, started, attempt);
  if (!attempt.failover) {
    r.status = std::move(result);
    r.daemon = index;
  } else {
    r.status = result;
    r.unanswered.emplace_back(index, std::move(result));
  }
  return r;
}

DaemonFailover::Result DaemonFailover::Combined(Result r) const {
  if (r.unanswered.size() == 1) {
    r.status = r.unanswered.front().second;
    return r;
  }
  absl::StatusCode code = r.unanswered.back().second.code();
  for (const auto& [index, failure] : r.unanswered) {
    if (Unanswered(failure)) code = failure.code();
  }
  std::string message =
      absl::StrCat("none of the ", r.unanswered.size(), " toporrd addresses answered: ");
  for (size_t k = 0; k < r.unanswered.size(); ++k) {
    absl::StrAppend(&message, k == 0 ? "" : "; ", r.unanswered[k].second.message());
  }
  r.status = absl::Status(code, message);
  return r;
}

}  // namespace toporr::client
