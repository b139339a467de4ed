/* The CPU collectives backend (private): the ranks of one machine meet in a
   shared memory segment; machines talk over TCP between their local rank 0s
   (star through machine 0). Used with `cpu = true`, and whenever a step has
   several ranks and no NCCL. */
#ifndef PIPE_COLL_CPU_H
#define PIPE_COLL_CPU_H

#include <stddef.h>

#include "collectives.h"

extern const pipe_coll_backend pipe_coll_cpu_backend;

/* Creates the segment the local ranks share (a memfd with a process-shared
   barrier for local_world ranks); the launcher passes the fd to its ranks as
   PIPE_SHM_FD. */
int pipe_coll_shm_create(int local_world, int *fd, char *err, size_t errsize);

#endif
