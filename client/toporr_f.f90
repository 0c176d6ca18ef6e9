! Fortran interface to libtoporr (client/toporr.h) through ISO_C_BINDING.
!
!   use mpi
!   use toporr_f
!   integer :: newcomm, rc
!   rc = toporr_comm_reorder_f(MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, &
!                              1048576_c_int64_t, 0, newcomm)
!   ... MPI_ALLREDUCE(..., newcomm, ierr); call MPI_COMM_FREE(newcomm, ierr)
!
! Communicators are Fortran handles (INTEGER). The constants are those of toporr.h.
! Compile this file with the program (same compiler), and link -ltoporr.
module toporr_f
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  implicit none
  integer(c_int), parameter :: TOPORR_SUCCESS = 0, TOPORR_ERR_ARG = 1, TOPORR_ERR_MPI = 2, &
                               TOPORR_ERR_NOMEM = 3, TOPORR_ERR_INTERNAL = 4
  integer(c_int), parameter :: TOPORR_ALLREDUCE = 0, TOPORR_BCAST = 1, TOPORR_ALLGATHER = 2, &
                               TOPORR_GATHER = 3, TOPORR_REDUCE = 4
  integer(c_int), parameter :: TOPORR_ALG_AUTO = 0, TOPORR_ALG_RING = 1, &
                               TOPORR_ALG_SEGMENTED_RING = 2, TOPORR_ALG_RECURSIVE_DOUBLING = 3, &
                               TOPORR_ALG_RABENSEIFNER = 4, TOPORR_ALG_BRUCK = 5, &
                               TOPORR_ALG_BINOMIAL = 6, TOPORR_ALG_BINARY_TREE = 7, &
                               TOPORR_ALG_SPLIT_BINARY_TREE = 8, TOPORR_ALG_KNOMIAL = 9, &
                               TOPORR_ALG_CHAIN = 10, TOPORR_ALG_PIPELINE = 11, &
                               TOPORR_ALG_SCATTER_ALLGATHER = 12, &
                               TOPORR_ALG_SCATTER_ALLGATHER_RING = 13, TOPORR_ALG_LINEAR = 14, &
                               TOPORR_ALG_SWING = 15, TOPORR_ALG_SWING_BANDWIDTH = 16, &
                               TOPORR_ALG_BINE = 17
  interface
    ! toporr_comm_reorder with the process-default configuration, on Fortran handles.
    function toporr_comm_reorder_f(comm, collective, algorithm, bytes, root, newcomm) &
        bind(C, name="toporr_comm_reorder_f") result(rc)
      import :: c_int, c_int64_t
      integer(c_int), value :: comm, collective, algorithm, root
      integer(c_int64_t), value :: bytes
      integer(c_int), intent(out) :: newcomm
      integer(c_int) :: rc
    end function toporr_comm_reorder_f
  end interface
end module toporr_f
