#!/usr/bin/env python3
"""One rank of bench/vcluster/run_torch_bench.py: PyTorch's Gloo collectives and a
data-parallel training step in the launch order and in toporr's order, interleaved.

Started by `torchrun` (torch 1.13, static rendezvous) on every host of the virtual cluster:

    torchrun --nnodes N --nproc_per_node P --node_rank R --master_addr ADDR --master_port PORT
        --redirects 1 --tee 1 --log_dir DIR torch_gloo_worker.py --out FILE [options]

What torchrun hands a worker (static rendezvous): RANK = node rank x P + local rank (each
host's ranks contiguous), WORLD_SIZE, MASTER_ADDR/MASTER_PORT = the --master_addr/--master_port
given, where node rank 0's agent already serves a TCPStore, and TORCHELASTIC_USE_AGENT_STORE=True.
So the job's store is that one: every worker connects to it as a client (a worker that
made a server on MASTER_PORT would find the port taken).

Per variant a Gloo process group of its own, made directly over a prefix of that store:
`launch` (rank = RANK) and `toporr` (rank from toporr.torch.new_rank, or from --order-file:
order[new rank] = launch rank). No default process group is initialised: DDP and
torch.distributed.all_reduce take the group. Gloo uses the interface GLOO_SOCKET_IFNAME (the
driver sets eth0, the host's fabric port).

Measured, the variants interleaved per round (their order alternating between rounds):
all_reduce (sum) of float32 CPU tensors of --sizes bytes, --reps per round, the result
checked; --steps DDP training steps of an MLP (--dims) with SGD on synthetic data. A
measurement is timed on every rank between a barrier (after 5 ms idle) and its end, and
reported as the maximum over the ranks (an all_reduce MAX on the launch group, after the
timed part). Rank 0 writes JSON lines to --out: "setup", "order", a "time" per measurement
(round, variant, measurement, bytes, rep, s), "weights" (each variant's trained weights: hash,
per-rank agreement, the largest difference between the variants) and "done".

Both variants' models start from the same weights (torch.manual_seed(--seed) before each is
built) and see the same data: the batch of launch rank r at a variant's step k comes from a
generator seeded with (seed, k, r), so the variants' gradient sums differ only in their
summation order.
"""

import argparse
import datetime
import hashlib
import json
import os
import socket
import sys
import time
import warnings

import torch
import torch.distributed as dist

VARIANTS = ("launch", "toporr")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="rank 0's JSON lines")
    ap.add_argument("--rank-source", choices=("toporr-torch", "order-file"), default="order-file",
                    help="toporr's rank: toporr.torch.new_rank (needs PYTHONPATH with "
                         "python/, TOPORR_PLAN_LIBRARY, TOPORR_CONFIG) or --order-file")
    ap.add_argument("--order-file", help="JSON list: order[new rank] = launch rank")
    ap.add_argument("--allow-fallback", action="store_true",
                    help="toporr-torch: go on when toporr keeps the launcher's ranks with a "
                         "warning (default: rank 0 fails the job, whose toporr variant would "
                         "only repeat the launch order)")
    ap.add_argument("--plan-size", type=int, default=16 << 20,
                    help="the allreduce size toporr plans the order for (bytes)")
    ap.add_argument("--plan-algorithm", default="ring",
                    help="toporr-torch: the algorithm toporr plans the order for (Gloo's "
                         "allreduce is a ring; auto: toporr's best predicted)")
    ap.add_argument("--tag", default="job", help="the job's name (toporr's key prefix)")
    ap.add_argument("--sizes", default="1048576,16777216,67108864", help="allreduce bytes")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3, help="timed allreduces per round and size")
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed allreduces per size and DDP steps per variant, first")
    ap.add_argument("--steps", type=int, default=3, help="timed DDP steps per round and variant")
    ap.add_argument("--dims", default="1024,4096,4096,1024",
                    help="the MLP's layer widths (default: 25.2 M parameters)")
    ap.add_argument("--batch", type=int, default=16, help="samples per rank and step")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--timeout", type=float, default=900,
                    help="seconds for the store and every collective before failing")
    return ap.parse_args()


class Job:
    """The launcher's view of this process and the job's store."""

    def __init__(self, timeout):
        self.rank = int(os.environ["RANK"])
        self.world = int(os.environ["WORLD_SIZE"])
        self.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        self.timeout = datetime.timedelta(seconds=timeout)
        # The agent of node rank 0 serves this store (static rendezvous): a client here.
        self.store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]),
                                   None, False, self.timeout)
        self.store.set_timeout(self.timeout)

    def gather(self, key, value):
        """Every rank's `value` (a string), by launch rank, on every rank."""
        self.store.set(f"bench/{key}/{self.rank}", value)
        return [self.store.get(f"bench/{key}/{r}").decode() for r in range(self.world)]


def toporr_rank(args, job):
    """This process's rank in toporr's order, and the warnings toporr gave (it keeps the
    launcher's rank, with one warning, where it cannot plan)."""
    if args.rank_source == "toporr-torch":
        import toporr.torch  # python/toporr/torch.py of the checkout (PYTHONPATH)
        algorithm = None if args.plan_algorithm == "auto" else args.plan_algorithm
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            new = toporr.torch.new_rank(job.store, job.rank, job.world, collective="allreduce",
                                        size=args.plan_size, algorithm=algorithm,
                                        key_prefix=f"toporr-{args.tag}")
        messages = list(dict.fromkeys(str(w.message) for w in caught))
        for m in messages:
            print(f"torch-gloo-worker: rank {job.rank}: {m}", file=sys.stderr, flush=True)
        return int(new), messages
    with open(args.order_file) as f:
        order = json.load(f)
    if sorted(order) != list(range(job.world)):
        raise SystemExit(f"{args.order_file}: not a permutation of {job.world} ranks: {order}")
    return order.index(job.rank), []


def make_model(dims, seed):
    torch.manual_seed(seed)
    layers = []
    for i in range(len(dims) - 1):
        layers.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def weights_digest(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def max_difference(a, b):
    """The largest |a - b| over the two models' parameters, and it relative to the largest |a|."""
    diff = big = 0.0
    for pa, pb in zip(a.parameters(), b.parameters()):
        diff = max(diff, (pa.detach() - pb.detach()).abs().max().item())
        big = max(big, pa.detach().abs().max().item())
    return diff, diff / big if big else 0.0


class Timer:
    """A measurement's time: every rank's between a barrier and its end, the maximum over the
    ranks (exchanged on the launch group after the timed part)."""

    def __init__(self, launch_pg):
        self.pg = launch_pg

    def __call__(self, fn):
        # Idle first so that the shapers' buckets refill and queues drain (NOTES.md: a call
        # that starts on empty buckets is slower), then start together.
        time.sleep(0.005)
        self.pg.barrier().wait()
        t0 = time.perf_counter()
        fn()
        elapsed = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX, group=self.pg)
        return elapsed.item()


class Trainer:
    """One variant's DDP model, optimiser and step counter."""

    def __init__(self, args, dims, pg, launch_rank):
        self.args, self.dims, self.launch_rank = args, dims, launch_rank
        self.model = make_model(dims, args.seed)
        # Gradients as views of DDP's buckets: one copy fewer (16 processes share the memory).
        self.ddp = torch.nn.parallel.DistributedDataParallel(
            self.model, process_group=pg, gradient_as_bucket_view=True)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=args.lr)
        self.step_index = 0
        self.loss = None

    def batch(self):
        g = torch.Generator()
        g.manual_seed(self.args.seed * 1_000_003 + self.step_index * 10_007 + self.launch_rank)
        x = torch.randn(self.args.batch, self.dims[0], generator=g)
        y = torch.randn(self.args.batch, self.dims[-1], generator=g)
        return x, y

    def step(self, x, y):
        self.opt.zero_grad()
        loss = torch.nn.functional.mse_loss(self.ddp(x), y)
        loss.backward()
        self.opt.step()
        self.loss = loss.item()
        self.step_index += 1


def main():
    args = parse_args()
    if args.rank_source == "order-file" and not args.order_file:
        raise SystemExit("--rank-source order-file needs --order-file")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    dims = [int(d) for d in args.dims.split(",")]
    if any(s % 4 for s in sizes):
        raise SystemExit(f"--sizes: multiples of 4 bytes (float32): {sizes}")
    # 8-16 processes share the machine's 2 cores: one compute thread each.
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    t_start = time.monotonic()
    job = Job(args.timeout)
    rank, world = job.rank, job.world
    out = open(args.out, "w") if rank == 0 else None

    def emit(**record):
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()

    def progress(msg):
        if rank == 0:
            print(f"torch-gloo-worker: {msg} ({time.monotonic() - t_start:.0f} s)",
                  file=sys.stderr, flush=True)

    hosts = job.gather("host", socket.gethostname())
    toporr_new, toporr_warnings = toporr_rank(args, job)
    if toporr_warnings and not args.allow_fallback:
        raise SystemExit(f"rank {rank}: toporr kept the launcher's ranks: "
                         f"{'; '.join(toporr_warnings)} (--allow-fallback to go on)")
    new_ranks = {"launch": rank, "toporr": toporr_new}
    order_of = {}
    for v in VARIANTS:
        got = [int(x) for x in job.gather(f"rank-{v}", str(new_ranks[v]))]
        if sorted(got) != list(range(world)):
            raise SystemExit(f"variant {v}: the new ranks are not a permutation: {got}")
        order = [0] * world
        for launch_rank, new_rank in enumerate(got):
            order[new_rank] = launch_rank
        order_of[v] = order
    groups = {v: dist.ProcessGroupGloo(dist.PrefixStore(f"pg-{v}", job.store), new_ranks[v],
                                       world, job.timeout) for v in VARIANTS}
    params = sum(p.numel() for p in make_model(dims, args.seed).parameters())
    emit(kind="setup", world=world, hosts=hosts, rank_source=args.rank_source,
         plan_size=args.plan_size, plan_algorithm=args.plan_algorithm,
         toporr_warnings=toporr_warnings, torch=torch.__version__,
         gloo_ifname=os.environ.get("GLOO_SOCKET_IFNAME"), dims=dims, params=params,
         batch=args.batch, sizes=sizes, rounds=args.rounds, reps=args.reps, steps=args.steps,
         warmup=args.warmup, seed=args.seed, omp_threads=torch.get_num_threads())
    for v in VARIANTS:
        emit(kind="order", variant=v, order=order_of[v],
             hosts=[hosts[r] for r in order_of[v]])
    progress(f"{world} ranks on {len(set(hosts))} hosts, toporr order {order_of['toporr']}")

    timer = Timer(groups["launch"])
    buf = torch.empty(max(sizes, default=4) // 4, dtype=torch.float32)

    def allreduce(v, n):
        t = buf[:n]
        t.fill_(1.0)
        dt = timer(lambda: dist.all_reduce(t, group=groups[v]))
        if t[0].item() != world or t[n - 1].item() != world:
            raise SystemExit(f"{v}: allreduce of {n * 4} bytes gave {t[0].item()}, "
                             f"{t[n - 1].item()} (expected {world})")
        return dt

    trainers = {v: Trainer(args, dims, groups[v], rank) for v in VARIANTS}
    grad_bytes = params * 4
    for v in VARIANTS:
        for size in sizes:
            for _ in range(args.warmup):
                allreduce(v, size // 4)
        if args.steps:
            for _ in range(args.warmup):
                trainers[v].step(*trainers[v].batch())
    progress("warmed up")
    for rnd in range(args.rounds):
        variants = VARIANTS if rnd % 2 == 0 else VARIANTS[::-1]
        for size in sizes:
            for v in variants:
                for rep in range(args.reps):
                    emit(kind="time", round=rnd, variant=v, measurement="allreduce", bytes=size,
                         rep=rep, s=allreduce(v, size // 4))
        for v in variants:
            tr = trainers[v]
            for rep in range(args.steps):
                x, y = tr.batch()
                dt = timer(lambda: tr.step(x, y))
                emit(kind="time", round=rnd, variant=v, measurement="ddp_step",
                     bytes=grad_bytes, rep=rep, s=dt, step=tr.step_index - 1, loss=tr.loss)
        progress(f"round {rnd + 1}/{args.rounds} done")

    if args.steps:
        digests = {v: job.gather(f"weights-{v}", weights_digest(trainers[v].model))
                   for v in VARIANTS}
        diff, rel = max_difference(trainers["launch"].model, trainers["toporr"].model)
        emit(kind="weights", steps=trainers["launch"].step_index,
             digest={v: d[0] for v, d in digests.items()},
             ranks_agree={v: len(set(d)) == 1 for v, d in digests.items()},
             identical=digests["launch"][0] == digests["toporr"][0],
             max_abs_diff=diff, max_rel_diff=rel,
             loss={v: trainers[v].loss for v in VARIANTS})
    # Nobody leaves before rank 0 has read every key it needs from the store.
    groups["launch"].barrier().wait()
    emit(kind="done", wall_s=round(time.monotonic() - t_start, 1))
    if out:
        out.close()
    progress("done")


if __name__ == "__main__":
    main()
