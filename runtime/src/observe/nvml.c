/* NVML through dlopen (nvml.h). The types below are NVML's ABI, declared
   here so that no NVML header is needed to build. */
#include "nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/util.h"

typedef int nvml_return;        /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef void *nvml_device;      /* nvmlDevice_t */
typedef struct {
    unsigned int gpu, memory;   /* percent of the last sample period */
} nvml_utilization;
typedef struct {
    unsigned long long total, free, used; /* bytes */
} nvml_memory;
enum { NVML_TEMPERATURE_GPU = 0, NVML_CLOCK_SM = 1, NVML_NAME_SIZE = 96 };

struct pipe_nvml {
    void *lib;
    char *path;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned int *);
    nvml_return (*by_index)(unsigned int, nvml_device *);
    nvml_return (*utilization)(nvml_device, nvml_utilization *);
    nvml_return (*memory)(nvml_device, nvml_memory *);
    /* optional */
    nvml_return (*name)(nvml_device, char *, unsigned int);
    nvml_return (*power)(nvml_device, unsigned int *);
    nvml_return (*temperature)(nvml_device, int, unsigned int *);
    nvml_return (*clock)(nvml_device, int, unsigned int *);
    const char *(*error_string)(nvml_return);
    nvml_return (*by_uuid)(const char *, nvml_device *);
};

/* NVML's words for a return code, or the number. */
static const char *reason(const pipe_nvml *n, nvml_return r, char *buf, size_t size)
{
    const char *s = n->error_string ? n->error_string(r) : NULL;
    if (s && *s)
        return s;
    snprintf(buf, size, "NVML error %d", r);
    return buf;
}

/* dlsym into a function pointer: copied, as POSIX allows, since C has no
   conversion from void * to a function pointer. NULL when missing. */
static void load(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);
    memcpy(fn, &p, size);
}

#define LOAD(field, sym) load(n->lib, sym, &n->field, sizeof n->field)

int pipe_nvml_open(pipe_nvml **out, char *why, size_t whysize)
{
    const char *env = getenv("PIPE_NVML_LIBRARY");
    const char *path = env && *env ? env : "libnvidia-ml.so.1";
    char buf[64];
    *out = NULL;
    pipe_nvml *n = calloc(1, sizeof *n);
    if (!n || !(n->path = pipe_strdup(path))) {
        free(n);
        pipe_errf(why, whysize, "out of memory");
        return PIPE_ENOMEM;
    }
    if (!(n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *e = dlerror();
        pipe_errf(why, whysize, "cannot load %s%s: %s", path, env && *env ? " (PIPE_NVML_LIBRARY)" : "",
                  e ? e : "unknown error");
        pipe_nvml_close(n);
        return PIPE_ENOTSUP;
    }
    LOAD(init, "nvmlInit_v2");
    LOAD(shutdown, "nvmlShutdown");
    LOAD(count, "nvmlDeviceGetCount_v2");
    LOAD(by_index, "nvmlDeviceGetHandleByIndex_v2");
    LOAD(utilization, "nvmlDeviceGetUtilizationRates");
    LOAD(memory, "nvmlDeviceGetMemoryInfo");
    LOAD(name, "nvmlDeviceGetName");
    LOAD(power, "nvmlDeviceGetPowerUsage");
    LOAD(temperature, "nvmlDeviceGetTemperature");
    LOAD(clock, "nvmlDeviceGetClockInfo");
    LOAD(error_string, "nvmlErrorString");
    LOAD(by_uuid, "nvmlDeviceGetHandleByUUID");
    const char *missing = !n->init       ? "nvmlInit_v2"
                          : !n->shutdown ? "nvmlShutdown"
                          : !n->count    ? "nvmlDeviceGetCount_v2"
                          : !n->by_index ? "nvmlDeviceGetHandleByIndex_v2"
                          : !n->utilization ? "nvmlDeviceGetUtilizationRates"
                          : !n->memory   ? "nvmlDeviceGetMemoryInfo"
                                         : NULL;
    if (missing) {
        pipe_errf(why, whysize, "%s has no %s", path, missing);
        pipe_nvml_close(n);
        return PIPE_ENOTSUP;
    }
    nvml_return r = n->init();
    if (r != 0) {
        pipe_errf(why, whysize, "nvmlInit_v2 (%s) failed: %s", path, reason(n, r, buf, sizeof buf));
        n->shutdown = NULL; /* nothing to shut down */
        pipe_nvml_close(n);
        return PIPE_EIO;
    }
    *out = n;
    return 0;
}

void pipe_nvml_close(pipe_nvml *n)
{
    if (!n)
        return;
    if (n->lib && n->shutdown && n->init)
        n->shutdown();
    if (n->lib)
        dlclose(n->lib);
    free(n->path);
    free(n);
}

const char *pipe_nvml_library(const pipe_nvml *n) { return n ? n->path : ""; }

int pipe_nvml_count(pipe_nvml *n, unsigned *count, char *err, size_t errsize)
{
    char buf[64];
    unsigned int c = 0;
    nvml_return r = n->count(&c);
    if (r != 0) {
        pipe_errf(err, errsize, "nvmlDeviceGetCount_v2 failed: %s", reason(n, r, buf, sizeof buf));
        return PIPE_EIO;
    }
    *count = c;
    return 0;
}

static bool is_index(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

int pipe_nvml_device(pipe_nvml *n, const char *spec, pipe_nvml_gpu *gpu, char *err, size_t errsize)
{
    char buf[64];
    unsigned count = 0;
    nvml_device h = NULL;
    nvml_return r;
    memset(gpu, 0, sizeof *gpu);
    int rc = pipe_nvml_count(n, &count, err, errsize);
    if (rc != 0)
        return rc;
    if (is_index(spec)) {
        unsigned long idx = strtoul(spec, NULL, 10);
        if (strlen(spec) > 6 || idx >= count) {
            pipe_errf(err, errsize, "GPU %s: NVML counts %u GPU%s", spec, count, count == 1 ? "" : "s");
            return PIPE_ENOENT;
        }
        if ((r = n->by_index((unsigned)idx, &h)) != 0) {
            pipe_errf(err, errsize, "GPU %s: nvmlDeviceGetHandleByIndex_v2 failed: %s", spec,
                      reason(n, r, buf, sizeof buf));
            return PIPE_EIO;
        }
        gpu->index = (int)idx;
    } else {
        if (!n->by_uuid) {
            pipe_errf(err, errsize, "GPU %s: %s has no nvmlDeviceGetHandleByUUID", spec, n->path);
            return PIPE_ENOTSUP;
        }
        if ((r = n->by_uuid(spec, &h)) != 0) {
            pipe_errf(err, errsize, "GPU %s: nvmlDeviceGetHandleByUUID failed: %s", spec,
                      reason(n, r, buf, sizeof buf));
            return PIPE_ENOENT;
        }
        /* Its index: the one whose handle is the same (NVML's handles are
           stable per device). A MIG device matches none: -1. */
        gpu->index = -1;
        for (unsigned i = 0; i < count; i++) {
            nvml_device other = NULL;
            if (n->by_index(i, &other) == 0 && other == h) {
                gpu->index = (int)i;
                break;
            }
        }
    }
    gpu->handle = h;
    char name[NVML_NAME_SIZE] = "";
    if (!n->name || n->name(h, name, sizeof name) != 0 || !name[0])
        snprintf(name, sizeof name, "GPU %s", spec);
    name[sizeof name - 1] = '\0';
    snprintf(gpu->name, sizeof gpu->name, "%s", name);
    return 0;
}

int pipe_nvml_sample(pipe_nvml *n, const pipe_nvml_gpu *gpu, pipe_gpu_sample *s, char *err, size_t errsize)
{
    char buf[64];
    nvml_utilization u;
    nvml_memory mem;
    nvml_return r;
    s->utilization_pct = s->memory_used_mib = s->memory_total_mib = -1;
    s->power_w = s->temperature_c = s->sm_clock_mhz = NAN;
    if ((r = n->utilization(gpu->handle, &u)) != 0) {
        pipe_errf(err, errsize, "%s: nvmlDeviceGetUtilizationRates failed: %s", gpu->name,
                  reason(n, r, buf, sizeof buf));
        return PIPE_EIO;
    }
    if ((r = n->memory(gpu->handle, &mem)) != 0) {
        pipe_errf(err, errsize, "%s: nvmlDeviceGetMemoryInfo failed: %s", gpu->name,
                  reason(n, r, buf, sizeof buf));
        return PIPE_EIO;
    }
    s->utilization_pct = u.gpu;
    s->memory_used_mib = (double)mem.used / (1024.0 * 1024.0);
    s->memory_total_mib = (double)mem.total / (1024.0 * 1024.0);
    unsigned int v;
    if (n->power && n->power(gpu->handle, &v) == 0)
        s->power_w = v / 1000.0; /* milliwatts */
    if (n->temperature && n->temperature(gpu->handle, NVML_TEMPERATURE_GPU, &v) == 0)
        s->temperature_c = v;
    if (n->clock && n->clock(gpu->handle, NVML_CLOCK_SM, &v) == 0)
        s->sm_clock_mhz = v;
    return 0;
}

size_t pipe_nvml_gpu_count(char *why, size_t whysize)
{
    pipe_nvml *n = NULL;
    unsigned count = 0;
    if (pipe_nvml_open(&n, why, whysize) != 0)
        return 0;
    if (pipe_nvml_count(n, &count, why, whysize) != 0)
        count = 0;
    pipe_nvml_close(n);
    return count;
}
