"""Wraps Debian's system libraries as cc_library targets in @system//:<name>.

Link lines come from pkg-config at fetch time, so Abseil's long dependency chains are never
pasted by hand. Headers are in /usr/include, which the default toolchain already searches.
"""

# target name -> (pkg-config modules, extra linkopts)
_LIBS = {
    "absl": (["absl_status", "absl_statusor", "absl_strings", "absl_str_format",
              "absl_synchronization", "absl_time", "absl_flags", "absl_flags_parse",
              "absl_hash", "absl_raw_hash_set", "absl_random_random"], []),
    "protobuf": (["protobuf"], []),
    "grpc": (["grpc++", "grpc"], ["-lgrpc++_reflection"]),
    "hwloc": (["hwloc"], []),
    "sqlite3": (["sqlite3"], []),
    "crypto": (["libcrypto"], []),
    "ssl": (["libssl", "libcrypto"], []),
    "ibnetdisc": (["libibnetdisc", "libibmad", "libibumad"], []),
    "gtest": (["gtest", "gmock"], ["-lpthread"]),
    "gtest_main": (["gtest_main", "gmock"], ["-lpthread"]),
    "benchmark": (["benchmark"], ["-lpthread"]),
    "benchmark_main": (["benchmark"], ["-lbenchmark_main", "-lpthread"]),
    "scotch": ([], ["-lscotch", "-lscotcherr", "-lz", "-lm", "-lpthread"]),
    "xml2": (["libxml-2.0"], []),
    "systemd": (["libsystemd"], []),  # sd_notify (libsystemd-dev)
    "civetweb": ([], ["-lcivetweb"]),  # libcivetweb-dev ships no .pc file
}

def _system_libs_impl(ctx):
    lines = ['package(default_visibility = ["//visibility:public"])', ""]
    for name, (modules, extra) in _LIBS.items():
        opts = []
        if modules:
            res = ctx.execute(["pkg-config", "--libs"] + modules)
            if res.return_code != 0:
                fail("pkg-config failed for %s (%s): %s\nRun deploy/install-deps.sh first." %
                     (name, " ".join(modules), res.stderr))
            opts = res.stdout.strip().split(" ")
        opts = [o for o in opts + extra if o]
        lines.append("cc_library(")
        lines.append('    name = "%s",' % name)
        lines.append("    linkopts = %s," % repr(opts))
        lines.append(")")
        lines.append("")
    ctx.file("BUILD.bazel", "\n".join(lines))
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)

system_libs = repository_rule(
    implementation = _system_libs_impl,
    local = True,
    environ = ["PKG_CONFIG_PATH"],
)
