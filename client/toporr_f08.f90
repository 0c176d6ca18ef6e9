! Fortran 2008 interface to libtoporr (client/toporr.h) for programs that `use mpi_f08`.
!
!   use mpi_f08
!   use toporr_f08
!   type(MPI_Comm) :: newcomm
!   integer :: rc
!   rc = toporr_comm_reorder_f08(MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, &
!                                1048576_c_int64_t, 0, newcomm)
!   ... call MPI_Allreduce(..., newcomm); call MPI_Comm_free(newcomm)
!
! Communicators are type(MPI_Comm). The module re-exports toporr_f (toporr_f.f90): the
! constants of toporr.h, c_int64_t, and toporr_comm_reorder_f on INTEGER handles. Compile
! toporr_f.f90, then this file, with the program (same compiler and MPI library's mpif90),
! and link -ltoporr.
module toporr_f08
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  use mpi_f08, only: MPI_Comm, MPI_COMM_NULL
  use toporr_f
  implicit none
  private :: MPI_Comm, MPI_COMM_NULL
contains
  ! toporr_comm_reorder with the process-default configuration: `newcomm` is a new
  ! communicator (free it with MPI_Comm_free) whose ranks are `comm`'s in the order toporr
  ! chose for `collective` of `bytes` bytes at `root`; its result is a TOPORR_* code
  ! (TOPORR_SUCCESS, ...). newcomm is MPI_COMM_NULL when none was made.
  function toporr_comm_reorder_f08(comm, collective, algorithm, bytes, root, newcomm) result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_int), intent(in) :: collective, algorithm, root
    integer(c_int64_t), intent(in) :: bytes
    type(MPI_Comm), intent(out) :: newcomm
    integer(c_int) :: rc, handle
    handle = MPI_COMM_NULL%MPI_VAL
    rc = toporr_comm_reorder_f(comm%MPI_VAL, collective, algorithm, bytes, root, handle)
    newcomm%MPI_VAL = handle
  end function toporr_comm_reorder_f08
end module toporr_f08
