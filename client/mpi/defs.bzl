"""libtoporr's MPI side, built once per MPI library.

The sources in //client/mpi are MPI-library neutral (only <mpi.h>); toporr_mpi_variant()
compiles them against one MPI library's headers and links one shared library per role:
  :core                static library (C API + C++ core) for Bazel targets and tests
  :libtoporr.so        the C API, for programs built with mpicc (-ltoporr)
  :libtoporr_pmpi.so   the PMPI/Fortran interceptors over libtoporr.so, for LD_PRELOAD
Both shared libraries export only the C API and MPI/Fortran entry points (version script).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library")
load("//third_party:copts.bzl", "TOPORR_COPTS")

def toporr_mpi_variant(mpi):
    cc_library(
        name = "core",
        srcs = [
            "//client/mpi:bound_ranks.cc",
            "//client/mpi:buffers.cc",
            "//client/mpi:c_api.cc",
            "//client/mpi:collective_api.cc",
            "//client/mpi:collective_status.cc",
            "//client/mpi:collective_steps.cc",
            "//client/mpi:collectives.cc",
            "//client/mpi:collectives_recent.cc",
            "//client/mpi:leaf_groups.cc",
            "//client/mpi:library.cc",
            "//client/mpi:multilevel.cc",
            "//client/mpi:topology.cc",
        ],
        hdrs = [
            "//client:toporr.h",
            "//client/mpi:bound_ranks.h",
            "//client/mpi:buffers.h",
            "//client/mpi:collective_api.h",
            "//client/mpi:collective_status.h",
            "//client/mpi:collective_steps.h",
            "//client/mpi:collectives.h",
            "//client/mpi:collectives_recent.h",
            "//client/mpi:leaf_groups.h",
            "//client/mpi:library.h",
            "//client/mpi:multilevel.h",
            "//client/mpi:pmpi_abi.h",
            "//client/mpi:topology.h",
        ],
        copts = TOPORR_COPTS,
        visibility = ["//visibility:public"],
        deps = [
            mpi,
            "//client:client_options",
            "//client:decision_report",
            "//client:device_memory",
            "//client:graph_plan",
            "//client:job_layout",
            "//client:node_topology",
            "//client:plan",
            "//client:row_routes",
            "//client:row_source",
            "//collectors:hwloc_topology",
            "//common:status_macros",
            "//mapping:distance",
            "//mapping:graph_embed",
            "//mapping:multilevel",
            "//mapping:pattern",
            "//mapping:placement",
            "//mapping:reorder",
            "//mapping:swing_schedule",
            "@system//:absl",
        ],
        alwayslink = 1,
    )
    cc_binary(
        name = "libtoporr.so",
        linkshared = 1,
        linkopts = [
            "-Wl,-soname,libtoporr.so",
            "-Wl,--version-script=$(location //client/mpi:exports.map)",
        ],
        visibility = ["//visibility:public"],
        additional_linker_inputs = ["//client/mpi:exports.map"],
        deps = [":core"],
    )
    # The interceptors only, over libtoporr.so (pmpi_abi.h): one toporr per process even
    # when the program also links libtoporr.so.
    cc_binary(
        name = "libtoporr_pmpi.so",
        srcs = [
            ":libtoporr.so",
            "//client/mpi:pmpi.cc",
            "//client/mpi:pmpi_abi.h",
        ],
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
