/* What this machine offers a local run (docs/runtime.md, "Local resources")
   and the accounting the runner's scheduler does with it. Private to the
   runtime. */
#ifndef PIPE_RESOURCES_H
#define PIPE_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/manifest.h"

typedef struct pipe_local_resources {
    double cpus;      /* PIPE_LOCAL_CPUS or the online processors */
    uint64_t memory;  /* bytes: PIPE_LOCAL_MEMORY or physical memory (capped by cgroup v2 memory.max) */
    char **gpus;      /* the CUDA_VISIBLE_DEVICES entry of each usable GPU ("0", "GPU-<uuid>") */
    size_t ngpus;
} pipe_local_resources;

/* Reads the machine and the PIPE_LOCAL_* overrides. PIPE_EUSAGE naming the
   variable when an override is malformed. */
int pipe_local_resources_detect(pipe_local_resources *out, char *err, size_t errsize);
void pipe_local_resources_free(pipe_local_resources *r);

/* Resources of req this machine lacks, as text for a message: "16 CPUs (this
   machine has 2); 2 GPUs (it has 0)". False (and msg "") when it fits. */
bool pipe_resources_unmet(const pipe_local_resources *local, const pipe_resources *req, char *msg, size_t msgsize);

/* What the scheduler books for one running invocation: its request clamped
   to the machine (a CPU count of 0 counts as 1). */
typedef struct pipe_grant {
    double cpu;
    uint64_t memory;
    size_t ngpus;
    size_t *gpus;   /* indices into pipe_local_resources.gpus */
    bool exclusive; /* the request exceeded the machine: it runs alone */
} pipe_grant;

typedef struct pipe_pool {
    const pipe_local_resources *local;
    double cpus_used;
    uint64_t memory_used;
    bool *gpu_used;
    size_t running;
    bool exclusive; /* an oversized invocation is running alone */
} pipe_pool;

int pipe_pool_init(pipe_pool *pool, const pipe_local_resources *local);
void pipe_pool_free(pipe_pool *pool);
/* Books req when it fits next to what runs now (an oversized request only
   when nothing runs), filling g; false when it must wait. PIPE_ENOMEM aside,
   an empty pool always accepts. */
int pipe_pool_acquire(pipe_pool *pool, const pipe_resources *req, pipe_grant *g, bool *granted);
void pipe_pool_release(pipe_pool *pool, pipe_grant *g);
/* "0,2" (the GPU entries of a grant) into buf. */
void pipe_grant_gpu_list(const pipe_pool *pool, const pipe_grant *g, char *buf, size_t size);

#endif
