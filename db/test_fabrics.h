// Hand-built and generated fabrics for the db/ tests, and a field-by-field
// comparison. Tests only.
#ifndef TOPORR_DB_TEST_FABRICS_H_
#define TOPORR_DB_TEST_FABRICS_H_

#include "fabric/fabric.h"

namespace toporr::db::testing {

// A small fabric that exercises every field the store persists: 2 spines and 2
// leaves (one leaf with enhanced port 0 and a port cabled to another port of
// itself), a router, a SHARP aggregation node, 5 hosts of which one is
// dual-rail, one anonymous CA, an unconnected CA port, a link of unknown
// width/speed, LMC 2, external port numbers, and system image GUIDs.
// Deterministic.
fabric::Fabric MakeSmallFabric();

// A two-level fat tree: `leaves` leaf switches with `cas_per_leaf` single-port
// CAs each (one host per CA, "node%05d"), `uplinks` links from every leaf
// spread round-robin over `spines` spine switches. leaves * uplinks must be
// divisible by spines. `variant` changes one leaf-to-spine link's speed, giving
// different content with the same shape.
fabric::Fabric MakeFatTree(int leaves, int cas_per_leaf, int uplinks, int spines, int variant = 0);

// The fabric the speed requirement names: 10,240 CAs, 960 switches, 30,720
// links.
fabric::Fabric MakeLargeFatTree(int variant = 0);

// gtest expectations that every field of `a` and `b` is equal (with the first
// difference named), plus FindNodeByGuid agreeing on every node.
void ExpectFabricsEqual(const fabric::Fabric& a, const fabric::Fabric& b);

}  // namespace toporr::db::testing

#endif  // TOPORR_DB_TEST_FABRICS_H_
