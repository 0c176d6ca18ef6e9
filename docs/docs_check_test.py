#!/usr/bin/env python3
"""Checks that the documentation names everything the code defines, and that its links work.

Each check parses the source that defines a set of names and looks for every name in the page
that documents it:

  settings   every key of libtoporr's settings table (kSettings in client/config/client_options.cc)
             has its variable TOPORR_<KEY> in the SETTINGS section of toporr(7)
             (deploy/man/toporr.7) and in a table row of the user guide (USER_GUIDE,
             docs/user-guide.md);
  commands   every toporrctl command (the Command tables of the groups listed in
             kCommandGroups, client/ctl/dispatch.cc) is in the COMMANDS section of
             toporrctl(1);
  daemon     every toporrd.conf key (the keys of toporrd's settings table, kSettings in
             daemon/config.cc) is in the CONFIGURATION section of toporrd(8);
  c_api      every function client/toporr.h declares is in the NAME section of libtoporr(3),
             and every one of client/toporr_plan.h in that of toporr_plan(3) (the package
             links `man 3 FUNCTION` to the page from there);
  options    every option toporr-discover (collectors/discover_main.cc) and toporr-probe
             (probe/probe_main.cc) accept is in the OPTIONS section of its page;
  links      every relative link of every *.md file of the tree ([text](target), images,
             reference definitions, HTML src/href) resolves to an existing file or folder.
             Links with a scheme (https:, mailto:) and anchors within a page are not checked;
             neither are links that leave the tree (a sibling checkout the repository does not
             own): those are listed.

A parser that finds nothing fails too (the definition moved: update this file).

Usage: docs_check_test.py [--root DIR] [--selftest]. Under Bazel the tree is found through
the runfile //:README.md, a symlink into it (like tools/source_root.sh). --selftest runs each
check on the tree with one item removed or added (in memory) and fails unless that check, and
only it, reports it.
"""

import argparse
import os
import re
import sys
import urllib.parse


class Tree:
    """The source tree, with in-memory edits for the self-test."""

    def __init__(self, root, overrides=None, removed=None, extra_md=None):
        self.root = os.path.realpath(root)
        self.overrides = overrides or {}
        self.removed = set(removed or ())
        self.extra_md = list(extra_md or ())

    def read(self, rel):
        if rel in self.overrides:
            return self.overrides[rel]
        with open(os.path.join(self.root, rel), encoding="utf-8") as f:
            return f.read()

    def exists(self, rel):
        rel = os.path.normpath(rel)
        if rel in self.removed:
            return False
        return rel in self.overrides or os.path.exists(os.path.join(self.root, rel))

    def glob(self, folder, suffix):
        out = sorted(n for n in os.listdir(os.path.join(self.root, folder)) if n.endswith(suffix))
        return [os.path.join(folder, n) for n in out]

    def markdown_files(self):
        found = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames
                                 if not d.startswith(".") and not d.startswith("bazel-"))
            for name in sorted(filenames):
                if name.endswith(".md"):
                    found.append(os.path.relpath(os.path.join(dirpath, name), self.root))
        return found + [m for m in self.extra_md if m not in found]


# ---- reading man pages ----

def man_text(source):
    """A roff page as plain text: font escapes dropped, \\- as -, one line per source line."""
    text = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", source)
    text = text.replace("\\-", "-").replace("\\(ha", "^").replace("\\e", "\\")
    text = re.sub(r"\\\(..", " ", text)
    text = text.replace('\\"', "")
    return text


def man_section(source, title):
    """The text of section .SH TITLE (up to the next .SH), or None."""
    out, inside = None, False
    for line in man_text(source).split("\n"):
        m = re.match(r'^\.SH\s+"?([^"]*)"?\s*$', line)
        if m:
            if inside:
                break
            inside = m.group(1).strip().upper() == title.upper()
            out = [] if inside else out
        elif inside:
            out.append(line)
    return None if out is None else "\n".join(out)


def has_word(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def braced_block(text, start):
    """text[start:] from its first '{' to the matching '}' (string literals skipped)."""
    i = text.index("{", start)
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c == '"':
            if text[j - 1] == "R":  # raw string R"(...)"
                end = text.index(')"', j)
                j = end + 2
                continue
            j += 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[i:j + 1]
        j += 1
    raise ValueError("unbalanced braces")


# ---- the sources ----

def table_keys(tree, source):
    """The keys of the settings table `Setting kSettings[] = {{"key", ...}, ...}` of `source`
    (None: no such table)."""
    src = tree.read(source)
    m = re.search(r"Setting\s+kSettings\[\]\s*=", src)
    if not m:
        return None
    return re.findall(r'^\s*\{\s*"([a-z0-9_]+)"\s*,', braced_block(src, m.end()), re.M)


def settings_keys(tree):
    return table_keys(tree, "client/config/client_options.cc")


def ctl_commands(tree):
    src = tree.read("client/ctl/dispatch.cc")
    m = re.search(r"kCommandGroups\[\]\)\(\)\s*=\s*\{([^}]*)\}", src)
    if not m:
        return None, []
    groups = [g.strip() for g in m.group(1).split(",") if g.strip()]
    commands, problems = [], []
    sources = {f: tree.read(f) for f in tree.glob("client/ctl", ".cc")}
    for group in groups:
        pattern = re.compile(r"std::vector<Command>\s+" + re.escape(group) + r"\(\)\s*\{")
        where = [(f, pattern.search(s)) for f, s in sources.items() if pattern.search(s)]
        if not where:
            problems.append("commands: no definition of %s() in client/ctl/*.cc" % group)
            continue
        f, found = where[0]
        body = braced_block(sources[f], found.end() - 1)
        names = re.findall(r'\{\s*"([a-z][a-z0-9-]*)"\s*,', body)
        if not names:
            problems.append("commands: %s() in %s has no {\"name\", ...} entries" % (group, f))
        commands += [(n, group, f) for n in names]
    return commands, problems


def defined_names(tree, source, pattern):
    """The names `pattern` (group 1; table_keys: the keys of the settings table) finds in
    `source`, each once, in order."""
    if pattern is table_keys:
        return list(dict.fromkeys(table_keys(tree, source) or []))
    return list(dict.fromkeys(re.findall(pattern, tree.read(source), re.M)))


# ---- the checks ----

def missing_in_page(tree, check, names, page_file, section, title):
    """Problems for the (name, where the code defines it) of `names` that are not words of
    section `section` of man page `page_file`, whose name is `title`."""
    page = man_section(tree.read(page_file), section)
    if page is None:
        return ["%s: %s has no %s section" % (check, page_file, section)]
    return ["%s: %s (%s) is not in the %s section of %s, %s"
            % (check, name, where, section, title, page_file)
            for name, where in names if not has_word(page, name)]


# The page whose tables list every libtoporr setting (the users' reference besides toporr(7)).
USER_GUIDE = "docs/user-guide.md"


def check_settings(tree):
    keys = settings_keys(tree)
    if not keys:
        return ["settings: found no kSettings table in client/config/client_options.cc"]
    names = [("TOPORR_" + k.upper(), "key %s of client/config/client_options.cc" % k) for k in keys]
    problems = missing_in_page(tree, "settings", names, "deploy/man/toporr.7", "SETTINGS",
                               "toporr(7)")
    if not tree.exists(USER_GUIDE):
        return problems + ["settings: %s does not exist" % USER_GUIDE]
    rows = [l for l in tree.read(USER_GUIDE).split("\n") if l.lstrip().startswith("|")]
    problems += ["settings: %s (%s) has no row in a table of %s" % (var, where, USER_GUIDE)
                 for var, where in names if not any(has_word(r, var) for r in rows)]
    return problems


def check_commands(tree):
    commands, problems = ctl_commands(tree)
    if commands is None:
        return ["commands: found no kCommandGroups in client/ctl/dispatch.cc"]
    if not commands:
        return problems + ["commands: found no toporrctl command"]
    names = [(n, "toporrctl command of %s() in %s" % (group, source))
             for n, group, source in commands]
    return problems + missing_in_page(tree, "commands", names, "deploy/man/toporrctl.1",
                                      "COMMANDS", "toporrctl(1)")


# Names a source defines, each a word of a man page's section: check, source, pattern (a
# regular expression whose group 1 is a name, or table_keys: the keys of the source's settings
# table), what a name is, page, section, the page's name.
DEFINED_NAMES = [
    ("daemon", "daemon/config.cc", table_keys, "toporrd.conf key",
     "deploy/man/toporrd.8", "CONFIGURATION", "toporrd(8)"),
    ("c_api", "client/toporr.h", r"^[a-z_ ]+[ *]+(toporr_[a-z_]+)\(", "function",
     "deploy/man/libtoporr.3", "NAME", "libtoporr(3)"),
    ("c_api", "client/toporr_plan.h", r"^[a-z_ ]+[ *]+(toporr_[a-z_]+)\(", "function",
     "deploy/man/toporr_plan.3", "NAME", "toporr_plan(3)"),
    ("options", "collectors/discover_main.cc", r'flag == "(--[a-z-]+)"', "option",
     "deploy/man/toporr-discover.8", "OPTIONS", "toporr-discover(8)"),
    ("options", "probe/probe_main.cc", r'arg == "(--[a-z-]+)"', "option",
     "deploy/man/toporr-probe.1", "OPTIONS", "toporr-probe(1)"),
]


def defined_names_check(check):
    def run(tree):
        problems = []
        for name, source, pattern, what, page, section, title in DEFINED_NAMES:
            if name != check:
                continue
            found = defined_names(tree, source, pattern)
            if not found:
                how = "table kSettings" if pattern is table_keys else "pattern " + pattern
                problems.append("%s: found no %s in %s (%s)" % (check, what, source, how))
                continue
            names = [(n, "%s of %s" % (what, source)) for n in found]
            problems += missing_in_page(tree, check, names, page, section, title)
        return problems
    return run


# The algorithm registry (mapping/schedules/algorithms.h): every row's name and C value.
REGISTRY = "mapping/schedules/algorithms.h"


def registry_rows(tree, kind):
    """(name, C value) of every row of kAlgorithms (kind "Algorithm") or kCollectives."""
    pattern = r"\{%s::k[A-Za-z]+,\s*\"([a-z_]+)\",\s*(\d+)" % kind
    return [(n, int(v)) for n, v in re.findall(pattern, tree.read(REGISTRY))]


def public_constants(text):
    """NAME -> value of every `TOPORR_NAME = value` in `text` (C enum or Fortran parameter)."""
    return {n: int(v) for n, v in re.findall(r"\bTOPORR_([A-Z_]+)\s*=\s*(\d+)", text)}


def check_algorithms(tree):
    algorithms = registry_rows(tree, "Algorithm")
    collectives = registry_rows(tree, "Collective")
    if not algorithms or not collectives:
        return ["algorithms: found no kAlgorithms/kCollectives rows in " + REGISTRY]
    want = {"ALG_AUTO": 0}
    want.update({"ALG_" + n.upper(): v for n, v in algorithms})
    want.update({n.upper(): v for n, v in collectives})
    problems = []
    for header in ("client/toporr.h", "client/toporr_f.f90"):
        have = {n: v for n, v in public_constants(tree.read(header)).items()
                if n.startswith("ALG_") or n in {c.upper() for c, _ in collectives}}
        for name, value in sorted(want.items()):
            if have.get(name) != value:
                problems.append("algorithms: TOPORR_%s is %s in %s, %d in %s"
                                % (name, have.get(name, "missing"), header, value, REGISTRY))
        problems += ["algorithms: TOPORR_%s of %s has no row in %s" % (name, header, REGISTRY)
                     for name in sorted(set(have) - set(want))]
    man = man_section(tree.read("deploy/man/toporr.7"), "SETTINGS") or ""
    start = man.find("TOPORR_ALGORITHM")
    man = man[start:man.find(".TP", start)] if start >= 0 else ""
    reference = [l for l in tree.read("docs/operator-reference.md").split("\n")
                 if l.startswith("| the algorithm |")]
    for name, _ in algorithms:
        if not has_word(man, name):
            problems.append("algorithms: %s (row of %s) is not in TOPORR_ALGORITHM of toporr(7)"
                            % (name, REGISTRY))
        if not reference or "`%s`" % name not in reference[0]:
            problems.append("algorithms: %s (row of %s) is not in the --algorithm row of "
                            "docs/operator-reference.md" % (name, REGISTRY))
    return problems


LINK_PATTERNS = [
    re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+[\"'(][^)]*)?\)"),
    re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M),
    re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I),
]


def markdown_links(text):
    """(line number, target) of every link outside code blocks and code spans."""
    out, fence = [], None
    for number, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        line = re.sub(r"(`+)(.+?)\1", "code", line)
        for pattern in LINK_PATTERNS:
            out += [(number, t) for t in pattern.findall(line)]
    return out


def check_links(tree, notes=None):
    problems, files = [], tree.markdown_files()
    if not files:
        return ["links: found no *.md file"]
    for md in files:
        folder = os.path.dirname(md)
        for number, target in markdown_links(tree.read(md)):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith(("#", "//")):
                continue
            path = urllib.parse.unquote(target.split("#", 1)[0].split("?", 1)[0])
            if not path:
                continue
            rel = os.path.normpath(path.lstrip("/") if path.startswith("/")
                                   else os.path.join(folder, path))
            if rel == ".." or rel.startswith(".." + os.sep):
                if notes is not None:
                    notes.append("links: %s:%d: %s leaves the tree (not checked)"
                                 % (md, number, target))
                continue
            if not tree.exists(rel):
                problems.append("links: %s:%d: %s does not exist (%s)" % (md, number, target, rel))
    return problems


CHECKS = [
    ("settings", check_settings),
    ("commands", check_commands),
    ("daemon", defined_names_check("daemon")),
    ("c_api", defined_names_check("c_api")),
    ("options", defined_names_check("options")),
    ("algorithms", check_algorithms),
    ("links", check_links),
]


def run_all(tree, notes=None):
    problems = []
    for name, check in CHECKS:
        problems += check(tree, notes) if check is check_links else check(tree)
    return problems


# ---- self-test: each check must catch one removed (or added) item ----

def without_line(text, needle):
    lines = text.split("\n")
    kept = [l for l in lines if needle not in l]
    assert len(kept) < len(lines), "self-test: %r not found" % needle
    return "\n".join(kept)


def mutations(tree):
    """(the check that must fail, what its message must hold (a string, or a tuple of strings
    all in one message), Tree with the change)."""
    r = tree.read
    settings = r("client/config/client_options.cc")
    ctl_query = r("client/ctl/query_commands.cc")
    config = r("daemon/config.cc")
    yield ("settings", ("TOPORR_VERIFY_CALLS", "toporr(7)"),
           Tree(tree.root, {"deploy/man/toporr.7": without_line(r("deploy/man/toporr.7"),
                                                                "TOPORR_VERIFY_CALLS")}))
    yield ("settings", ("TOPORR_CHECK_ARGUMENTS", "no row in a table of " + USER_GUIDE),
           Tree(tree.root, {USER_GUIDE: without_line(r(USER_GUIDE), "| `TOPORR_CHECK_ARGUMENTS` |")}))
    yield ("settings", "TOPORR_NEW_KNOB",
           Tree(tree.root, {"client/config/client_options.cc": settings.replace(
               '{"socket",', '{"new_knob", TOPORR_TEXT(socket), "a path"},\n    {"socket",', 1)}))
    yield ("commands", ("validate (toporrctl command", "toporrctl(1)"),
           Tree(tree.root, {"deploy/man/toporrctl.1": r("deploy/man/toporrctl.1").replace(
               ".B validate", ".B checkit")}))
    yield ("commands", "frobnicate (toporrctl command of QueryCommands()",
           Tree(tree.root, {"client/ctl/query_commands.cc": ctl_query.replace(
               '{"hosts",', '{"frobnicate", "", Hosts},\n      {"hosts",', 1)}))
    yield ("daemon", "discovery_timeout_s",
           Tree(tree.root, {"deploy/man/toporrd.8": without_line(r("deploy/man/toporrd.8"),
                                                                 "discovery_timeout_s")}))
    yield ("daemon", "new_daemon_key",
           Tree(tree.root, {"daemon/config.cc": config.replace(
               '{"db_path",', '{"new_daemon_key", TOPORR_TEXT(db_path)},\n    {"db_path",', 1)}))
    yield ("c_api", "toporr_gather",
           Tree(tree.root, {"deploy/man/libtoporr.3": r("deploy/man/libtoporr.3").replace(
               "toporr_allgather, toporr_gather,", "toporr_allgather,", 1)}))
    yield ("options", "--lfts",
           Tree(tree.root, {"deploy/man/toporr-discover.8": r("deploy/man/toporr-discover.8")
                            .replace(".BI \\-\\-lfts", ".BI \\-\\-lft\\-file")}))
    yield ("options", "--no-pairs",
           Tree(tree.root, {"deploy/man/toporr-probe.1": without_line(
               r("deploy/man/toporr-probe.1"), ".B \\-\\-no\\-pairs")}))
    yield ("algorithms", ("TOPORR_ALG_BINE", "client/toporr_f.f90"),
           Tree(tree.root, {"client/toporr_f.f90": r("client/toporr_f.f90").replace(
               "TOPORR_ALG_BINE = 17", "TOPORR_ALG_BINE = 18")}))
    yield ("algorithms", ("swing_bandwidth", "toporr(7)"),
           Tree(tree.root, {"deploy/man/toporr.7": without_line(r("deploy/man/toporr.7"),
                                                                ".BR swing_bandwidth ,")}))
    yield ("algorithms", ("TOPORR_ALG_FOO", "no row"),
           Tree(tree.root, {"client/toporr.h": r("client/toporr.h").replace(
               "TOPORR_ALG_BINE = 17", "TOPORR_ALG_BINE = 17,\n  TOPORR_ALG_FOO = 18")}))
    yield ("links", "docs/vcluster.md does not exist",
           Tree(tree.root, removed={"docs/vcluster.md"}))
    yield ("links", "no/such/file.md",
           Tree(tree.root, {"docs/selftest.md": "See [the page](../no/such/file.md).\n"},
                extra_md=["docs/selftest.md"]))


def selftest(tree):
    baseline = run_all(tree)
    failures = 0
    for check, expected, mutated in mutations(tree):
        found = [p for p in run_all(mutated) if p not in baseline]
        words = expected if isinstance(expected, tuple) else (expected,)
        ok = found and all(p.startswith(check + ":") for p in found) and \
            any(all(w in p for w in words) for p in found)
        print("%s  %-8s %s" % ("ok  " if ok else "FAIL", check, " ... ".join(words)))
        for p in found:
            print("        " + p)
        failures += not ok
    return failures


def source_root(args):
    if args.root:
        return args.root
    readme = os.path.join(os.environ.get("TEST_SRCDIR", sys.argv[0] + ".runfiles"),
                          os.environ.get("TEST_WORKSPACE", "toporr"), "README.md")
    if not os.path.exists(readme):
        sys.exit("cannot find the runfile README.md at %s (or pass --root)" % readme)
    return os.path.dirname(os.path.realpath(readme))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", help="the source tree (default: found through the runfiles)")
    parser.add_argument("--selftest", action="store_true")
    args = parser.parse_args()
    tree = Tree(source_root(args))
    if args.selftest:
        failures = selftest(tree)
        print("docs_check self-test: %d of %d failed" % (failures, len(list(mutations(tree)))))
        return 1 if failures else 0
    notes = []
    problems = run_all(tree, notes)
    for n in notes:
        print("note: " + n)
    for p in problems:
        print("FAIL " + p)
    if problems:
        print("docs_check: %d problem(s) in %s" % (len(problems), tree.root))
        return 1
    counts = {}
    for check, source, pattern, _, _, _, _ in DEFINED_NAMES:
        counts[check] = counts.get(check, 0) + len(defined_names(tree, source, pattern))
    print("docs_check: documented: %d settings, %d toporrctl commands, %d toporrd.conf keys, "
          "%d C API functions, %d program options; the relative links of %d *.md files resolve"
          % (len(settings_keys(tree)), len(ctl_commands(tree)[0]), counts["daemon"],
             counts["c_api"], counts["options"], len(tree.markdown_files())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
