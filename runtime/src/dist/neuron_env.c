/* The Neuron launch environment (neuron_env.h). */
#include "neuron_env.h"

#include <stdio.h>
#include <stdlib.h>

static int is_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

int pipe_neuron_cores_per_device(int devices, int nlocal)
{
    const char *v = getenv("PIPE_NEURON_CORES_PER_DEVICE");
    if (v && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*end && n >= 1 && n <= 64)
            return (int)n;
    }
    if (devices > 0 && nlocal > devices && nlocal % devices == 0 && nlocal / devices <= 64)
        return nlocal / devices;
    return 2;
}

void pipe_neuron_rank_cores(int devices, int local_rank, int nlocal, char *out, size_t size, int *count)
{
    int cores = devices * pipe_neuron_cores_per_device(devices, nlocal);
    if (nlocal < 1)
        nlocal = 1;
    int per = cores / nlocal;
    *count = per > 0 ? per : 1;
    if (size)
        out[0] = '\0';
    if (per < 1 || cores % nlocal != 0 || local_rank < 0 || local_rank >= nlocal)
        return;
    int first = local_rank * per;
    if (per == 1)
        snprintf(out, size, "%d", first);
    else
        snprintf(out, size, "%d-%d", first, first + per - 1);
}

void pipe_neuron_env_set(int devices, int efa, int local_rank, int nlocal)
{
    if (efa > 0) {
        /* The EFA settings of the AWS Neuron multi-node training recipes. */
        setenv("FI_PROVIDER", "efa", 0);
        setenv("FI_EFA_USE_DEVICE_RDMA", "1", 0);
        setenv("FI_EFA_FORK_SAFE", "1", 0);
    }
    /* The user's own choice of cores (the environment, @environment) wins. */
    if (devices <= 0 || is_set("NEURON_RT_VISIBLE_CORES") || is_set("NEURON_RT_NUM_CORES"))
        return;
    char range[32];
    int count;
    pipe_neuron_rank_cores(devices, local_rank, nlocal, range, sizeof range, &count);
    if (nlocal > 1 && range[0]) {
        setenv("NEURON_RT_VISIBLE_CORES", range, 1);
        return;
    }
    char buf[16];
    snprintf(buf, sizeof buf, "%d", count);
    setenv("NEURON_RT_NUM_CORES", buf, 1);
}
