#include "client/profile/traffic_profile.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/text_scan.h"

namespace toporr::client {
namespace {

constexpr std::string_view kCollectiveNames[kNumProfiledCollectives] = {
    "barrier",    "bcast",     "reduce",    "allreduce",      "allgather",
    "allgatherv", "gather",    "gatherv",   "scatter",        "scatterv",
    "alltoall",   "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
    "scan",       "exscan",
};

// At most `max` bytes of `s` as a std::string, to quote in a message (Debian's Abseil has
// its own string_view, which StrCat does not take from std::string_view).
std::string Quote(std::string_view s, size_t max = 32) { return std::string(s.substr(0, max)); }

// The pieces of `s` between `sep` characters (empty pieces kept).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t at; (at = s.find(sep)) != std::string_view::npos; s.remove_prefix(at + 1)) {
    out.push_back(s.substr(0, at));
  }
  out.push_back(s);
  return out;
}

// `s` split at runs of blanks.
std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  while (!(s = TrimLeft(s)).empty()) {
    size_t n = 0;
    while (n < s.size() && !IsBlank(s[n])) ++n;
    out.push_back(s.substr(0, n));
    s.remove_prefix(n);
  }
  return out;
}

// `ranks` as comma-separated `A` / `A-B` items (ascending runs of consecutive ranks).
void AppendMembers(const std::vector<int>& ranks, std::string* out) {
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    absl::StrAppend(out, i == 0 ? "" : ",", ranks[i]);
    if (j > i) absl::StrAppend(out, "-", ranks[j]);
    i = j + 1;
  }
}

void AppendCommunicator(const CommunicatorTraffic& c, int id, std::string* out) {
  absl::StrAppend(out, "comm ", id, " ", c.members.size(), " ");
  AppendMembers(c.members, out);
  if (!c.remote.empty()) {
    absl::StrAppend(out, " remote ", c.remote.size(), " ");
    AppendMembers(c.remote, out);
  }
  out->push_back('\n');
  for (int k = 0; k < kNumProfiledCollectives; ++k) {
    const CollectiveTraffic& t = c.collectives[k];
    if (t.calls == 0) continue;
    absl::StrAppend(out, "coll ", id, " ", Quote(kCollectiveNames[k]), " ", t.calls, " ", t.bytes,
                    "\n");
  }
}

void AppendPair(int src, int dst, const PeerTraffic& t, std::string* out) {
  absl::StrAppend(out, "p2p ", src, " ", dst, " ", t.bytes, " ", t.messages, "\n");
}

void AppendTime(int rank, const RankTime& t, std::string* out) {
  absl::StrAppend(out, "time ", rank, " ", t.wall_us, " ", t.mpi_us, "\n");
}

void AppendRma(int origin, int target, const RmaTraffic& t, std::string* out) {
  absl::StrAppend(out, "rma ", origin, " ", target, " ", t.bytes_to_target, " ",
                  t.bytes_from_target, " ", t.operations, "\n");
}

// Reads an encoded row front to back; every read is bounds-checked.
class RowReader {
 public:
  RowReader(absl::Span<const uint64_t> row, int ranks) : row_(row), ranks_(ranks) {}
  bool Word(uint64_t* w) {
    if (pos_ >= row_.size()) return false;
    *w = row_[pos_++];
    return true;
  }
  bool Count(size_t* n) {  // a length that the rest of the row can hold
    uint64_t w;
    if (!Word(&w) || w > row_.size() - pos_) return false;
    *n = static_cast<size_t>(w);
    return true;
  }
  bool Rank(int* r) {
    uint64_t w;
    if (!Word(&w) || w >= static_cast<uint64_t>(ranks_)) return false;
    *r = static_cast<int>(w);
    return true;
  }
  bool Ranks(size_t n, std::vector<int>* out) {
    out->resize(n);
    for (int& r : *out) {
      if (!Rank(&r)) return false;
    }
    return true;
  }
  bool done() const { return pos_ == row_.size(); }

 private:
  absl::Span<const uint64_t> row_;
  int ranks_;
  size_t pos_ = 0;
};

bool DecodeRow(absl::Span<const uint64_t> row, int rank, int ranks, int* next_id,
               std::string* out) {
  RowReader in(row, ranks);
  RankTime time;
  size_t peers, targets, communicators;
  if (!in.Word(&time.wall_us) || !in.Word(&time.mpi_us) || !in.Count(&peers) ||
      !in.Count(&targets) || !in.Count(&communicators)) {
    return false;
  }
  if (time.wall_us != 0 || time.mpi_us != 0) AppendTime(rank, time, out);
  for (size_t i = 0; i < peers; ++i) {
    int dst;
    PeerTraffic t;
    if (!in.Rank(&dst) || !in.Word(&t.bytes) || !in.Word(&t.messages)) return false;
    AppendPair(rank, dst, t, out);
  }
  for (size_t i = 0; i < targets; ++i) {
    int target;
    RmaTraffic t;
    if (!in.Rank(&target) || !in.Word(&t.bytes_to_target) || !in.Word(&t.bytes_from_target) ||
        !in.Word(&t.operations)) {
      return false;
    }
    AppendRma(rank, target, t, out);
  }
  for (size_t i = 0; i < communicators; ++i) {
    CommunicatorTraffic c;
    size_t members, remote, kinds;
    if (!in.Count(&members) || members == 0 || !in.Count(&remote) ||
        !in.Ranks(members, &c.members) || !in.Ranks(remote, &c.remote) || !in.Count(&kinds)) {
      return false;
    }
    for (size_t k = 0; k < kinds; ++k) {
      uint64_t kind;
      CollectiveTraffic t;
      if (!in.Word(&kind) || kind >= kNumProfiledCollectives || !in.Word(&t.calls) ||
          !in.Word(&t.bytes)) {
        return false;
      }
      c.collectives[kind] = t;
    }
    AppendCommunicator(c, (*next_id)++, out);
  }
  return in.done();
}

// ---- parsing ----

class Parser {
 public:
  Parser(std::string_view file_name) : file_name_(file_name) {}

  absl::Status Error(std::string_view what) const { return LineError(file_name_, line_, what); }

  absl::StatusOr<TrafficProfile> Parse(std::string_view text) {
    LineScanner lines(text);
    bool header = false, end = false;
    for (std::string_view raw; lines.Next(&raw);) {
      line_ = lines.number();
      const std::string_view line = Trim(raw);
      if (line.empty() || line.front() == '#') continue;
      if (end) return Error("a record after `end`");
      const std::vector<std::string_view> f = Fields(line);
      if (!header) {
        if (absl::Status s = Header(f); !s.ok()) return s;
        header = true;
        continue;
      }
      absl::Status s;
      if (f[0] == "time") {
        s = Time(f);
      } else if (f[0] == "p2p") {
        s = P2p(f);
      } else if (f[0] == "rma") {
        s = Rma(f);
      } else if (f[0] == "comm") {
        s = Comm(f);
      } else if (f[0] == "coll") {
        s = Coll(f);
      } else if (f[0] == "end" && f.size() == 1) {
        end = true;
      } else {
        s = Error(absl::StrCat("unknown record `", Quote(f[0], 32),
                               "` (expected time, p2p, rma, comm, coll or end)"));
      }
      if (!s.ok()) return s;
    }
    line_ = LineCount(text);
    if (!header) return Error("empty: no `toporr-profile` header");
    if (!end) return Error("truncated: no `end` line");
    return std::move(profile_);
  }

 private:
  absl::Status Header(const std::vector<std::string_view>& f) {
    if (f[0] != "toporr-profile") return Error("not a traffic profile: no `toporr-profile` header");
    uint64_t version = 0;
    if (f.size() < 2 || !Number(f[1], &version)) return Error("header without a version");
    if (version != kTrafficProfileVersion) {
      return Error(absl::StrCat("version ", Quote(f[1], 20), ": this reader knows version ",
                                kTrafficProfileVersion));
    }
    uint64_t ranks = 0;
    if (f.size() != 4 || f[2] != "ranks" || !Number(f[3], &ranks) || ranks == 0 ||
        ranks > (1u << 30)) {
      return Error("expected `toporr-profile 1 ranks N` with N >= 1");
    }
    profile_.ranks = static_cast<int>(ranks);
    return absl::OkStatus();
  }

  // An unsigned 64-bit decimal, 0 .. 18446744073709551615 (one to twenty digits).
  static bool Number(std::string_view s, uint64_t* v) {
    if (s.empty() || s.size() > 20) return false;
    uint64_t x = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (x > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
      x = x * 10 + d;
    }
    *v = x;
    return true;
  }
  bool Rank(std::string_view s, int* r) const {
    uint64_t v;
    if (!Number(s, &v) || v >= static_cast<uint64_t>(profile_.ranks)) return false;
    *r = static_cast<int>(v);
    return true;
  }
  absl::Status RankError(std::string_view s) const {
    return Error(absl::StrCat("`", Quote(s, 20), "` is not a rank of 0..", profile_.ranks - 1));
  }

  absl::Status Time(const std::vector<std::string_view>& f) {
    if (f.size() != 4) return Error("expected `time RANK WALL_US MPI_US`");
    TrafficProfile::Time t;
    if (!Rank(f[1], &t.rank)) return RankError(f[1]);
    if (!Number(f[2], &t.time.wall_us) || !Number(f[3], &t.time.mpi_us)) {
      return Error("time WALL_US and MPI_US must be unsigned numbers");
    }
    if (!timed_.insert(t.rank).second) return Error(absl::StrCat("time ", t.rank, " given twice"));
    profile_.times.push_back(t);
    return absl::OkStatus();
  }

  absl::Status P2p(const std::vector<std::string_view>& f) {
    if (f.size() != 5) return Error("expected `p2p SRC DST BYTES MESSAGES`");
    TrafficProfile::Pair p;
    if (!Rank(f[1], &p.src)) return RankError(f[1]);
    if (!Rank(f[2], &p.dst)) return RankError(f[2]);
    if (!Number(f[3], &p.traffic.bytes) || !Number(f[4], &p.traffic.messages)) {
      return Error("p2p BYTES and MESSAGES must be unsigned numbers");
    }
    if (!pairs_.insert({p.src, p.dst}).second) {
      return Error(absl::StrCat("p2p ", p.src, " ", p.dst, " given twice"));
    }
    profile_.p2p.push_back(p);
    return absl::OkStatus();
  }

  absl::Status Rma(const std::vector<std::string_view>& f) {
    if (f.size() != 6) {
      return Error("expected `rma ORIGIN TARGET BYTES_TO_TARGET BYTES_FROM_TARGET OPERATIONS`");
    }
    TrafficProfile::RmaPair p;
    if (!Rank(f[1], &p.origin)) return RankError(f[1]);
    if (!Rank(f[2], &p.target)) return RankError(f[2]);
    if (!Number(f[3], &p.traffic.bytes_to_target) || !Number(f[4], &p.traffic.bytes_from_target) ||
        !Number(f[5], &p.traffic.operations)) {
      return Error("rma byte and operation counts must be unsigned numbers");
    }
    if (!rma_pairs_.insert({p.origin, p.target}).second) {
      return Error(absl::StrCat("rma ", p.origin, " ", p.target, " given twice"));
    }
    profile_.rma.push_back(p);
    return absl::OkStatus();
  }

  // SIZE then MEMBERS (`A` / `A-B` items) into *out.
  absl::Status Members(std::string_view size_text, std::string_view list,
                       std::vector<int>* out) const {
    absl::flat_hash_set<int> seen;
    uint64_t size;
    if (!Number(size_text, &size) || size == 0 || size > static_cast<uint64_t>(profile_.ranks)) {
      return Error(absl::StrCat("communicator size `", Quote(size_text, 20), "` is not in 1..",
                                profile_.ranks));
    }
    for (std::string_view item : Split(list, ',')) {
      const std::vector<std::string_view> ab = Split(item, '-');
      int a, b;
      if (ab.size() > 2) return Error(absl::StrCat("member `", Quote(item), "` is not A or A-B"));
      if (!Rank(ab[0], &a)) return RankError(ab[0]);
      b = a;
      if (ab.size() == 2 && !Rank(ab[1], &b)) return RankError(ab[1]);
      if (b < a || out->size() + static_cast<uint64_t>(b - a) >= size) {
        return Error(
            absl::StrCat("member list `", Quote(list, 40), "` does not hold ", size, " ranks"));
      }
      for (int r = a; r <= b; ++r) {
        if (!seen.insert(r).second) {
          return Error(
              absl::StrCat("member list `", Quote(list, 40), "` names rank ", r, " twice"));
        }
        out->push_back(r);
      }
    }
    if (out->size() != size) {
      return Error(absl::StrCat("member list `", Quote(list, 40), "` holds ", out->size(),
                                " ranks, not ", size));
    }
    return absl::OkStatus();
  }

  absl::Status Comm(const std::vector<std::string_view>& f) {
    if (f.size() != 4 && !(f.size() == 7 && f[4] == "remote")) {
      return Error("expected `comm ID SIZE MEMBERS [remote RSIZE RMEMBERS]`");
    }
    uint64_t id;
    if (!Number(f[1], &id) || id != profile_.communicators.size()) {
      return Error(absl::StrCat("communicator ID `", Quote(f[1], 20), "` out of order: expected ",
                                profile_.communicators.size()));
    }
    CommunicatorTraffic c;
    if (absl::Status s = Members(f[2], f[3], &c.members); !s.ok()) return s;
    if (f.size() == 7) {
      if (absl::Status s = Members(f[5], f[6], &c.remote); !s.ok()) return s;
    }
    profile_.communicators.push_back(std::move(c));
    return absl::OkStatus();
  }

  absl::Status Coll(const std::vector<std::string_view>& f) {
    if (f.size() != 5) return Error("expected `coll ID NAME CALLS BYTES`");
    uint64_t id;
    if (!Number(f[1], &id) || id >= profile_.communicators.size()) {
      return Error(
          absl::StrCat("coll for communicator `", Quote(f[1], 20), "` before its `comm` line"));
    }
    const std::optional<ProfiledCollective> c = ParseProfiledCollective(f[2]);
    if (!c) return Error(absl::StrCat("unknown collective `", Quote(f[2], 32), "`"));
    CollectiveTraffic& t = profile_.communicators[id].collectives[static_cast<int>(*c)];
    if (t.calls != 0) return Error(absl::StrCat("coll ", id, " ", Quote(f[2]), " given twice"));
    if (!Number(f[3], &t.calls) || !Number(f[4], &t.bytes) || t.calls == 0) {
      return Error("coll CALLS (>= 1) and BYTES must be unsigned numbers");
    }
    return absl::OkStatus();
  }

  std::string_view file_name_;
  long line_ = 0;
  TrafficProfile profile_;
  absl::flat_hash_set<std::pair<int, int>> pairs_, rma_pairs_;
  absl::flat_hash_set<int> timed_;
};

}  // namespace

std::string_view ProfiledCollectiveName(ProfiledCollective c) {
  return kCollectiveNames[static_cast<int>(c)];
}

std::optional<ProfiledCollective> ParseProfiledCollective(std::string_view name) {
  for (int k = 0; k < kNumProfiledCollectives; ++k) {
    if (kCollectiveNames[k] == name) return static_cast<ProfiledCollective>(k);
  }
  return std::nullopt;
}

PeerTraffic* RankTraffic::Peer(int dest, bool* added) {
  const size_t before = peers_.size();
  PeerTraffic* t = &peers_[dest];
  *added = peers_.size() != before;
  return t;
}

void RankTraffic::AddRma(int target, uint64_t bytes_to_target, uint64_t bytes_from_target) {
  RmaTraffic& t = rma_[target];
  t.bytes_to_target += bytes_to_target;
  t.bytes_from_target += bytes_from_target;
  ++t.operations;
}

CollectiveTraffic* RankTraffic::Collectives(const std::vector<int>& members,
                                            const std::vector<int>& remote) {
  std::vector<int> key = members;
  if (!remote.empty()) {
    key.push_back(-1);
    key.insert(key.end(), remote.begin(), remote.end());
  }
  std::unique_ptr<CommunicatorTraffic>& c = communicators_[std::move(key)];
  if (c == nullptr) {
    c = std::make_unique<CommunicatorTraffic>();
    c->members = members;
    c->remote = remote;
  }
  return c->collectives.data();
}

std::vector<uint64_t> RankTraffic::Encode() const {
  std::vector<std::pair<int, PeerTraffic>> peers(peers_.begin(), peers_.end());
  std::vector<std::pair<int, RmaTraffic>> rma(rma_.begin(), rma_.end());
  std::vector<const CommunicatorTraffic*> comms;
  for (const auto& [key, c] : communicators_) comms.push_back(c.get());
  auto by_rank = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::sort(peers.begin(), peers.end(), by_rank);
  std::sort(rma.begin(), rma.end(), by_rank);
  std::sort(comms.begin(), comms.end(), [](const auto* a, const auto* b) {
    return std::tie(a->members, a->remote) < std::tie(b->members, b->remote);
  });
  std::vector<uint64_t> row = {time_.wall_us, time_.mpi_us, peers.size(), rma.size(), comms.size()};
  for (const auto& [dst, t] : peers) row.insert(row.end(), {uint64_t(dst), t.bytes, t.messages});
  for (const auto& [target, t] : rma) {
    row.insert(row.end(), {uint64_t(target), t.bytes_to_target, t.bytes_from_target, t.operations});
  }
  for (const CommunicatorTraffic* c : comms) {
    row.push_back(c->members.size());
    row.push_back(c->remote.size());
    row.insert(row.end(), c->members.begin(), c->members.end());
    row.insert(row.end(), c->remote.begin(), c->remote.end());
    const size_t kinds_at = row.size();
    row.push_back(0);
    for (int k = 0; k < kNumProfiledCollectives; ++k) {
      if (c->collectives[k].calls == 0) continue;
      row.insert(row.end(), {uint64_t(k), c->collectives[k].calls, c->collectives[k].bytes});
      ++row[kinds_at];
    }
  }
  return row;
}

std::string TrafficProfileHeader(int ranks) {
  return absl::StrCat("toporr-profile ", kTrafficProfileVersion, " ranks ", ranks, "\n");
}

absl::Status AppendRankLines(absl::Span<const uint64_t> row, int rank, int ranks,
                             int* next_communicator_id, std::string* out) {
  std::string lines;
  int next = *next_communicator_id;
  if (!DecodeRow(row, rank, ranks, &next, &lines)) {
    return absl::DataLossError(
        absl::StrCat("traffic row of rank ", rank, " is malformed (", row.size(), " words)"));
  }
  out->append(lines);
  *next_communicator_id = next;
  return absl::OkStatus();
}

std::string FormatTrafficProfile(const TrafficProfile& profile) {
  std::string out = TrafficProfileHeader(profile.ranks);
  for (const TrafficProfile::Time& t : profile.times) AppendTime(t.rank, t.time, &out);
  for (const TrafficProfile::Pair& p : profile.p2p) AppendPair(p.src, p.dst, p.traffic, &out);
  for (const TrafficProfile::RmaPair& p : profile.rma) {
    AppendRma(p.origin, p.target, p.traffic, &out);
  }
  for (size_t i = 0; i < profile.communicators.size(); ++i) {
    AppendCommunicator(profile.communicators[i], static_cast<int>(i), &out);
  }
  out.append(kTrafficProfileEnd);
  return out;
}

absl::StatusOr<TrafficProfile> ParseTrafficProfile(std::string_view text,
                                                   std::string_view file_name) {
  return Parser(file_name).Parse(text);
}

std::optional<MpiTimeShare> MpiShareOf(const TrafficProfile& profile) {
  MpiTimeShare share;
  double sum = 0;
  for (const TrafficProfile::Time& t : profile.times) {
    if (t.time.wall_us == 0) continue;
    const double f = std::min(1.0, static_cast<double>(t.time.mpi_us) / t.time.wall_us);
    share.min = share.ranks == 0 ? f : std::min(share.min, f);
    share.max = share.ranks == 0 ? f : std::max(share.max, f);
    sum += f;
    ++share.ranks;
  }
  if (share.ranks == 0) return std::nullopt;
  share.mean = sum / share.ranks;
  return share;
}

}  // namespace toporr::client
