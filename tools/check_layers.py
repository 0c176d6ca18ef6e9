#!/usr/bin/env python3
"""Checks the folder-level #include edges of toporr against its layer table (README "Layout").

Every quoted include "folder/..." in a .h/.cc/.c file under the source root is an edge from
the file's room to the included file's room. A room is a top-level folder, except in the
folders of ROOMED, whose sub-folders are rooms of their own ("client/plan" for
client/plan/plan.cc; "client" for the files directly in client/). The code generated from proto/ is included by its
path below proto/, the protos' include root ("toporr/v1/toporr.pb.h" for
proto/toporr/v1/toporr.proto, as the generated sources include each other): such an include
is an edge to proto/, and spelling it "proto/toporr/v1/..." is refused, so that one
spelling is the only one. An edge must be allowed by LAYERS below, and the folder graph must
have no cycle. Test sources (*_test.cc) of fabric/, db/ and mapping/ may also include
collectors/: they build their inputs from the shared real dumps through the parsers; nothing
linked into a library may.

Usage: check_layers.py [SOURCE_ROOT]   (default: the current directory)
Exit status 0 when clean; 1 with one "file:line: ..." line per offending include (and per
cycle) on stderr otherwise. Python 3 standard library only.
"""

import os
import re
import sys

# folder -> folders its sources may include (besides itself). Folders not listed here
# (deploy/, third_party/, tools/, ...) are not checked; "*" means anything.
LAYERS = {
    "common": set(),
    "proto": set(),
    "fabric": {"common"},
    "collectors": {"common", "fabric"},
    "db": {"common", "fabric"},
    "mapping": {"common", "fabric"},
    "daemon": {"proto", "db", "collectors", "mapping", "fabric", "common"},
    # client/: the public headers alone; its rooms by concern, none including daemon/.
    "client": set(),
    "client/memory": set(),
    "client/config": {"common"},
    "client/plan": {"mapping", "fabric", "collectors", "common"},
    "client/profile": {"mapping", "common"},
    "client/report": {"client/plan", "mapping", "common"},
    "client/costs": {"client/config", "proto", "mapping", "fabric", "collectors", "common"},
    "client/ctl": {"client/config", "client/costs", "client/plan", "client/profile",
                   "client/report", "proto", "mapping", "fabric", "collectors", "common"},
    "client/mpi": {"client", "client/config", "client/costs", "client/plan", "client/profile",
                   "client/report", "client/memory", "proto", "mapping", "fabric", "collectors",
                   "common"},
    "client/planapi": {"client", "client/config", "client/costs", "client/plan", "proto",
                       "mapping", "fabric", "collectors", "common"},
    "client/testing": {"client/memory"},
    "probe": {"client/plan", "mapping", "fabric", "collectors", "common"},
    "bench": {"*"},
    "fuzz": {"daemon", "collectors", "fabric", "common"},
    "scheduler": {"common"},
}

# Top-level folders whose sub-folders are rooms (layers of their own in LAYERS).
ROOMED = {"client"}

# Extra folders a *_test.cc of a folder may include (test inputs read by the parsers).
TEST_EXTRA = {
    "fabric": {"collectors"},
    "db": {"collectors"},
    "mapping": {"collectors"},
    # the planner's tests plan over costs built by client/costs and check the report's lines
    "client/plan": {"client/costs", "client/report"},
}

SKIP_DIRS = {".git", ".bazel", "third_party", "deploy"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(([^"/]+)/[^"]*)"')
# The suffixes protoc and grpc_cpp_plugin give the C++ code of "x.proto" ("x.pb.h",
# "x.grpc.pb.h"); proto/BUILD.bazel generates both.
GENERATED_PROTO = re.compile(r"^(.*?)(\.grpc)?\.pb\.h$")


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIP_DIRS and not d.startswith("bazel-") and not d.startswith(".")
        )
        if rel_dir == ".":
            continue
        for name in sorted(filenames):
            if name.endswith((".h", ".cc", ".c")):
                yield os.path.normpath(os.path.join(rel_dir, name))


def generated_proto(root, path):
    """Whether `path` (as included) is the C++ code of a proto under proto/."""
    m = GENERATED_PROTO.match(path)
    return bool(m) and os.path.isfile(os.path.join(root, "proto", m.group(1) + ".proto"))


def room_of(path):
    """The room of a source path or an included path ("client/plan/plan.h" -> "client/plan")."""
    parts = path.split("/")
    if parts[0] in ROOMED and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def include_edges(root):
    """Yields (file, line number, from folder, to folder, included path) for every
    cross-folder include."""
    for rel in source_files(root):
        folder = room_of(rel.replace(os.sep, "/"))
        if folder not in LAYERS:
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                path, target = m.group(1), room_of(m.group(1))
                if generated_proto(root, path):
                    target = "proto"
                if target in LAYERS and target != folder:
                    yield rel, number, folder, target, path


def allowed(rel, folder, target):
    if "*" in LAYERS[folder] or target in LAYERS[folder]:
        return True
    return rel.endswith("_test.cc") and target in TEST_EXTRA.get(folder, set())


def find_cycle(graph):
    """A list of folders forming a cycle in `graph` (folder -> set of folders), or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, path)
                if cycle:
                    return cycle
        path.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def check(root):
    """Returns the list of problems (strings); empty when the tree follows the layer table."""
    problems = []
    graph = {}
    first_edge = {}
    for rel, number, folder, target, path in include_edges(root):
        if target == "proto" and not generated_proto(root, path):
            problems.append(
                '%s:%d: include "%s" by its path below proto/, the protos\' include root ("%s")'
                % (rel, number, path, path[len("proto/"):]))
        if not allowed(rel, folder, target):
            problems.append(
                "%s:%d: %s/ may not include %s/ (allowed: %s)"
                % (rel, number, folder, target, ", ".join(sorted(LAYERS[folder])) or "nothing"))
        if not rel.endswith("_test.cc"):
            graph.setdefault(folder, set()).add(target)
            first_edge.setdefault((folder, target), "%s:%d" % (rel, number))
    cycle = find_cycle(graph)
    if cycle:
        steps = ", ".join(
            "%s -> %s (%s)" % (a, b, first_edge[(a, b)]) for a, b in zip(cycle, cycle[1:]))
        problems.append("folder cycle: " + steps)
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print("check_layers: %d problem(s); see the layer table in README.md" % len(problems),
              file=sys.stderr)
        return 1
    print("check_layers: %s follows the layer table" % os.path.abspath(root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
