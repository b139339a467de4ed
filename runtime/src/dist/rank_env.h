/* The rank environment (private): the variables the supervisor sets for
   each rank it forks (rank_env_write.c), and the readers on the rank's
   side (rank_env_read.c): the step context (its ranks) and the collectives
   backends (where the ranks meet). Declared here only, so the two sides
   cannot drift apart (docs/distributed.md); two files, so that the rank's
   side does not depend on the launcher. */
#ifndef PIPE_RANK_ENV_H
#define PIPE_RANK_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher.h"
#include "rendezvous.h"

/* In a forked rank, before it runs the step: RANK, WORLD_SIZE, LOCAL_RANK
   and LOCAL_WORLD_SIZE from l's world; for an accelerated step also what
   torchrun and `accelerate launch` set (GROUP_RANK, GROUP_WORLD_SIZE,
   ROLE_*, TORCHELASTIC_*, ACCELERATE_MIXED_PRECISION, ACCELERATE_USE_CPU,
   ...), where the ranks meet (PIPE_NUM_MACHINES, PIPE_MACHINE_RANK,
   NODE_RANK, MASTER_ADDR, MASTER_PORT; with pipe's rendezvous
   PIPE_RDZV_ADDR, PIPE_RDZV_PORT, PIPE_RDZV_TOKEN, PIPE_RDZV_TIMEOUT_MS,
   PIPE_COLL_BACKEND, PIPE_COLL_TIMEOUT_MS, PIPE_SHM_FD) and its GPUs: none
   with cpu = true, else gpu_ids, then for a native step the rank's own entry
   when CUDA_VISIBLE_DEVICES lists one per local rank. Every step with Neuron
   devices or EFA: neuron_env.h's (NEURON_RT_*, FI_*). */
void pipe_rank_env_set(const pipe_launch *l, int local_rank, bool accelerated);

typedef struct pipe_rank_ids {
    int rank, world_size;
    int local_rank, local_world_size;
} pipe_rank_ids;

/* The ranks as the step context reads them: RANK (0 when unset),
   WORLD_SIZE (1), LOCAL_WORLD_SIZE (WORLD_SIZE: one machine), LOCAL_RANK
   (RANK modulo LOCAL_WORLD_SIZE). PIPE_EINVAL for malformed or
   inconsistent values (RANK >= WORLD_SIZE, ...). */
int pipe_rank_env_read_ids(pipe_rank_ids *ids, char *err, size_t errsize);

/* What a rank of an accelerated step knows about its world. */
typedef struct pipe_dist_env {
    int rank, world_size;
    int local_rank, local_world_size;
    int machine_rank, num_machines;
    char master_addr[256];
    int rdzv_port; /* pipe's rendezvous on master_addr; 0: one machine's ranks meet in its shared memory */
    char token[PIPE_RDZV_TOKEN_MAX + 1];
    uint64_t rdzv_timeout_ms;
    uint64_t collective_timeout_ms; /* PIPE_COLL_TIMEOUT_MS, else the default */
    int shm_fd; /* the machine's shared segment (coll_cpu.h), -1 when none */
} pipe_dist_env;

/* From RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, PIPE_MACHINE_RANK,
   PIPE_NUM_MACHINES, PIPE_RDZV_ADDR (else MASTER_ADDR), PIPE_RDZV_PORT,
   PIPE_RDZV_TOKEN, PIPE_RDZV_TIMEOUT_MS, PIPE_COLL_TIMEOUT_MS and
   PIPE_SHM_FD. PIPE_EINVAL names a bad variable. */
int pipe_dist_env_read(pipe_dist_env *env, char *err, size_t errsize);

#endif
