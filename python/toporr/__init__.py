"""Rank orders, costs and paths from the fabric, for Python programs.

toporr's planner for processes that are not MPI ranks (a PyTorch training job, a launcher, a
scheduler's prolog): given the host each process runs on, the order in which they should take
their ranks for one collective, planned on the costs of toporrd (reached as libtoporr reaches
it: /etc/toporr/client.conf or TOPORR_CONFIG, then the TOPORR_* environment) or offline on a
fabric dump. The orders are those of ``toporrctl plan`` for the same hosts and request.

    import toporr
    with toporr.Planner() as planner:             # the site's toporrd
        plan = planner.order(["node01", "node05", "node02", "node06"],
                             collective="allreduce", size=64 << 20, algorithm="ring")
    plan.order          # plan.order[new_rank] = launch rank
    plan.new_rank(3)    # the rank launch rank 3 should take

Offline: ``toporr.Planner(fabric="fabric.topo")``. PyTorch jobs: ``toporr.torch``.

The package calls libtoporr_plan.so (C API: toporr_plan.h) through ctypes: no compiled
extension, so one package serves every Python 3 of the system. The library is
$TOPORR_PLAN_LIBRARY when set, else the one the toporr package installs.

Errors are ToporrError subclasses carrying the planner's code and its reason (the daemon's
own, or the file and line of a bad dump, or the unknown host).

A planner on the daemon counts its orders (each a decision, each failure a fallback by cause)
and sends the count to toporrd when it is closed, or at the interpreter's exit for a planner
still open: one call of at most 500 ms, never an exception, so that the daemon's metrics
(toporr_job_*) show Python jobs beside MPI jobs. ``job_metrics=False`` (or
TOPORR_JOB_METRICS=0, or the site file) sends nothing.
"""

import atexit
import collections
import ctypes
import json
import os
import weakref

__all__ = [
    "ToporrError", "LibraryNotFound", "InvalidArgument", "NotFound",
    "DaemonUnavailable", "FailedPrecondition", "DataLoss", "ResourceExhausted",
    "Cost", "Plan", "Planner", "new_rank", "nccl_split", "disabled",
]

API_VERSION = 2

# Where the Debian package installs the library (deploy/build-deb.sh).
_INSTALLED = [
    "/usr/lib/x86_64-linux-gnu/toporr/libtoporr_plan.so",
    "/usr/lib/aarch64-linux-gnu/toporr/libtoporr_plan.so",
]


class ToporrError(Exception):
    """A failed toporr call: `code` (gRPC/absl canonical code) and `reason` (the message)."""

    def __init__(self, code, reason):
        super().__init__(reason)
        self.code = code
        self.reason = reason


class LibraryNotFound(ToporrError):
    """libtoporr_plan.so could not be loaded (or is of another API version)."""


class InvalidArgument(ToporrError, ValueError):
    """A bad setting, host list, collective, algorithm, size or root."""


class NotFound(ToporrError, LookupError):
    """A host the costs do not know, or a fabric dump or cost file that cannot be read."""


class DaemonUnavailable(ToporrError):
    """toporrd could not be reached, or did not answer within its deadline."""


class FailedPrecondition(ToporrError):
    """The daemon has no snapshot yet; TLS settings refused; no paths in a cost file."""


class DataLoss(ToporrError):
    """An answer or a file that does not decode."""


class ResourceExhausted(ToporrError):
    """The daemon refused a job report past its rate limit for this caller."""


_ERRORS = {3: InvalidArgument, 4: DaemonUnavailable, 5: NotFound, 8: ResourceExhausted,
           9: FailedPrecondition, 14: DaemonUnavailable, 15: DataLoss}

Cost = collections.namedtuple("Cost", ["latency_ns", "bottleneck_gbps"])


class _PlanInfo(ctypes.Structure):
    _fields_ = [
        ("algorithm", ctypes.c_char * 64),
        ("source", ctypes.c_char * 256),
        ("snapshot_id", ctypes.c_int64),
        ("reordered", ctypes.c_int),
        ("launch_ns", ctypes.c_double),
        ("planned_ns", ctypes.c_double),
        ("leaf_sorted_ns", ctypes.c_double),
    ]


class Plan(collections.namedtuple(
        "Plan", ["order", "algorithm", "source", "snapshot_id", "reordered",
                 "launch_ns", "planned_ns", "leaf_sorted_ns"])):
    """A planned order: order[new_rank] = launch rank, with the predicted times (ns) on the
    launch order, the new order and the launch order's hosts grouped by leaf switch."""

    __slots__ = ()

    def new_rank(self, launch_rank):
        """The rank the process of `launch_rank` takes."""
        return new_rank(self.order, launch_rank)


_lib = None


def _library():
    global _lib
    if _lib is not None:
        return _lib
    candidates = []
    if os.environ.get("TOPORR_PLAN_LIBRARY"):
        candidates.append(os.environ["TOPORR_PLAN_LIBRARY"])
    else:
        candidates += _INSTALLED
    errors = []
    for path in candidates:
        if not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        _declare(lib)
        version = lib.toporr_plan_api_version()
        if version != API_VERSION:
            errors.append(f"{path}: API version {version}, this package needs {API_VERSION}")
            continue
        _lib = lib
        return lib
    raise LibraryNotFound(-1, "cannot load libtoporr_plan.so (" + "; ".join(errors) +
                          "): install the toporr package or set TOPORR_PLAN_LIBRARY")


def _declare(lib):
    c = ctypes
    lib.toporr_plan_api_version.restype = c.c_int
    lib.toporr_plan_api_version.argtypes = []
    lib.toporr_planner_open.restype = c.c_int
    lib.toporr_planner_open.argtypes = [c.POINTER(c.c_char_p), c.c_int, c.POINTER(c.c_void_p)]
    lib.toporr_planner_close.restype = None
    lib.toporr_planner_close.argtypes = [c.c_void_p]
    lib.toporr_planner_source.restype = c.c_char_p
    lib.toporr_planner_source.argtypes = [c.c_void_p]
    lib.toporr_plan_cost.restype = c.c_int
    lib.toporr_plan_cost.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p,
                                     c.POINTER(c.c_double), c.POINTER(c.c_double)]
    lib.toporr_plan_path.restype = c.c_int
    lib.toporr_plan_path.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p, c.POINTER(c.c_void_p)]
    lib.toporr_plan_free.restype = None
    lib.toporr_plan_free.argtypes = [c.c_void_p]
    lib.toporr_plan_order.restype = c.c_int
    lib.toporr_plan_order.argtypes = [c.c_void_p, c.POINTER(c.c_char_p), c.c_int, c.c_char_p,
                                      c.c_char_p, c.c_int64, c.c_int, c.POINTER(c.c_int32),
                                      c.POINTER(_PlanInfo)]
    lib.toporr_plan_disabled.restype = c.c_int
    lib.toporr_plan_disabled.argtypes = []
    lib.toporr_plan_last_error.restype = c.c_char_p
    lib.toporr_plan_last_error.argtypes = []
    lib.toporr_plan_record_fallback.restype = c.c_int
    lib.toporr_plan_record_fallback.argtypes = [c.c_void_p, c.c_int, c.c_char_p]
    lib.toporr_plan_report_job.restype = c.c_int
    lib.toporr_plan_report_job.argtypes = [c.c_void_p]


def _check(lib, code):
    if code != 0:
        reason = lib.toporr_plan_last_error().decode("utf-8", "replace")
        raise _ERRORS.get(code, ToporrError)(code, reason)


def _text(value):
    return value.encode("utf-8") if isinstance(value, str) else value


def disabled():
    """True when the site file or the environment switch toporr off (TOPORR_DISABLE=1)."""
    return bool(_library().toporr_plan_disabled())


def new_rank(order, launch_rank):
    """The rank the process of `launch_rank` takes in `order` (order[new] = launch rank)."""
    try:
        return list(order).index(launch_rank)
    except ValueError:
        raise InvalidArgument(3, f"launch rank {launch_rank} is not in the order") from None


def nccl_split(order, launch_rank):
    """(color, key) for ncclCommSplit(comm, color, key, ...) so that the new communicator's
    ranks follow `order`: one color, the new rank as the key. For ncclCommInitRank, pass
    new_rank(order, launch_rank) as the rank."""
    return 0, new_rank(order, launch_rank)


# Planners still open, closed (and so reported) at the interpreter's exit.
_open_planners = weakref.WeakSet()


@atexit.register
def _close_open_planners():
    for planner in list(_open_planners):
        planner.close()


class Planner:
    """A planner on toporrd's costs (default) or offline on `fabric` (a dump in `format`,
    default ibnetdiscover). `settings` are client.conf keys applied over the site file and
    the environment: address (one daemon or a standby list "a:port,b:port"), tls_ca,
    tls_cert, tls_key, tls_server_name, socket, costs, deadline_ms, insecure, job_metrics...
    Nothing is contacted until the first query."""

    def __init__(self, fabric=None, format=None, **settings):
        lib = _library()
        items = [f"{k}={v}" for k, v in settings.items()]
        if fabric is not None:
            items.append(f"fabric={os.fspath(fabric)}")
        if format is not None:
            items.append(f"format={format}")
        array = (ctypes.c_char_p * max(1, len(items)))(*[_text(s) for s in items])
        handle = ctypes.c_void_p()
        _check(lib, lib.toporr_planner_open(array, len(items), ctypes.byref(handle)))
        self._lib = lib
        self._handle = handle
        _open_planners.add(self)

    def close(self):
        """Sends the job's counts to the daemon (report()), ignoring a failure, and frees the
        planner."""
        if self._handle:
            self._lib.toporr_plan_report_job(self._handle)
            self._lib.toporr_planner_close(self._handle)
            self._handle = None
            _open_planners.discard(self)

    def record_fallback(self, code, reason):
        """Counts a fallback of the caller's own (its processes kept the launch order) in the
        job's report, by the cause `reason` shows; `code` is a ToporrError code (2: unknown)."""
        _check(self._lib, self._lib.toporr_plan_record_fallback(self._live(), int(code),
                                                                _text(reason)))

    def report(self):
        """Sends the orders counted since the last report to the daemon now (within
        min(deadline_ms, 500 ms)); raises the failure, the counts kept for the next try.
        Nothing is sent offline, with nothing counted, or with job_metrics off."""
        _check(self._lib, self._lib.toporr_plan_report_job(self._live()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _live(self):
        if not self._handle:
            raise FailedPrecondition(9, "the planner is closed")
        return self._handle

    @property
    def source(self):
        """Where the costs come from, e.g. 'toporrd at /run/toporr/toporrd.sock'."""
        return self._lib.toporr_planner_source(self._live()).decode()

    def cost(self, host_a, host_b):
        """Cost(latency_ns, bottleneck_gbps) between two hosts."""
        lat, gbps = ctypes.c_double(), ctypes.c_double()
        _check(self._lib, self._lib.toporr_plan_cost(self._live(), _text(host_a),
                                                     _text(host_b), ctypes.byref(lat),
                                                     ctypes.byref(gbps)))
        return Cost(lat.value, gbps.value)

    def path(self, host_a, host_b):
        """The path as a dict: snapshot_id, hops, latency_ns, bottleneck_gbps and `path`, the
        nodes from host_a's adapter to host_b's with their ports (toporrctl path --json)."""
        out = ctypes.c_void_p()
        _check(self._lib, self._lib.toporr_plan_path(self._live(), _text(host_a),
                                                     _text(host_b), ctypes.byref(out)))
        try:
            return json.loads(ctypes.string_at(out).decode("utf-8"))
        finally:
            self._lib.toporr_plan_free(out)

    def order(self, rank_hosts, collective="allreduce", size=1 << 20, algorithm=None, root=0):
        """The order for processes where process i (its launch rank) runs on rank_hosts[i].

        collective: allreduce, bcast, reduce, allgather, gather; size: bytes (allreduce,
        bcast, reduce: the buffer; allgather, gather: per process); algorithm: a name of
        `toporrctl plan --algorithm` ("ring" for NCCL's and Gloo's rings; "binomial",
        "recursive_doubling" for trees), None for the best predicted."""
        hosts = [_text(h) for h in rank_hosts]
        n = len(hosts)
        array = (ctypes.c_char_p * max(1, n))(*hosts)
        order = (ctypes.c_int32 * max(1, n))()
        info = _PlanInfo()
        _check(self._lib, self._lib.toporr_plan_order(
            self._live(), array, n, _text(collective),
            None if algorithm is None else _text(algorithm), int(size), int(root), order,
            ctypes.byref(info)))
        return Plan(order=list(order[:n]), algorithm=info.algorithm.decode(),
                    source=info.source.decode(), snapshot_id=info.snapshot_id,
                    reordered=bool(info.reordered), launch_ns=info.launch_ns,
                    planned_ns=info.planned_ns, leaf_sorted_ns=info.leaf_sorted_ns)
