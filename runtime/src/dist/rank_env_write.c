/* The rank environment's writer (rank_env.h): what the supervisor sets in
   each forked rank, from the launcher's world. The reader is
   rank_env_read.c, which must not depend on the launcher. */
#include "rank_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neuron_env.h"
#include "util/util.h"

static void set_int(const char *name, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    setenv(name, buf, 1);
}

/* The rank's entry of a comma-separated CUDA_VISIBLE_DEVICES, when the list
   has one per local rank. */
static void narrow_devices(int local_rank, int nlocal)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (!cvd || nlocal <= 1)
        return;
    char *copy = pipe_strdup(cvd);
    if (!copy)
        return;
    char *items[4096];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && n < 4096; t = strtok_r(NULL, ",", &save))
        items[n++] = t;
    if (n >= nlocal)
        setenv("CUDA_VISIBLE_DEVICES", items[local_rank], 1);
    free(copy);
}

/* What torchrun's agent (torch/distributed/elastic/agent/server/
   local_elastic_agent.py) and `accelerate launch` (accelerate/utils/
   launch.py) give each process, so that an unchanged PyTorch or Accelerate
   script runs; the list is in docs/command-steps.md. */
static void set_framework_env(const pipe_launch *l, int rank)
{
    set_int("GROUP_RANK", l->machine_rank);
    set_int("GROUP_WORLD_SIZE", l->num_machines);
    set_int("ROLE_RANK", rank);
    set_int("ROLE_WORLD_SIZE", l->world);
    setenv("ROLE_NAME", "default", 1);
    set_int("TORCHELASTIC_RESTART_COUNT", l->restarts);
    set_int("TORCHELASTIC_MAX_RESTARTS", l->max_restarts);
    setenv("TORCHELASTIC_RUN_ID", l->run_id, 1);
    /* Set, it would send init_process_group to an agent's store: there is none. */
    unsetenv("TORCHELASTIC_USE_AGENT_STORE");
    setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1", 0);
    setenv("ACCELERATE_MIXED_PRECISION", l->mixed_precision, 1);
    if (l->cpu_only)
        setenv("ACCELERATE_USE_CPU", "true", 1);
    setenv("ACCELERATE_DYNAMO_BACKEND", "NO", 0);
    setenv("ACCELERATE_DYNAMO_MODE", "default", 0);
    setenv("ACCELERATE_DYNAMO_USE_FULLGRAPH", "False", 0);
    setenv("ACCELERATE_DYNAMO_USE_DYNAMIC", "False", 0);
}

void pipe_rank_env_set(const pipe_launch *l, int local_rank, bool accelerated)
{
    int rank = l->machine_rank * l->nlocal + local_rank;
    set_int("RANK", rank);
    set_int("WORLD_SIZE", l->world);
    set_int("LOCAL_RANK", local_rank);
    set_int("LOCAL_WORLD_SIZE", l->nlocal);
    /* Neuron devices are not CUDA's: their cores per rank, beside it. */
    pipe_neuron_env_set(l->neuron_devices, l->efa, local_rank, l->nlocal);
    if (!accelerated)
        return;
    set_framework_env(l, rank);
    set_int("PIPE_NUM_MACHINES", l->num_machines);
    set_int("PIPE_MACHINE_RANK", l->machine_rank);
    set_int("NODE_RANK", l->machine_rank);
    setenv("MASTER_ADDR", l->master_addr, 1);
    set_int("MASTER_PORT", l->master_port);
    if (l->pipe_rendezvous) {
        setenv("PIPE_RDZV_ADDR", pipe_launch_rdzv_addr(l), 1);
        set_int("PIPE_RDZV_PORT", l->rdzv_port);
        setenv("PIPE_RDZV_TOKEN", l->token, 1);
        /* Machine 0's launcher watches the rendezvous and names the missing
           ranks; its own ranks wait a little longer so that it speaks first. */
        set_int("PIPE_RDZV_TIMEOUT_MS", (long long)(l->rdzv_timeout_ms + (l->machine_rank == 0 ? 5000 : 0)));
        setenv("PIPE_COLL_BACKEND", l->backend, 1);
        set_int("PIPE_COLL_TIMEOUT_MS", (long long)l->collective_timeout_ms);
        if (l->shm_fd >= 0)
            set_int("PIPE_SHM_FD", l->shm_fd);
    }
    if (l->cpu_only) {
        /* cpu = true wins over any GPU count: no rank sees a GPU. */
        setenv("CUDA_VISIBLE_DEVICES", "", 1);
        return;
    }
    /* gpu_ids narrows the machine's GPUs before each rank takes its own. */
    if (l->gpu_ids[0])
        setenv("CUDA_VISIBLE_DEVICES", l->gpu_ids, 1);
    if (l->gpu_per_rank)
        narrow_devices(local_rank, l->nlocal);
}
