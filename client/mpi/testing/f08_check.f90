! An unchanged Fortran 2008 program (use mpi_f08) whose collectives are above
! TOPORR_MIN_BYTES and whose topology constructors ask for reorder = .true.: under
! LD_PRELOAD=libtoporr_pmpi.so each is taken over by toporr (f08_test.py reads the decisions
! in TOPORR_REPORT), with and without the preload the results are right. Rank 0 prints
!   CHECK <name> ok|FAILED           every rank's check of <name> combined
!   ORDER <name> - 0 <world ranks>   a new communicator's ranks in its order
! for:
!   f08-allreduce  MPI_Allreduce of 20,000 doubles (sum), then of 40,000 in place (max, no
!                  ierror)
!   f08-bcast      MPI_Bcast of 40,000 integers from the last rank
!   f08-reduce     MPI_Reduce of 40,000 integers to the last rank, then in place at rank 0
!   f08-allgather  MPI_Allgather of 20,000 integers per rank, then of 40,000 in place
! (each call of a size class, root or collective of its own, so that each is a decision of
! its own, not one answered from the communicator's cache).
!   f08-nonblocking  MPI_Iallreduce of 20,000 doubles in place, MPI_Ibcast of 40,000
!                  integers from rank 0, each completed by MPI_Wait
!   f08-cart       MPI_Cart_create (MPI_Dims_create grid, periodic along the first
!                  dimension); MPI_Cart_map gives each process its rank in it, and
!                  MPI_Cart_shift's neighbours are the processes at the neighbouring coordinates
!   f08-graph      MPI_Graph_create of a ring; MPI_Graph_map gives each process its rank in it
!   f08-dist-adjacent  MPI_Dist_graph_create_adjacent of a ring (MPI_UNWEIGHTED): the
!                  in-neighbour of the process of rank r in the new communicator is the one
!                  of rank r - 1 there (MPI_Neighbor_allgather), reordered or not
!   f08-dist       MPI_Dist_graph_create of the same ring with weights
!   f77-dist-adjacent, f77-dist  the same two through `use mpi` (old_bindings_dist_graph)
!   f77-iallreduce MPI_IALLREDUCE of 20,000 integers in place through `use mpi`, completed by
!                  MPI_WAIT
!   f08-persistent MPI_Allreduce_init of 40,000 doubles in place (sum) and MPI_Bcast_init of
!                  40,000 integers from the last rank, each started twice (new data each
!                  time) by MPI_Start and completed by MPI_Wait (f08_persistent)
!   f77-persistent the same through `use mpi`: MPI_ALLREDUCE_INIT of 160,000 integers (sum),
!                  MPI_BCAST_INIT of 40,000 integers from rank 1, MPI_REDUCE_INIT of 40,000
!                  integers (sum) to rank 1 (old_bindings_persistent)
!                  The persistent collectives are MPI-4's MPI_*_init when built with
!                  -DPERSISTENT_MPI, Open MPI 4.1's MPIX_*_init (modules mpi_f08_ext,
!                  mpi_ext) with -DPERSISTENT_MPIX; built with neither (an MPI library
!                  without them), rank 0 prints instead
!                    SKIPPED: <why>
!   f08-reorder    toporr_comm_reorder_f08 (module toporr_f08) for a 1 MiB allreduce: an
!                  allreduce on the new communicator sums the world ranks
! Built with -cpp (f08_test.py): the persistent collectives' names.
#if defined(PERSISTENT_MPI)
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BCAST_INIT MPI_Bcast_init
#define REDUCE_INIT MPI_Reduce_init
#elif defined(PERSISTENT_MPIX)
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BCAST_INIT MPIX_Bcast_init
#define REDUCE_INIT MPIX_Reduce_init
#endif
program f08_check
  use mpi_f08
  use toporr_f08
  implicit none
  integer, parameter :: nv = 20000, ni = 40000, ng = 20000
  type(MPI_Comm) :: world, cart, graph, dist, newcomm
  integer :: rank, nprocs, i, ierr, root, newrank, mine, total, rc
  integer :: dims(2), coords(2), src, dst, other(2)
  logical :: periods(2), ok
  double precision, allocatable :: v(:), w(:)
  integer, allocatable :: ints(:), red(:), gathered(:), gathered2(:), gindex(:), edges(:)
  type(MPI_Request) :: req
  asynchronous :: w, ints
  integer :: one(1), deg(1), wts(1), got(1)

  call MPI_Init()
  world = MPI_COMM_WORLD
  call MPI_Comm_rank(world, rank)
  call MPI_Comm_size(world, nprocs)

  ! MPI_Allreduce: integer-valued doubles, so that every summation order gives the same sum.
  allocate(v(2 * nv), w(nv))
  do i = 1, 2 * nv
    v(i) = dble(7 * rank + mod(i, 1000))
  end do
  call MPI_Allreduce(v, w, nv, MPI_DOUBLE_PRECISION, MPI_SUM, world, ierr)
  ok = ierr == MPI_SUCCESS
  do i = 1, nv
    ok = ok .and. w(i) == dble(7 * nprocs * (nprocs - 1) / 2 + nprocs * mod(i, 1000))
  end do
  call MPI_Allreduce(MPI_IN_PLACE, v, 2 * nv, MPI_DOUBLE_PRECISION, MPI_MAX, world)
  do i = 1, 2 * nv
    ok = ok .and. v(i) == dble(7 * (nprocs - 1) + mod(i, 1000))
  end do
  call report('f08-allreduce', ok)

  ! MPI_Bcast from the last rank.
  root = nprocs - 1
  allocate(ints(ni), red(ni))
  ints = -1
  if (rank == root) then
    do i = 1, ni
      ints(i) = 3 * i + 1
    end do
  end if
  call MPI_Bcast(ints, ni, MPI_INTEGER, root, world, ierr)
  ok = ierr == MPI_SUCCESS
  do i = 1, ni
    ok = ok .and. ints(i) == 3 * i + 1
  end do
  call report('f08-bcast', ok)

  ! MPI_Reduce to the last rank, then in place at rank 0.
  do i = 1, ni
    ints(i) = rank + i
  end do
  red = -1
  call MPI_Reduce(ints, red, ni, MPI_INTEGER, MPI_SUM, root, world, ierr)
  ok = ierr == MPI_SUCCESS
  if (rank == root) then
    do i = 1, ni
      ok = ok .and. red(i) == nprocs * (nprocs - 1) / 2 + nprocs * i
    end do
  end if
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, ints, ni, MPI_INTEGER, MPI_MAX, 0, world, ierr)
    do i = 1, ni
      ok = ok .and. ints(i) == nprocs - 1 + i
    end do
  else
    call MPI_Reduce(ints, red, ni, MPI_INTEGER, MPI_MAX, 0, world, ierr)
  end if
  ok = ok .and. ierr == MPI_SUCCESS
  call report('f08-reduce', ok)

  ! MPI_Allgather of per-rank blocks, then in place.
  allocate(gathered(ng * nprocs), gathered2(2 * ng * nprocs))
  gathered2 = -1
  do i = 1, 2 * ng
    gathered2(rank * 2 * ng + i) = 11 * rank + i
  end do
  call MPI_Allgather(gathered2(rank * 2 * ng + 1:rank * 2 * ng + ng), ng, MPI_INTEGER, gathered, &
                     ng, MPI_INTEGER, world, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered2, 2 * ng, MPI_INTEGER, world, &
                     ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  do i = 1, ng * nprocs
    ok = ok .and. gathered(i) == 11 * ((i - 1) / ng) + mod(i - 1, ng) + 1
  end do
  do i = 1, 2 * ng * nprocs
    ok = ok .and. gathered2(i) == 11 * ((i - 1) / (2 * ng)) + mod(i - 1, 2 * ng) + 1
  end do
  call report('f08-allgather', ok)

  ! MPI_Iallreduce of 20,000 doubles in place and MPI_Ibcast of 40,000 integers from rank 0,
  ! each completed by MPI_Wait.
  do i = 1, nv
    w(i) = dble(5 * rank + mod(i, 700))
  end do
  call MPI_Iallreduce(MPI_IN_PLACE, w, nv, MPI_DOUBLE_PRECISION, MPI_SUM, world, req, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  do i = 1, nv
    ok = ok .and. w(i) == dble(5 * nprocs * (nprocs - 1) / 2 + nprocs * mod(i, 700))
  end do
  ints = -1
  if (rank == 0) then
    do i = 1, ni
      ints(i) = 5 * i + 2
    end do
  end if
  call MPI_Ibcast(ints, ni, MPI_INTEGER, 0, world, req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  do i = 1, ni
    ok = ok .and. ints(i) == 5 * i + 2
  end do
  call report('f08-nonblocking', ok)

  call f08_persistent(rank, nprocs)

  ! MPI_Cart_create, checked against MPI_Cart_map and the grid's coordinates.
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims)
  periods = [.true., .false.]
  call MPI_Cart_create(world, 2, dims, periods, .true., cart, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_Cart_map(world, 2, dims, periods, newrank, ierr)
  call MPI_Comm_rank(cart, mine)
  ok = ok .and. ierr == MPI_SUCCESS .and. newrank == mine
  ! The neighbour one step along the periodic dimension has the next coordinate there.
  call MPI_Cart_coords(cart, mine, 2, coords)
  call MPI_Cart_shift(cart, 0, 1, src, dst)
  call MPI_Sendrecv(coords, 2, MPI_INTEGER, dst, 0, other, 2, MPI_INTEGER, src, 0, cart, &
                    MPI_STATUS_IGNORE)
  ok = ok .and. other(1) == mod(coords(1) - 1 + dims(1), dims(1)) .and. other(2) == coords(2)
  call print_order('f08-cart', cart)
  call report('f08-cart', ok)
  call MPI_Comm_free(cart)

  ! MPI_Graph_create of a ring, checked against MPI_Graph_map.
  allocate(gindex(nprocs), edges(2 * nprocs))
  do i = 1, nprocs
    gindex(i) = 2 * i
    edges(2 * i - 1) = mod(i - 2 + nprocs, nprocs)
    edges(2 * i) = mod(i, nprocs)
  end do
  call MPI_Graph_create(world, nprocs, gindex, edges, .true., graph, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_Graph_map(world, nprocs, gindex, edges, newrank, ierr)
  call MPI_Comm_rank(graph, mine)
  ok = ok .and. ierr == MPI_SUCCESS .and. newrank == mine
  call print_order('f08-graph', graph)
  call report('f08-graph', ok)
  call MPI_Comm_free(graph)

  ! MPI_Dist_graph_create_adjacent of a ring: in from the previous rank, out to the next.
  one(1) = mod(rank - 1 + nprocs, nprocs)
  deg(1) = mod(rank + 1, nprocs)
  call MPI_Dist_graph_create_adjacent(world, 1, one, MPI_UNWEIGHTED, 1, deg, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .true., dist, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_Comm_rank(dist, mine)
  call MPI_Neighbor_allgather([mine], 1, MPI_INTEGER, got, 1, MPI_INTEGER, dist)
  ok = ok .and. got(1) == mod(mine - 1 + nprocs, nprocs)
  call print_order('f08-dist-adjacent', dist)
  call report('f08-dist-adjacent', ok)
  call MPI_Comm_free(dist)

  ! MPI_Dist_graph_create of the same ring, each rank naming its outgoing edge, weighted.
  one(1) = rank
  deg(1) = 1
  wts(1) = 5
  got(1) = mod(rank + 1, nprocs)
  call MPI_Dist_graph_create(world, 1, one, deg, got, wts, MPI_INFO_NULL, .true., dist, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_Comm_rank(dist, mine)
  call MPI_Neighbor_allgather([mine], 1, MPI_INTEGER, got, 1, MPI_INTEGER, dist)
  ok = ok .and. got(1) == mod(mine - 1 + nprocs, nprocs)
  call print_order('f08-dist', dist)
  call report('f08-dist', ok)
  call MPI_Comm_free(dist)

  call old_bindings_dist_graph(rank, nprocs)
  call old_bindings_persistent(rank, nprocs)

  ! toporr_f08: a communicator reordered for a 1 MiB allreduce.
  rc = toporr_comm_reorder_f08(world, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1048576_c_int64_t, 0, &
                               newcomm)
  ok = rc == TOPORR_SUCCESS .and. newcomm /= MPI_COMM_NULL
  if (ok) then
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, newcomm)
    ok = total == nprocs * (nprocs - 1) / 2
    call print_order('f08-reorder', newcomm)
    call MPI_Comm_free(newcomm)
  end if
  call report('f08-reorder', ok)

  call MPI_Finalize()

contains

  ! "CHECK name ok" from rank 0 when `ok` holds at every rank.
  subroutine report(name, ok)
    character(len=*), intent(in) :: name
    logical, intent(in) :: ok
    logical :: all_ok
    call MPI_Allreduce(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    if (rank == 0) then
      if (all_ok) then
        print '(3A)', 'CHECK ', name, ' ok'
      else
        print '(3A)', 'CHECK ', name, ' FAILED'
      end if
    end if
  end subroutine report

  ! "ORDER name - 0 <world rank of each rank of comm>" from comm's rank 0.
  subroutine print_order(name, comm)
    character(len=*), intent(in) :: name
    type(MPI_Comm), intent(in) :: comm
    integer :: order(nprocs), r, j
    character(len=16) :: word
    character(len=4096) :: line
    call MPI_Gather(rank, 1, MPI_INTEGER, order, 1, MPI_INTEGER, 0, comm)
    call MPI_Comm_rank(comm, r)
    if (r == 0) then
      line = 'ORDER ' // name // ' - 0'
      do j = 1, nprocs
        write(word, '(I0)') order(j)
        line = trim(line) // ' ' // trim(word)
      end do
      print '(A)', trim(line)
    end if
  end subroutine print_order

end program f08_check

! The dist-graph constructors of the old bindings (`use mpi`, INTEGER handles), on the same
! ring, and a nonblocking allreduce; prints CHECK f77-dist-adjacent / f77-dist /
! f77-iallreduce from rank 0.
subroutine old_bindings_dist_graph(rank, nprocs)
  use mpi
  implicit none
  integer, intent(in) :: rank, nprocs
  integer :: dist, ierr, prev(1), next(1), one(1), deg(1), wts(1), got(1), me(1), req, k
  integer :: vals(20000)
  logical :: ok, all_ok
  asynchronous :: vals

  prev(1) = mod(rank - 1 + nprocs, nprocs)
  next(1) = mod(rank + 1, nprocs)
  call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, prev, MPI_UNWEIGHTED, 1, next, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .true., dist, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_COMM_RANK(dist, me(1), ierr)
  call MPI_NEIGHBOR_ALLGATHER(me, 1, MPI_INTEGER, got, 1, MPI_INTEGER, dist, ierr)
  ok = ok .and. got(1) == mod(me(1) - 1 + nprocs, nprocs)
  call MPI_ALLREDUCE(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. all_ok) print '(A)', 'CHECK f77-dist-adjacent ok'
  if (rank == 0 .and. .not. all_ok) print '(A)', 'CHECK f77-dist-adjacent FAILED'
  call MPI_COMM_FREE(dist, ierr)

  one(1) = rank
  deg(1) = 1
  wts(1) = 5
  call MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, 1, one, deg, next, wts, MPI_INFO_NULL, .true., &
                             dist, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_COMM_RANK(dist, me(1), ierr)
  call MPI_NEIGHBOR_ALLGATHER(me, 1, MPI_INTEGER, got, 1, MPI_INTEGER, dist, ierr)
  ok = ok .and. got(1) == mod(me(1) - 1 + nprocs, nprocs)
  call MPI_ALLREDUCE(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. all_ok) print '(A)', 'CHECK f77-dist ok'
  if (rank == 0 .and. .not. all_ok) print '(A)', 'CHECK f77-dist FAILED'
  call MPI_COMM_FREE(dist, ierr)

  do k = 1, 20000
    vals(k) = 3 * rank + mod(k, 501)
  end do
  call MPI_IALLREDUCE(MPI_IN_PLACE, vals, 20000, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  ok = ierr == MPI_SUCCESS
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  do k = 1, 20000
    ok = ok .and. vals(k) == 3 * nprocs * (nprocs - 1) / 2 + nprocs * mod(k, 501)
  end do
  call MPI_ALLREDUCE(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. all_ok) print '(A)', 'CHECK f77-iallreduce ok'
  if (rank == 0 .and. .not. all_ok) print '(A)', 'CHECK f77-iallreduce FAILED'
end subroutine old_bindings_dist_graph

! The persistent collectives of `use mpi_f08`, each request started twice: prints CHECK
! f08-persistent from rank 0, or SKIPPED where the MPI library has none.
subroutine f08_persistent(rank, nprocs)
  use mpi_f08
#if defined(PERSISTENT_MPIX)
  use mpi_f08_ext
#endif
  implicit none
  integer, intent(in) :: rank, nprocs
#if defined(ALLREDUCE_INIT)
  integer, parameter :: nv = 40000, ni = 40000
  double precision, allocatable :: w(:)
  integer, allocatable :: ints(:)
  asynchronous :: w, ints
  type(MPI_Request) :: req
  integer :: i, k, ierr, root
  logical :: ok, all_ok

  allocate(w(nv), ints(ni))
  ! In place: each start sums the values w holds when it starts.
  call ALLREDUCE_INIT(MPI_IN_PLACE, w, nv, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, req, ierr)
  ok = ierr == MPI_SUCCESS
  do k = 1, 2
    do i = 1, nv
      w(i) = dble(k * rank + mod(i, 900))
    end do
    call MPI_Start(req, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    do i = 1, nv
      ok = ok .and. w(i) == dble(k * nprocs * (nprocs - 1) / 2 + nprocs * mod(i, 900))
    end do
  end do
  call MPI_Request_free(req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS

  root = nprocs - 1
  call BCAST_INIT(ints, ni, MPI_INTEGER, root, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  do k = 1, 2
    ints = -1
    if (rank == root) then
      do i = 1, ni
        ints(i) = 7 * k * i + 3
      end do
    end if
    call MPI_Start(req, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    do i = 1, ni
      ok = ok .and. ints(i) == 7 * k * i + 3
    end do
  end do
  call MPI_Request_free(req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS

  call MPI_Allreduce(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  if (rank == 0 .and. all_ok) print '(A)', 'CHECK f08-persistent ok'
  if (rank == 0 .and. .not. all_ok) print '(A)', 'CHECK f08-persistent FAILED'
#else
  if (rank == 0 .and. nprocs > 0) then
    print '(A)', 'SKIPPED: f08-persistent: built without persistent collectives'
  end if
#endif
end subroutine f08_persistent

! The persistent collectives of the old bindings (`use mpi`, INTEGER handles), each request
! started twice: prints CHECK f77-persistent from rank 0, or SKIPPED where the MPI library
! has none.
subroutine old_bindings_persistent(rank, nprocs)
  use mpi
#if defined(PERSISTENT_MPIX)
  use mpi_ext
#endif
  implicit none
  integer, intent(in) :: rank, nprocs
#if defined(ALLREDUCE_INIT)
  integer, parameter :: nl = 160000, ni = 40000
  integer, allocatable :: src(:), dst(:), ints(:), red(:)
  asynchronous :: src, dst, ints, red
  integer :: i, k, ierr, req, root
  logical :: ok, all_ok

  allocate(src(nl), dst(nl), ints(ni), red(ni))
  call ALLREDUCE_INIT(src, dst, nl, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, &
                      ierr)
  ok = ierr == MPI_SUCCESS
  do k = 1, 2
    do i = 1, nl
      src(i) = 3 * k * rank + mod(i, 501)
    end do
    dst = -1
    call MPI_START(req, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    do i = 1, nl
      ok = ok .and. dst(i) == 3 * k * nprocs * (nprocs - 1) / 2 + nprocs * mod(i, 501)
    end do
  end do
  call MPI_REQUEST_FREE(req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS

  root = min(1, nprocs - 1)
  call BCAST_INIT(ints, ni, MPI_INTEGER, root, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  do k = 1, 2
    ints = -1
    if (rank == root) then
      do i = 1, ni
        ints(i) = 5 * k * i + 1
      end do
    end if
    call MPI_START(req, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    do i = 1, ni
      ok = ok .and. ints(i) == 5 * k * i + 1
    end do
  end do
  call MPI_REQUEST_FREE(req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS

  call REDUCE_INIT(ints, red, ni, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &
                   req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  do k = 1, 2
    do i = 1, ni
      ints(i) = k * rank + i
    end do
    red = -1
    call MPI_START(req, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    ok = ok .and. ierr == MPI_SUCCESS
    if (rank == root) then
      do i = 1, ni
        ok = ok .and. red(i) == k * nprocs * (nprocs - 1) / 2 + nprocs * i
      end do
    end if
  end do
  call MPI_REQUEST_FREE(req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS

  call MPI_ALLREDUCE(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. all_ok) print '(A)', 'CHECK f77-persistent ok'
  if (rank == 0 .and. .not. all_ok) print '(A)', 'CHECK f77-persistent FAILED'
#else
  if (rank == 0 .and. nprocs > 0) then
    print '(A)', 'SKIPPED: f77-persistent: built without persistent collectives'
  end if
#endif
end subroutine old_bindings_persistent
