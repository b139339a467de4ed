/* How many threads a step's ranks may start (private): OMP_NUM_THREADS,
   set the same way whether the runner starts the supervisor (from the
   CPUs it granted) or `step` runs alone (from @resources). */
#ifndef PIPE_THREADS_H
#define PIPE_THREADS_H

#include <stdint.h>

#include "pipe/manifest.h"

/* OMP_NUM_THREADS for each of a step's local ranks when it is not set:
   floor(cpus / local_ranks), at least 1; with no CPU count (cpus 0), 1 for
   several local ranks (as torchrun sets it: ranks that each take every
   core oversubscribe the machine and tear down slowly) and 0, leave it
   alone, for one. */
long pipe_omp_threads(double cpus, int64_t local_ranks);
/* pipe_omp_threads for step, or 0 (leave it alone) where the user set
   OMP_NUM_THREADS: in this process's environment or the step's
   `environment` map. */
long pipe_omp_threads_default(const pipe_mstep *step, double cpus, int64_t local_ranks);

#endif
