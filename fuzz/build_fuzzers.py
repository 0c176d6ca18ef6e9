#!/usr/bin/env python3
"""Builds the libFuzzer harnesses of fuzz/BUILD.bazel with clang-14 outside Bazel.

Bazel here builds with gcc, which has no libFuzzer; so for each `//fuzz:<parser>_fuzzer`
this script asks `bazel query` for its cc_library closure (sources, copts, and the linkopts
of the @system libraries, i.e. pkg-config's link lines), writes a Makefile that compiles
each source once with -fsanitize=fuzzer-no-link,address,undefined and links
<out>/<parser>_fuzzer with -fsanitize=fuzzer,address,undefined, and runs make (which keeps
every object and binary that is up to date, headers included through -MMD).

Usage: build_fuzzers.py OUT_DIR PARSER...   (run from the source root)
Prints the path of each harness binary. Python 3 standard library only.
"""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

CXX = "clang++-14"
SANITIZE = "-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CXXFLAGS = ("-std=c++17 -g -O1 -fno-omit-frame-pointer -D_GLIBCXX_ASSERTIONS " + SANITIZE)


def query(parser):
    """(sources, copts, linkopts) of //fuzz:<parser>_fuzzer's cc_library closure."""
    expr = 'kind("cc_library", deps(//fuzz:%s_fuzzer))' % parser
    xml = subprocess.run(["bazel", "query", "--output=xml", expr], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    sources, copts, linkopts = [], [], []
    for rule in ET.fromstring(xml).iter("rule"):
        name = rule.get("name")
        lists = {l.get("name"): l for l in rule.iter("list")}
        if name.startswith("//"):
            for label in lists["srcs"].iter("label") if "srcs" in lists else []:
                value = label.get("value")
                if value.endswith(".cc"):
                    pkg, _, file = value[2:].partition(":")
                    sources.append(os.path.join(pkg, file))
            for opt in lists["copts"].iter("string") if "copts" in lists else []:
                if opt.get("value").startswith(("-isystem", "-I")):
                    copts.append(opt.get("value"))
        elif name.startswith("@system//"):
            for opt in lists["linkopts"].iter("string") if "linkopts" in lists else []:
                linkopts.append(opt.get("value"))
    return sorted(set(sources)), sorted(set(copts)), list(dict.fromkeys(linkopts))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, parsers = os.path.abspath(sys.argv[1]), sys.argv[2:]
    root = os.getcwd()
    os.makedirs(os.path.join(out, "obj"), exist_ok=True)
    rules, binaries, all_copts = [], [], set()
    objects_of = {}
    for parser in parsers:
        sources, copts, linkopts = query(parser)
        if not sources:
            sys.exit("build_fuzzers: //fuzz:%s_fuzzer has no sources" % parser)
        all_copts.update(copts)
        objects = []
        for src in sources:
            obj = os.path.join(out, "obj", src.replace("/", "__")[:-3] + ".o")
            objects.append(obj)
            objects_of[obj] = src
        binary = os.path.join(out, parser + "_fuzzer")
        binaries.append(binary)
        rules.append("%s: %s\n\t%s -fsanitize=fuzzer %s -o $@ $^ %s\n" %
                     (binary, " ".join(objects), CXX, SANITIZE, " ".join(linkopts)))
    flags = "%s -I%s %s" % (CXXFLAGS, root, " ".join(sorted(all_copts)))
    lines = ["all: " + " ".join(binaries), ""] + rules
    for obj, src in sorted(objects_of.items()):
        lines.append("%s: %s\n\t%s -fsanitize=fuzzer-no-link %s -MMD -MP -c %s -o $@\n" %
                     (obj, os.path.join(root, src), CXX, flags, os.path.join(root, src)))
    lines.append("-include $(wildcard %s/obj/*.d)\n" % out)
    makefile = os.path.join(out, "Makefile")
    with open(makefile + ".new", "w") as f:
        f.write("\n".join(lines))
    os.replace(makefile + ".new", makefile)
    # Same flags as the objects were built with, or rebuild everything.
    stamp = os.path.join(out, "flags")
    old = open(stamp).read() if os.path.exists(stamp) else None
    if old != flags:
        for name in os.listdir(os.path.join(out, "obj")):
            os.remove(os.path.join(out, "obj", name))
        with open(stamp, "w") as f:
            f.write(flags)
    subprocess.run(["make", "-s", "-j2", "-f", makefile, "all"], check=True)
    for binary in binaries:
        print(binary)


if __name__ == "__main__":
    main()
