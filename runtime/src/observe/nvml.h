/* NVML, loaded at run time (docs/report.md, "GPU profile"): the GPU count
   of this machine and samples of a GPU's utilization, memory, power,
   temperature and SM clock. dlopen("libnvidia-ml.so.1"), or the file that
   PIPE_NVML_LIBRARY names, so that machines without a driver still run.
   Only these symbols are used: nvmlInit_v2, nvmlShutdown,
   nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
   nvmlDeviceGetUtilizationRates, nvmlDeviceGetMemoryInfo and, when the
   library has them, nvmlDeviceGetName, nvmlDeviceGetPowerUsage,
   nvmlDeviceGetTemperature, nvmlDeviceGetClockInfo, nvmlErrorString and
   nvmlDeviceGetHandleByUUID. Private to the runtime; one process, one
   thread at a time. */
#ifndef PIPE_NVML_H
#define PIPE_NVML_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pipe_nvml pipe_nvml;

/* A GPU to sample: its NVML index (-1 for a MIG device, which has none of
   its own), name ("NVIDIA H100 80GB HBM3", or "GPU 3" when NVML has no
   name for it) and handle. */
typedef struct pipe_nvml_gpu {
    int index;
    char name[96];
    void *handle;
} pipe_nvml_gpu;

/* One sample. A value NVML could not give is negative (utilization,
   memory) or NaN (power, temperature, clock): the CSV leaves it empty. */
typedef struct pipe_gpu_sample {
    double utilization_pct;
    double memory_used_mib, memory_total_mib;
    double power_w, temperature_c, sm_clock_mhz;
} pipe_gpu_sample;

/* Loads and initializes NVML. PIPE_ENOTSUP when the library cannot be
   loaded or lacks a required symbol, PIPE_EIO when nvmlInit_v2 fails; why
   says so in a line ("cannot load libnvidia-ml.so.1: ..."). */
int pipe_nvml_open(pipe_nvml **out, char *why, size_t whysize);
/* nvmlShutdown, dlclose. NULL is fine. */
void pipe_nvml_close(pipe_nvml *n);
/* The library's file name, as loaded. */
const char *pipe_nvml_library(const pipe_nvml *n);
int pipe_nvml_count(pipe_nvml *n, unsigned *count, char *err, size_t errsize);
/* A GPU as CUDA_VISIBLE_DEVICES names it: an NVML index ("3") or a UUID
   ("GPU-..." or "MIG-...", through nvmlDeviceGetHandleByUUID; its index is
   the one whose handle is the same). PIPE_ENOENT naming it when NVML does
   not know it, PIPE_ENOTSUP for a UUID without nvmlDeviceGetHandleByUUID. */
int pipe_nvml_device(pipe_nvml *n, const char *spec, pipe_nvml_gpu *gpu, char *err, size_t errsize);
/* Utilization and memory are required (PIPE_EIO naming the GPU and NVML's
   reason); the others are left NaN when missing or failing. */
int pipe_nvml_sample(pipe_nvml *n, const pipe_nvml_gpu *gpu, pipe_gpu_sample *s, char *err, size_t errsize);

/* This machine's GPU count from NVML (open, count, close); 0 with why set
   when there is no NVML. */
size_t pipe_nvml_gpu_count(char *why, size_t whysize);

#endif
