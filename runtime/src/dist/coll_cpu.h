/* The CPU collectives backend (private): the ranks of one machine meet in a
   shared memory segment; machines talk over TCP between their local rank 0s
   (star through machine 0). Used with `cpu = true`, and whenever a step has
   several ranks and no NCCL. */
#ifndef PIPE_COLL_CPU_H
#define PIPE_COLL_CPU_H

#include "coll_shm.h" /* the segment it works in */
#include "collectives.h"

extern const pipe_coll_backend pipe_coll_cpu_backend;

#endif
