/* OMP_NUM_THREADS for a step's ranks (threads.h). */
#include "threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long pipe_omp_threads(double cpus, int64_t local_ranks)
{
    if (local_ranks < 1)
        local_ranks = 1;
    if (!(cpus > 0))
        return local_ranks > 1 ? 1 : 0;
    long per_rank = (long)floor(cpus / (double)local_ranks);
    return per_rank < 1 ? 1 : per_rank;
}

long pipe_omp_threads_default(const pipe_mstep *step, double cpus, int64_t local_ranks)
{
    if (getenv("OMP_NUM_THREADS"))
        return 0;
    for (size_t i = 0; step && i < step->nenvironment; i++)
        if (strcmp(step->environment[i].key, "OMP_NUM_THREADS") == 0)
            return 0;
    return pipe_omp_threads(cpus, local_ranks);
}
