"""Rank order from the fabric for torch.distributed jobs.

NCCL builds its inter-node rings and trees, and Gloo its rings, in rank order. A job launched
by torchrun gets RANK = node_rank * nproc_per_node + local_rank, so its rings follow the order
in which its hosts were given node ranks. Before the process group exists, every process of
the job learns its rank in toporr's order instead:

    import toporr.torch
    toporr.torch.init_process_group("gloo")   # or "nccl"; instead of torch.distributed's

or, with a store of your own, ``rank = toporr.torch.new_rank(store)``.

How: every process writes its host name into the job's own rendezvous store (the TCPStore
of env://, at MASTER_ADDR:MASTER_PORT, which torchrun sets up); the launcher's rank 0 gathers
them, asks toporrd once (toporr.Planner, the site's configuration) and writes the order back;
every process reads its new rank. The order is that of `toporrctl plan --collective
allreduce --algorithm ring` for the same processes (a ring order; algorithm="binomial" or
"recursive_doubling" asks for a tree-friendly one). At its exit, rank 0's planner sends the
job's outcome (the order, or the fallback and its cause) to toporrd's metrics
(toporr.Planner).

On any problem (no daemon, an unknown host, no library, a timeout) every process keeps the
launcher's rank: rank 0 decides for all and publishes its verdict, so the ranks stay a
permutation, and one warning names the cause. toporr never fails the job. TOPORR_DISABLE=1
(or disable = true in the site file) keeps the launcher's ranks without a warning.
"""

import datetime
import json
import os
import socket
import warnings

import toporr

__all__ = ["new_rank", "init_process_group", "host_name", "tcp_store"]

DEFAULT_SIZE = 64 << 20


def host_name():
    """This process's host as the fabric names it: TOPORR_HOST, else the short host name."""
    return os.environ.get("TOPORR_HOST") or socket.gethostname().split(".")[0]


def _warn(message):
    warnings.warn(f"toporr: {message}; keeping the launcher's ranks", RuntimeWarning,
                  stacklevel=3)


# Rank 0's planner on the site's daemon, opened at its first plan and kept to the interpreter's
# exit, when the package closes it and the job's counts reach the daemon (toporr.Planner).
_site_planner = None


def _planner(planner):
    global _site_planner
    if planner is not None:
        return planner
    if _site_planner is None:
        _site_planner = toporr.Planner()
    return _site_planner


def new_rank(store, rank=None, world_size=None, *, collective="allreduce", size=DEFAULT_SIZE,
             algorithm="ring", timeout=60.0, key_prefix="toporr", planner=None):
    """This process's rank in toporr's order; every process of the job must call it.

    store: a torch.distributed Store all processes share (TCPStore, PrefixStore...).
    rank, world_size: the launcher's (default: $RANK, $WORLD_SIZE). key_prefix: where in the
    store (a new one for every call on the same store). planner: a toporr.Planner to use
    instead of the site's daemon (rank 0 only). Returns the launcher's rank, with one warning,
    when the order cannot be had."""
    rank = int(os.environ.get("RANK", "0")) if rank is None else int(rank)
    world_size = int(os.environ.get("WORLD_SIZE", "1")) if world_size is None else int(world_size)
    if world_size <= 1:
        return rank
    try:
        if toporr.disabled():
            return rank
    except toporr.ToporrError as e:
        if rank == 0:
            _warn(e.reason)
        # Rank 0 publishes the verdict below either way.
    order_key = f"{key_prefix}/order"
    try:
        store.set(f"{key_prefix}/host/{rank}", host_name())
        if rank == 0:
            verdict = {}
            used = None
            try:
                used = _planner(planner)
                keys = [f"{key_prefix}/host/{r}" for r in range(world_size)]
                store.wait(keys, datetime.timedelta(seconds=timeout))
                hosts = [store.get(k).decode() for k in keys]
                verdict["order"] = used.order(hosts, collective=collective, size=size,
                                              algorithm=algorithm).order
            except Exception as e:  # noqa: BLE001 - any failure keeps the launch order
                verdict["error"] = getattr(e, "reason", None) or f"{type(e).__name__}: {e}"
                if used is not None and not isinstance(e, toporr.ToporrError):
                    # The planner counted its own failures; this one is the exchange's.
                    used.record_fallback(2, verdict["error"])
            store.set(order_key, json.dumps(verdict))
        else:
            store.wait([order_key], datetime.timedelta(seconds=2 * timeout))
            verdict = json.loads(store.get(order_key).decode())
    except Exception as e:  # noqa: BLE001
        _warn(f"the rank exchange failed: {type(e).__name__}: {e}")
        return rank
    if "error" in verdict:
        if rank == 0:
            _warn(verdict["error"])
        return rank
    order = verdict["order"]
    if sorted(order) != list(range(world_size)):
        _warn("the order is not a permutation of the job's ranks")
        return rank
    return order.index(rank)


def tcp_store(host, port, world_size, is_master, timeout):
    """A torch.distributed.TCPStore as env:// makes it: with USE_LIBUV set, its backend as
    that variable says, where the torch has the choice (2.4 and later; a torch built without
    libuv, such as Debian 13's python3-torch, needs USE_LIBUV=0)."""
    import torch.distributed as dist

    if "USE_LIBUV" in os.environ:
        try:
            return dist.TCPStore(host, port, world_size, is_master, timeout,
                                 use_libuv=os.environ["USE_LIBUV"] == "1")
        except TypeError:
            pass  # a torch without the option has only the one backend
    return dist.TCPStore(host, port, world_size, is_master, timeout)


def init_process_group(backend=None, *, collective="allreduce", size=DEFAULT_SIZE,
                       algorithm="ring", planner=None, **kwargs):
    """torch.distributed.init_process_group with this process's rank in toporr's order.

    For env:// (torchrun, or MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE set): makes the
    job's TCPStore as env:// would (rank 0 serves it, or torchrun's agent does when
    TORCHELASTIC_USE_AGENT_STORE is set), plans, sets $RANK to the new rank and initialises
    the default group on that store. Other init methods, or an explicit store or rank, are
    passed to torch unchanged, with a warning. Returns the new rank."""
    import torch.distributed as dist

    explicit = kwargs.get("init_method") not in (None, "env://") or "store" in kwargs \
        or "rank" in kwargs
    if explicit:
        _warn("init_method, store or rank given: toporr uses env:// only")
        dist.init_process_group(backend, **kwargs)
        return dist.get_rank()
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    timeout = kwargs.pop("timeout", datetime.timedelta(minutes=30))
    kwargs.pop("init_method", None)
    agent_store = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == str(True)
    store = tcp_store(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world_size,
                      rank == 0 and not agent_store, timeout)
    if agent_store:
        # The agent's store outlives a restart of the workers: each attempt keys apart.
        attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
        store = dist.PrefixStore(f"/worker/attempt_{attempt}", store)
    new = new_rank(store, rank, world_size, collective=collective, size=size,
                   algorithm=algorithm, planner=planner)
    os.environ["RANK"] = str(new)
    dist.init_process_group(backend, store=dist.PrefixStore("default_pg", store), rank=new,
                            world_size=world_size, timeout=timeout, **kwargs)
    return new
