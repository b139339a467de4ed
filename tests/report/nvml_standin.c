/* A stand-in for libnvidia-ml.so.1, built by the tests so that the
   runtime's real dlopen path runs on machines without a GPU: two GPUs
   with fixed values (the tests check them in profile/gpu.csv and in the
   report). It defines only the symbols the runtime may use.

     GPU 0  "Stand-in GPU 0"  37% busy, 10240 of 40960 MiB, 123.4 W, 55 C, 1410 MHz
     GPU 1  "Stand-in GPU 1"  81% busy, 30720 of 81920 MiB, 250 W,   67 C, 1755 MHz

   Built three ways: the full library; -DSTANDIN_MINIMAL, without the
   optional symbols (name, power, temperature, clock, error string, UUID);
   -DSTANDIN_BROKEN, without nvmlDeviceGetMemoryInfo (a required one).
   STANDIN_NVML_FAIL=init makes nvmlInit_v2 fail as a machine whose driver
   is not loaded does; STANDIN_NVML_WAVE=1 makes utilization and memory
   follow a slow wave instead (for pictures, never for checks). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
typedef struct standin_device *nvmlDevice_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

enum { OK = 0, ERROR_UNINITIALIZED = 1, ERROR_INVALID_ARGUMENT = 2, ERROR_NOT_FOUND = 6,
       ERROR_DRIVER_NOT_LOADED = 9 };

struct standin_device {
    const char *name, *uuid;
    unsigned util, mem_used_mib, mem_total_mib, power_mw, temp_c, sm_mhz;
};

static struct standin_device devices[2] = {
    {"Stand-in GPU 0", "GPU-5a5a0000-0000-4000-8000-000000000000", 37, 10240, 40960, 123400, 55, 1410},
    {"Stand-in GPU 1", "GPU-5a5a0000-0000-4000-8000-000000000001", 81, 30720, 81920, 250000, 67, 1755},
};
static int initialized;

static int wave(void)
{
    const char *w = getenv("STANDIN_NVML_WAVE");
    return w && strcmp(w, "1") == 0;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

nvmlReturn_t nvmlInit_v2(void)
{
    const char *fail = getenv("STANDIN_NVML_FAIL");
    if (fail && strcmp(fail, "init") == 0)
        return ERROR_DRIVER_NOT_LOADED;
    initialized++;
    return OK;
}

nvmlReturn_t nvmlShutdown(void)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    initialized--;
    return OK;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    if (!count)
        return ERROR_INVALID_ARGUMENT;
    *count = 2;
    return OK;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    if (index >= 2 || !device)
        return ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return OK;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    if (!device || !u)
        return ERROR_INVALID_ARGUMENT;
    u->gpu = device->util;
    if (wave()) {
        double t = seconds(), k = device == &devices[0] ? 1.0 : 1.7;
        double v = 55 + 35 * sin(t * 0.9 * k) + 8 * sin(t * 5.3);
        u->gpu = (unsigned)(v < 0 ? 0 : v > 100 ? 100 : v);
    }
    u->memory = u->gpu / 2;
    return OK;
}

#ifndef STANDIN_BROKEN
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *m)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    if (!device || !m)
        return ERROR_INVALID_ARGUMENT;
    unsigned long long mib = 1024ull * 1024ull, used = device->mem_used_mib;
    if (wave())
        used = (unsigned long long)(used * (0.6 + 0.4 * fabs(sin(seconds() * 0.3))));
    m->total = device->mem_total_mib * mib;
    m->used = used * mib;
    m->free = m->total - m->used;
    return OK;
}
#endif

#ifndef STANDIN_MINIMAL
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    if (!device || !name || length == 0)
        return ERROR_INVALID_ARGUMENT;
    snprintf(name, length, "%s", device->name);
    return OK;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *mw)
{
    if (!device || !mw)
        return ERROR_INVALID_ARGUMENT;
    *mw = device->power_mw;
    return OK;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int *c)
{
    if (!device || !c || sensor != 0)
        return ERROR_INVALID_ARGUMENT;
    *c = device->temp_c;
    return OK;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *mhz)
{
    if (!device || !mhz || type != 1) /* NVML_CLOCK_SM */
        return ERROR_INVALID_ARGUMENT;
    *mhz = device->sm_mhz;
    return OK;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case OK: return "Success";
    case ERROR_UNINITIALIZED: return "Uninitialized";
    case ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case ERROR_NOT_FOUND: return "Not Found";
    case ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    }
    return "Unknown Error";
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    if (!initialized)
        return ERROR_UNINITIALIZED;
    if (!uuid || !device)
        return ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < 2; i++)
        if (strcmp(uuid, devices[i].uuid) == 0) {
            *device = &devices[i];
            return OK;
        }
    return ERROR_NOT_FOUND;
}
#endif
