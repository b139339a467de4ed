/* What a rank of an accelerated step knows about its world (private): read
   from the environment the launcher sets (docs/distributed.md), and the
   join through the rendezvous that every backend starts with. */
#ifndef PIPE_DIST_H
#define PIPE_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "rendezvous.h"

typedef struct pipe_dist_env {
    int rank, world_size;
    int local_rank, local_world_size;
    int machine_rank, num_machines;
    char master_addr[256];
    int master_port;
    char token[PIPE_RDZV_TOKEN_MAX + 1];
    uint64_t rdzv_timeout_ms;
    int shm_fd; /* the machine's shared segment (coll_cpu.h), -1 when none */
} pipe_dist_env;

/* From RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, PIPE_MACHINE_RANK,
   PIPE_NUM_MACHINES, MASTER_ADDR, MASTER_PORT, PIPE_RDZV_TOKEN,
   PIPE_RDZV_TIMEOUT_MS and PIPE_SHM_FD. PIPE_EINVAL names a bad variable. */
int pipe_dist_env_read(pipe_dist_env *env, char *err, size_t errsize);

/* Connects to the rendezvous, announces this rank and waits until every
   rank of the world has joined (rdzv_timeout). The client stays open for
   the backend (NCCL shares its unique id through it). */
int pipe_dist_join(const pipe_dist_env *env, pipe_rdzv_client **out, char *err, size_t errsize);

#endif
