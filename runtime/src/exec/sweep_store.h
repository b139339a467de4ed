/* What killed runs left in a store, swept when a run starts (private;
   docs/reliability.md): every invocation whose holder died (step/sweep.h),
   every run whose runner died, and every run folder a runner locked and
   never wrote run.yaml into. */
#ifndef PIPE_SWEEP_STORE_H
#define PIPE_SWEEP_STORE_H

#include <stddef.h>

/* Every invocation of every run in the store whose holder died, and every
   run whose runner died while run.yaml said `running`: marked `interrupted`
   (with the time it was found so) and its run.yaml temporary files
   removed. Returns how many invocations and runs were swept. */
size_t pipe_sweep_store(const char *store);

#endif
