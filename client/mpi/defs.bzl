"""libtoporr's MPI side, built once per MPI library.

The sources in //client/mpi are MPI-library neutral (only <mpi.h>); toporr_mpi_variant()
compiles them against one MPI library's headers and links one shared library per role:
  :core                static library (C API + C++ core) for Bazel targets and tests
  :libtoporr.so        the C API, for programs built with mpicc (-ltoporr)
  :libtoporr_pmpi.so   the PMPI/Fortran interceptors over libtoporr.so, for LD_PRELOAD
  :mpi_abi_guard_test  the load-time ABI check (mpi_abi_guard.h) in a process of that MPI
  :coll_own_test       toporr's own implementations (coll/own.h) against the registry
Both shared libraries export only the C API and MPI/Fortran entry points (version script).

toporr_site_kit() packs the same library for a build outside Bazel against a site's own MPI
(deploy/site-mpi/build-libtoporr.sh): everything MPI-neutral precompiled, the MPI sources
and headers to compile with the site's compiler wrapper. The lists below are the one place
that says which sources are MPI-dependent.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//third_party:copts.bzl", "TOPORR_COPTS")

# Compiled against one MPI library's mpi.h: the C API and the C++ core of libtoporr.so.
TOPORR_MPI_SRCS = [
    "//client/mpi:bound_ranks.cc",
    "//client/mpi:buffers.cc",
    "//client/mpi:c_api.cc",
    "//client/mpi:collective_api.cc",
    "//client/mpi:collective_opening.cc",
    "//client/mpi:collective_status.cc",
    "//client/mpi:decision_cache.cc",
    "//client/mpi:decision_log.cc",
    "//client/mpi:decision_steps.cc",
    "//client/mpi:gathered_costs.cc",
    "//client/mpi/coll:allgather.cc",
    "//client/mpi/coll:allreduce.cc",
    "//client/mpi/coll:bcast.cc",
    "//client/mpi/coll:own.cc",
    "//client/mpi/coll:reduce.cc",
    "//client/mpi/coll:steps.cc",
    "//client/mpi:leaf_groups.cc",
    "//client/mpi:library.cc",
    "//client/mpi:mpi_abi_guard.cc",
    "//client/mpi:multilevel.cc",
    "//client/mpi:nonblocking_api.cc",
    "//client/mpi:profile_file.cc",
    "//client/mpi:topology.cc",
    "//client/mpi:traffic_recorder.cc",
]

TOPORR_MPI_HDRS = [
    "//client:toporr.h",
    "//client/mpi:bound_ranks.h",
    "//client/mpi:buffers.h",
    "//client/mpi:collective_api.h",
    "//client/mpi:collective_opening.h",
    "//client/mpi:collective_status.h",
    "//client/mpi:decision_cache.h",
    "//client/mpi:decision_log.h",
    "//client/mpi:decision_steps.h",
    "//client/mpi:gathered_costs.h",
    "//client/mpi/coll:allgather.h",
    "//client/mpi/coll:allreduce.h",
    "//client/mpi/coll:bcast.h",
    "//client/mpi/coll:own.h",
    "//client/mpi/coll:reduce.h",
    "//client/mpi/coll:steps.h",
    "//client/mpi:leaf_groups.h",
    "//client/mpi:library.h",
    "//client/mpi:library_starts.h",
    "//client/mpi:mpi_abi_guard.h",
    "//client/mpi:multilevel.h",
    "//client/mpi:persistent_abi.h",
    "//client/mpi:pmpi_abi.h",
    "//client/mpi:profile_file.h",
    "//client/mpi:topology.h",
    "//client/mpi:traffic_recorder.h",
]

# The interceptors of libtoporr_pmpi.so (over libtoporr.so, through pmpi_abi.h).
TOPORR_PMPI_SRCS = [
    "//client/mpi:pmpi.cc",
    "//client/mpi:pmpi_fortran.cc",
    "//client/mpi:pmpi_traffic.cc",
]

# Headers of the interceptors alone (not of libtoporr.so).
TOPORR_PMPI_HDRS = [
    "//client/mpi:pmpi_guards.h",
]

# What the MPI sources use that never includes <mpi.h>: built once, whatever the MPI.
TOPORR_MPI_NEUTRAL_DEPS = [
    "//client/config:client_options",
    "//client/report:decision_report",
    "//client/memory:device_memory",
    "//client/plan:graph_plan",
    "//client/plan:job_layout",
    "//client/plan:launch_files",
    "//client/plan:node_topology",
    "//client/plan:plan",
    "//client/report:verification",
    "//client/costs:job_report",
    "//client/costs:row_routes",
    "//client/costs:row_source",
    "//client/profile:traffic_graph",
    "//client/profile:traffic_profile",
    "//collectors:hwloc_topology",
    "//common:fnv",
    "//common:key_value_file",
    "//common:output_file",
    "//common:status_macros",
    "//mapping/costs:distance",
    "//mapping/costs:placement",
    "//mapping/embedding:graph_embed",
    "//mapping/levels:multilevel",
    "//mapping/reorder:graph_reorder",
    "//mapping/reorder:reorder",
    "//mapping/schedules:collective_shapes",
    "//mapping/schedules:pattern",
    "//mapping/schedules:swing_schedule",
    "@system//:absl",
]

def toporr_mpi_variant(mpi, library_deps = []):
    """library_deps: more code for libtoporr.so (e.g. Open MPI's components' C++ halves)."""
    cc_library(
        name = "core",
        srcs = TOPORR_MPI_SRCS,
        hdrs = TOPORR_MPI_HDRS,
        copts = TOPORR_COPTS,
        visibility = ["//visibility:public"],
        deps = [mpi] + TOPORR_MPI_NEUTRAL_DEPS,
        alwayslink = 1,
    )
    cc_test(
        name = "mpi_abi_guard_test",
        srcs = ["//client/mpi:mpi_abi_guard_test.cc"],
        copts = TOPORR_COPTS,
        deps = [
            ":core",
            "@system//:gtest_main",
        ],
    )
    cc_test(
        name = "coll_own_test",
        srcs = ["//client/mpi/coll:own_test.cc"],
        copts = TOPORR_COPTS,
        deps = [
            ":core",
            "@system//:gtest_main",
        ],
    )
    cc_binary(
        name = "libtoporr.so",
        linkshared = 1,
        # -z nodelete: once loaded, never unloaded (Open MPI closes a component it does not
        # select and may open another later; protobuf refuses to register the daemon
        # protocol's descriptors a second time, as a reloaded library would).
        linkopts = [
            "-Wl,-soname,libtoporr.so",
            "-Wl,-z,nodelete",
            "-Wl,--version-script=$(location //client/mpi:exports.map)",
        ],
        visibility = ["//visibility:public"],
        additional_linker_inputs = ["//client/mpi:exports.map"],
        deps = [":core"] + library_deps,
    )
    # The interceptors only, over libtoporr.so (pmpi_abi.h): one toporr per process even
    # when the program also links libtoporr.so.
    cc_binary(
        name = "libtoporr_pmpi.so",
        srcs = [
            ":libtoporr.so",
            "//client/mpi:persistent_abi.h",
            "//client/mpi:pmpi_abi.h",
        ] + TOPORR_PMPI_SRCS + TOPORR_PMPI_HDRS,
        copts = TOPORR_COPTS,
        linkshared = 1,
        linkopts = [
            "-ldl",
            "-Wl,-rpath,'$$ORIGIN'",
            "-Wl,--version-script=$(location //client/mpi:exports.map)",
        ],
        additional_linker_inputs = ["//client/mpi:exports.map"],
        visibility = ["//visibility:public"],
        deps = [mpi],
    )

def _root_relative(f):
    """A file's path as the sources include it (generated files without bazel-out/...)."""
    return f.short_path if not f.short_path.startswith("../") else f.path

def _include_dir(path, bin_dir, gen_dir):
    """An include directory of the compilation context, relative to the kit's include/."""
    for root in [bin_dir + "/", gen_dir + "/"]:
        if path.startswith(root):
            return path[len(root):]
    return "" if path in [".", bin_dir, gen_dir] else path

def _toporr_site_kit_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    bin_dir, gen_dir = ctx.bin_dir.path, ctx.genfiles_dir.path
    archives, whole, link_flags, headers = [], [], [], []
    include_dirs, defines = [""], []
    for dep in ctx.attr.deps:
        cc = dep[CcInfo]
        headers.append(cc.compilation_context.headers)
        for d in (cc.compilation_context.quote_includes.to_list() +
                  cc.compilation_context.includes.to_list() +
                  cc.compilation_context.system_includes.to_list()):
            d = _include_dir(d, bin_dir, gen_dir)
            if d not in include_dirs and not d.startswith(("/", "external/")):
                include_dirs.append(d)
        for d in cc.compilation_context.defines.to_list():
            if d not in defines:
                defines.append(d)
        for linker_input in cc.linking_context.linker_inputs.to_list():
            for flag in linker_input.user_link_flags:
                if flag not in link_flags:
                    link_flags.append(flag)
            for lib in linker_input.libraries:
                archive = lib.pic_static_library or lib.static_library
                if archive == None:
                    continue
                target = whole if lib.alwayslink else archives
                if archive not in target:
                    target.append(archive)
    headers = depset(ctx.files.mpi_hdrs, transitive = headers).to_list()
    copies = []  # (source path, path in the kit)
    for f in headers:
        if not f.path.startswith("external/"):
            copies.append((f.path, "include/" + _root_relative(f)))
    for f in ctx.files.mpi_srcs + ctx.files.pmpi_srcs:
        copies.append((f.path, "src/" + f.short_path))
    for f in ctx.files.public_files:
        copies.append((f.path, "share/" + f.basename))
    lists = {
        "copts.txt": ctx.attr.copts + ["-D" + d for d in defines] +
                     ["-I{KIT}/include/" + d if d else "-I{KIT}/include" for d in include_dirs],
        "link_flags.txt": link_flags,
        "mpi_sources.txt": ["src/" + f.short_path for f in ctx.files.mpi_srcs],
        "pmpi_sources.txt": ["src/" + f.short_path for f in ctx.files.pmpi_srcs],
    }
    script = ["set -euo pipefail", "K=%s" % out.path, "mkdir -p $K/lib"]
    for src, dst in copies:
        script.append("install -D -m 0644 '%s' \"$K/%s\"" % (src, dst))
    for name, lines in lists.items():
        script.append("printf '%%s\\n' %s >\"$K/%s\"" % (
            " ".join(["'%s'" % l for l in lines]) if lines else "''",
            name,
        ))
    for name, members in [("libtoporr_core.a", archives), ("libtoporr_core_whole.a", whole)]:
        # One archive from many (GNU ar's MRI script); members keep their own names.
        mri = ["CREATE $K/lib/%s" % name] + ["ADDLIB %s" % a.path for a in members] + ["SAVE", "END"]
        script.append("printf '%%s\\n' %s | ar -M && ar s \"$K/lib/%s\"" % (
            " ".join(["\"%s\"" % l for l in mri]),
            name,
        ))
    ctx.actions.run_shell(
        outputs = [out],
        inputs = depset(
            [f for f in headers] + archives + whole + ctx.files.mpi_srcs +
            ctx.files.pmpi_srcs + ctx.files.public_files,
        ),
        command = "\n".join(script),
        mnemonic = "ToporrSiteKit",
        progress_message = "Packing libtoporr's MPI-neutral core for site builds",
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

# The MPI-neutral part of libtoporr for a build against a site's MPI
# (deploy/site-mpi/build-libtoporr.sh), as one directory:
#   lib/libtoporr_core.a        PIC archive of every library the MPI sources depend on
#   lib/libtoporr_core_whole.a  the same for alwayslink libraries (linked whole; may be empty)
#   link_flags.txt              the system libraries they need (-l..., one per line)
#   copts.txt                   compiler options of the MPI sources ({KIT} = this directory)
#   mpi_sources.txt, pmpi_sources.txt  the sources of libtoporr.so and libtoporr_pmpi.so
#   include/, src/              their headers (generated ones included) and sources
#   share/                      exports.map, toporr.h, toporr.hpp, toporr_f.f90, toporr_f08.f90
toporr_site_kit = rule(
    implementation = _toporr_site_kit_impl,
    attrs = {
        "copts": attr.string_list(),
        "deps": attr.label_list(providers = [CcInfo]),
        "mpi_hdrs": attr.label_list(allow_files = True),
        "mpi_srcs": attr.label_list(allow_files = True),
        "pmpi_srcs": attr.label_list(allow_files = True),
        "public_files": attr.label_list(allow_files = True),
    },
)
