/* Nonblocking and persistent collectives as an unchanged program calls them, under
 * LD_PRELOAD=libtoporr_pmpi.so (run by nonblocking_test.py). Every reference result comes from
 * the MPI library's blocking call (PMPI_*), so the only decisions in TOPORR_REPORT are those
 * of the calls checked.
 *
 * `nonblocking_check table [quick]`: MPI_Iallreduce (in place or not), MPI_Ireduce (roots 0,
 *   size/2, size-1; in place at the root or not), MPI_Ibcast (the same roots) and
 *   MPI_Iallgather (in place or not), each completed by MPI_Wait, and their persistent forms
 *   (MPI_*_init of MPI 4 and Open MPI 5, Open MPI 4.1's MPIX_*_init) started twice with new
 *   contents, over the table's datatypes x ops (coll_table.h) x counts; results equal the
 *   library's (bitwise for integers and max, within rounding otherwise).
 * `nonblocking_check inflight N COUNT`: N MPI_Iallreduce of COUNT ints in flight at once on
 *   one communicator with N nonblocking point-to-point pairs, completed by one MPI_Waitall over
 *   the mix; then again completed by MPI_Waitany, then by MPI_Testall polling; then
 *   MPI_Request_get_status, MPI_Test and MPI_Request_free on persistent requests.
 * `nonblocking_check overlap COUNT WARMUP`: after WARMUP calls of COUNT ints on a communicator
 *   (its decision made and its run-time check done), rank 0 sleeps 0.4 s before starting an
 *   MPI_Iallreduce: every other rank's start returns at once ("START <slowest other rank's
 *   start, s>"), and the request completes while the ranks compute and call MPI_Test
 *   ("OVERLAP <tests before completion>"), never MPI_Wait.
 * Rank 0 prints "CHECK <mode> ok|bad" (and "COLL <cases> <failures>" for the table, "BAD ..."
 * for the first wrong results); "PERSISTENT none" when the library has no persistent
 * collectives. Exit status 1 on any failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(OPEN_MPI)
#include <mpi-ext.h>
#endif

#include "client/mpi/testing/coll_table.h"

#if MPI_VERSION >= 4 || (defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5)
#define PERSISTENT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PERSISTENT(name) MPIX_##name##_init
#endif

/* MPICH 4.0's persistent collectives fail without toporr on derived datatypes (an assertion
 * in its datatype engine at MPI_Request_free or MPI_Finalize), its persistent allgather gives
 * wrong blocks, and it reports an inactive persistent collective request as incomplete: those
 * cases are skipped there, said once. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define OLD_MPICH_PERSISTENT 1
#else
#define OLD_MPICH_PERSISTENT 0
#endif

/* Whether the persistent forms run for datatype `t` (see OLD_MPICH_PERSISTENT). */
static int PersistentFor(int t) {
  return !OLD_MPICH_PERSISTENT || t == kInt || t == kDouble || t == kComplex;
}

/* Completes a started request as the program's MPI_Wait does. */
static int Complete(MPI_Request* req) { return MPI_Wait(req, MPI_STATUS_IGNORE); }

/* One allreduce case: nonblocking, then (where the library has them) persistent, twice. */
static void CheckIallreduce(int t, int o, int count, int in_place) {
  const size_t bytes = ElementBytes(t) * (size_t)count;
  char* send = malloc(bytes);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  char what[200];
  for (int form = 0; form < 3; ++form) { /* 0 nonblocking; 1, 2 the persistent's two starts */
#ifndef PERSISTENT
    if (form > 0) break;
#endif
    if (form > 0 && !PersistentFor(t)) break;
    Fill(t, send, count, rank, count + form);
    Fill(t, got, count, rank + 1000, count); /* garbage the call must overwrite */
    memcpy(want, got, bytes);                /* the vector's gaps alike in both */
    PMPI_Allreduce(send, want, count, TypeOf(t), OpOf(o), MPI_COMM_WORLD);
    if (in_place) memcpy(got, send, bytes);
    const void* src = in_place ? MPI_IN_PLACE : send;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    static MPI_Request persistent = MPI_REQUEST_NULL;
    if (form == 0) {
      rc = MPI_Iallreduce(src, got, count, TypeOf(t), OpOf(o), MPI_COMM_WORLD, &req);
      if (rc == MPI_SUCCESS) rc = Complete(&req);
    } else {
#ifdef PERSISTENT
      if (form == 1) {
        rc = PERSISTENT(Allreduce)(src, got, count, TypeOf(t), OpOf(o), MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &persistent);
      }
      if (rc == MPI_SUCCESS) rc = MPI_Start(&persistent);
      if (rc == MPI_SUCCESS) rc = Complete(&persistent);
      if (form == 2) MPI_Request_free(&persistent);
#endif
    }
    snprintf(what, sizeof(what), "%s allreduce size=%d count=%d type=%s op=%s%s",
             form == 0 ? "nonblocking" : "persistent", size, count, kTypeNames[t], kOpNames[o],
             in_place ? " in-place" : "");
    Record(rc == MPI_SUCCESS && Same(t, o, got, want, count), what);
  }
  free(send);
  free(got);
  free(want);
}

static void CheckIreduce(int t, int o, int count, int root, int in_place) {
  const size_t bytes = ElementBytes(t) * (size_t)count;
  char* send = malloc(bytes);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  char what[200];
  static MPI_Request persistent = MPI_REQUEST_NULL;
  for (int form = 0; form < 3; ++form) {
#ifndef PERSISTENT
    if (form > 0) break;
#endif
    if (form > 0 && !PersistentFor(t)) break;
    Fill(t, send, count, rank, count + 3 + form);
    Fill(t, got, count, rank + 1000, count);
    memcpy(want, got, bytes);
    PMPI_Reduce(send, want, count, TypeOf(t), OpOf(o), root, MPI_COMM_WORLD);
    const void* src = send;
    if (in_place && rank == root) {
      memcpy(got, send, bytes);
      src = MPI_IN_PLACE;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (form == 0) {
      rc = MPI_Ireduce(src, got, count, TypeOf(t), OpOf(o), root, MPI_COMM_WORLD, &req);
      if (rc == MPI_SUCCESS) rc = Complete(&req);
    } else {
#ifdef PERSISTENT
      if (form == 1) {
        rc = PERSISTENT(Reduce)(src, got, count, TypeOf(t), OpOf(o), root, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &persistent);
      }
      if (rc == MPI_SUCCESS) rc = MPI_Start(&persistent);
      if (rc == MPI_SUCCESS) rc = Complete(&persistent);
      if (form == 2) MPI_Request_free(&persistent);
#endif
    }
    snprintf(what, sizeof(what), "%s reduce size=%d count=%d type=%s op=%s root=%d%s",
             form == 0 ? "nonblocking" : "persistent", size, count, kTypeNames[t], kOpNames[o],
             root, in_place ? " in-place" : "");
    Record(rc == MPI_SUCCESS && (rank != root || Same(t, o, got, want, count)), what);
  }
  free(send);
  free(got);
  free(want);
}

static void CheckIbcast(int t, int count, int root) {
  const size_t bytes = ElementBytes(t) * (size_t)count;
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  char what[200];
  static MPI_Request persistent = MPI_REQUEST_NULL;
  for (int form = 0; form < 3; ++form) {
#ifndef PERSISTENT
    if (form > 0) break;
#endif
    if (form > 0 && !PersistentFor(t)) break;
    Fill(t, want, count, root, count + form); /* what root holds */
    if (rank == root) {
      memcpy(got, want, bytes);
    } else {
      Fill(t, got, count, rank + 1000, count);
      if (t == kVector) { /* the gaps are not part of the type: they keep their own value */
        for (long k = 0; k < count; ++k) ((int*)want)[3 * k + 1] = ((int*)got)[3 * k + 1];
      }
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (form == 0) {
      rc = MPI_Ibcast(got, count, TypeOf(t), root, MPI_COMM_WORLD, &req);
      if (rc == MPI_SUCCESS) rc = Complete(&req);
    } else {
#ifdef PERSISTENT
      if (form == 1) {
        rc = PERSISTENT(Bcast)(got, count, TypeOf(t), root, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &persistent);
      }
      if (rc == MPI_SUCCESS) rc = MPI_Start(&persistent);
      if (rc == MPI_SUCCESS) rc = Complete(&persistent);
      if (form == 2) MPI_Request_free(&persistent);
#endif
    }
    snprintf(what, sizeof(what), "%s bcast size=%d count=%d type=%s root=%d",
             form == 0 ? "nonblocking" : "persistent", size, count, kTypeNames[t], root);
    Record(rc == MPI_SUCCESS && Same(t, kSum, got, want, count), what);
  }
  free(got);
  free(want);
}

static void CheckIallgather(int t, int count, int in_place) {
  const size_t block = ElementBytes(t) * (size_t)count;
  const size_t bytes = block * size;
  char* send = malloc(block);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  char what[200];
  static MPI_Request persistent = MPI_REQUEST_NULL;
  for (int form = 0; form < 3; ++form) {
#ifndef PERSISTENT
    if (form > 0) break;
#endif
    if (form > 0 && (!PersistentFor(t) || OLD_MPICH_PERSISTENT)) break;
    Fill(t, send, count, rank, count + 5 + form);
    Fill(t, got, count * size, 4242, count); /* the same garbage in both */
    memcpy(want, got, bytes);
    PMPI_Allgather(send, count, TypeOf(t), want, count, TypeOf(t), MPI_COMM_WORLD);
    const void* src = send;
    if (in_place) {
      memcpy(got + block * rank, send, block);
      src = MPI_IN_PLACE;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (form == 0) {
      rc = MPI_Iallgather(src, count, TypeOf(t), got, count, TypeOf(t), MPI_COMM_WORLD, &req);
      if (rc == MPI_SUCCESS) rc = Complete(&req);
    } else {
#ifdef PERSISTENT
      if (form == 1) {
        rc = PERSISTENT(Allgather)(src, count, TypeOf(t), got, count, TypeOf(t), MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &persistent);
      }
      if (rc == MPI_SUCCESS) rc = MPI_Start(&persistent);
      if (rc == MPI_SUCCESS) rc = Complete(&persistent);
      if (form == 2) MPI_Request_free(&persistent);
#endif
    }
    snprintf(what, sizeof(what), "%s allgather size=%d count=%d type=%s%s",
             form == 0 ? "nonblocking" : "persistent", size, count, kTypeNames[t],
             in_place ? " in-place" : "");
    Record(rc == MPI_SUCCESS && Same(t, kMax, got, want, count * size), what);
  }
  free(send);
  free(got);
  free(want);
}

static void Table(int quick) {
  const int few[] = {1, 3, 17, 1000, 4099};
  const int more[] = {1, 2, 3, 7, 17, 64, 129, 1000, 4099, 70001};
  const int* counts = quick ? few : more;
  const int n = quick ? (int)(sizeof(few) / sizeof(few[0])) : (int)(sizeof(more) / sizeof(more[0]));
  const int roots[3] = {0, size / 2, size - 1};
  for (int ci = 0; ci < n; ++ci) {
    for (int t = 0; t < kNumTypes; ++t) {
      for (int o = 0; o < kNumOps; ++o) {
        if (!Valid(t, o)) continue;
        CheckIallreduce(t, o, counts[ci], (ci + t + o) % 2);
        CheckIreduce(t, o, counts[ci], roots[(ci + t + o) % 3], (ci + t) % 2);
      }
      CheckIbcast(t, counts[ci], roots[(ci + t) % 3]);
      CheckIallgather(t, counts[ci], (ci + t) % 2);
    }
  }
  if (rank == 0) printf("COLL %ld %ld\n", cases, failures);
}

/* Rank r's element k of allreduce `j` in round `round`, and the sum over the ranks. */
static int Input(int r, int j, int round, int k) { return r * 5 + j * 11 + round + k % 89; }
static int Sum(int j, int round, int k) {
  return 5 * size * (size - 1) / 2 + size * (j * 11 + round + k % 89);
}

/* Checks the N allreduces of one round and the N messages (rank r got r-1's j). */
static void CheckInflight(const char* how, int n, int count, int round, int** out, int* msgs) {
  int ok = 1;
  for (int j = 0; j < n && ok; ++j) {
    for (int k = 0; k < count; ++k) ok &= out[j][k] == Sum(j, round, k);
    ok &= msgs[j] == ((rank + size - 1) % size) * 100 + j + round;
  }
  char what[100];
  snprintf(what, sizeof(what), "inflight %s round %d", how, round);
  Record(ok, what);
}

static void Inflight(int n, int count) {
  int** in = malloc(sizeof(int*) * n);
  int** out = malloc(sizeof(int*) * n);
  int* msgs = malloc(sizeof(int) * n);
  int* sent = malloc(sizeof(int) * n);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 3 * n);
  for (int j = 0; j < n; ++j) {
    in[j] = malloc(sizeof(int) * count);
    out[j] = malloc(sizeof(int) * count);
  }
  const char* hows[3] = {"waitall", "waitany", "testall"};
  for (int round = 0; round < 3; ++round) {
    int m = 0;
    for (int j = 0; j < n; ++j) { /* a collective, a receive and a send, interleaved */
      for (int k = 0; k < count; ++k) in[j][k] = Input(rank, j, round, k);
      memset(out[j], 0, sizeof(int) * count);
      MPI_Iallreduce(in[j], out[j], count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[m++]);
      sent[j] = rank * 100 + j + round;
      MPI_Irecv(&msgs[j], 1, MPI_INT, (rank + size - 1) % size, j, MPI_COMM_WORLD, &reqs[m++]);
      MPI_Isend(&sent[j], 1, MPI_INT, (rank + 1) % size, j, MPI_COMM_WORLD, &reqs[m++]);
    }
    if (round == 0) {
      MPI_Waitall(m, reqs, MPI_STATUSES_IGNORE);
    } else if (round == 1) {
      for (int done = 0; done < m; ++done) { /* m completions, each request once */
        int index = MPI_UNDEFINED;
        MPI_Waitany(m, reqs, &index, MPI_STATUS_IGNORE);
        if (index == MPI_UNDEFINED) break;
      }
    } else {
      int flag = 0;
      for (long polls = 0; !flag && polls < 100000000L; ++polls) {
        MPI_Testall(m, reqs, &flag, MPI_STATUSES_IGNORE);
      }
    }
    int all_null = 1;
    for (int i = 0; i < m; ++i) all_null &= reqs[i] == MPI_REQUEST_NULL;
    Record(all_null, "inflight requests freed on completion");
    CheckInflight(hows[round], n, count, round, out, msgs);
  }
#ifdef PERSISTENT
  /* Persistent requests: inactive ones test complete; started, they complete and stay. */
  MPI_Request p[2];
  for (int k = 0; k < count; ++k) in[0][k] = Input(rank, 0, 9, k);
  PERSISTENT(Allreduce)
  (in[0], out[0], count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p[0]);
  PERSISTENT(Bcast)(out[1], count, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &p[1]);
  int flag = 0;
  MPI_Request_get_status(p[0], &flag, MPI_STATUS_IGNORE);
  if (!OLD_MPICH_PERSISTENT) Record(flag == 1, "inactive persistent request is complete");
  for (int k = 0; k < count; ++k) out[1][k] = rank == size - 1 ? 77 + k % 13 : -1;
  MPI_Startall(2, p);
  MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
  int ok = p[0] != MPI_REQUEST_NULL && p[1] != MPI_REQUEST_NULL;
  for (int k = 0; k < count; ++k) ok &= out[0][k] == Sum(0, 9, k) && out[1][k] == 77 + k % 13;
  Record(ok, "persistent allreduce and bcast by MPI_Startall");
  MPI_Test(&p[0], &flag, MPI_STATUS_IGNORE);
  Record(flag == 1 && p[0] != MPI_REQUEST_NULL, "MPI_Test on a completed persistent request");
  MPI_Request_free(&p[0]);
  MPI_Request_free(&p[1]);
  Record(p[0] == MPI_REQUEST_NULL && p[1] == MPI_REQUEST_NULL, "persistent requests freed");
#endif
  for (int j = 0; j < n; ++j) {
    free(in[j]);
    free(out[j]);
  }
  free(in);
  free(out);
  free(msgs);
  free(sent);
  free(reqs);
}

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void Overlap(int count, int warmup) {
  int* in = malloc(sizeof(int) * count);
  int* out = malloc(sizeof(int) * count);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Request req;
  for (int i = 0; i < warmup; ++i) {
    for (int k = 0; k < count; ++k) in[k] = Input(rank, 0, i, k);
    MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  for (int k = 0; k < count; ++k) in[k] = Input(rank, 1, 3, k);
  PMPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) usleep(400000);
  const double start = Now();
  MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, comm, &req);
  double took = rank == 0 ? 0 : Now() - start, slowest = 0;
  /* Compute, testing the request now and then, as an overlapping code does; bounded. */
  int flag = 0;
  long tests = 0;
  volatile double x = 1;
  const double deadline = Now() + 60;
  while (!flag && Now() < deadline) {
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    ++tests;
  }
  int ok = flag;
  for (int k = 0; k < count && ok; ++k) ok &= out[k] == Sum(1, 3, k);
  Record(ok, "overlap: completed by MPI_Test while computing, right result");
  PMPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  long most = 0;
  PMPI_Allreduce(&tests, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("START %.3f\nOVERLAP %ld\n", slowest, most);
  if (!flag) MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Comm_free(&comm);
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  alarm(300); /* a rank stuck in a deadlock ends here, and mpirun ends the job */
  CreateTableTypes();
  const char* mode = argc > 1 ? argv[1] : "table";
#ifndef PERSISTENT
  if (rank == 0) printf("PERSISTENT none\n");
#endif
  if (OLD_MPICH_PERSISTENT && rank == 0) {
    printf(
        "SKIPPED: MPICH 4.0's persistent collectives on derived datatypes, and "
        "MPI_Request_get_status on an inactive persistent collective (MPICH bugs)\n");
  }
  if (strcmp(mode, "table") == 0) {
    Table(argc > 2 && strcmp(argv[2], "quick") == 0);
  } else if (strcmp(mode, "inflight") == 0 && argc > 3) {
    Inflight(atoi(argv[2]), atoi(argv[3]));
  } else if (strcmp(mode, "overlap") == 0 && argc > 3) {
    Overlap(atoi(argv[2]), atoi(argv[3]));
  } else {
    if (rank == 0) {
      fprintf(stderr,
              "usage: nonblocking_check table [quick] | inflight N COUNT | overlap COUNT "
              "WARMUP\n");
    }
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) printf("CHECK %s %s\n", mode, failures == 0 ? "ok" : "bad");
  FreeTableTypes();
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
