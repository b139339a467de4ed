/* Local CPUs, memory and GPUs, and the scheduler's bookkeeping of them. */
#include "resources.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "observe/gpu_list.h"
#include "observe/nvml.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "pipe/human.h"
#include "util/util.h"

/* cgroup v2 memory.max of this process's cgroup (the unified hierarchy
   mounted at /sys/fs/cgroup), 0 when unlimited or unknown. */
static uint64_t cgroup_memory_limit(void)
{
    char *data = NULL, *path = NULL, *limit = NULL;
    uint64_t result = 0;
    if (pipe_read_file("/proc/self/cgroup", &data, NULL, NULL, 0) != 0)
        return 0;
    char *line = strstr(data, "0::");
    if (line == data || (line && line[-1] == '\n')) {
        line += 3;
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, ".."))
            goto done;
        path = pipe_asprintf("/sys/fs/cgroup%s/memory.max", line);
        if (path && pipe_read_file(path, &limit, NULL, NULL, 0) == 0) {
            limit[strcspn(limit, "\n")] = '\0';
            uint64_t v;
            if (pipe_parse_size(limit, strlen(limit), PIPE_SIZE_BYTES, &v) == PIPE_UNIT_OK)
                result = v;
        }
    }
done:
    free(limit);
    free(path);
    free(data);
    return result;
}

int pipe_local_resources_detect(pipe_local_resources *out, char *err, size_t errsize)
{
    const char *env;
    memset(out, 0, sizeof *out);

    if ((env = getenv("PIPE_LOCAL_CPUS")) != NULL && *env) {
        char *end;
        double v = strtod(env, &end);
        if (isspace((unsigned char)*env) || *end || !isfinite(v) || v <= 0) {
            pipe_errf(err, errsize, "PIPE_LOCAL_CPUS: `%s` is not a positive number", env);
            return PIPE_EUSAGE;
        }
        out->cpus = v;
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        out->cpus = n > 0 ? (double)n : 1.0;
    }

    if ((env = getenv("PIPE_LOCAL_MEMORY")) != NULL && *env) {
        if (pipe_parse_size(env, strlen(env), PIPE_SIZE_BYTES, &out->memory) != PIPE_UNIT_OK) {
            pipe_errf(err, errsize, "PIPE_LOCAL_MEMORY: `%s` is not a size in bytes (or with a unit: 16GB, 512MiB)",
                      env);
            return PIPE_EUSAGE;
        }
    } else {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        out->memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
        uint64_t limit = cgroup_memory_limit();
        if (limit > 0 && (out->memory == 0 || limit < out->memory))
            out->memory = limit;
    }

    size_t count;
    if ((env = getenv("PIPE_LOCAL_GPUS")) != NULL && *env) {
        if (!pipe_all_digits(env) || strlen(env) > 6) {
            pipe_errf(err, errsize, "PIPE_LOCAL_GPUS: `%s` is not a GPU count", env);
            return PIPE_EUSAGE;
        }
        count = (size_t)strtoul(env, NULL, 10);
    } else {
        /* NVML's count, as its indices are what CUDA_VISIBLE_DEVICES gets
           (with CUDA_DEVICE_ORDER=PCI_BUS_ID); no NVML, no GPUs. */
        char why[256];
        count = pipe_nvml_gpu_count(why, sizeof why);
    }
    int rc = pipe_gpu_list(count, getenv("CUDA_VISIBLE_DEVICES"), &out->gpus, &out->ngpus);
    if (rc)
        pipe_errf(err, errsize, "out of memory");
    return rc;
}

void pipe_local_resources_free(pipe_local_resources *r)
{
    if (!r)
        return;
    pipe_gpu_list_free(r->gpus, r->ngpus);
    r->gpus = NULL;
    r->ngpus = 0;
}

static void format_count(char *buf, size_t size, double v)
{
    if (v == floor(v) && v < 1e15)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%g", v);
}

bool pipe_resources_unmet(const pipe_local_resources *local, const pipe_resources *req, char *msg, size_t msgsize)
{
    char a[32], b[32];
    size_t used = 0;
    if (msgsize)
        msg[0] = '\0';
#define APPEND(...)                                                                                                \
    do {                                                                                                           \
        if (used < msgsize) {                                                                                      \
            if (used > 0)                                                                                          \
                used += (size_t)snprintf(msg + used, msgsize - used, "; ");                                        \
            if (used < msgsize)                                                                                    \
                used += (size_t)snprintf(msg + used, msgsize - used, __VA_ARGS__);                                 \
        }                                                                                                          \
    } while (0)
    bool unmet = false;
    if (req->cpu > local->cpus + 1e-9) {
        format_count(a, sizeof a, req->cpu);
        format_count(b, sizeof b, local->cpus);
        APPEND("%s CPUs (this machine has %s)", a, b);
        unmet = true;
    }
    if (req->memory > local->memory) {
        pipe_format_size_human(req->memory, a, sizeof a);
        pipe_format_size_human(local->memory, b, sizeof b);
        APPEND("%s of memory (this machine has %s)", a, b);
        unmet = true;
    }
    if (req->gpu > 0 && (uint64_t)req->gpu > local->ngpus) {
        APPEND("%lld GPU%s (this machine has %zu)", (long long)req->gpu, req->gpu == 1 ? "" : "s", local->ngpus);
        unmet = true;
    }
#undef APPEND
    return unmet;
}

int pipe_pool_init(pipe_pool *pool, const pipe_local_resources *local)
{
    memset(pool, 0, sizeof *pool);
    pool->local = local;
    if (local->ngpus > 0 && !(pool->gpu_used = calloc(local->ngpus, sizeof *pool->gpu_used)))
        return PIPE_ENOMEM;
    return 0;
}

void pipe_pool_free(pipe_pool *pool)
{
    free(pool->gpu_used);
    pool->gpu_used = NULL;
}

int pipe_pool_acquire(pipe_pool *pool, const pipe_resources *req, pipe_grant *g, bool *granted)
{
    const pipe_local_resources *local = pool->local;
    memset(g, 0, sizeof *g);
    *granted = false;
    g->exclusive = pipe_resources_unmet(local, req, NULL, 0);
    g->cpu = req->cpu > 0 ? req->cpu : 1.0;
    if (g->cpu > local->cpus)
        g->cpu = local->cpus;
    g->memory = req->memory < local->memory ? req->memory : local->memory;
    g->ngpus = req->gpu > 0 ? ((uint64_t)req->gpu < local->ngpus ? (size_t)req->gpu : local->ngpus) : 0;

    if (pool->exclusive || (g->exclusive && pool->running > 0))
        return 0;
    if (pool->cpus_used + g->cpu > local->cpus + 1e-9 || pool->memory_used + g->memory > local->memory)
        return 0;
    size_t free_gpus = 0;
    for (size_t i = 0; i < local->ngpus; i++)
        free_gpus += !pool->gpu_used[i];
    if (g->ngpus > free_gpus)
        return 0;
    if (g->ngpus > 0) {
        if (!(g->gpus = calloc(g->ngpus, sizeof *g->gpus)))
            return PIPE_ENOMEM;
        for (size_t i = 0, k = 0; i < local->ngpus && k < g->ngpus; i++) {
            if (!pool->gpu_used[i]) {
                pool->gpu_used[i] = true;
                g->gpus[k++] = i;
            }
        }
    }
    pool->cpus_used += g->cpu;
    pool->memory_used += g->memory;
    pool->running++;
    pool->exclusive = g->exclusive;
    *granted = true;
    return 0;
}

void pipe_pool_release(pipe_pool *pool, pipe_grant *g)
{
    for (size_t i = 0; i < g->ngpus; i++)
        pool->gpu_used[g->gpus[i]] = false;
    pool->cpus_used -= g->cpu;
    if (pool->cpus_used < 1e-9)
        pool->cpus_used = 0;
    pool->memory_used -= g->memory;
    if (pool->running > 0)
        pool->running--;
    if (g->exclusive)
        pool->exclusive = false;
    free(g->gpus);
    memset(g, 0, sizeof *g);
}

void pipe_grant_gpu_list(const pipe_pool *pool, const pipe_grant *g, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < g->ngpus && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "", pool->local->gpus[g->gpus[i]]);
}
