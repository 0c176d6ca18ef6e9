! A Fortran program calling the C API through the toporr_f module: reorders MPI_COMM_WORLD
! for a 1 MiB allreduce (algorithm auto) and prints, from the new rank 0,
! "ORDER fortran-reorder - 0 <world rank of new rank 0> ..." and "CHECK fortran-reorder ok"
! when an allreduce on the new communicator sums the world ranks right.
program toporr_reorder
  use mpi
  use toporr_f
  implicit none
  integer :: ierr, world_rank, world_size, newcomm, new_rank, i, rc, total
  integer, allocatable :: order(:)
  character(len=16) :: word
  character(len=65536) :: line

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, world_rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, world_size, ierr)
  rc = toporr_comm_reorder_f(MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, &
                             1048576_c_int64_t, 0, newcomm)
  if (rc /= TOPORR_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
  call MPI_COMM_RANK(newcomm, new_rank, ierr)
  allocate(order(world_size))
  call MPI_GATHER(world_rank, 1, MPI_INTEGER, order, 1, MPI_INTEGER, 0, newcomm, ierr)
  call MPI_ALLREDUCE(world_rank, total, 1, MPI_INTEGER, MPI_SUM, newcomm, ierr)
  if (new_rank == 0) then
    line = 'ORDER fortran-reorder - 0'
    do i = 1, world_size
      write(word, '(I0)') order(i)
      line = trim(line) // ' ' // trim(word)
    end do
    print '(A)', trim(line)
    if (total == world_size * (world_size - 1) / 2) then
      print '(A)', 'CHECK fortran-reorder ok allreduce'
    else
      print '(A)', 'CHECK fortran-reorder FAILED allreduce'
    end if
  end if
  call MPI_COMM_FREE(newcomm, ierr)
  call MPI_FINALIZE(ierr)
end program toporr_reorder
