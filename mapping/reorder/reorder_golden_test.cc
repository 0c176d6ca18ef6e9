// Golden orders: every reordering of this package, on a fixed set of jobs, hashed (FNV-1a 64
// over the little-endian int32 order) and compared with the constants below. The constants
// pin the exact permutations, so any change to a heuristic, to the placer's search order or
// to its tie-breaking fails here. An intended change of orders must update the constants:
// a failing run prints the whole table in source form.
//
// Jobs cover block and round-robin placements, uneven ranks per host shuffled over the
// slots, hosts of more than 64 slots, shared cores, unknown hwloc locations, partial leaves,
// 2- and 3-level fat trees and dense matrices, odd P and P not a power of two, one rank and
// one host, and the benchmark's 32,768- and 262,144-rank jobs; rooted and seeded heuristics
// run from several roots, the k-nomial ones with several radixes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/fnv.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"
#include "mapping/costs/distance.h"
#include "mapping/costs/hierarchical_cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/heuristics.h"
#include "mapping/reorder/placer.h"

namespace toporr::mapping {
namespace {

struct Golden {
  const char* job;
  const char* method;
  uint64_t hash;
};

// Recorded from the reference implementation; see the file comment.
constexpr Golden kGolden[] = {
    {"block_10x8_3lvl", "ring", 0x62daff01a978e1a5ull},
    {"block_10x8_3lvl", "recursive_doubling_allgather", 0x185d66d99147e255ull},
    {"block_10x8_3lvl", "recursive_doubling_allreduce", 0x9aa40edf5587f725ull},
    {"block_10x8_3lvl", "rabenseifner", 0x68b62c26d4988725ull},
    {"block_10x8_3lvl", "binomial_bcast", 0xd3e37ebd86a49e55ull},
    {"block_10x8_3lvl", "binary_tree_bcast", 0x29e446a393c81cb5ull},
    {"block_10x8_3lvl", "knomial_bcast", 0x390f6c646d7c6ca5ull},
    {"block_10x8_3lvl", "scatter_allgather", 0x769cfc478f396895ull},
    {"block_10x8_3lvl", "binomial_gather", 0xb734b1bb36796c55ull},
    {"block_10x8_3lvl", "binomial_bcast_spread_nearest", 0x8d3ce39865a7a935ull},
    {"block_10x8_3lvl", "binomial_bcast_spread_round_robin", 0x92335fd317c44285ull},
    {"block_10x8_3lvl", "binary_tree_bcast_spread_nearest", 0x508c1a84af2a0a05ull},
    {"block_10x8_3lvl", "binary_tree_bcast_spread_round_robin", 0x92335fd317c44285ull},
    {"block_10x8_3lvl", "knomial_bcast_spread_nearest", 0x5aea3df42beaec25ull},
    {"block_10x8_3lvl", "knomial_bcast_spread_round_robin", 0x15a52eb961a7c5a5ull},
    {"block_10x8_3lvl", "graph", 0xa3092b8ef6f66225ull},
    {"block_10x8_3lvl", "free_slot_index", 0x3258c662dc4cb3d9ull},
    {"block_7x5_3lvl_odd", "ring", 0x2b95d3b145cd7576ull},
    {"block_7x5_3lvl_odd", "recursive_doubling_allgather", 0x016d5407c472b796ull},
    {"block_7x5_3lvl_odd", "recursive_doubling_allreduce", 0x2bbfc83aa5db8d46ull},
    {"block_7x5_3lvl_odd", "rabenseifner", 0x15041b9edc2608c6ull},
    {"block_7x5_3lvl_odd", "binomial_bcast", 0x9b9cdd2d51eb8776ull},
    {"block_7x5_3lvl_odd", "binary_tree_bcast", 0x0a444b076cf08fb6ull},
    {"block_7x5_3lvl_odd", "knomial_bcast", 0xb2fbcdcbcb531015ull},
    {"block_7x5_3lvl_odd", "scatter_allgather", 0x13326ee70c5d1dd6ull},
    {"block_7x5_3lvl_odd", "binomial_gather", 0xed4706a056780df6ull},
    {"block_7x5_3lvl_odd", "binomial_bcast_spread_nearest", 0x55c1b3934b650266ull},
    {"block_7x5_3lvl_odd", "binomial_bcast_spread_round_robin", 0x552f0bbeb193ad16ull},
    {"block_7x5_3lvl_odd", "binary_tree_bcast_spread_nearest", 0xbcff464d99c0c136ull},
    {"block_7x5_3lvl_odd", "binary_tree_bcast_spread_round_robin", 0x552f0bbeb193ad16ull},
    {"block_7x5_3lvl_odd", "knomial_bcast_spread_nearest", 0x99d7fea340be5d35ull},
    {"block_7x5_3lvl_odd", "knomial_bcast_spread_round_robin", 0xa39217764b05de05ull},
    {"block_7x5_3lvl_odd", "graph", 0x459f0a62f776ac15ull},
    {"block_7x5_3lvl_odd", "free_slot_index", 0xc2300682f0d2eeb9ull},
    {"rr_9x6_3lvl", "ring", 0xf609af0975ca8004ull},
    {"rr_9x6_3lvl", "recursive_doubling_allgather", 0xf72b587812731374ull},
    {"rr_9x6_3lvl", "recursive_doubling_allreduce", 0xc39fbc6da48d5ee4ull},
    {"rr_9x6_3lvl", "rabenseifner", 0xfff2b4d9d9fc6634ull},
    {"rr_9x6_3lvl", "binomial_bcast", 0xdc390b8b042afd24ull},
    {"rr_9x6_3lvl", "binary_tree_bcast", 0xf81442c7dbe57d04ull},
    {"rr_9x6_3lvl", "knomial_bcast", 0x6a84c679eb44b3e5ull},
    {"rr_9x6_3lvl", "scatter_allgather", 0x921bb118c9db2fc4ull},
    {"rr_9x6_3lvl", "binomial_gather", 0x0b77a691d9dd8384ull},
    {"rr_9x6_3lvl", "binomial_bcast_spread_nearest", 0x596925fe56a0bed4ull},
    {"rr_9x6_3lvl", "binomial_bcast_spread_round_robin", 0xff49439fbffc5344ull},
    {"rr_9x6_3lvl", "binary_tree_bcast_spread_nearest", 0x88d852cdcce7d5d4ull},
    {"rr_9x6_3lvl", "binary_tree_bcast_spread_round_robin", 0xff49439fbffc5344ull},
    {"rr_9x6_3lvl", "knomial_bcast_spread_nearest", 0xabff464c009796b5ull},
    {"rr_9x6_3lvl", "knomial_bcast_spread_round_robin", 0x329c25b6810a1c25ull},
    {"rr_9x6_3lvl", "graph", 0x64d25fa89388af65ull},
    {"rr_9x6_3lvl", "free_slot_index", 0xb9ef230f58fba759ull},
    {"block_300x7_3lvl", "ring", 0x7c45671aed0d630dull},
    {"block_300x7_3lvl", "recursive_doubling_allgather", 0x4f5b73f2010875d1ull},
    {"block_300x7_3lvl", "recursive_doubling_allreduce", 0x6966e0e1cf272c5dull},
    {"block_300x7_3lvl", "rabenseifner", 0x126843c7f9e7954dull},
    {"block_300x7_3lvl", "binomial_bcast", 0xb44e6f5eda7e7fadull},
    {"block_300x7_3lvl", "binary_tree_bcast", 0x9a80967cdc8fbe8dull},
    {"block_300x7_3lvl", "knomial_bcast", 0x97888327f6bd2ea5ull},
    {"block_300x7_3lvl", "scatter_allgather", 0xefd9582c38ce3415ull},
    {"block_300x7_3lvl", "binomial_gather", 0x56cf0c28428abb4dull},
    {"block_300x7_3lvl", "binomial_bcast_spread_nearest", 0x6df33e2c738a7879ull},
    {"block_300x7_3lvl", "binomial_bcast_spread_round_robin", 0x49b9e7f827da06edull},
    {"block_300x7_3lvl", "binary_tree_bcast_spread_nearest", 0xceda08ca0fef210dull},
    {"block_300x7_3lvl", "binary_tree_bcast_spread_round_robin", 0x49b9e7f827da06edull},
    {"block_300x7_3lvl", "knomial_bcast_spread_nearest", 0x27d8ebb6dfe3186dull},
    {"block_300x7_3lvl", "knomial_bcast_spread_round_robin", 0xbc11d6884e8afb05ull},
    {"block_300x7_3lvl", "graph", 0xc86e71784ce50e75ull},
    {"block_300x7_3lvl", "free_slot_index", 0x7c3c2f3acfac84f1ull},
    {"rr_37x11_3lvl", "ring", 0x6122b2d928f9a5d5ull},
    {"rr_37x11_3lvl", "recursive_doubling_allgather", 0xedc7d3cc18b5df41ull},
    {"rr_37x11_3lvl", "recursive_doubling_allreduce", 0x982560d760e3670dull},
    {"rr_37x11_3lvl", "rabenseifner", 0x96fb3f0f0b3b6191ull},
    {"rr_37x11_3lvl", "binomial_bcast", 0x33af7bd746a31479ull},
    {"rr_37x11_3lvl", "binary_tree_bcast", 0x6619a84c6c11235dull},
    {"rr_37x11_3lvl", "knomial_bcast", 0xa35d02efa71fd089ull},
    {"rr_37x11_3lvl", "scatter_allgather", 0x985079860ff42e5dull},
    {"rr_37x11_3lvl", "binomial_gather", 0xa8d0b7b2ee7e6e09ull},
    {"rr_37x11_3lvl", "binomial_bcast_spread_nearest", 0x6bb3b2d28e808ffdull},
    {"rr_37x11_3lvl", "binomial_bcast_spread_round_robin", 0xaec95b1479649d45ull},
    {"rr_37x11_3lvl", "binary_tree_bcast_spread_nearest", 0x48d49c1209cd09d5ull},
    {"rr_37x11_3lvl", "binary_tree_bcast_spread_round_robin", 0xaec95b1479649d45ull},
    {"rr_37x11_3lvl", "knomial_bcast_spread_nearest", 0x58956a31b68729a9ull},
    {"rr_37x11_3lvl", "knomial_bcast_spread_round_robin", 0xb0ac74682ce56325ull},
    {"rr_37x11_3lvl", "graph", 0xaac8c09282f4fb45ull},
    {"rr_37x11_3lvl", "free_slot_index", 0x9eaf6e0765bd4f31ull},
    {"block_12x6_2lvl", "ring", 0x7e86e9e5ea0846d5ull},
    {"block_12x6_2lvl", "recursive_doubling_allgather", 0x3105aef8147da1f5ull},
    {"block_12x6_2lvl", "recursive_doubling_allreduce", 0x55205ca4d86cfa55ull},
    {"block_12x6_2lvl", "rabenseifner", 0x8e165acfe57c7d25ull},
    {"block_12x6_2lvl", "binomial_bcast", 0x22882974f0162ec5ull},
    {"block_12x6_2lvl", "binary_tree_bcast", 0xd553ebcf3c8318b5ull},
    {"block_12x6_2lvl", "knomial_bcast", 0xcdbdf0107df94325ull},
    {"block_12x6_2lvl", "scatter_allgather", 0xd63a2f36acaa73b5ull},
    {"block_12x6_2lvl", "binomial_gather", 0xcab048c7879c51a5ull},
    {"block_12x6_2lvl", "binomial_bcast_spread_nearest", 0x987a4de914d5cb45ull},
    {"block_12x6_2lvl", "binomial_bcast_spread_round_robin", 0x6045ca95cab7a445ull},
    {"block_12x6_2lvl", "binary_tree_bcast_spread_nearest", 0xf7135b4756b92135ull},
    {"block_12x6_2lvl", "binary_tree_bcast_spread_round_robin", 0x6045ca95cab7a445ull},
    {"block_12x6_2lvl", "knomial_bcast_spread_nearest", 0x3882e8c83a014445ull},
    {"block_12x6_2lvl", "knomial_bcast_spread_round_robin", 0x4127f95e9eceb4a5ull},
    {"block_12x6_2lvl", "graph", 0x61b933f7ac020185ull},
    {"block_12x6_2lvl", "free_slot_index", 0xd393a61e3ac442a9ull},
    {"rr_50x3_2lvl", "ring", 0x53b4f19f0d808b84ull},
    {"rr_50x3_2lvl", "recursive_doubling_allgather", 0xeb3b10c38282a7c4ull},
    {"rr_50x3_2lvl", "recursive_doubling_allreduce", 0x0cd61e24ddd23164ull},
    {"rr_50x3_2lvl", "rabenseifner", 0x061d55b8284ebc94ull},
    {"rr_50x3_2lvl", "binomial_bcast", 0xc35351b151869334ull},
    {"rr_50x3_2lvl", "binary_tree_bcast", 0x50cc19a687b12554ull},
    {"rr_50x3_2lvl", "knomial_bcast", 0x89b00a467ef76965ull},
    {"rr_50x3_2lvl", "scatter_allgather", 0x53ad9e1c609a2894ull},
    {"rr_50x3_2lvl", "binomial_gather", 0x06e4bb80746d8da4ull},
    {"rr_50x3_2lvl", "binomial_bcast_spread_nearest", 0x9fba9b14d81fe2d4ull},
    {"rr_50x3_2lvl", "binomial_bcast_spread_round_robin", 0x4477a03e3578f574ull},
    {"rr_50x3_2lvl", "binary_tree_bcast_spread_nearest", 0xe6c44d9c2bbd63e4ull},
    {"rr_50x3_2lvl", "binary_tree_bcast_spread_round_robin", 0x4477a03e3578f574ull},
    {"rr_50x3_2lvl", "knomial_bcast_spread_nearest", 0x3d2f06efdb3a6b05ull},
    {"rr_50x3_2lvl", "knomial_bcast_spread_round_robin", 0x2b1053689e8622a5ull},
    {"rr_50x3_2lvl", "graph", 0xf2b7293c3a7e1e05ull},
    {"rr_50x3_2lvl", "free_slot_index", 0xdc38ef47e7fa49d9ull},
    {"uneven_13_3lvl", "ring", 0x7f269c291172b382ull},
    {"uneven_13_3lvl", "recursive_doubling_allgather", 0x8c3019da0f630492ull},
    {"uneven_13_3lvl", "recursive_doubling_allreduce", 0xd92f46384fa183b2ull},
    {"uneven_13_3lvl", "rabenseifner", 0x35af3ff118546752ull},
    {"uneven_13_3lvl", "binomial_bcast", 0x110bc21d29fcd0f2ull},
    {"uneven_13_3lvl", "binary_tree_bcast", 0x4f635937f296e2a2ull},
    {"uneven_13_3lvl", "knomial_bcast", 0xad7d97b52360b515ull},
    {"uneven_13_3lvl", "scatter_allgather", 0x58ad75abfffe3872ull},
    {"uneven_13_3lvl", "binomial_gather", 0xb599bd8bd0f047f2ull},
    {"uneven_13_3lvl", "binomial_bcast_spread_nearest", 0x28b088408f9178c2ull},
    {"uneven_13_3lvl", "binomial_bcast_spread_round_robin", 0xbc2453cf6f77e0a2ull},
    {"uneven_13_3lvl", "binary_tree_bcast_spread_nearest", 0xc96d985b0f7493b2ull},
    {"uneven_13_3lvl", "binary_tree_bcast_spread_round_robin", 0xbc2453cf6f77e0a2ull},
    {"uneven_13_3lvl", "knomial_bcast_spread_nearest", 0x0922f6d6250a3c75ull},
    {"uneven_13_3lvl", "knomial_bcast_spread_round_robin", 0xe536e6e6bbb93305ull},
    {"uneven_13_3lvl", "graph", 0x36c9e197804b7705ull},
    {"uneven_13_3lvl", "free_slot_index", 0x32f12e325acc6e39ull},
    {"uneven_40_2lvl", "ring", 0x56545c542613168cull},
    {"uneven_40_2lvl", "recursive_doubling_allgather", 0xa966992b8baea42cull},
    {"uneven_40_2lvl", "recursive_doubling_allreduce", 0x79adb67478670af0ull},
    {"uneven_40_2lvl", "rabenseifner", 0x4195ceb1117d3878ull},
    {"uneven_40_2lvl", "binomial_bcast", 0xaea5b1c37daa3fccull},
    {"uneven_40_2lvl", "binary_tree_bcast", 0xf73ea13c47b4e82cull},
    {"uneven_40_2lvl", "knomial_bcast", 0x848990c8b1606971ull},
    {"uneven_40_2lvl", "scatter_allgather", 0xe1461c4eadb9b7bcull},
    {"uneven_40_2lvl", "binomial_gather", 0x379539a51b1e7ee4ull},
    {"uneven_40_2lvl", "binomial_bcast_spread_nearest", 0x4831434fd91bc728ull},
    {"uneven_40_2lvl", "binomial_bcast_spread_round_robin", 0x3c077709af0f9c5cull},
    {"uneven_40_2lvl", "binary_tree_bcast_spread_nearest", 0x0cfbc51037ac0124ull},
    {"uneven_40_2lvl", "binary_tree_bcast_spread_round_robin", 0x3c077709af0f9c5cull},
    {"uneven_40_2lvl", "knomial_bcast_spread_nearest", 0x7af80f4d3a376b25ull},
    {"uneven_40_2lvl", "knomial_bcast_spread_round_robin", 0x6054423dfc9a00f5ull},
    {"uneven_40_2lvl", "graph", 0xb9614b46e9c57401ull},
    {"uneven_40_2lvl", "free_slot_index", 0x293c06ce71b5a979ull},
    {"uneven_25_ht_3lvl", "ring", 0x367c14a816d48614ull},
    {"uneven_25_ht_3lvl", "recursive_doubling_allgather", 0xb3f40e7a6c509344ull},
    {"uneven_25_ht_3lvl", "recursive_doubling_allreduce", 0x490f0b2933ab4074ull},
    {"uneven_25_ht_3lvl", "rabenseifner", 0x8d2295babb380ce4ull},
    {"uneven_25_ht_3lvl", "binomial_bcast", 0xb37337ec652def84ull},
    {"uneven_25_ht_3lvl", "binary_tree_bcast", 0xd95a8a56780a5e34ull},
    {"uneven_25_ht_3lvl", "knomial_bcast", 0xa6e9e095a1e0c265ull},
    {"uneven_25_ht_3lvl", "scatter_allgather", 0xba4783547fe63274ull},
    {"uneven_25_ht_3lvl", "binomial_gather", 0xe13dc223c84e4874ull},
    {"uneven_25_ht_3lvl", "binomial_bcast_spread_nearest", 0xd330caf61af78e54ull},
    {"uneven_25_ht_3lvl", "binomial_bcast_spread_round_robin", 0x93c4b1e5f08fefc4ull},
    {"uneven_25_ht_3lvl", "binary_tree_bcast_spread_nearest", 0xb6eef59aae2c6144ull},
    {"uneven_25_ht_3lvl", "binary_tree_bcast_spread_round_robin", 0x93c4b1e5f08fefc4ull},
    {"uneven_25_ht_3lvl", "knomial_bcast_spread_nearest", 0xc4f0b2af46ef1145ull},
    {"uneven_25_ht_3lvl", "knomial_bcast_spread_round_robin", 0x318195e801567925ull},
    {"uneven_25_ht_3lvl", "graph", 0xa6ccaa247123a1c5ull},
    {"uneven_25_ht_3lvl", "free_slot_index", 0xace29d3de022c989ull},
    {"uneven_61_sorted_3lvl", "ring", 0x316337364664e905ull},
    {"uneven_61_sorted_3lvl", "recursive_doubling_allgather", 0xc43653784b8ab4d9ull},
    {"uneven_61_sorted_3lvl", "recursive_doubling_allreduce", 0xdb5a3db36a542b89ull},
    {"uneven_61_sorted_3lvl", "rabenseifner", 0x27aea1c32c46d3c1ull},
    {"uneven_61_sorted_3lvl", "binomial_bcast", 0xa95c2379a06dad69ull},
    {"uneven_61_sorted_3lvl", "binary_tree_bcast", 0x5b2397681d36ecf1ull},
    {"uneven_61_sorted_3lvl", "knomial_bcast", 0x49b2205c474db141ull},
    {"uneven_61_sorted_3lvl", "scatter_allgather", 0x9bd22a7f7769ff01ull},
    {"uneven_61_sorted_3lvl", "binomial_gather", 0x6f2d1794a54118cdull},
    {"uneven_61_sorted_3lvl", "binomial_bcast_spread_nearest", 0x3262350e897f2fd1ull},
    {"uneven_61_sorted_3lvl", "binomial_bcast_spread_round_robin", 0x9f6f8d91c1de64b1ull},
    {"uneven_61_sorted_3lvl", "binary_tree_bcast_spread_nearest", 0x9a33ce0dbf56c291ull},
    {"uneven_61_sorted_3lvl", "binary_tree_bcast_spread_round_robin", 0x9f6f8d91c1de64b1ull},
    {"uneven_61_sorted_3lvl", "knomial_bcast_spread_nearest", 0xe98c60b4ca01ffbdull},
    {"uneven_61_sorted_3lvl", "knomial_bcast_spread_round_robin", 0x58d696f1ddc35705ull},
    {"uneven_61_sorted_3lvl", "graph", 0x94a62d7deaa50545ull},
    {"uneven_61_sorted_3lvl", "free_slot_index", 0x0f069230528bdb35ull},
    {"big_hosts_3lvl", "ring", 0x5f3330d44dff2889ull},
    {"big_hosts_3lvl", "recursive_doubling_allgather", 0x6fe81af892e954edull},
    {"big_hosts_3lvl", "recursive_doubling_allreduce", 0xdb396f22aa990895ull},
    {"big_hosts_3lvl", "rabenseifner", 0xb1710de41c5a4099ull},
    {"big_hosts_3lvl", "binomial_bcast", 0x895425e4d88bc601ull},
    {"big_hosts_3lvl", "binary_tree_bcast", 0x07e6a6b3788fd45dull},
    {"big_hosts_3lvl", "knomial_bcast", 0xe72966eeac09bcf5ull},
    {"big_hosts_3lvl", "scatter_allgather", 0x6b781647a62950bdull},
    {"big_hosts_3lvl", "binomial_gather", 0x430f5a91334728d1ull},
    {"big_hosts_3lvl", "binomial_bcast_spread_nearest", 0x8b323dd05e35e569ull},
    {"big_hosts_3lvl", "binomial_bcast_spread_round_robin", 0x598444a6b0b5b285ull},
    {"big_hosts_3lvl", "binary_tree_bcast_spread_nearest", 0xd9b8acb9c046c335ull},
    {"big_hosts_3lvl", "binary_tree_bcast_spread_round_robin", 0x598444a6b0b5b285ull},
    {"big_hosts_3lvl", "knomial_bcast_spread_nearest", 0xbaaa365f30e474b9ull},
    {"big_hosts_3lvl", "knomial_bcast_spread_round_robin", 0xbbe4318df3a3fd45ull},
    {"big_hosts_3lvl", "graph", 0xa9f6733053806f5dull},
    {"big_hosts_3lvl", "free_slot_index", 0x7844405fbc98cb3dull},
    {"uneven_big_dense", "ring", 0xdadef50c1a7667c1ull},
    {"uneven_big_dense", "recursive_doubling_allgather", 0x6a98ada7dc93307dull},
    {"uneven_big_dense", "recursive_doubling_allreduce", 0x9d479f18c4c47395ull},
    {"uneven_big_dense", "rabenseifner", 0x9d0027e899854075ull},
    {"uneven_big_dense", "binomial_bcast", 0x87fe420b981e08c5ull},
    {"uneven_big_dense", "binary_tree_bcast", 0x518dc5a4ce86c545ull},
    {"uneven_big_dense", "knomial_bcast", 0x41d037eaeef7de59ull},
    {"uneven_big_dense", "scatter_allgather", 0xa7ce04de4660e751ull},
    {"uneven_big_dense", "binomial_gather", 0x4137618d518eead9ull},
    {"uneven_big_dense", "binomial_bcast_spread_nearest", 0x9b440e327e23a45dull},
    {"uneven_big_dense", "binomial_bcast_spread_round_robin", 0xa4476905530df33dull},
    {"uneven_big_dense", "binary_tree_bcast_spread_nearest", 0xae176e26d1a8b2fdull},
    {"uneven_big_dense", "binary_tree_bcast_spread_round_robin", 0xa4476905530df33dull},
    {"uneven_big_dense", "knomial_bcast_spread_nearest", 0x54ee44ec1c51d2adull},
    {"uneven_big_dense", "knomial_bcast_spread_round_robin", 0x4da4ab3b24ce85c5ull},
    {"uneven_big_dense", "graph", 0x99fac1c419c83779ull},
    {"uneven_big_dense", "free_slot_index", 0x4f3e0bd0eb48e475ull},
    {"rr_5x6_dense_uniform", "ring", 0x243019486ffbf9e4ull},
    {"rr_5x6_dense_uniform", "recursive_doubling_allgather", 0x242c20b738dfb9d4ull},
    {"rr_5x6_dense_uniform", "recursive_doubling_allreduce", 0xff70a6173591cb54ull},
    {"rr_5x6_dense_uniform", "rabenseifner", 0x190817dd88380294ull},
    {"rr_5x6_dense_uniform", "binomial_bcast", 0x74d69f708f97bef4ull},
    {"rr_5x6_dense_uniform", "binary_tree_bcast", 0x3c76d7a31b7f4724ull},
    {"rr_5x6_dense_uniform", "knomial_bcast", 0x2458b79c25a75f65ull},
    {"rr_5x6_dense_uniform", "scatter_allgather", 0x906d7432f31e9864ull},
    {"rr_5x6_dense_uniform", "binomial_gather", 0x67e91fe6a71cd374ull},
    {"rr_5x6_dense_uniform", "binomial_bcast_spread_nearest", 0x1606677442160ef4ull},
    {"rr_5x6_dense_uniform", "binomial_bcast_spread_round_robin", 0x48a84557c0deee04ull},
    {"rr_5x6_dense_uniform", "binary_tree_bcast_spread_nearest", 0x8c71ceba3f8cc394ull},
    {"rr_5x6_dense_uniform", "binary_tree_bcast_spread_round_robin", 0x48a84557c0deee04ull},
    {"rr_5x6_dense_uniform", "knomial_bcast_spread_nearest", 0x5e91a46b4ab57465ull},
    {"rr_5x6_dense_uniform", "knomial_bcast_spread_round_robin", 0x678adde7745602a5ull},
    {"rr_5x6_dense_uniform", "graph", 0x63e6bfcb7b8e3dc5ull},
    {"rr_5x6_dense_uniform", "free_slot_index", 0xf4c718b3f5d32f19ull},
    {"uneven_17_dense", "ring", 0x0d736728818ec1c4ull},
    {"uneven_17_dense", "recursive_doubling_allgather", 0x5f0e0d3159b09cb4ull},
    {"uneven_17_dense", "recursive_doubling_allreduce", 0xc58ecfc9709f2304ull},
    {"uneven_17_dense", "rabenseifner", 0x882e1d1943ba1654ull},
    {"uneven_17_dense", "binomial_bcast", 0xdfc78484a1660044ull},
    {"uneven_17_dense", "binary_tree_bcast", 0x70b8ba152af51dc4ull},
    {"uneven_17_dense", "knomial_bcast", 0x54490ef215b32805ull},
    {"uneven_17_dense", "scatter_allgather", 0x79a37991e79b41b4ull},
    {"uneven_17_dense", "binomial_gather", 0x128f9537308b1a24ull},
    {"uneven_17_dense", "binomial_bcast_spread_nearest", 0xe5059f170a28bcf4ull},
    {"uneven_17_dense", "binomial_bcast_spread_round_robin", 0x7587a0f0e8e012d4ull},
    {"uneven_17_dense", "binary_tree_bcast_spread_nearest", 0xf8b72c4b8a4adb44ull},
    {"uneven_17_dense", "binary_tree_bcast_spread_round_robin", 0x7587a0f0e8e012d4ull},
    {"uneven_17_dense", "knomial_bcast_spread_nearest", 0x2a8dfd60221c32d5ull},
    {"uneven_17_dense", "knomial_bcast_spread_round_robin", 0x72ae3ec22701ce25ull},
    {"uneven_17_dense", "graph", 0x68fc106f48adf885ull},
    {"uneven_17_dense", "free_slot_index", 0x8590e11634d52069ull},
    {"unknown_locations_3lvl", "ring", 0x1ae847ddba7b5c65ull},
    {"unknown_locations_3lvl", "recursive_doubling_allgather", 0x219d15b9a1cd9745ull},
    {"unknown_locations_3lvl", "recursive_doubling_allreduce", 0x894ea2f943f533f5ull},
    {"unknown_locations_3lvl", "rabenseifner", 0x3a446fab7bed5d45ull},
    {"unknown_locations_3lvl", "binomial_bcast", 0x049c27b91f106a95ull},
    {"unknown_locations_3lvl", "binary_tree_bcast", 0x948ee482fee226d5ull},
    {"unknown_locations_3lvl", "knomial_bcast", 0xd5e81fae5cc4e165ull},
    {"unknown_locations_3lvl", "scatter_allgather", 0xedd84b6e777bf295ull},
    {"unknown_locations_3lvl", "binomial_gather", 0xc856c8471e445bb5ull},
    {"unknown_locations_3lvl", "binomial_bcast_spread_nearest", 0x5f2d04ca6b5085a5ull},
    {"unknown_locations_3lvl", "binomial_bcast_spread_round_robin", 0x1e3ac9a43d23b6e5ull},
    {"unknown_locations_3lvl", "binary_tree_bcast_spread_nearest", 0xc0c9de1b1ea35725ull},
    {"unknown_locations_3lvl", "binary_tree_bcast_spread_round_robin", 0x1e3ac9a43d23b6e5ull},
    {"unknown_locations_3lvl", "knomial_bcast_spread_nearest", 0x9f536844ebccc005ull},
    {"unknown_locations_3lvl", "knomial_bcast_spread_round_robin", 0x2d409d4a1c5bc6a5ull},
    {"unknown_locations_3lvl", "graph", 0x625dd9f925d21ce5ull},
    {"unknown_locations_3lvl", "free_slot_index", 0x20e01e30160ab209ull},
    {"one_rank", "ring", 0x4d25767f9dce13f5ull},
    {"one_rank", "recursive_doubling_allgather", 0x4d25767f9dce13f5ull},
    {"one_rank", "recursive_doubling_allreduce", 0x4d25767f9dce13f5ull},
    {"one_rank", "rabenseifner", 0x4d25767f9dce13f5ull},
    {"one_rank", "binomial_bcast", 0x4d25767f9dce13f5ull},
    {"one_rank", "binary_tree_bcast", 0x4d25767f9dce13f5ull},
    {"one_rank", "knomial_bcast", 0x88201fb960ff6465ull},
    {"one_rank", "scatter_allgather", 0x4d25767f9dce13f5ull},
    {"one_rank", "binomial_gather", 0x4d25767f9dce13f5ull},
    {"one_rank", "binomial_bcast_spread_nearest", 0x4d25767f9dce13f5ull},
    {"one_rank", "binomial_bcast_spread_round_robin", 0x4d25767f9dce13f5ull},
    {"one_rank", "binary_tree_bcast_spread_nearest", 0x4d25767f9dce13f5ull},
    {"one_rank", "binary_tree_bcast_spread_round_robin", 0x4d25767f9dce13f5ull},
    {"one_rank", "knomial_bcast_spread_nearest", 0x88201fb960ff6465ull},
    {"one_rank", "knomial_bcast_spread_round_robin", 0x88201fb960ff6465ull},
    {"one_rank", "graph", 0xa8c7f832281a39c5ull},
    {"one_rank", "free_slot_index", 0xd33b1e151fd463a9ull},
    {"one_host_12", "ring", 0xf67b5c930bf77165ull},
    {"one_host_12", "recursive_doubling_allgather", 0x7f1b464881be3295ull},
    {"one_host_12", "recursive_doubling_allreduce", 0xe0e8f07010057d65ull},
    {"one_host_12", "rabenseifner", 0xe0e8f07010057d65ull},
    {"one_host_12", "binomial_bcast", 0xc59ae0ba33712215ull},
    {"one_host_12", "binary_tree_bcast", 0x0f77168069018b35ull},
    {"one_host_12", "knomial_bcast", 0xaa4adb55908bfc25ull},
    {"one_host_12", "scatter_allgather", 0xa0eb6cd9b6367f95ull},
    {"one_host_12", "binomial_gather", 0x7ca9eab1680aea35ull},
    {"one_host_12", "binomial_bcast_spread_nearest", 0xf67b5c930bf77165ull},
    {"one_host_12", "binomial_bcast_spread_round_robin", 0xe365cf6aad5f5585ull},
    {"one_host_12", "binary_tree_bcast_spread_nearest", 0xf67b5c930bf77165ull},
    {"one_host_12", "binary_tree_bcast_spread_round_robin", 0xe365cf6aad5f5585ull},
    {"one_host_12", "knomial_bcast_spread_nearest", 0xaa4adb55908bfc25ull},
    {"one_host_12", "knomial_bcast_spread_round_robin", 0x636c761b8233dca5ull},
    {"one_host_12", "graph", 0x683b6ac4e52859c5ull},
    {"one_host_12", "free_slot_index", 0xf9f62bd06768f829ull},
    {"one_rank_per_host_37", "ring", 0xaac39e69a5211e31ull},
    {"one_rank_per_host_37", "recursive_doubling_allgather", 0x9a118ef9c052cfe1ull},
    {"one_rank_per_host_37", "recursive_doubling_allreduce", 0x6a6506af14bba541ull},
    {"one_rank_per_host_37", "rabenseifner", 0x8adc29876d98b4e1ull},
    {"one_rank_per_host_37", "binomial_bcast", 0xb6922a6179062051ull},
    {"one_rank_per_host_37", "binary_tree_bcast", 0x6eb3d42dfbc9a591ull},
    {"one_rank_per_host_37", "knomial_bcast", 0x249aec9e5b64fc05ull},
    {"one_rank_per_host_37", "scatter_allgather", 0x28ea395731feddf1ull},
    {"one_rank_per_host_37", "binomial_gather", 0x1e52b53c97acb751ull},
    {"one_rank_per_host_37", "binomial_bcast_spread_nearest", 0xf71176ffbe8bb421ull},
    {"one_rank_per_host_37", "binomial_bcast_spread_round_robin", 0xcccaec2134b2f3d1ull},
    {"one_rank_per_host_37", "binary_tree_bcast_spread_nearest", 0xf71176ffbe8bb421ull},
    {"one_rank_per_host_37", "binary_tree_bcast_spread_round_robin", 0xcccaec2134b2f3d1ull},
    {"one_rank_per_host_37", "knomial_bcast_spread_nearest", 0x561a66ec771241a5ull},
    {"one_rank_per_host_37", "knomial_bcast_spread_round_robin", 0x14de09160725ede5ull},
    {"one_rank_per_host_37", "graph", 0x69594b373aaa4545ull},
    {"one_rank_per_host_37", "free_slot_index", 0x56c6120851ca7b39ull},
    {"bench_block_32768", "ring", 0x18a09bacb3ca3d25ull},
    {"bench_block_32768", "recursive_doubling_allgather", 0x55d90dc059582945ull},
    {"bench_block_32768", "recursive_doubling_allreduce", 0x307b7dbf3a425b25ull},
    {"bench_block_32768", "rabenseifner", 0x307b7dbf3a425b25ull},
    {"bench_block_32768", "binomial_bcast", 0x96063b512091f91dull},
    {"bench_block_32768", "binary_tree_bcast", 0x5904716dbedbb8d9ull},
    {"bench_block_32768", "knomial_bcast", 0x18a09bacb3ca3d25ull},
    {"bench_block_32768", "scatter_allgather", 0x61935c3388ff2e15ull},
    {"bench_block_32768", "binomial_gather", 0x8d161245e354b2b9ull},
    {"bench_block_32768", "binomial_bcast_spread_nearest", 0xbdd70e56d95d711dull},
    {"bench_block_32768", "binomial_bcast_spread_round_robin", 0x71a442edeab96725ull},
    {"bench_block_32768", "binary_tree_bcast_spread_nearest", 0x6ce07aeb42bf1a51ull},
    {"bench_block_32768", "binary_tree_bcast_spread_round_robin", 0x71a442edeab96725ull},
    {"bench_block_32768", "knomial_bcast_spread_nearest", 0xeb61348fdf8b2bf1ull},
    {"bench_block_32768", "knomial_bcast_spread_round_robin", 0x71a442edeab96725ull},
    {"bench_rr_4096", "ring", 0xee63aede2018e6f5ull},
    {"bench_rr_4096", "recursive_doubling_allgather", 0xaa132801c2c838a5ull},
    {"bench_rr_4096", "recursive_doubling_allreduce", 0x3a01695fedfe6475ull},
    {"bench_rr_4096", "rabenseifner", 0x3a01695fedfe6475ull},
    {"bench_rr_4096", "binomial_bcast", 0xa74d025fc6eaa551ull},
    {"bench_rr_4096", "binary_tree_bcast", 0x74c37fb1a36317c9ull},
    {"bench_rr_4096", "knomial_bcast", 0xf0d72ae6c99dc961ull},
    {"bench_rr_4096", "scatter_allgather", 0xa7e05b9e27b1d395ull},
    {"bench_rr_4096", "binomial_gather", 0x692035e88c0c8cedull},
    {"bench_rr_4096", "binomial_bcast_spread_nearest", 0x3709b898920fb59dull},
    {"bench_rr_4096", "binomial_bcast_spread_round_robin", 0x1e6a60a6daa8ba25ull},
    {"bench_rr_4096", "binary_tree_bcast_spread_nearest", 0x329a5fd2ea9fc5a9ull},
    {"bench_rr_4096", "binary_tree_bcast_spread_round_robin", 0x1e6a60a6daa8ba25ull},
    {"bench_rr_4096", "knomial_bcast_spread_nearest", 0x16e77c049c400b95ull},
    {"bench_rr_4096", "knomial_bcast_spread_round_robin", 0x1e6a60a6daa8ba25ull},
    {"bench_block_262144", "ring", 0x8756d89cd491f725ull},
    {"bench_block_262144", "recursive_doubling_allgather", 0xe08c4ae1fe275bb5ull},
    {"bench_block_262144", "recursive_doubling_allreduce", 0x72a9459b00c12325ull},
    {"bench_block_262144", "rabenseifner", 0x72a9459b00c12325ull},
    {"bench_block_262144", "binomial_bcast", 0x19160bc52826141dull},
    {"bench_block_262144", "binary_tree_bcast", 0xfce36ad556adf3f9ull},
    {"bench_block_262144", "knomial_bcast", 0x71eaf0762a12e425ull},
    {"bench_block_262144", "scatter_allgather", 0xbf626d0b49ff2425ull},
    {"bench_block_262144", "binomial_gather", 0xb039e47a45245ca5ull},
    {"bench_block_262144", "binomial_bcast_spread_round_robin", 0xeac08f5a5acd4925ull},
    {"bench_block_262144", "binary_tree_bcast_spread_round_robin", 0xeac08f5a5acd4925ull},
    {"bench_block_262144", "knomial_bcast_spread_round_robin", 0xeac08f5a5acd4925ull},
};

// --- jobs ------------------------------------------------------------------------------

struct Job {
  std::string name;
  Placement placement;
  std::unique_ptr<HostCostMatrix> hosts;
  bool small = true;  // small jobs also run the graph heuristic and the index replay
};

// Uniform random integer in 0..n-1 from raw mt19937 output (the engine's sequence is fixed
// by the standard, unlike the distributions').
int Pick(std::mt19937& rng, int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); }

void Shuffle(std::mt19937& rng, std::vector<RankLocation>& v) {
  for (int i = static_cast<int>(v.size()) - 1; i > 0; --i) std::swap(v[i], v[Pick(rng, i + 1)]);
}

std::unique_ptr<HostCostMatrix> FatTree(int num_hosts, int hosts_per_leaf, int leaves_per_pod,
                                        double core_gbps = 50) {
  FatTreeShape shape;
  shape.num_hosts = num_hosts;
  shape.hosts_per_leaf = hosts_per_leaf;
  shape.leaves_per_pod = leaves_per_pod;
  shape.core_gbps = core_gbps;
  return FatTreeCostMatrix(shape).value();
}

std::unique_ptr<HostCostMatrix> Dense(int n, std::mt19937* rng) {
  std::vector<double> a(static_cast<size_t>(n) * n, 1500), b(a.size(), 0.08);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) {
        a[i * n + j] = b[i * n + j] = 0;
      } else if (rng != nullptr) {  // few distinct values: ties between hosts stay common
        a[i * n + j] = 1000 + 250 * Pick(*rng, 4);
        b[i * n + j] = 0.08 * (1 + Pick(*rng, 2));
      }
    }
  }
  return DenseCostMatrix::Create(n, a, b).value();
}

// Hosts with 1..max_per_host ranks; rank i of a host on core i / threads, L3 i / 4, NUMA
// i / 8, package i / 16; shuffled over the slots when `shuffle`.
Placement Uneven(std::mt19937& rng, int num_hosts, int max_per_host, int threads, bool shuffle) {
  Placement p;
  p.num_hosts = num_hosts;
  for (int h = 0; h < num_hosts; ++h) {
    const int k = 1 + Pick(rng, max_per_host);
    for (int i = 0; i < k; ++i) {
      RankLocation loc;
      loc.host = h;
      loc.core = i / threads;
      loc.l3 = i / 4;
      loc.numa = i / 8;
      loc.package = i / 16;
      p.ranks.push_back(loc);
    }
  }
  if (shuffle) Shuffle(rng, p.ranks);
  return p;
}

std::vector<Job> Jobs() {
  std::vector<Job> jobs;
  std::mt19937 rng(20261130);
  auto add = [&](std::string name, Placement p, std::unique_ptr<HostCostMatrix> h,
                 bool small = true) {
    jobs.push_back(Job{std::move(name), std::move(p), std::move(h), small});
  };
  // 3-level trees with partial leaves and pods.
  add("block_10x8_3lvl", BlockPlacement(10, 8), FatTree(10, 4, 2));
  add("block_7x5_3lvl_odd", BlockPlacement(7, 5), FatTree(7, 3, 2));
  add("rr_9x6_3lvl", RoundRobinPlacement(9, 6), FatTree(9, 2, 2));
  add("block_300x7_3lvl", BlockPlacement(300, 7), FatTree(300, 8, 4));
  add("rr_37x11_3lvl", RoundRobinPlacement(37, 11, 4, 2, 1), FatTree(37, 5, 3));
  // 2-level trees (one pod).
  add("block_12x6_2lvl", BlockPlacement(12, 6), FatTree(12, 5, 100));
  add("rr_50x3_2lvl", RoundRobinPlacement(50, 3), FatTree(50, 8, 100));
  // Uneven ranks per host, shuffled.
  add("uneven_13_3lvl", Uneven(rng, 13, 9, 1, true), FatTree(13, 3, 2));
  add("uneven_40_2lvl", Uneven(rng, 40, 17, 1, true), FatTree(40, 6, 100));
  add("uneven_25_ht_3lvl", Uneven(rng, 25, 12, 2, true), FatTree(25, 4, 2));
  add("uneven_61_sorted_3lvl", Uneven(rng, 61, 33, 1, false), FatTree(61, 7, 3));
  // Hosts of more than 64 slots (one also of exactly 64), shared cores.
  {
    Placement p;
    p.num_hosts = 5;
    for (int h : {0, 1, 2, 3, 4}) {
      const int k = h == 0 ? 64 : h == 1 ? 65 : h == 2 ? 130 : h == 3 ? 3 : 70;
      for (int i = 0; i < k; ++i) {
        RankLocation loc;
        loc.host = h;
        loc.core = i / 2;
        loc.l3 = i / 12;
        loc.numa = i / 24;
        loc.package = i / 48;
        p.ranks.push_back(loc);
      }
    }
    Shuffle(rng, p.ranks);
    add("big_hosts_3lvl", std::move(p), FatTree(5, 2, 2));
  }
  add("uneven_big_dense", Uneven(rng, 6, 100, 2, true), Dense(6, &rng));
  // Dense matrices: every host its own group.
  add("rr_5x6_dense_uniform", RoundRobinPlacement(5, 6), Dense(5, nullptr));
  add("uneven_17_dense", Uneven(rng, 17, 7, 1, true), Dense(17, &rng));
  // Unknown hwloc locations on some hosts, odd ids on others.
  {
    Placement p = Uneven(rng, 11, 10, 1, false);
    for (size_t i = 0; i < p.ranks.size(); ++i) {
      RankLocation& loc = p.ranks[i];
      if (loc.host % 3 == 0) loc = RankLocation{loc.host, -1, -1, -1, -1};
      if (loc.host % 3 == 1) {
        loc.core = loc.core * 1000 + 7;
        loc.l3 = i % 2 == 0 ? -1 : loc.l3 + 5000;
      }
    }
    Shuffle(rng, p.ranks);
    add("unknown_locations_3lvl", std::move(p), FatTree(11, 3, 2));
  }
  // Degenerate sizes.
  add("one_rank", BlockPlacement(1, 1), FatTree(1, 4, 2));
  add("one_host_12", BlockPlacement(1, 12), Dense(1, nullptr));
  add("one_rank_per_host_37", BlockPlacement(37, 1), FatTree(37, 8, 2));
  // The benchmark's jobs (bench/reorder_bench.cc).
  add("bench_block_32768", BlockPlacement(1024, 32), FatTree(1024, 32, 16), false);
  add("bench_rr_4096", RoundRobinPlacement(128, 32), FatTree(128, 32, 16), false);
  add("bench_block_262144", BlockPlacement(8192, 32), FatTree(8192, 32, 16), false);
  return jobs;
}

// --- hashing ---------------------------------------------------------------------------

uint64_t HashOrder(const Mapping& m, uint64_t h) {
  return Fnv64a(std::string_view(reinterpret_cast<const char*>(m.data()), m.size() * sizeof(m[0])),
                h);
}

uint64_t HashResult(const absl::StatusOr<Mapping>& r, uint64_t h) {
  if (!r.ok()) return Fnv64a(r.status().ToString(), h);
  return HashOrder(*r, h);
}

std::vector<int> Roots(const Job& job) {
  const int p = job.placement.size();
  std::vector<int> roots =
      job.small ? std::vector<int>{0, 1, p / 3, p / 2, p - 1} : std::vector<int>{0, p / 3};
  std::vector<int> out;
  for (int r : roots) {
    if (r >= 0 && r < p && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

std::vector<int> Radixes(const Job& job) {
  return job.small ? std::vector<int>{2, 3, 4, 8} : std::vector<int>{4};
}

constexpr Heuristic kAll[] = {Heuristic::kRing,
                              Heuristic::kRecursiveDoublingAllgather,
                              Heuristic::kRecursiveDoublingAllreduce,
                              Heuristic::kRabenseifner,
                              Heuristic::kBinomialBcast,
                              Heuristic::kBinaryTreeBcast,
                              Heuristic::kKnomialBcast,
                              Heuristic::kScatterAllgather,
                              Heuristic::kBinomialGather};

// A ring of heavy edges plus deterministic random lighter ones.
CommGraph TestGraph(int p, std::mt19937& rng) {
  CommGraph g{p, {}};
  for (int i = 0; i < p; ++i) g.edges.push_back({i, (i + 1) % p, 1 << 20});
  for (int e = 0; e < 2 * p; ++e)
    g.edges.push_back({Pick(rng, p), Pick(rng, p), 1 + Pick(rng, 5000)});
  return g;
}

// Every (method, hash) of one job.
std::vector<std::pair<std::string, uint64_t>> HashJob(const Job& job) {
  std::vector<std::pair<std::string, uint64_t>> out;
  const RankDistance d = RankDistance::Create(job.placement, *job.hosts).value();
  const int p = d.size();
  for (Heuristic h : kAll) {
    uint64_t hash = kFnv64Offset;
    for (int root : Roots(job)) {
      ReorderOptions o;
      o.root = root;
      if (h == Heuristic::kKnomialBcast) {
        for (int radix : Radixes(job)) {
          o.knomial_radix = radix;
          hash = HashResult(Reorder(h, d, o), hash);
        }
      } else {
        hash = HashResult(Reorder(h, d, o), hash);
      }
    }
    out.emplace_back(std::string(HeuristicName(h)), hash);
  }
  for (Heuristic h :
       {Heuristic::kBinomialBcast, Heuristic::kBinaryTreeBcast, Heuristic::kKnomialBcast}) {
    for (bool nearest : {true, false}) {
      if (nearest && d.hosts().num_hosts() > kSpreadNearestMaxHosts) continue;
      uint64_t hash = kFnv64Offset;
      for (int root : Roots(job)) {
        ReorderOptions o;
        o.root = root;
        for (int radix : h == Heuristic::kKnomialBcast ? Radixes(job) : std::vector<int>{4}) {
          o.knomial_radix = radix;
          hash = HashResult(ReorderTreeSpread(h, d, o, nearest), hash);
        }
      }
      out.emplace_back(
          std::string(HeuristicName(h)) + (nearest ? "_spread_nearest" : "_spread_round_robin"),
          hash);
    }
  }
  if (!job.small) return out;
  {
    std::mt19937 rng(7);
    const CommGraph g = TestGraph(p, rng);
    uint64_t hash = kFnv64Offset;
    for (int root : Roots(job)) {
      for (int passes : {0, 1}) {
        ReorderOptions o;
        o.root = root;
        o.refinement_passes = passes;
        hash = HashResult(ReorderGraph(d, g, o), hash);
      }
    }
    out.emplace_back("graph", hash);
  }
  {
    // FreeSlotIndex on its own: random references and preferred slots until all are taken,
    // and the in-order walk of PartitionGrow (graph_reorder.cc).
    std::mt19937 rng(11);
    Mapping taken;
    for (int round = 0; round < 3; ++round) {
      FreeSlotIndex index(d);
      while (index.num_free() > 0) {
        const int ref = Pick(rng, p);
        const int prefer = round == 0 ? -1 : Pick(rng, p + 1) - 1;
        const int s = index.Closest(ref, prefer);
        taken.push_back(s);
        index.Take(s);
      }
      taken.push_back(index.Closest(0));  // -1 once full
    }
    FreeSlotIndex index(d);
    for (int s = Roots(job).back(), i = 0; i < p; ++i) {
      taken.push_back(s);
      index.Take(s);
      if (i + 1 < p) s = index.Closest(s);
    }
    out.emplace_back("free_slot_index", HashOrder(taken, kFnv64Offset));
  }
  return out;
}

TEST(ReorderGoldenTest, EveryOrderMatchesTheRecordedHash) {
  std::map<std::pair<std::string, std::string>, uint64_t> golden;
  for (const Golden& g : kGolden) golden[{g.job, g.method}] = g.hash;
  std::string table;
  int mismatches = 0;
  for (const Job& job : Jobs()) {
    for (const auto& [method, hash] : HashJob(job)) {
      char line[160];
      std::snprintf(line, sizeof(line), "    {\"%s\", \"%s\", 0x%016llxull},\n", job.name.c_str(),
                    method.c_str(), static_cast<unsigned long long>(hash));
      table += line;
      auto it = golden.find({job.name, method});
      if (it == golden.end()) {
        ADD_FAILURE() << job.name << " " << method << ": no recorded hash";
        ++mismatches;
      } else if (it->second != hash) {
        ADD_FAILURE() << job.name << " " << method << ": order changed";
        ++mismatches;
      }
      golden.erase({job.name, method});
    }
  }
  for (const auto& [key, hash] : golden) {
    ADD_FAILURE() << key.first << " " << key.second << ": recorded but not computed";
    ++mismatches;
  }
  if (mismatches > 0) std::printf("kGolden[] = {\n%s};\n", table.c_str());
}

}  // namespace
}  // namespace toporr::mapping
