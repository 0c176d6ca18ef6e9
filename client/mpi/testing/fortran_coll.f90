! An unchanged Fortran program (use mpi) whose MPI_ALLREDUCE (20,000 doubles, once with
! MPI_IN_PLACE), MPI_BCAST (100,000 integers), MPI_REDUCE (20,000 doubles to rank 1, then
! with MPI_IN_PLACE at root 0: MPICH 4.0.2 itself crashes on MPI_IN_PLACE at a nonzero root
! for large counts) and MPI_ALLGATHER (20,000 integers per rank, once with
! MPI_IN_PLACE) are above TOPORR_MIN_BYTES: under
! LD_PRELOAD=libtoporr_pmpi.so they run toporr's collectives. Rank 0 prints checksums that
! must not change with the preload ("FCOLL ...").
program fortran_coll
  use mpi
  implicit none
  integer, parameter :: nv = 20000, ni = 100000, ng = 20000
  integer :: ierr, rank, nprocs, i, root
  double precision :: v(nv), w(nv), red(nv), red2(nv)
  integer :: ints(ni)
  integer, allocatable :: gathered(:), gathered2(:)
  integer(kind=8) :: mine, itotal, gsum, gsum2

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, nv
    v(i) = rank * 0.5d0 + i * 1d-4
  end do
  call MPI_ALLREDUCE(v, w, nv, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(MPI_IN_PLACE, v, nv, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  root = nprocs - 1
  ints = -1
  if (rank == root) then
    do i = 1, ni
      ints(i) = 3 * i
    end do
  end if
  call MPI_BCAST(ints, ni, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  mine = 0
  do i = 1, ni, 997
    mine = mine + ints(i)
  end do
  call MPI_ALLREDUCE(mine, itotal, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  ! MPI_REDUCE to a root that is not rank 0, then in place at root 0.
  red = 0d0
  do i = 1, nv
    red2(i) = rank + i * 1d-3
  end do
  call MPI_REDUCE(red2, red, nv, MPI_DOUBLE_PRECISION, MPI_MAX, 1 - 1 / nprocs, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_REDUCE(MPI_IN_PLACE, red2, nv, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, &
                    ierr)
  else
    call MPI_REDUCE(red2, w, nv, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  ! MPI_ALLGATHER of per-rank blocks, with and without MPI_IN_PLACE.
  allocate(gathered(ng * nprocs), gathered2(ng * nprocs))
  gathered2 = -1
  do i = 1, ng
    gathered2(rank * ng + i) = rank * 7 + i
  end do
  call MPI_ALLGATHER(gathered2(rank * ng + 1), ng, MPI_INTEGER, gathered, ng, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call MPI_ALLGATHER(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered2, ng, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  gsum = 0
  gsum2 = 0
  do i = 1, ng * nprocs
    gsum = gsum + gathered(i) * mod(i, 13)
    gsum2 = gsum2 + gathered2(i) * mod(i, 13)
  end do
  if (rank == 1 - 1 / nprocs) then
    print '(A,2ES18.9)', 'FREDUCE', red(1), red(nv)
  end if
  if (rank == 0) then
    print '(A,2ES18.9)', 'FREDUCE0', red2(1), red2(nv)
    print '(A,4ES18.9,I14)', 'FCOLL', w(1), w(nv), v(1), v(nv), itotal
    print '(A,2I16)', 'FGATHER', gsum, gsum2
  end if
  call MPI_FINALIZE(ierr)
end program fortran_coll
