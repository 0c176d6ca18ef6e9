! An unchanged Fortran program (use mpi) with known traffic for the traffic profile: each
! rank sends 5 integers to the next (MPI_SENDRECV) and the job runs one MPI_ALLREDUCE of one
! integer. Rank 0 prints "CHECK fortran <received> <sum>".
program profile_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, total
  integer :: mine(5), got(5)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  mine = rank
  call MPI_SENDRECV(mine, 5, MPI_INTEGER, mod(rank + 1, nprocs), 0, got, 5, MPI_INTEGER, &
                    mod(rank + nprocs - 1, nprocs), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_ALLREDUCE(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,1x,i0)', 'CHECK fortran ', got(1), total
  call MPI_FINALIZE(ierr)
end program profile_fortran
