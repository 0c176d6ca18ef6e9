#include "mapping/schedules/pattern.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

using ::testing::_;
using ::toporr::testing::StatusIs;

// ---------------------------------------------------------------- symbolic execution
//
// Every rank holds, for each tracked element of the data space, a multiset fingerprint of
// the contributions it has combined: (number of contributions, sum of 64-bit random tags).
// kCopy replaces the receiver's fingerprint with the sender's pre-step one, kReduce adds it.
// "Every contribution exactly once" is then (n == p, sum == sum of all tags): a missing or
// duplicated contribution changes n, and a swap would need two equal random tags.
struct Fingerprint {
  uint32_t n = 0;
  uint64_t sum = 0;
};

class SymbolicRun {
 public:
  explicit SymbolicRun(const PatternSpec& spec) : spec_(spec), p_(spec.num_ranks) {
    space_ = DataSpaceElements(spec);
    std::mt19937_64 rng(12345 + p_);
    tags_.resize(p_);
    for (auto& t : tags_) t = rng();
    // Track every element of small spaces; for large ones a sample that includes both ends,
    // block/segment boundaries and random interior points.
    constexpr int64_t kMaxTracked = 96;
    if (space_ <= kMaxTracked) {
      for (int64_t e = 0; e < space_; ++e) tracked_.push_back(e);
    } else {
      std::set<int64_t> s = {0, 1, space_ - 2, space_ - 1, space_ / 2};
      while (static_cast<int64_t>(s.size()) < kMaxTracked) {
        s.insert(static_cast<int64_t>(rng() % space_));
      }
      tracked_.assign(s.begin(), s.end());
    }
    const int64_t t = tracked_.size();
    state_.assign(p_ * t, Fingerprint{});
    for (int64_t r = 0; r < p_; ++r) {
      for (int64_t i = 0; i < t; ++i) {
        if (Initially(r, tracked_[i])) state_[r * t + i] = {1, tags_[r]};
      }
    }
  }

  void Apply(const Step& step) {
    const int64_t t = tracked_.size();
    incoming_.clear();
    for (const Transfer& x : step.transfers) {
      ASSERT_EQ(step.repeat, 1);
      ASSERT_GE(x.src, 0);
      ASSERT_LT(x.src, p_);
      ASSERT_GE(x.dst, 0);
      ASSERT_LT(x.dst, p_);
      ASSERT_NE(x.src, x.dst);
      ASSERT_GE(x.elem_count, 0);
      ASSERT_LE(x.elem_count, space_);
      ASSERT_EQ(x.bytes, x.elem_count * spec_.type_size);
      ASSERT_EQ(x.total_bytes, x.bytes);
      total_bytes_ += x.bytes;
      ForTracked(x.elem_begin, x.elem_count, [&](int64_t i) {
        incoming_.push_back({x.dst * t + i, state_[x.src * t + i], x.combine});
      });
    }
    for (const auto& in : incoming_) {
      Fingerprint& f = state_[in.slot];
      if (in.combine == Combine::kCopy) {
        f = in.value;
      } else {
        f.n += in.value.n;
        f.sum += in.value.sum;
      }
    }
    ++steps_;
  }

  // Empty string when every rank the collective promises data to holds exactly it.
  std::string Check() const {
    const int64_t t = tracked_.size();
    uint64_t all = 0;
    for (uint64_t x : tags_) all += x;
    for (int64_t r = 0; r < p_; ++r) {
      const bool rooted_only =
          spec_.collective == Collective::kGather || spec_.collective == Collective::kReduce;
      if (rooted_only && r != spec_.root) continue;
      for (int64_t i = 0; i < t; ++i) {
        const Fingerprint& f = state_[r * t + i];
        Fingerprint want;
        switch (spec_.collective) {
          case Collective::kAllreduce:
          case Collective::kReduce:
            want = {static_cast<uint32_t>(p_), all};
            break;
          case Collective::kBcast:
            want = {1, tags_[spec_.root]};
            break;
          case Collective::kAllgather:
          case Collective::kGather:
            want = {1, tags_[tracked_[i] / spec_.count]};
            break;
        }
        if (f.n != want.n || f.sum != want.sum) {
          return absl::StrCat("rank ", r, " element ", tracked_[i], ": has ", f.n,
                              " contributions, want ", want.n,
                              f.n == want.n ? " (wrong contributors)" : "");
        }
      }
    }
    return "";
  }

  int64_t steps() const { return steps_; }
  int64_t total_bytes() const { return total_bytes_; }

 private:
  struct Incoming {
    int64_t slot;
    Fingerprint value;
    Combine combine;
  };

  bool Initially(int64_t r, int64_t e) const {
    switch (spec_.collective) {
      case Collective::kAllreduce:
      case Collective::kReduce:
        return true;
      case Collective::kBcast:
        return r == spec_.root;
      case Collective::kAllgather:
      case Collective::kGather:
        return e / spec_.count == r;
    }
    return false;
  }

  template <typename F>
  void ForTracked(int64_t begin, int64_t len, F f) const {
    auto range = [&](int64_t lo, int64_t hi) {  // [lo, hi) within [0, space_)
      auto it = std::lower_bound(tracked_.begin(), tracked_.end(), lo);
      for (; it != tracked_.end() && *it < hi; ++it) f(it - tracked_.begin());
    };
    begin %= space_;
    if (begin + len <= space_) {
      range(begin, begin + len);
    } else {
      range(begin, space_);
      range(0, begin + len - space_);
    }
  }

  PatternSpec spec_;
  int64_t p_;
  int64_t space_;
  std::vector<uint64_t> tags_;
  std::vector<int64_t> tracked_;
  std::vector<Fingerprint> state_;
  std::vector<Incoming> incoming_;
  int64_t steps_ = 0;
  int64_t total_bytes_ = 0;
};

std::string Describe(const PatternSpec& s) {
  return absl::StrCat(std::string(CollectiveName(s.collective)), "/",
                      std::string(AlgorithmName(s.algorithm)), " p=", s.num_ranks, " root=", s.root,
                      " count=", s.count, " type_size=", s.type_size, " seg=", s.segment_bytes,
                      " radix=", s.radix, " fanout=", s.chain_fanout);
}

// Runs the exact schedule symbolically and cross-checks the folded schedule's volumes.
void CheckSchedule(const PatternSpec& spec) {
  SCOPED_TRACE(Describe(spec));
  SymbolicRun run(spec);
  ASSERT_OK(ForEachExactStep(spec, [&](const Step& s) { run.Apply(s); }));
  EXPECT_EQ(run.Check(), "");
  int64_t folded_steps = 0, folded_bytes = 0;
  ASSERT_OK(ForEachStep(spec, [&](const Step& s) {
    ASSERT_GE(s.repeat, 1);
    ASSERT_FALSE(s.transfers.empty());
    folded_steps += s.repeat;
    for (const Transfer& t : s.transfers) {
      folded_bytes += t.total_bytes;
      ASSERT_LE(t.total_bytes, t.bytes * s.repeat);
    }
  }));
  EXPECT_EQ(folded_steps, run.steps());
  EXPECT_EQ(folded_bytes, run.total_bytes());
}

std::vector<int> Roots(int p) {
  std::set<int> r = {0, p - 1, p / 2, (p * 2) / 3};
  return {r.begin(), r.end()};
}

// All algorithm variants of a collective worth executing at size p.
std::vector<PatternSpec> Variants(int p, bool many) {
  std::vector<PatternSpec> out;
  auto add = [&](Collective c, Algorithm a, int root, int64_t count, int64_t seg = 0,
                 int type_size = 1) {
    PatternSpec s;
    s.collective = c;
    s.algorithm = a;
    s.num_ranks = p;
    s.root = root;
    s.count = count;
    s.segment_bytes = seg;
    s.type_size = type_size;
    out.push_back(s);
  };
  const std::vector<int64_t> counts =
      many ? std::vector<int64_t>{1, std::max(1, p - 1), p, p + p / 3 + 1, 3 * int64_t{p} + 7}
           : std::vector<int64_t>{p + p / 3 + 1};
  for (Algorithm a : AlgorithmsFor(Collective::kAllreduce)) {
    for (int64_t c : counts) add(Collective::kAllreduce, a, 0, c, 0, 4);
  }
  // Segmented ring with several phases (segment of 2 elements, non-uniform blocks).
  add(Collective::kAllreduce, Algorithm::kSegmentedRing, 0, 5 * int64_t{p} + 3, 8, 4);
  add(Collective::kAllreduce, Algorithm::kSegmentedRing, 0, 7 * int64_t{p} + p / 2, 3, 1);
  for (Algorithm a : AlgorithmsFor(Collective::kAllgather)) add(Collective::kAllgather, a, 0, 3);
  for (int root : many ? Roots(p) : std::vector<int>{p / 3}) {
    for (Algorithm a : AlgorithmsFor(Collective::kBcast)) {
      for (int64_t c : counts) add(Collective::kBcast, a, root, c);
      add(Collective::kBcast, a, root, 2 * int64_t{p} + 5, /*seg=*/3);  // several segments
    }
    out.back().chain_fanout = 3;
    PatternSpec k = out.back();
    k.algorithm = Algorithm::kKnomial;
    for (int radix : {2, 3, 5}) {
      k.radix = radix;
      out.push_back(k);
    }
    add(Collective::kBcast, Algorithm::kLinear, root, 5);
    add(Collective::kGather, Algorithm::kBinomial, root, 2);
    add(Collective::kReduce, Algorithm::kBinomial, root, 11);
    add(Collective::kReduce, Algorithm::kBinomial, root, 23, /*seg=*/4);
  }
  for (PatternSpec& s : out) {
    if (s.algorithm == Algorithm::kChain && s.chain_fanout == 4 && p % 3 == 0) s.chain_fanout = 2;
  }
  return out;
}

TEST(PatternSymbolicTest, EverySizeUpTo300) {
  for (int p = 1; p <= 300; ++p) {
    for (const PatternSpec& s : Variants(p, /*many=*/p <= 40 || p % 17 == 0)) {
      CheckSchedule(s);
      if (HasFailure()) return;
    }
  }
}

// Schedules with O(p^2) transfers (every ring pass) run up to p = 1000 here and at 2048 and
// 4096 in their own test below; the logarithmic ones up to 4096. Sizes 1..300 above cover
// every algorithm.
bool Quadratic(const PatternSpec& s) {
  const Algorithm a = EffectiveAlgorithm(s);
  return a == Algorithm::kRing || a == Algorithm::kSegmentedRing ||
         a == Algorithm::kScatterAllgatherRing ||
         ((a == Algorithm::kPipeline || a == Algorithm::kChain) && s.segment_bytes > 0);
}

TEST(PatternSymbolicTest, PowersOfTwoTo4096AndNeighbours) {
  for (int p : {512, 1000, 1024, 2048, 4095, 4096}) {
    for (const PatternSpec& s : Variants(p, /*many=*/false)) {
      if (p > 1000 && Quadratic(s)) continue;
      CheckSchedule(s);
      if (HasFailure()) return;
    }
  }
}

// The O(p^2) schedules at the largest powers of two, one spec each (the cheapest count that
// keeps the algorithm: every rank still sends p - 1 blocks per pass).
TEST(PatternSymbolicTest, QuadraticSchedulesAt2048And4096) {
  for (int p : {2048, 4096}) {
    std::set<Algorithm> done;
    for (const PatternSpec& s : Variants(p, /*many=*/false)) {
      if (!Quadratic(s) || !done.insert(EffectiveAlgorithm(s)).second) continue;
      CheckSchedule(s);
      if (HasFailure()) return;
    }
    EXPECT_FALSE(done.empty()) << p;
  }
}

TEST(PatternSymbolicTest, DetectsBrokenSchedules) {
  PatternSpec s;
  s.num_ranks = 6;
  s.count = 13;
  // Dropping the last allgather step leaves some rank without one block.
  {
    SymbolicRun run(s);
    std::vector<Step> steps;
    ASSERT_OK(ForEachExactStep(s, [&](const Step& st) { steps.push_back(st); }));
    for (size_t i = 0; i + 1 < steps.size(); ++i) run.Apply(steps[i]);
    EXPECT_NE(run.Check(), "");
  }
  // Replaying a reduce-scatter step double-counts contributions.
  {
    SymbolicRun run(s);
    std::vector<Step> steps;
    ASSERT_OK(ForEachExactStep(s, [&](const Step& st) { steps.push_back(st); }));
    run.Apply(steps[0]);
    for (const Step& st : steps) run.Apply(st);
    EXPECT_NE(run.Check(), "");
  }
}

// ------------------------------------------------------------------- exact structure

std::map<int, std::vector<int>> EdgesOf(const PatternSpec& spec) {
  std::map<int, std::vector<int>> children;
  EXPECT_OK(ForEachExactStep(spec, [&](const Step& s) {
    for (const Transfer& t : s.transfers) children[t.src].push_back(t.dst);
  }));
  return children;
}

PatternSpec Bcast(Algorithm a, int p, int root = 0) {
  PatternSpec s;
  s.collective = Collective::kBcast;
  s.algorithm = a;
  s.num_ranks = p;
  s.root = root;
  s.count = 1000;
  return s;
}

TEST(PatternTest, TreesMatchOpenMpiBuilders) {
  using V = std::vector<int>;
  auto bin = EdgesOf(Bcast(Algorithm::kBinomial, 8));
  EXPECT_EQ(bin[0], (V{1, 2, 4}));
  EXPECT_EQ(bin[1], (V{3, 5}));
  EXPECT_EQ(bin[2], (V{6}));
  EXPECT_EQ(bin[3], (V{7}));
  auto bt = EdgesOf(Bcast(Algorithm::kBinaryTree, 7));
  EXPECT_EQ(bt[0], (V{1, 2}));
  EXPECT_EQ(bt[1], (V{3, 5}));
  EXPECT_EQ(bt[2], (V{4, 6}));
  PatternSpec k = Bcast(Algorithm::kKnomial, 10);
  auto k4 = EdgesOf(k);
  EXPECT_EQ(k4[0], (V{4, 8, 1, 2, 3}));
  EXPECT_EQ(k4[4], (V{5, 6, 7}));
  EXPECT_EQ(k4[8], (V{9}));
  k.radix = 2;
  auto k2 = EdgesOf(k);
  EXPECT_EQ(k2[0], (V{8, 4, 2, 1}));
  EXPECT_EQ(k2[4], (V{6, 5}));
  // Root 3 of 8: the binomial tree is shifted: real = (v + 3) % 8.
  auto shifted = EdgesOf(Bcast(Algorithm::kBinomial, 8, 3));
  EXPECT_EQ(shifted[3], (V{4, 5, 7}));
  EXPECT_EQ(shifted[4], (V{6, 0}));
  // Chain of fanout 3 over 9 ranks: chains 1-2-3, 4-5-6, 7-8.
  PatternSpec c = Bcast(Algorithm::kChain, 9);
  c.chain_fanout = 3;
  auto ch = EdgesOf(c);
  EXPECT_EQ(ch[0], (V{1, 4, 7}));
  EXPECT_EQ(ch[3], V{});
  EXPECT_EQ(ch[7], (V{8}));
}

TEST(PatternTest, RingAllreduceUsesEarlyAndLateBlocks) {
  PatternSpec s;
  s.num_ranks = 4;
  s.count = 10;  // blocks 3,3,2,2
  s.type_size = 8;
  std::vector<std::vector<int64_t>> sizes;
  ASSERT_OK(ForEachExactStep(s, [&](const Step& st) {
    std::vector<int64_t> b;
    for (const Transfer& t : st.transfers) {
      EXPECT_EQ(t.dst, (t.src + 1) % 4);
      b.push_back(t.bytes);
    }
    sizes.push_back(b);
  }));
  ASSERT_EQ(sizes.size(), 6u);
  // Step 0 of reduce-scatter: rank r sends block r.
  EXPECT_EQ(sizes[0], (std::vector<int64_t>{24, 24, 16, 16}));
  // Step 0 of allgather: rank r sends block r+1.
  EXPECT_EQ(sizes[3], (std::vector<int64_t>{24, 16, 16, 24}));
  // Folded: both phases have the same peers and largest sizes, so they fold into one step
  // of repeat 6 with exact totals (rank 0 never sends block 1 in reduce-scatter, block 2 in
  // allgather).
  std::vector<Step> folded;
  ASSERT_OK(ForEachStep(s, [&](const Step& st) { folded.push_back(st); }));
  ASSERT_EQ(folded.size(), 1u);
  EXPECT_EQ(folded[0].repeat, 6);
  EXPECT_EQ(folded[0].transfers[0].bytes, 24);
  EXPECT_EQ(folded[0].transfers[0].total_bytes, ((10 - 3) + (10 - 2)) * 8);
}

// Bytes and destinations of rank 0's sends, in schedule order.
std::pair<std::vector<int64_t>, std::vector<int>> RankZeroSends(const PatternSpec& s) {
  std::pair<std::vector<int64_t>, std::vector<int>> out;
  EXPECT_OK(ForEachExactStep(s, [&](const Step& st) {
    for (const Transfer& t : st.transfers)
      if (t.src == 0) {
        out.first.push_back(t.bytes);
        out.second.push_back(t.dst);
      }
  }));
  return out;
}

TEST(PatternTest, RabenseifnerHalvesThenDoubles) {
  PatternSpec s;
  s.algorithm = Algorithm::kRabenseifner;
  s.num_ranks = 8;
  s.count = 64;
  const auto [bytes, peers] = RankZeroSends(s);
  EXPECT_EQ(bytes, (std::vector<int64_t>{32, 16, 8, 8, 16, 32}));
  EXPECT_EQ(peers, (std::vector<int>{1, 2, 4, 4, 2, 1}));
}

TEST(PatternTest, SwingUsesShortCutPeers) {
  PatternSpec s;
  s.algorithm = Algorithm::kSwing;
  s.num_ranks = 16;
  s.count = 10;
  std::vector<int> peer0, peer1;
  ASSERT_OK(ForEachExactStep(s, [&](const Step& st) {
    for (const Transfer& t : st.transfers) {
      EXPECT_EQ(t.elem_count, 10);
      if (t.src == 0) peer0.push_back(t.dst);
      if (t.src == 1) peer1.push_back(t.dst);
    }
  }));
  EXPECT_EQ(peer0, (std::vector<int>{1, 15, 3, 11}));
  EXPECT_EQ(peer1, (std::vector<int>{0, 2, 14, 6}));
  // 6 ranks: 0 -> 1 and 2 -> 3 fold in; virtual ranks 1,3,4,5 run Swing on 4; results back.
  s.num_ranks = 6;
  std::vector<std::vector<std::pair<int, int>>> steps;
  ASSERT_OK(ForEachExactStep(s, [&](const Step& st) {
    steps.emplace_back();
    for (const Transfer& t : st.transfers) steps.back().emplace_back(t.src, t.dst);
  }));
  using P = std::vector<std::pair<int, int>>;
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0], (P{{0, 1}, {2, 3}}));
  EXPECT_EQ(steps[1], (P{{1, 3}, {3, 1}, {4, 5}, {5, 4}}));  // virtual 0<->1, 2<->3
  EXPECT_EQ(steps[2], (P{{1, 5}, {3, 4}, {4, 3}, {5, 1}}));  // virtual 0<->3, 1<->2
  EXPECT_EQ(steps[3], (P{{1, 0}, {3, 2}}));
}

TEST(PatternTest, SwingBandwidthHalvesOverSwingPeers) {
  PatternSpec s;
  s.algorithm = Algorithm::kSwingBandwidth;
  s.num_ranks = 8;
  s.count = 64;
  const auto [bytes, peers] = RankZeroSends(s);
  EXPECT_EQ(bytes, (std::vector<int64_t>{32, 16, 8, 8, 16, 32}));
  EXPECT_EQ(peers, (std::vector<int>{1, 7, 3, 3, 7, 1}));
  s.count = 3;  // fewer elements than the power of two: the latency-optimal schedule
  EXPECT_EQ(EffectiveAlgorithm(s), Algorithm::kSwing);
}

TEST(PatternTest, BineBcastIsAHalvingSwingTree) {
  using V = std::vector<int>;
  auto bine = EdgesOf(Bcast(Algorithm::kBine, 8));
  EXPECT_EQ(bine[0], (V{3, 7, 1}));  // distances 3, 1 (7 = -1), 1
  EXPECT_EQ(bine[3], (V{4, 2}));
  EXPECT_EQ(bine[7], (V{6}));
  EXPECT_EQ(bine[4], (V{5}));
  // Root 5 of 8: the tree is built on shifted ranks, real = (v + 5) % 8.
  auto shifted = EdgesOf(Bcast(Algorithm::kBine, 8, 5));
  EXPECT_EQ(shifted[5], (V{0, 4, 6}));
  // 6 ranks: the tree on 4 folded ranks (0, 2, 4, 5): 0 -> 5; 0 -> 2, 5 -> 4; then the
  // pairs' odd members: 0 -> 1, 2 -> 3.
  std::vector<int> stage_of(6, -1);
  int stage = 0;
  ASSERT_OK(ForEachExactStep(Bcast(Algorithm::kBine, 6), [&](const Step& st) {
    for (const Transfer& t : st.transfers) stage_of[t.dst] = stage;
    ++stage;
  }));
  EXPECT_EQ(stage, 3);
  EXPECT_EQ(stage_of, (V{-1, 2, 1, 2, 1, 0}));
}

TEST(PatternTest, FallbacksFollowOpenMpi) {
  PatternSpec s;
  s.num_ranks = 6;
  s.count = 5;
  EXPECT_EQ(EffectiveAlgorithm(s), Algorithm::kRecursiveDoubling);  // ring, count < p
  s.collective = Collective::kAllgather;
  s.algorithm = Algorithm::kRecursiveDoubling;
  EXPECT_EQ(EffectiveAlgorithm(s), Algorithm::kBruck);  // non-power-of-two
  s.num_ranks = 8;
  EXPECT_EQ(EffectiveAlgorithm(s), Algorithm::kRecursiveDoubling);
  s = Bcast(Algorithm::kScatterAllgather, 16);
  s.count = 15;
  EXPECT_EQ(EffectiveAlgorithm(s), Algorithm::kLinear);
  s = Bcast(Algorithm::kSplitBinaryTree, 16);
  s.count = 1;
  EXPECT_EQ(EffectiveAlgorithm(s), Algorithm::kPipeline);
}

TEST(PatternTest, RejectsBadSpecs) {
  PatternSpec s;
  s.num_ranks = 0;
  EXPECT_THAT(ValidateSpec(s), StatusIs(absl::StatusCode::kInvalidArgument, _));
  s.num_ranks = 4;
  s.root = 4;
  EXPECT_THAT(ValidateSpec(s), StatusIs(absl::StatusCode::kInvalidArgument, _));
  s.root = 0;
  s.algorithm = Algorithm::kBinomial;  // not an allreduce algorithm
  EXPECT_THAT(ForEachStep(s, [](const Step&) {}), StatusIs(absl::StatusCode::kInvalidArgument, _));
  s = Bcast(Algorithm::kKnomial, 4);
  s.radix = 1;
  EXPECT_THAT(ValidateSpec(s), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(ParseAlgorithm("butterfly"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  ASSERT_OK_AND_ASSIGN(Algorithm a, ParseAlgorithm("split_binary_tree"));
  EXPECT_EQ(a, Algorithm::kSplitBinaryTree);
  ASSERT_OK_AND_ASSIGN(a, ParseAlgorithm("swing_bandwidth"));
  EXPECT_EQ(a, Algorithm::kSwingBandwidth);
  s = Bcast(Algorithm::kSwing, 4);  // an allreduce algorithm
  EXPECT_THAT(ValidateSpec(s), StatusIs(absl::StatusCode::kInvalidArgument, _));
  ASSERT_OK_AND_ASSIGN(Collective c, ParseCollective("allgather"));
  EXPECT_EQ(c, Collective::kAllgather);
  for (Collective col : {Collective::kAllreduce, Collective::kBcast, Collective::kAllgather,
                         Collective::kGather, Collective::kReduce}) {
    for (Algorithm alg : AlgorithmsFor(col)) {
      ASSERT_OK_AND_ASSIGN(Algorithm back, ParseAlgorithm(AlgorithmName(alg)));
      EXPECT_EQ(back, alg);
    }
  }
}

TEST(PatternTest, CommunicationGraphSumsBytes) {
  PatternSpec s;
  s.collective = Collective::kAllgather;
  s.num_ranks = 4;
  s.count = 5;
  ASSERT_OK_AND_ASSIGN(std::vector<WeightedEdge> g, CommunicationGraph(s));
  ASSERT_EQ(g.size(), 4u);
  for (const WeightedEdge& e : g) {
    EXPECT_EQ(e.dst, (e.src + 1) % 4);
    EXPECT_EQ(e.bytes, 3 * 5);
  }
}

TEST(PatternTest, MillionRankRingIsFolded) {
  PatternSpec s;
  s.num_ranks = 1 << 20;
  s.count = int64_t{1} << 28;
  int64_t steps = 0, visits = 0;
  ASSERT_OK(ForEachStep(s, [&](const Step& st) {
    ++visits;
    steps += st.repeat;
  }));
  EXPECT_EQ(visits, 1);
  EXPECT_EQ(steps, 2 * ((int64_t{1} << 20) - 1));
}

}  // namespace
}  // namespace toporr::mapping
