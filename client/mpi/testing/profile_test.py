#!/usr/bin/env python3
"""The traffic profile (TOPORR_PROFILE=FILE) of real MPI jobs under LD_PRELOAD=libtoporr_pmpi.so.

Usage: profile_test.py openmpi|mpich [unittest args]; run by Bazel from the runfiles tree.
Shares mpi_test.py's job and daemon plumbing (only the tests below run): toporrd serves the
demo fabric, so the program's one large MPI_Allreduce is taken over by toporr. Checked:
  - profile_check.c's known traffic (blocking, non-blocking, buffered, synchronous and
    persistent sends, sendrecv, a split communicator with reversed ranks, an
    inter-communicator, one-sided operations on a window of the split communicator, and
    collectives on MPI_COMM_WORLD, a duplicate of it and the split halves) gives exactly the
    expected `p2p`, `rma`, `comm` and `coll` lines (computed here from the program's
    description, not from the file), with world ranks; the program's output is the same
    without the PMPI layer, with it, and with it and the profile; no FILE.tmp is left;
  - without TOPORR_PROFILE no file is written; the site file's `profile` key works alike;
  - a file that cannot be written: one warning on rank 0, the job succeeds unchanged;
  - MPI_THREAD_MULTIPLE: threads on duplicates of one communicator lose no count;
  - Fortran: under MPICH its bindings call the C entry points and the program is profiled;
    under Open MPI they call PMPI_* directly: no file and one warning saying so;
  - a profiled run plans the next: `toporrctl plan --traffic` and, in the job,
    toporr_comm_reorder_traffic put traffic_pairs.c's partners on one host (the same order),
    a profile of another size gives the identity and one warning.
"""
import glob
import json
import os
import sys
import tempfile
import shutil
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_test  # noqa: E402  (takes the MPI argument off sys.argv)
from mpi_test import MPI, round_robin  # noqa: E402

RANKS = 4
LARGE = 16384  # ints of the large allreduce: 64 KiB, TOPORR_MIN_BYTES' default
WARNING = "toporr: warning: traffic profile not written"
# Open MPI's default one-sided component for MPI_Win_create here (osc/rdma over vader's
# single-copy transport) refuses the window in containers without cross-memory attach, with
# or without toporr: the jobs take osc/pt2pt for it (and osc/sm, as by default, for the
# shared-memory windows toporr itself allocates).
JOB_ENV = {"OMPI_MCA_osc": "sm,pt2pt"} if MPI == "openmpi" else {}


def read_profile(path):
    """The file as {"ranks", "time": {rank: (wall_us, mpi_us)}, "p2p": {(s, d): (bytes, msgs)},
    "rma": {(o, t): (to, from, ops)}, "comms": [(members, remote, {name: (calls, bytes)})]},
    checking its framing."""
    with open(path) as f:
        lines = f.read().split("\n")
    assert lines[-1] == "", "the file ends with a newline"
    lines = lines[:-1]
    head = lines[0].split()
    assert head[:3] == ["toporr-profile", "1", "ranks"] and len(head) == 4, lines[0]
    assert lines[-1] == "end", lines[-1]
    out = {"ranks": int(head[3]), "time": {}, "p2p": {}, "rma": {}, "comms": []}

    def members(text):
        ranks = []
        for item in text.split(","):
            a, _, b = item.partition("-")
            ranks += list(range(int(a), int(b or a) + 1))
        return tuple(ranks)

    for line in lines[1:-1]:
        f = line.split(" ")
        if f[0] == "time":
            assert int(f[1]) not in out["time"], line
            out["time"][int(f[1])] = (int(f[2]), int(f[3]))
        elif f[0] == "p2p":
            key = (int(f[1]), int(f[2]))
            assert key not in out["p2p"], line
            out["p2p"][key] = (int(f[3]), int(f[4]))
        elif f[0] == "rma":
            out["rma"][(int(f[1]), int(f[2]))] = tuple(int(x) for x in f[3:])
        elif f[0] == "comm":
            assert int(f[1]) == len(out["comms"]), line
            local = members(f[3])
            remote = members(f[6]) if len(f) == 7 else ()
            assert len(local) == int(f[2]), line
            out["comms"].append((local, remote, {}))
        elif f[0] == "coll":
            out["comms"][int(f[1])][2][f[2]] = (int(f[3]), int(f[4]))
        else:
            raise AssertionError(f"unknown line {line!r}")
    return out


def expected_profile(large):
    """What profile_check.c must produce on 4 ranks (its header comment, in bytes)."""
    p2p = {}

    def send(src, dst, nbytes, times=1):
        b, m = p2p.get((src, dst), (0, 0))
        p2p[(src, dst)] = (b + nbytes * times, m + times)

    for r in range(RANKS):
        nxt, across, back = (r + 1) % 4, (r + 2) % 4, (r + 3) % 4
        send(r, nxt, 10 * 4)        # MPI_Send of 10 ints
        send(r, across, 3 * 8)      # MPI_Isend of 3 doubles
        send(r, nxt, 4)             # MPI_Ssend of 1 int
        send(r, across, 2 * 4)      # MPI_Bsend of 2 ints
        send(r, back, 6)            # MPI_Issend of 6 chars
        send(r, back, 5 * 4, 4)     # 4 starts of a persistent send of 5 ints
        send(r, nxt, 2 * 2)         # MPI_Sendrecv of 2 shorts
        send(r, across, 8)          # MPI_Sendrecv_replace of 1 long long
        send(r, across, 7)          # 7 chars to the other rank of its half (world r + 2)
        send(r, r + 1 if r % 2 == 0 else r - 1, 4)  # 1 int over the inter-communicator
    # Put 2 ints, get 3, accumulate 1, fetch-and-op 1 (both ways): at world r + 2.
    rma = {(r, (r + 2) % 4): (2 * 4 + 4 + 4, 3 * 4 + 4, 4) for r in range(RANKS)}
    world = {"barrier": (1, 0),
             "allreduce": (6, 3 * 8 * 8 + 4 * 4 + large * 4 + 4),  # with the duplicate's
             "bcast": (1, 100), "gather": (2, 2 * 4 + 8), "scatter": (1, 3 * 4),
             "alltoall": (1, 4), "allgatherv": (1, 10 // 4 * 4), "gatherv": (1, 10 // 4 * 4),
             "alltoallv": (1, 2 * 4), "reduce_scatter": (1, 4),
             "reduce_scatter_block": (1, 2 * 4), "scan": (1, 4), "exscan": (1, 4)}
    half = {"allreduce": (2, 2 * 4), "bcast": (1, 16)}
    comms = [((0, 1, 2, 3), (), world),
             ((2, 0), (), half), ((2, 0), (3, 1), {"barrier": (1, 0)}),  # led by world 2
             ((3, 1), (), half), ((3, 1), (2, 0), {"barrier": (1, 0)})]  # led by world 3
    return {"ranks": RANKS, "p2p": p2p, "rma": rma, "comms": comms}


class ProfileTest(mpi_test.MpiTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-profile-{MPI}-")
        cls.build("profile_check", "profile_wait", "profile_fortran", "profile_threads", "pairs")
        cls.serve_demo_fabric()

    @classmethod
    def tearDownClass(cls):
        cls.stop_daemon()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def job(self, program=None, env=None, preload=True, args=None):
        if args is None:
            args = [str(LARGE)] if program is None else []
        return self.run_job(RANKS, args, round_robin(RANKS, 4), program=program or self.profile_check,
                            preload=preload, env={**JOB_ENV, **(env or {})})

    def profile_path(self, name):
        path = os.path.join(self.tmp, name)
        for p in [path] + glob.glob(path + ".tmp*"):
            if os.path.lexists(p):
                os.unlink(p)
        return path

    @staticmethod
    def warnings(job):
        return [l for l in job.stderr.splitlines() if "toporr: warning" in l]

    def test_profile_counts_known_traffic_exactly(self):
        path = self.profile_path("job.prof")
        plain = self.job(preload=False)
        dropped_in = self.job()
        self.assertFalse(os.path.exists(path))  # no TOPORR_PROFILE: no file
        profiled = self.job(env={"TOPORR_PROFILE": path})
        self.assertRegex(plain.stdout, r"^CHECK profile ok( -?\d+){4}\n$")
        self.assertEqual(dropped_in.stdout, plain.stdout)
        self.assertEqual(profiled.stdout, plain.stdout)
        self.assertEqual(self.warnings(profiled), [], profiled.stderr)
        # toporr took the large allreduce over (its own traffic is not the program's).
        self.assertIn(("allreduce", LARGE * 4),
                      {(r["collective"], r["bytes"]) for r in profiled.report})
        self.assertEqual(glob.glob(path + ".tmp*"), [])
        got, want = read_profile(path), expected_profile(LARGE)
        self.assertEqual(got["ranks"], want["ranks"])
        self.assertEqual(got["p2p"], want["p2p"])
        self.assertEqual(got["rma"], want["rma"])
        self.assertEqual(got["comms"], want["comms"])
        self.assertEqual(sorted(got["time"]), list(range(RANKS)))
        for wall, mpi in got["time"].values():
            self.assertGreater(wall, 0)
            self.assertLessEqual(mpi, wall)

    def test_time_inside_mpi_is_measured_per_rank(self):
        """profile_wait.c's known waits: its `time` records say which ranks waited inside MPI
        (a blocking receive, a wait, a collective) and which slept outside it."""
        path = self.profile_path("wait.prof")
        job = self.job(program=self.profile_wait, env={"TOPORR_PROFILE": path})
        self.assertEqual(job.stdout, "WAIT ok 8\n")  # 1 + 1 + 3 + 3
        self.assertEqual(self.warnings(job), [], job.stderr)
        times = read_profile(path)["time"]
        self.assertEqual(sorted(times), list(range(RANKS)))
        ms = {r: (wall / 1000, mpi / 1000) for r, (wall, mpi) in times.items()}  # (wall, mpi)
        for wall, mpi in ms.values():
            self.assertGreaterEqual(wall, 650, ms)  # 400 ms and 300 ms of sleep on the way
            self.assertLessEqual(mpi, wall, ms)
        # Rank 0 waited ~400 ms in MPI_Recv, then slept 300 ms outside MPI. (The bounds leave
        # 100-150 ms for MPI_Init's skew between ranks and a loaded machine.)
        self.assertGreaterEqual(ms[0][1], 300, ms)
        self.assertLessEqual(ms[0][1], ms[0][0] - 250, ms)
        # Rank 2 waited ~400 ms in MPI_Wait and ~300 ms in MPI_Allreduce for rank 0.
        self.assertGreaterEqual(ms[2][1], ms[0][1] + 200, ms)
        # Ranks 1 and 3 slept 400 ms outside MPI, then waited ~300 ms in MPI_Allreduce.
        for r in (1, 3):
            self.assertGreaterEqual(ms[r][1], 200, ms)
            self.assertLessEqual(ms[r][1], ms[r][0] - 350, ms)
        # TOPORR_PROFILE_TIME=0: the same traffic, no time records.
        untimed = self.job(program=self.profile_wait,
                           env={"TOPORR_PROFILE": path, "TOPORR_PROFILE_TIME": "0"})
        self.assertEqual(untimed.stdout, job.stdout)
        got = read_profile(path)
        self.assertEqual(got["time"], {})
        self.assertEqual(set(got["p2p"]), {(1, 0), (3, 2)})

    def test_site_file_key_names_the_profile(self):
        path = self.profile_path("site.prof")
        config = os.path.join(self.tmp, "client.conf")
        with open(config, "w") as f:
            f.write(f"profile = {path}\n")
        job = self.job(env={"TOPORR_CONFIG": config})
        self.assertEqual(self.warnings(job), [], job.stderr)
        self.assertEqual(read_profile(path)["p2p"], expected_profile(LARGE)["p2p"])

    def test_unwritable_file_costs_one_warning_and_nothing_else(self):
        plain = self.job(preload=False)
        path = os.path.join(self.tmp, "absent-directory", "job.prof")
        job = self.job(env={"TOPORR_PROFILE": path})
        self.assertEqual(job.stdout, plain.stdout)
        warnings = self.warnings(job)
        self.assertEqual(len(warnings), 1, job.stderr)
        self.assertIn(f"{WARNING}: {path}: ", warnings[0])
        self.assertIn("No such file or directory", warnings[0])
        self.assertFalse(os.path.exists(os.path.dirname(path)))

    def test_links_and_fifos_planted_by_another_user_are_not_followed(self):
        """In a sticky world-writable directory (as /tmp), user nobody plants a link to a file
        the job could write at the profile's name and at the report's, and a FIFO at the
        profile's old fixed temporary name: the profile replaces the link with a whole file of
        its own, the report is refused with one warning, the victim is untouched and the job
        neither hangs nor changes its output."""
        if os.geteuid() != 0:
            print("SKIPPED: planting another user's link needs root")
            return
        shared = os.path.join(self.tmp, "shared")
        os.makedirs(shared, exist_ok=True)
        os.chmod(shared, 0o1777)
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        profile, report = os.path.join(shared, "job.prof"), os.path.join(shared, "r.jsonl")
        for link in (profile, report):
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(victim, link)
            os.lchown(link, 65534, 65534)
        fifo = profile + ".tmp"
        if os.path.lexists(fifo):
            os.unlink(fifo)
        os.mkfifo(fifo)
        plain = self.job(preload=False)
        job = self.job(env={"TOPORR_PROFILE": profile, "TOPORR_REPORT": report})
        self.assertEqual(job.stdout, plain.stdout)
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertFalse(os.path.islink(profile))
        self.assertEqual(read_profile(profile)["p2p"], expected_profile(LARGE)["p2p"])
        refused = [l for l in job.stderr.splitlines() if "r.jsonl" in l]
        self.assertEqual(len(refused), 1, job.stderr)
        self.assertIn("symbolic link", refused[0])
        self.assertTrue(os.path.islink(report))
        self.assertEqual([p for p in glob.glob(profile + ".tmp*") if p != fifo], [])

    def test_fortran_program(self):
        path = self.profile_path("fortran.prof")
        plain = self.job(program=self.profile_fortran, preload=False)
        job = self.job(program=self.profile_fortran, env={"TOPORR_PROFILE": path})
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(plain.stdout, "CHECK fortran 3 6\n")
        if MPI == "mpich":  # its Fortran bindings call MPI_Sendrecv, MPI_Allreduce, ...
            self.assertEqual(self.warnings(job), [], job.stderr)
            got = read_profile(path)
            self.assertEqual(got["p2p"], {(r, (r + 1) % RANKS): (5 * 4, 1) for r in range(RANKS)})
            self.assertEqual(got["comms"], [((0, 1, 2, 3), (), {"allreduce": (1, 4)})])
        else:  # Open MPI's call PMPI_* directly: nothing is seen, and rank 0 says so
            warnings = self.warnings(job)
            self.assertEqual(len(warnings), 1, job.stderr)
            self.assertIn("did not reach the PMPI layer", warnings[0])
            self.assertFalse(os.path.exists(path))

    def test_threads_on_duplicates_of_one_communicator(self):
        """MPI_THREAD_MULTIPLE: two threads per rank on two duplicates of MPI_COMM_WORLD (one
        set of counters for the three) at once; no count is lost."""
        iterations = 200 if MPI == "mpich" else 500  # MPICH's ranks busy-poll: slow when oversubscribed
        path = self.profile_path("threads.prof")
        job = self.job(program=self.profile_threads, args=[str(iterations)],
                       env={"TOPORR_PROFILE": path})
        self.assertEqual(self.warnings(job), [], job.stderr)
        if job.stdout == "CHECK threads unsupported\n":
            self.skipTest("SKIPPED: the MPI library does not provide MPI_THREAD_MULTIPLE")
        got = read_profile(path)
        calls = 2 * iterations
        self.assertEqual(got["p2p"], {(r, (r + 1) % RANKS): (calls * 8, calls)
                                      for r in range(RANKS)})
        self.assertEqual(got["comms"], [((0, 1, 2, 3), (), {"allreduce": (calls, calls * 4)})])


    # ---- a rank order from a profile ----

    def pairs_job(self, hosts, args, env=None, preload=False):
        """traffic_pairs on `hosts`: its stdout's PAIR lines as {world rank: (rank, partner's
        world rank)} and the job."""
        job = self.run_job(len(hosts), args, hosts, program=self.pairs, preload=preload,
                           env={**JOB_ENV, **(env or {})})
        pairs = {}
        for line in job.stdout.splitlines():
            if line.startswith("PAIR "):
                world, rank, partner = map(int, line.split()[1:])
                pairs[world] = (rank, partner)
        self.assertEqual(sorted(pairs), list(range(len(hosts))), job.stdout)
        return pairs, job

    def test_a_profiled_run_plans_the_next_one_and_reorders_in_job(self):
        """traffic_pairs (rank r exchanges 640 KiB with r ^ 1) on 8 ranks dealt round-robin
        over 4 hosts, so that every pair is split over two hosts, profiled under the PMPI
        layer; `toporrctl plan --traffic` puts each pair on one host, predicted faster, and
        toporr_comm_reorder_traffic gives the same order inside a job, where every rank's
        partner then runs on its host. A profile of another size gives the identity order and
        one warning naming the file."""
        np = 8
        hosts = round_robin(np, 4)
        prof = self.profile_path("pairs.prof")
        pairs, _ = self.pairs_job(hosts, [], env={"TOPORR_PROFILE": prof}, preload=True)
        self.assertTrue(all(hosts[w] != hosts[p] for w, (_, p) in pairs.items()), pairs)
        plan = json.loads(self.ctl("--json", "plan", *self.plan_job_args(hosts),
                                   "--traffic", prof))
        self.assertEqual(plan["traffic"]["p2p_bytes"], np * (10 * 65536 + 4))
        self.assertTrue(plan["reordered"], plan)
        self.assertLess(plan["after"]["time_ns"], plan["before"]["time_ns"])
        order = plan["new_order"]
        for k in range(np // 2):
            self.assertEqual(hosts[order[2 * k]], hosts[order[2 * k + 1]], order)

        pairs, job = self.pairs_job(hosts, [prof])
        self.assertIn("DECISION reordered=1 fallback=0 source=daemon", job.stdout, job.stderr)
        self.assertEqual(job.warnings(), [], job.stderr)
        traffic = [r for r in job.report if r["collective"] == "traffic"]
        self.assertEqual(len(traffic), 1, job.report)
        self.assertEqual(traffic[0]["new_order"], order)
        for world, (rank, partner) in pairs.items():
            self.assertEqual(order[rank], world)
            self.assertEqual(hosts[world], hosts[partner], pairs)

        bad = os.path.join(self.tmp, "four.prof")
        with open(bad, "w") as f:
            f.write("toporr-profile 1 ranks 4\nend\n")
        pairs, job = self.pairs_job(hosts, [bad])
        self.assertIn("DECISION reordered=0 fallback=1 source=fallback", job.stdout)
        warnings = job.warnings()
        self.assertEqual(len(warnings), 1, job.stderr)
        self.assertIn(f"{bad}: a profile of 4 ranks, the communicator has 8", warnings[0])
        self.assertEqual({w: r for w, (r, _) in pairs.items()}, {w: w for w in range(np)})


def load_tests(loader, tests, pattern):
    """This file's tests only (not mpi_test.MpiTest's, whose plumbing it shares)."""
    names = sorted(n for n in ProfileTest.__dict__ if n.startswith("test_"))
    return unittest.TestSuite(ProfileTest(n) for n in names)


if __name__ == "__main__":
    unittest.main(verbosity=2)
