! An unchanged Fortran MPI program (use mpi): a 2-D MPI_CART_CREATE with reorder=.true.
! Under LD_PRELOAD=libtoporr_pmpi.so the Fortran symbol is intercepted and the grid is
! reordered. Prints, from cart rank 0, "ORDER fortran-cart - 0 <world rank of cart rank 0>
! ...", and "CHECK fortran-cart ok|FAILED coords+map" after a coordinates round trip and
! MPI_CART_MAP of the same arguments (which must give each process its grid rank); then
! "CHECK fortran-graph-map ok|FAILED" when MPI_GRAPH_MAP gives each process the rank
! MPI_GRAPH_CREATE (reorder=.true.) gives it in a ring of all processes.
program toporr_cart
  use mpi
  implicit none
  integer :: ierr, world_rank, world_size, cart, cart_rank, back, i, mapped, graph, graph_rank
  integer, allocatable :: index(:), edges(:)
  integer :: dims(2), coords(2)
  logical :: periods(2)
  integer, allocatable :: order(:)
  integer :: ok, all_ok
  character(len=16) :: word
  character(len=65536) :: line

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, world_rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, world_size, ierr)
  dims = 0
  periods = (/ .true., .false. /)
  call MPI_DIMS_CREATE(world_size, 2, dims, ierr)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call MPI_COMM_RANK(cart, cart_rank, ierr)
  allocate(order(world_size))
  call MPI_GATHER(world_rank, 1, MPI_INTEGER, order, 1, MPI_INTEGER, 0, cart, ierr)
  call MPI_CART_COORDS(cart, cart_rank, 2, coords, ierr)
  call MPI_CART_RANK(cart, coords, back, ierr)
  call MPI_CART_MAP(MPI_COMM_WORLD, 2, dims, periods, mapped, ierr)
  ok = 0
  if (back == cart_rank .and. mapped == cart_rank) ok = 1
  call MPI_ALLREDUCE(ok, all_ok, 1, MPI_INTEGER, MPI_MIN, cart, ierr)
  if (cart_rank == 0) then
    line = 'ORDER fortran-cart - 0'
    do i = 1, world_size
      write(word, '(I0)') order(i)
      line = trim(line) // ' ' // trim(word)
    end do
    print '(A)', trim(line)
    if (all_ok == 1) then
      print '(A)', 'CHECK fortran-cart ok coords+map'
    else
      print '(A)', 'CHECK fortran-cart FAILED coords+map'
    end if
  end if
  call MPI_COMM_FREE(cart, ierr)
  allocate(index(world_size), edges(2 * world_size))
  do i = 1, world_size
    index(i) = 2 * i
    edges(2 * i - 1) = mod(i, world_size)
    edges(2 * i) = mod(i - 2 + world_size, world_size)
  end do
  call MPI_GRAPH_CREATE(MPI_COMM_WORLD, world_size, index, edges, .true., graph, ierr)
  call MPI_GRAPH_MAP(MPI_COMM_WORLD, world_size, index, edges, mapped, ierr)
  call MPI_COMM_RANK(graph, graph_rank, ierr)
  ok = 0
  if (mapped == graph_rank) ok = 1
  call MPI_ALLREDUCE(ok, all_ok, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (world_rank == 0) then
    if (all_ok == 1) then
      print '(A)', 'CHECK fortran-graph-map ok'
    else
      print '(A)', 'CHECK fortran-graph-map FAILED'
    end if
  end if
  call MPI_COMM_FREE(graph, ierr)
  call MPI_FINALIZE(ierr)
end program toporr_cart
