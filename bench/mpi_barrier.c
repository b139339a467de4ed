/* The mpirun half of bench/launch.sh: MPI_Init, one barrier, MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int rc = MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS;
    return MPI_Finalize() != MPI_SUCCESS || rc;
}
