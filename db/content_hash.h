// The content hash of a fabric: what decides whether an ingest is "the same
// fabric again".
//
// SHA-256 (lower-case hex, 64 characters) over a canonical binary encoding of
// the fabric's content that does not depend on the input format or on the order
// in which a parser produced things:
//   - nodes in ascending GUID order, each with type, GUID, system image GUID,
//   vendor and
//     device id, declared port count, description, LID, LMC, enhanced port 0,
//     and its ports in ascending number (number, external number, GUID, LID,
//     LMC);
//   - links named by their end GUIDs and port numbers, each oriented with the
//   smaller
//     (GUID, port) end first, sorted; with width, speed and data rate;
//   - hosts in name order, each with the GUIDs of its CAs in ascending order;
//   - the GUIDs of anonymous endpoints, ascending.
// Indices (node, link, host positions) are not content and do not enter the
// hash. The encoding starts with a version tag; changing it changes every hash,
// which only costs one extra snapshot after an upgrade.
#ifndef TOPORR_DB_CONTENT_HASH_H_
#define TOPORR_DB_CONTENT_HASH_H_

#include <string>

#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"

namespace toporr::db {

// Thread-safe (pure). Index fields that are out of range are encoded as "no
// GUID" rather than crashing; Store::Ingest rejects such fabrics before hashing
// anyway.
std::string FabricContentHash(const fabric::Fabric& fabric);

// The hash of a snapshot: FabricContentHash when `tables` is null or empty (so
// snapshots without routes keep their hash), else SHA-256 over that hash and a
// canonical encoding of the tables (switches in GUID order, each with its LID,
// LFT length and entries; then the LID owner list).
std::string SnapshotContentHash(const fabric::Fabric& fabric,
                                const fabric::ForwardingTables* tables);

}  // namespace toporr::db

#endif  // TOPORR_DB_CONTENT_HASH_H_
