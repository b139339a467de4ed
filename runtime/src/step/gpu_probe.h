/* Whether this machine has a GPU a step can use (private): asked once,
   before a step that needs one starts, so that a machine without a driver
   says so in one line instead of failing inside every rank. */
#ifndef PIPE_GPU_PROBE_H
#define PIPE_GPU_PROBE_H

#include <stddef.h>

/* The GPUs NVML counts (libnvidia-ml.so.1 loaded with dlopen; the file
   PIPE_NVML_LIBRARY names instead when set). 0 when there are none, with
   the reason in why: NVML's own words (nvmlErrorString), or why the library
   could not be loaded. Never fails otherwise; NVML is shut down and unloaded
   again, so the caller can still fork processes that use CUDA. */
int pipe_gpu_probe(char *why, size_t whysize);

#endif
