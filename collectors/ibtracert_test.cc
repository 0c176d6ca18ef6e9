#include "collectors/ibtracert.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::NodeType;
using fabric::Trace;
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

absl::StatusOr<std::vector<Trace>> ParseShared(const std::string& name) {
  return ParseIbtracert(ReadSharedFabric(name), {name});
}

TEST(IbtracertTest, InterleafDetailed) {
  ASSERT_OK_AND_ASSIGN(std::vector<Trace> traces, ParseShared("ibtracert_fattree_interleaf.txt"));
  ASSERT_THAT(traces, SizeIs(1));
  const Trace& t = traces[0];
  EXPECT_TRUE(t.detailed);
  EXPECT_EQ(t.line, 1);
  EXPECT_EQ(t.from.type, NodeType::kCa);
  EXPECT_EQ(t.from.node_guid, 0x0002c903000e0b20u);
  EXPECT_EQ(t.from.port, 1);
  EXPECT_EQ(t.from.lid_first, 10u);
  EXPECT_EQ(t.from.lid_last, 10u);
  EXPECT_EQ(t.from.description, "node02 HCA-1");
  ASSERT_THAT(t.hops, SizeIs(4));
  EXPECT_EQ(t.hops[0].out_port, 1);
  EXPECT_EQ(t.hops[0].type, NodeType::kSwitch);
  EXPECT_EQ(t.hops[0].port_guid, 0x0002c90200500000u);
  EXPECT_EQ(t.hops[0].in_port, 2);
  EXPECT_EQ(t.hops[0].lid_first, 3u);
  EXPECT_EQ(t.hops[0].description, "MF0;leaf01:MSX6036/U1");
  EXPECT_EQ(t.hops[1].out_port, 11);
  EXPECT_EQ(t.hops[1].port_guid, 0x0002c90200400100u);
  EXPECT_EQ(t.hops[3].type, NodeType::kCa);
  EXPECT_EQ(t.hops[3].port_guid, 0x0002c903000e0bf1u);  // port GUID, not node GUID
  EXPECT_EQ(t.to.node_guid, 0x0002c903000e0bf0u);
  EXPECT_EQ(t.to.port, 1);
  EXPECT_EQ(t.to.lid_first, 23u);
  EXPECT_EQ(t.NumSwitches(), 3);
}

TEST(IbtracertTest, NoInfoLayoutCarriesTheSameRoute) {
  ASSERT_OK_AND_ASSIGN(std::vector<Trace> full, ParseShared("ibtracert_fattree_interleaf.txt"));
  ASSERT_OK_AND_ASSIGN(std::vector<Trace> brief, ParseShared("ibtracert_fattree_simple_n.txt"));
  ASSERT_THAT(brief, SizeIs(1));
  const Trace& b = brief[0];
  EXPECT_FALSE(b.detailed);
  EXPECT_EQ(b.from.node_guid, full[0].from.node_guid);
  EXPECT_EQ(b.from.port, 1);
  EXPECT_EQ(b.from.lid_first, 0u);
  EXPECT_TRUE(b.from.description.empty());
  ASSERT_EQ(b.hops.size(), full[0].hops.size());
  for (size_t i = 0; i < b.hops.size(); ++i) {
    EXPECT_EQ(b.hops[i].out_port, full[0].hops[i].out_port);
    EXPECT_EQ(b.hops[i].port_guid, full[0].hops[i].port_guid);
    EXPECT_EQ(b.hops[i].in_port, full[0].hops[i].in_port);
  }
  EXPECT_EQ(b.to.node_guid, full[0].to.node_guid);
  EXPECT_EQ(b.NumSwitches(), 3);
}

TEST(IbtracertTest, EverySharedTraceParses) {
  struct Case {
    const char* file;
    size_t traces;
    int switches;
    NodeType to_type;
  };
  for (const Case& c : {Case{"ibtracert_fattree_intraleaf.txt", 1, 1, NodeType::kCa},
                        Case{"ibtracert_fattree_ca_to_switch.txt", 1, 3, NodeType::kSwitch},
                        Case{"ibtracert_fattree_from_hca_port2.txt", 1, 3, NodeType::kCa},
                        Case{"ibtracert_fattree_by_guid_G.txt", 1, 3, NodeType::kCa},
                        Case{"ibtracert_fattree_lmc2_multipath.txt", 4, 3, NodeType::kCa},
                        Case{"ibtracert_edgecases_to_ca_port2.txt", 1, 2, NodeType::kCa},
                        Case{"ibtracert_edgecases_to_router.txt", 1, 2, NodeType::kRouter},
                        Case{"ibtracert_chassis_through_director.txt", 1, 4, NodeType::kCa}}) {
    SCOPED_TRACE(c.file);
    ASSERT_OK_AND_ASSIGN(std::vector<Trace> traces, ParseShared(c.file));
    ASSERT_EQ(traces.size(), c.traces);
    for (const Trace& t : traces) {
      EXPECT_EQ(t.NumSwitches(), c.switches);
      EXPECT_EQ(t.to.type, c.to_type);
    }
  }
}

TEST(IbtracertTest, SwitchDestinationAndLmcRanges) {
  ASSERT_OK_AND_ASSIGN(std::vector<Trace> sw, ParseShared("ibtracert_fattree_ca_to_switch.txt"));
  EXPECT_EQ(sw[0].to.port, 0);
  EXPECT_EQ(sw[0].to.node_guid, 0x0002c90200500300u);
  EXPECT_EQ(sw[0].hops.back().in_port, 10);

  ASSERT_OK_AND_ASSIGN(std::vector<Trace> lmc, ParseShared("ibtracert_fattree_lmc2_multipath.txt"));
  ASSERT_THAT(lmc, SizeIs(4));
  EXPECT_EQ(lmc[0].from.lid_first, 24u);
  EXPECT_EQ(lmc[0].from.lid_last, 27u);
  EXPECT_EQ(lmc[1].line, 7);
  // The four DLIDs leave leaf01 by ports 11, 10, 11, 9.
  EXPECT_EQ(lmc[0].hops[1].out_port, 11);
  EXPECT_EQ(lmc[1].hops[1].out_port, 10);
  EXPECT_EQ(lmc[2].hops[1].out_port, 11);
  EXPECT_EQ(lmc[3].hops[1].out_port, 9);
  EXPECT_EQ(lmc[3].to.lid_last, 79u);
}

TEST(IbtracertTest, Errors) {
  const std::string t = ReadSharedFabric("ibtracert_fattree_interleaf.txt");
  IbtracertOptions o{"trace.txt"};
  // Found by fuzz/ibtracert_fuzzer: a LID range is first-last, never reversed.
  std::string reversed = t;
  reversed.replace(reversed.find("lid 23-23"), 9, "lid 23-22");
  EXPECT_THAT(ParseIbtracert(reversed, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace.txt:5: malformed")));
  // Found by fuzz/ibtracert_fuzzer: descriptions must be printable UTF-8, as in a topology.
  std::string bad = t;
  bad.replace(bad.find("node15 HCA-1"), 6,
              "node\xff"
              "5");
  EXPECT_THAT(ParseIbtracert(bad, o), StatusIs(absl::StatusCode::kInvalidArgument,
                                               HasSubstr("description 'node\\xff5 HCA-1': byte "
                                                         "0xff at column 5 is not printable")));
  // ibtracert stops without a To line when it meets a bad forwarding entry.
  std::string stopped = t.substr(0, t.find("[7] ->")) +
                        "ibwarn: [1234] find_route: Bad forwarding table entry found at: node "
                        "\"MF0;spine02:MSX6036/U1\" lid entry 23 is 255 (top 23)\n";
  EXPECT_THAT(ParseIbtracert(stopped, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trace.txt:1: trace has no 'To' line before the end of the "
                                 "input: ibtracert stopped early (ibwarn: [1234] find_route: "
                                 "Bad forwarding table entry")));
  EXPECT_THAT(ParseIbtracert(stopped + t, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trace.txt:1: trace has no 'To' line before line 5")));
  EXPECT_THAT(
      ParseIbtracert(absl::StrReplaceAll(t, {{"[11] -> switch", "[11] -> hub"}}), o),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace.txt:3: malformed hop")));
  EXPECT_THAT(ParseIbtracert(t.substr(t.find("[1] ->")), o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trace.txt:1: hop line outside a trace")));
  EXPECT_THAT(ParseIbtracert("From ca 0x2c903000e0b20 port 1 lid 10-10 \"node02\"\n", o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("multicast")));
  EXPECT_THAT(ParseIbtracert("\n", o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no ibtracert trace")));
  EXPECT_THAT(ParseIbtracert(absl::StrReplaceAll(t, {{"lid 23-23", "lid 23"}}), o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace.txt:5:")));
  EXPECT_THAT(ParseIbtracert("garbage\n", o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace.txt:1: unexpected")));
}

}  // namespace
}  // namespace toporr::collectors
