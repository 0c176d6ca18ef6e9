! An unchanged Fortran program (use mpi) whose MPI_ALLREDUCE (20,000 doubles, once with
! MPI_IN_PLACE) and MPI_BCAST (100,000 integers) are above TOPORR_MIN_BYTES: under
! LD_PRELOAD=libtoporr_pmpi.so they run toporr's collectives. Rank 0 prints checksums that
! must not change with the preload ("FCOLL ...").
program fortran_coll
  use mpi
  implicit none
  integer, parameter :: nv = 20000, ni = 100000
  integer :: ierr, rank, nprocs, i, root
  double precision :: v(nv), w(nv)
  integer :: ints(ni)
  integer(kind=8) :: mine, itotal

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
  if (rank == 0) then
    print '(A,4ES18.9,I14)', 'FCOLL', w(1), w(nv), v(1), v(nv), itotal
  end if
  call MPI_FINALIZE(ierr)
end program fortran_coll
