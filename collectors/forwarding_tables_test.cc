#include "collectors/forwarding_tables.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::ForwardingTables;
using fabric::SwitchForwardingTable;
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

constexpr uint64_t kLeaf01 = 0x0002c90200500000;
constexpr uint64_t kLeaf04 = 0x0002c90200500300;
constexpr uint64_t kSpine01 = 0x0002c90200400000;
constexpr uint8_t kUnset = ForwardingTables::kUnsetPort;

absl::StatusOr<ForwardingTables> ParseShared(const std::string& name) {
  return ParseForwardingTables(ReadSharedFabric(name), {name});
}

std::string ReadTestdata(const std::string& name) {
  return ReadFileOrDie("collectors/testdata/" + name);
}

// Entries 1..n of a table, for comparing tables across dump formats.
std::vector<uint8_t> Entries(const SwitchForwardingTable& t, uint32_t n) {
  std::vector<uint8_t> v;
  for (uint32_t lid = 1; lid <= n; ++lid) v.push_back(t.OutPort(lid));
  return v;
}

TEST(ForwardingTablesTest, DumpFtsFatTreeWithDrPathHeaders) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables t, ParseShared("dump_fts_fattree.txt"));
  ASSERT_EQ(t.switches().size(), 6u);
  // File order: leaf04 first (DR path 0,1,9,7).
  EXPECT_EQ(t.switches()[0].guid, kLeaf04);
  EXPECT_EQ(t.switches()[0].description, "MF0;leaf04:MSX6036/U1");
  const SwitchForwardingTable* leaf04 = t.FindTable(kLeaf04);
  ASSERT_NE(leaf04, nullptr);
  EXPECT_EQ(leaf04->lid, 7u);  // no "Lid N" address: the LID it delivers to port 0
  EXPECT_EQ(leaf04->out_port.size(), 0x18u);
  EXPECT_EQ(leaf04->OutPort(0), kUnset);
  EXPECT_EQ(leaf04->OutPort(1), 9);
  EXPECT_EQ(leaf04->OutPort(4), 11);
  EXPECT_EQ(leaf04->OutPort(7), 0);
  EXPECT_EQ(leaf04->OutPort(0x17), 3);
  EXPECT_EQ(leaf04->OutPort(0x18), kUnset);
  EXPECT_EQ(leaf04->OutPort(60000), kUnset);
  EXPECT_EQ(t.FindTable(kSpine01)->lid, 2u);
  EXPECT_EQ(t.Find(0x1234), -1);
  // Destination port GUIDs from the info column.
  ASSERT_GT(t.lid_port_guid().size(), 0x17u);
  EXPECT_EQ(t.lid_port_guid()[10], 0x0002c903000e0b21u);
  EXPECT_EQ(t.lid_port_guid()[2], kSpine01);
  EXPECT_EQ(t.lid_port_guid()[0], 0u);
}

TEST(ForwardingTablesTest, DumpLftsWarningTrailerGivesTheSameTables) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables fts, ParseShared("dump_fts_fattree.txt"));
  ASSERT_OK_AND_ASSIGN(ForwardingTables lfts, ParseShared("dump_lfts_fattree.txt"));
  ASSERT_EQ(lfts.switches().size(), fts.switches().size());
  for (size_t i = 0; i < fts.switches().size(); ++i) {
    EXPECT_EQ(lfts.switches()[i].guid, fts.switches()[i].guid);
    EXPECT_EQ(lfts.switches()[i].out_port, fts.switches()[i].out_port);
  }
}

TEST(ForwardingTablesTest, IbrouteByLidMatchesDumpFts) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables fts, ParseShared("dump_fts_fattree.txt"));
  for (auto [file, guid, lid] : {std::make_tuple("ibroute_fattree_leaf01.txt", kLeaf01, 3u),
                                 std::make_tuple("ibroute_fattree_spine01.txt", kSpine01, 2u)}) {
    SCOPED_TRACE(file);
    ASSERT_OK_AND_ASSIGN(ForwardingTables one, ParseShared(file));
    ASSERT_EQ(one.switches().size(), 1u);
    EXPECT_EQ(one.switches()[0].guid, guid);
    EXPECT_EQ(one.switches()[0].lid, lid);  // from "switch Lid N"
    EXPECT_EQ(one.switches()[0].out_port, fts.FindTable(guid)->out_port);
  }
}

TEST(ForwardingTablesTest, IbrouteAllEntriesRange) {
  // `ibroute -a 2 1 8`: header [0x1-0x8], trailer "8 lids dumped " (no "valid").
  ASSERT_OK_AND_ASSIGN(ForwardingTables t, ParseShared("ibroute_fattree_spine01_all_1_8.txt"));
  const SwitchForwardingTable& s = t.switches().at(0);
  EXPECT_EQ(s.out_port.size(), 9u);
  EXPECT_EQ(s.OutPort(0), kUnset);
  EXPECT_EQ(s.OutPort(7), 8);
  EXPECT_EQ(s.OutPort(8), 8);
  EXPECT_EQ(s.OutPort(9), kUnset);
}

TEST(ForwardingTablesTest, IbrouteLmcPathLines) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables t, ParseShared("ibroute_fattree_lmc2_leaf01.txt"));
  const SwitchForwardingTable& s = t.switches().at(0);
  EXPECT_EQ(s.lid, 9u);
  // node16 port 1 owns 0x10..0x13 and is spread over ports 12, 9, 10, 12.
  EXPECT_EQ(Entries(s, 0x13), (std::vector<uint8_t>{kUnset, kUnset, kUnset, 1, 1, 1, 1, 10, 0, 11,
                                                    10, 10, 10, kUnset, kUnset, 12, 9, 10, 12}));
  EXPECT_EQ(s.OutPort(0x4f), 9);
  // "(path #2 out of 4: portguid G)" names the owner of the extra LIDs.
  EXPECT_EQ(t.lid_port_guid()[0x11], 0x0002c903000e0c01u);
  EXPECT_EQ(t.lid_port_guid()[0x4f], 0x0002c903000e0bf1u);
}

TEST(ForwardingTablesTest, EdgecasesRouterDestinations) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables fts, ParseShared("dump_fts_edgecases.txt"));
  ASSERT_EQ(fts.switches().size(), 2u);
  ASSERT_OK_AND_ASSIGN(ForwardingTables a, ParseShared("ibroute_edgecases_swA.txt"));
  ASSERT_OK_AND_ASSIGN(ForwardingTables b, ParseShared("ibroute_edgecases_swB.txt"));
  for (const ForwardingTables* one : {&a, &b}) {
    const SwitchForwardingTable& s = one->switches().at(0);
    EXPECT_EQ(s.out_port, fts.FindTable(s.guid)->out_port);
  }
  EXPECT_EQ(a.switches()[0].OutPort(11), 10);  // 'Router portguid' line
  EXPECT_EQ(a.lid_port_guid()[11], 0x0008f10400410002u);
  EXPECT_EQ(b.switches()[0].lid, 2u);
}

TEST(ForwardingTablesTest, OpenSmLftsDumpMatchesDumpFts) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables fts, ParseShared("dump_fts_fattree.txt"));
  ASSERT_OK_AND_ASSIGN(
      ForwardingTables osm,
      ParseForwardingTables(ReadTestdata("opensm-lfts_fattree-2l-16h.dump"), {"opensm-lfts.dump"}));
  ASSERT_EQ(osm.switches().size(), 6u);
  EXPECT_EQ(osm.switches()[0].guid, kSpine01);
  EXPECT_EQ(osm.switches()[0].description, "MF0;spine01:MSX6036/U1");  // quotes removed
  for (const SwitchForwardingTable& s : osm.switches()) {
    const SwitchForwardingTable* f = fts.FindTable(s.guid);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(s.out_port, f->out_port) << s.description;
    EXPECT_EQ(s.lid, f->lid);
  }
  EXPECT_EQ(osm.lid_port_guid()[10], 0x0002c903000e0b21u);
}

TEST(ForwardingTablesTest, OpenSmLmcDumpMatchesIbroute) {
  ASSERT_OK_AND_ASSIGN(ForwardingTables ib, ParseShared("ibroute_fattree_lmc2_leaf01.txt"));
  ASSERT_OK_AND_ASSIGN(
      ForwardingTables osm,
      ParseForwardingTables(ReadTestdata("opensm-lfts_fattree-2l-16h_lmc2_updn.dump")));
  const SwitchForwardingTable* leaf01 = osm.FindTable(kLeaf01);
  ASSERT_NE(leaf01, nullptr);
  EXPECT_EQ(leaf01->lid, 9u);
  EXPECT_EQ(leaf01->out_port, ib.switches()[0].out_port);
}

// ibroute -a prints unassigned entries as "(illegal port)" (and "(path #k - illegal port)"
// inside an LMC range); -n prints no destination column. Format from ibroute.c dump_lid().
TEST(ForwardingTablesTest, IllegalPortsAndBriefLines) {
  const std::string text =
      "Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90200400000 (MF0;spine01):\n"
      "  Lid  Out   Destination\n"
      "       Port     Info \n"
      "0x0000 255 : (illegal port)\n"
      "0x0001 001 : (Channel Adapter portguid 0x0002c903000e0b11: 'node01 HCA-1')\n"
      "0x0002 000 : (Switch portguid 0x0002c90200400000: 'MF0;spine01')\n"
      "0x0003 017 : (illegal port)\n"
      "0x0004 003 : (path #2 - illegal port)\n"
      "0x0005 004 \n"
      "0x0006 005 : (unknown node and type)\n"
      "7 lids dumped \n";
  ASSERT_OK_AND_ASSIGN(ForwardingTables t, ParseForwardingTables(text));
  const SwitchForwardingTable& s = t.switches()[0];
  EXPECT_EQ(Entries(s, 6), (std::vector<uint8_t>{1, 0, kUnset, kUnset, 4, 5}));
  EXPECT_EQ(s.OutPort(0), kUnset);
  EXPECT_EQ(t.lid_port_guid()[1], 0x0002c903000e0b11u);
  EXPECT_EQ(t.lid_port_guid().size(), 3u);  // LIDs 3..6 name no port GUID
}

TEST(ForwardingTablesTest, BlocksOfOneSwitchMergeAndMulticastIsSkipped) {
  const std::string text =
      "Unicast lids [0x1-0x2] of switch Lid 2 guid 0x0000000000000002 (sw):\n"
      "0x0001 001 \n"
      "0x0002 000 \n"
      "2 valid lids dumped \n"
      "Multicast mlids [0xc000-0xc001] of switch Lid 2 guid 0x0000000000000002 (sw):\n"
      "            0                   \n"
      "     Ports: 0123456789\n"
      " MLid\n"
      "0xc000      xx        \n"
      "1 valid mlids dumped \n"
      "\n"
      "ibwarn: [123] dump_unicast_tables: something the tool said on stderr\n"
      "Unicast lids [0x3-0x4] of switch Lid 2 guid 0x0000000000000002 (sw):\n"
      "0x0004 007 \n"
      "1 valid lids dumped \n";
  ASSERT_OK_AND_ASSIGN(ForwardingTables t, ParseForwardingTables(text));
  ASSERT_EQ(t.switches().size(), 1u);
  EXPECT_EQ(Entries(t.switches()[0], 4), (std::vector<uint8_t>{1, 0, kUnset, 7}));
  EXPECT_EQ(t.switches()[0].lid, 2u);
}

// Found by fuzz/lft_fuzzer: a switch description that is not printable UTF-8 was stored.
TEST(ForwardingTablesTest, RefusesUnprintableSwitchDescription) {
  ForwardingTablesOptions o{"sw.txt"};
  EXPECT_THAT(
      ParseForwardingTables("\nUnicast lids [0x1-0x1] of switch Lid 2 guid 0x0002c90200400000 "
                            "(sw\x1b[2J01):\n0x0001 001 : (x)\n1 lids dumped\n",
                            o),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("sw.txt:2: switch description 'sw\\x1b[2J01': byte 0x1b at "
                         "column 3 is not printable UTF-8")));
}

TEST(ForwardingTablesTest, ErrorsNameFileAndLine) {
  const std::string sample = ReadSharedFabric("dump_fts_fattree.txt");
  ForwardingTablesOptions o{"dump_fts_fattree.txt"};
  // Cut short: the file ends inside the last block.
  std::string cut = sample.substr(0, sample.rfind("23 valid lids dumped"));
  EXPECT_THAT(ParseForwardingTables(cut, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dump_fts_fattree.txt:136: the table of switch "
                                 "0x0002c90200500000 has no 'lids dumped' line")));
  // An entry line lost: the count no longer matches.
  std::string lost = absl::StrReplaceAll(
      sample,
      {{"0x0005 009 : (Switch portguid 0x0002c90200500100: 'MF0;leaf02:MSX6036/U1')\n", ""}});
  EXPECT_THAT(ParseForwardingTables(lost, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(":26: the block says 23 lids dumped but has 22 entry lines")));
  // Entry outside the header's range, port out of range, entry before a header, junk.
  EXPECT_THAT(ParseForwardingTables(absl::StrReplaceAll(sample, {{"0x0017 003", "0x0018 003"}}), o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(":26: LID 24 is outside the header's range [0-23]")));
  EXPECT_THAT(ParseForwardingTables(absl::StrReplaceAll(sample, {{"0x0017 003", "0x0017 300"}}), o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(":26: out port 300")));
  EXPECT_THAT(ParseForwardingTables("0x0001 001 : (x)\n", o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(":1: table entry before any 'Unicast lids' header")));
  EXPECT_THAT(ParseForwardingTables("hello\n", o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(":1: unexpected line")));
  EXPECT_THAT(ParseForwardingTables("\n\n", o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no unicast forwarding")));
  EXPECT_THAT(ParseForwardingTables("Unicast lids [0x0-0xc000] of switch Lid 1 guid 0x1 (s):\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unicast LIDs")));
  EXPECT_THAT(ParseForwardingTables("Unicast lids [0x0-0x3] of switch Lid 1 (s):\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no ' guid 0x'")));
  // Two blocks of one switch that disagree.
  EXPECT_THAT(
      ParseForwardingTables("Unicast lids [0x1-0x1] of switch Lid 2 guid 0x2 (sw):\n0x0001 001 \n"
                            "1 valid lids dumped \n"
                            "Unicast lids [0x1-0x1] of switch Lid 2 guid 0x2 (sw):\n0x0001 002 \n"
                            "1 valid lids dumped \n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(":5: LID 1 of switch 0x0000000000000002 is given port 2 here "
                         "and port 1 in an earlier block")));
}

TEST(ForwardingTablesTest, SetOutPortAndMemory) {
  ForwardingTables t;
  EXPECT_THAT(t.SetOutPort(5, 1, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no forwarding table")));
  t.Add(5);
  EXPECT_OK(t.SetOutPort(5, 100, 3));
  EXPECT_EQ(t.FindTable(5)->OutPort(100), 3);
  EXPECT_EQ(t.FindTable(5)->OutPort(99), kUnset);
  EXPECT_THAT(t.SetOutPort(5, 0xC000, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a unicast LID")));
  EXPECT_GE(t.MemoryBytes(), 101u);
}

// The LFT dump of a 10,240-host fabric is ~157 MB of text. Build one of that size by
// replicating the shared sample's line shapes over many switches and LIDs and check what the
// parse keeps. The parse rate on the real 10,240-host dumps is measured by
// bench/run_scale_bench.sh (BM_ParseLfts*), not here.
TEST(ForwardingTablesTest, LargeSyntheticDump) {
  constexpr int kSwitches = 200;
  constexpr int kLids = 11000;
  std::string text;
  text.reserve(size_t{kSwitches} * kLids * 80);
  char buf[256];
  for (int s = 0; s < kSwitches; ++s) {
    uint64_t guid = 0x0002c90200500000ULL + (static_cast<uint64_t>(s) << 8);
    snprintf(buf, sizeof buf,
             "Unicast lids [0x0-0x%x] of switch DR path slid 0; dlid 0; 0,1,9,%d guid "
             "0x%016llx (MF0;leaf%04d:MSX6036/U1):\n  Lid  Out   Destination\n"
             "       Port     Info \n",
             kLids, s % 36 + 1, static_cast<unsigned long long>(guid), s);
    text += buf;
    for (int lid = 1; lid <= kLids; ++lid) {
      int port = lid == s + 1 ? 0 : 1 + (lid * 7 + s) % 36;
      snprintf(buf, sizeof buf,
               "0x%04x %03d : (Channel Adapter portguid 0x%016llx: 'node%05d HCA-1')\n", lid, port,
               static_cast<unsigned long long>(0x0002c903000e0000ULL + static_cast<uint64_t>(lid)),
               lid);
      text += buf;
    }
    snprintf(buf, sizeof buf, "%d valid lids dumped \n", kLids);
    text += buf;
  }
  text += "\n*** WARNING ***: this command has been replaced by dump_fts\n\n\n";

  absl::StatusOr<ForwardingTables> t = ParseForwardingTables(text, {"large"});
  ASSERT_OK(t);
  ASSERT_EQ(t->switches().size(), static_cast<size_t>(kSwitches));
  const SwitchForwardingTable& s7 = t->switches()[7];
  EXPECT_EQ(s7.OutPort(8), 0);
  EXPECT_EQ(s7.lid, 8u);
  EXPECT_EQ(s7.OutPort(5000), 1 + (5000 * 7 + 7) % 36);
  EXPECT_EQ(t->lid_port_guid()[kLids], 0x0002c903000e0000ULL + kLids);
  // Memory-lean: about one byte per (switch, LID).
  EXPECT_LT(t->MemoryBytes(), size_t{kSwitches} * (kLids + 1) * 11 / 10 + (1 << 20));
}

}  // namespace
}  // namespace toporr::collectors
