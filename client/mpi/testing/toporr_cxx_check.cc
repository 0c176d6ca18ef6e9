// The C++ layer (client/toporr.hpp) in a real job: a reordered communicator for a 1 MiB
// allreduce (auto), owned by toporr::Comm. Prints from its rank 0
// "ORDER cxx-reorder <source> 0 <world rank of new rank 0> ..." and
// "CHECK cxx-reorder ok allreduce"; a bad argument must throw toporr::Error.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "client/toporr.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  bool threw = false;
  {
    toporr::Context toporr;
    toporr_decision d;
    toporr::Comm comm =
        toporr.Reorder(MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &d);
    try {
      toporr.Reorder(MPI_COMM_WORLD, static_cast<toporr_collective>(99), TOPORR_ALG_AUTO, 1);
    } catch (const toporr::Error& e) {
      threw = e.code() == TOPORR_ERR_ARG;
    }
    int rank = 0, total = 0;
    MPI_Comm_rank(comm, &rank);
    std::vector<int> order(world_size);
    MPI_Gather(&world_rank, 1, MPI_INT, order.data(), 1, MPI_INT, 0, comm);
    MPI_Allreduce(&world_rank, &total, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) {
      std::string line = std::string("ORDER cxx-reorder ") + d.source + " 0";
      for (int r : order) line += " " + std::to_string(r);
      std::printf("%s\nCHECK cxx-reorder %s allreduce+error\n", line.c_str(),
                  total == world_size * (world_size - 1) / 2 && threw ? "ok" : "FAILED");
      std::fflush(stdout);
    }
  }  // comm freed here, before MPI_Finalize
  MPI_Finalize();
  return 0;
}
