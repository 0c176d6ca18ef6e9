/* Known traffic for the traffic profile (profile_test.py computes what the file must hold from
 * the same description): on 4 ranks, rank r of MPI_COMM_WORLD
 *   - sends 10 ints to r+1 (MPI_Send), 3 doubles to r+2 (MPI_Isend), 1 int to r+1 (MPI_Ssend),
 *     2 ints to r+2 (MPI_Bsend), 6 chars to r+3 (MPI_Issend), nothing to MPI_PROC_NULL;
 *   - starts a persistent send of 5 ints to r+3 four times (MPI_Send_init, MPI_Startall);
 *   - MPI_Sendrecv of 2 shorts to r+1, MPI_Sendrecv_replace of 1 long long to r+2;
 *   - splits MPI_COMM_WORLD by r % 2 with key -r (so world 2 and 3 are ranks 0 of the
 *     halves, world 0 and 1 their ranks 1), sends 7 chars to the other rank of its half,
 *     runs 2 MPI_Allreduce of 1 int and 1 MPI_Bcast of 16 bytes on the half;
 *   - joins the halves by MPI_Intercomm_create, sends 1 int to the same rank of the other
 *     half, runs one MPI_Barrier on the inter-communicator;
 *   - on a window over its half: MPI_Put of 2 ints, MPI_Get of 3 ints, MPI_Accumulate of 1
 *     int, MPI_Fetch_and_op of 1 int, all at the other rank of its half;
 *   - collectives on MPI_COMM_WORLD: MPI_Barrier, 3 MPI_Allreduce of 8 doubles, 1
 *     MPI_Iallreduce of 4 ints, 1 MPI_Allreduce of LARGE ints (from 64 KiB: toporr takes it
 *     over), MPI_Bcast of 100 bytes from 1, MPI_Gather of 2 ints to 0, MPI_Scatter of 3 ints
 *     from 2, MPI_Alltoall of 1 int, MPI_Allgatherv / MPI_Gatherv (to 0) of r+1 ints,
 *     MPI_Alltoallv of 2 ints per peer, MPI_Reduce_scatter of 1 int per rank,
 *     MPI_Reduce_scatter_block of 2 ints, MPI_Scan and MPI_Exscan of 1 int, and one
 *     MPI_Allreduce of 1 int on a duplicate of MPI_COMM_WORLD.
 * Rank 0 prints one line, "CHECK profile ok <checksum>", the same with and without the PMPI
 * layer and its profile.
 *   profile_check [LARGE]   LARGE ints in the large allreduce (default 16384) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long checksum = 0;

static void add(long long v) { checksum = checksum * 31 + v; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int large = argc > 1 ? atoi(argv[1]) : 16384;
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 4) {
    if (r == 0) fprintf(stderr, "profile_check: run me on 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int next = (r + 1) % n, prev = (r + n - 1) % n, across = (r + 2) % n;
  const int back = (r + 3) % n; /* the previous rank, as a destination */

  /* ---- blocking and non-blocking sends ---- */
  int ints[16], got[16];
  double doubles[3] = {r, r + 0.5, r + 0.25}, dgot[3];
  for (int i = 0; i < 16; ++i) ints[i] = 100 * r + i;
  MPI_Sendrecv(MPI_BOTTOM, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_BOTTOM, 0, MPI_INT, MPI_PROC_NULL, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(ints, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
  MPI_Request req[4];
  MPI_Status statuses[4];
  MPI_Irecv(got, 10, MPI_INT, prev, 1, MPI_COMM_WORLD, &req[0]);
  MPI_Send(ints, 10, MPI_INT, next, 1, MPI_COMM_WORLD);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < 10; ++i) add(got[i]);
  MPI_Irecv(dgot, 3, MPI_DOUBLE, (r + 2) % n, 2, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(doubles, 3, MPI_DOUBLE, across, 2, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, statuses);
  add((long long)(dgot[0] * 4 + dgot[1] * 4 + dgot[2] * 4));
  MPI_Irecv(got, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &req[0]);
  MPI_Ssend(ints + 1, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  add(got[0]);
  int bsize = 2 * sizeof(int) + MPI_BSEND_OVERHEAD;
  char* bbuf = malloc(bsize);
  MPI_Buffer_attach(bbuf, bsize);
  MPI_Irecv(got, 2, MPI_INT, across, 4, MPI_COMM_WORLD, &req[0]);
  MPI_Bsend(ints + 2, 2, MPI_INT, across, 4, MPI_COMM_WORLD);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Buffer_detach(&bbuf, &bsize);
  free(bbuf);
  add(got[0] + got[1]);
  char chars[8] = "abcdefg", cgot[8] = {0};
  MPI_Irecv(cgot, 6, MPI_CHAR, (r + 1) % n, 5, MPI_COMM_WORLD, &req[0]);
  MPI_Issend(chars, 6, MPI_CHAR, back, 5, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, statuses);
  add(cgot[5]);

  /* ---- persistent ---- */
  int pin[5], pout[5];
  MPI_Send_init(pout, 5, MPI_INT, back, 6, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(pin, 5, MPI_INT, (r + 1) % n, 6, MPI_COMM_WORLD, &req[1]);
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 5; ++i) pout[i] = r * 1000 + k * 10 + i;
    MPI_Startall(2, req);
    MPI_Waitall(2, req, statuses);
    add(pin[4]);
  }
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);

  /* ---- sendrecv ---- */
  short s2[2] = {(short)r, (short)(r + 1)}, sgot[2];
  MPI_Sendrecv(s2, 2, MPI_SHORT, next, 7, sgot, 2, MPI_SHORT, prev, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  add(sgot[0] + sgot[1]);
  long long ll = 7 * r;
  MPI_Sendrecv_replace(&ll, 1, MPI_LONG_LONG, across, 8, (r + 2) % n, 8, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  add(ll);

  /* ---- a split communicator (ranks reversed) ---- */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
  int hr, hn;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  const int other = (hr + 1) % hn;
  char hgot[8] = {0};
  MPI_Sendrecv(chars, 7, MPI_CHAR, other, 9, hgot, 7, MPI_CHAR, other, 9, half, MPI_STATUS_IGNORE);
  add(hgot[6]);
  int one = r + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
  add(sum);
  MPI_Allreduce(&sum, &one, 1, MPI_INT, MPI_MAX, half);
  add(one);
  char sixteen[16];
  memset(sixteen, hr == 0 ? 'x' : 'y', sizeof sixteen);
  MPI_Bcast(sixteen, 16, MPI_CHAR, 0, half);
  add(sixteen[15]);

  /* ---- an inter-communicator between the halves ---- */
  MPI_Comm inter;
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 == 0 ? 3 : 2, 10, &inter);
  int mine = 10 * r, theirs = -1;
  MPI_Sendrecv(&mine, 1, MPI_INT, hr, 11, &theirs, 1, MPI_INT, hr, 11, inter, MPI_STATUS_IGNORE);
  add(theirs);
  MPI_Barrier(inter);
  MPI_Comm_free(&inter);

  /* ---- one-sided on the half ---- */
  int base[8];
  MPI_Win win;
  MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, half, &win);
  for (int i = 0; i < 8; ++i) base[i] = 10 * r + i;
  MPI_Win_fence(0, win);
  int put[2] = {r, r}, fetched[3], fop_in = 1, fop_out = 0, acc = 5;
  MPI_Put(put, 2, MPI_INT, other, 0, 2, MPI_INT, win);
  MPI_Get(fetched, 3, MPI_INT, other, 4, 3, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Accumulate(&acc, 1, MPI_INT, other, 2, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Fetch_and_op(&fop_in, &fop_out, MPI_INT, other, 3, MPI_SUM, win);
  MPI_Win_fence(0, win);
  add(fetched[0] + fetched[1] + fetched[2] + fop_out);
  for (int i = 0; i < 8; ++i) add(base[i]);
  MPI_Win_free(&win);
  MPI_Comm_free(&half);

  /* ---- collectives on MPI_COMM_WORLD ---- */
  MPI_Barrier(MPI_COMM_WORLD);
  double d8[8], d8sum[8];
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 8; ++i) d8[i] = r + i + k;
    MPI_Allreduce(d8, d8sum, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    add((long long)d8sum[7]);
  }
  int i4[4] = {r, r, r, r}, i4sum[4];
  MPI_Iallreduce(i4, i4sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  add(i4sum[3]);
  int* big = malloc(sizeof(int) * large);
  int* bigsum = malloc(sizeof(int) * large);
  for (int i = 0; i < large; ++i) big[i] = (r + i) % 7;
  MPI_Allreduce(big, bigsum, large, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < large; i += 1000) add(bigsum[i]);
  free(big);
  free(bigsum);
  char hundred[100];
  memset(hundred, 'a' + r, sizeof hundred);
  MPI_Bcast(hundred, 100, MPI_CHAR, 1, MPI_COMM_WORLD);
  add(hundred[99]);
  int two[2] = {r, -r}, gathered[8];
  MPI_Gather(two, 2, MPI_INT, gathered, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (r == 0) {
    for (int i = 0; i < 8; ++i) add(gathered[i]);
  }
  int twelve[12], three[3];
  for (int i = 0; i < 12; ++i) twelve[i] = i * i;
  MPI_Scatter(twelve, 3, MPI_INT, three, 3, MPI_INT, 2, MPI_COMM_WORLD);
  add(three[0] + three[1] + three[2]);
  int a2a[4] = {r, r + 1, r + 2, r + 3}, a2a_got[4];
  MPI_Alltoall(a2a, 1, MPI_INT, a2a_got, 1, MPI_INT, MPI_COMM_WORLD);
  add(a2a_got[0] + a2a_got[3]);
  int counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6}, mine4[4] = {r, r, r, r}, all10[10];
  MPI_Allgatherv(mine4, r + 1, MPI_INT, all10, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < 10; ++i) add(all10[i]);
  MPI_Gatherv(mine4, r + 1, MPI_INT, all10, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  int twos[4] = {2, 2, 2, 2}, tdispls[4] = {0, 2, 4, 6}, eight[8], eight_got[8];
  for (int i = 0; i < 8; ++i) eight[i] = r * 8 + i;
  MPI_Alltoallv(eight, twos, tdispls, MPI_INT, eight_got, twos, tdispls, MPI_INT, MPI_COMM_WORLD);
  add(eight_got[0] + eight_got[7]);
  int ones[4] = {1, 1, 1, 1}, rs_got = 0, rsb_got[2];
  MPI_Reduce_scatter(a2a, &rs_got, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  add(rs_got);
  MPI_Reduce_scatter_block(eight, rsb_got, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  add(rsb_got[0] + rsb_got[1]);
  int scanned = 0, exscanned = 0;
  MPI_Scan(&one, &scanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(&one, &exscanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  add(scanned + (r > 0 ? exscanned : 0));
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
  add(sum);
  MPI_Comm_free(&dup);

  /* Every rank's checksum, printed by rank 0. */
  long long sums[4];
  MPI_Gather(&checksum, 1, MPI_LONG_LONG, sums, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (r == 0) printf("CHECK profile ok %lld %lld %lld %lld\n", sums[0], sums[1], sums[2], sums[3]);
  MPI_Finalize();
  return 0;
}
