/* The GPUs of this machine that a process may use, as CUDA reads
   CUDA_VISIBLE_DEVICES: what the runner schedules (exec/resources_local.c),
   what a step's ranks are given (step/) and what the profiler samples.
   Private to the runtime. */
#ifndef PIPE_GPU_LIST_H
#define PIPE_GPU_LIST_H

#include <stddef.h>

/* The GPUs of a machine with `count` devices as CUDA_VISIBLE_DEVICES `cvd`
   (NULL: unset) restricts them: its entries up to the first invalid one (an
   index >= count, a repeated entry, anything but a number or a GPU-/MIG-
   UUID), as CUDA reads it. An empty or "-1" list means no GPU. */
int pipe_gpu_list(size_t count, const char *cvd, char ***gpus, size_t *n);
/* Frees a list from pipe_gpu_list (n entries). */
void pipe_gpu_list_free(char **list, size_t n);

#endif
