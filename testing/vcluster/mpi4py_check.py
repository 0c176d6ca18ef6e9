"""An unchanged mpi4py program for the virtual cluster's tests: collectives on buffers
(MPI_Allreduce, MPI_Bcast, MPI_Reduce, MPI_Allgather) and a reordered MPI_Cart_create, each
result checked against its closed form. Prints "MPI4PY <rank> <host> <mpi4py version>" and
"CHECK <name> ok|bad" lines (rank 0) and exits non-zero on a wrong result."""
import socket
import sys
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
N = 1 << 19  # 4 MiB of doubles: large enough for toporr's ring order
bad = []

send = array("d", [float((rank + 1) * (i % 7)) for i in range(N)])
recv = array("d", bytes(8 * N))
comm.Allreduce([send, MPI.DOUBLE], [recv, MPI.DOUBLE], op=MPI.SUM)
total = size * (size + 1) // 2
if any(recv[i] != total * (i % 7) for i in range(0, N, 997)) or recv[N - 1] != total * ((N - 1) % 7):
    bad.append("allreduce")

buf = array("d", [float(i) if rank == 3 else -1.0 for i in range(N)])
comm.Bcast([buf, MPI.DOUBLE], root=3)
if buf[0] != 0.0 or buf[N - 1] != float(N - 1) or buf[N // 2] != float(N // 2):
    bad.append("bcast")

small = array("i", [rank, 2 * rank])
out = array("i", bytes(4 * 2))
comm.Reduce([small, MPI.INT], [out, MPI.INT], op=MPI.MAX, root=0)
if rank == 0 and list(out) != [size - 1, 2 * (size - 1)]:
    bad.append("reduce")

mine = array("i", [rank] * 1024)
every = array("i", bytes(4 * 1024 * size))
comm.Allgather([mine, MPI.INT], [every, MPI.INT])
if any(every[1024 * r] != r or every[1024 * r + 1023] != r for r in range(size)):
    bad.append("allgather")

cart = comm.Create_cart([size // 2, 2], periods=[True, False], reorder=True)
coords = cart.Get_coords(cart.Get_rank())
if cart.Get_cart_rank(coords) != cart.Get_rank():
    bad.append("cart")
cart.Free()

names = comm.gather(socket.gethostname(), root=0)
flags = comm.gather(bad, root=0)
if rank == 0:
    import mpi4py
    print(f"MPI4PY {size} {' '.join(names)} {mpi4py.__version__}")
    for name in ("allreduce", "bcast", "reduce", "allgather", "cart"):
        print(f"CHECK {name} {'bad' if any(name in f for f in flags) else 'ok'}")
    sys.stdout.flush()
sys.exit(1 if bad else 0)
