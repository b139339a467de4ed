/* Reading an invocation's profile/ folder (profiler.h writes it) for
   `show` and the report: each GPU's samples (or each NeuronCore's) and the processes' samples,
   with their means and peaks over every sample. Private to the runtime. */
#ifndef PIPE_PROFILE_READ_H
#define PIPE_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>

/* Samples as parallel arrays: t (seconds since the step started) and v. */
typedef struct pipe_series {
    double *t, *v;
    size_t n, cap;
} pipe_series;

typedef struct pipe_gpu_profile {
    int index; /* NVML's; -1 when unknown */
    char *name;
    pipe_series utilization; /* percent */
    pipe_series memory_used; /* MiB */
    double memory_total_mib; /* the largest seen; 0 when unknown */
    double power_peak_w, temperature_peak_c; /* NaN when never given */
} pipe_gpu_profile;

typedef struct pipe_profile {
    bool present;          /* the folder exists */
    char *gpu_unavailable; /* why there are no GPU samples, or NULL */
    pipe_gpu_profile *gpus;
    size_t ngpus;
    /* A step with Neuron devices (neuron.csv): one entry per NeuronCore,
       index the core, name "device D, TYPE"; memory_total_mib 0, no power
       or temperature. */
    char *neuron_unavailable; /* why there are no Neuron samples, or NULL */
    pipe_gpu_profile *neuron_cores;
    size_t nneuron_cores;
    pipe_series cpu; /* percent of one core, all the step's processes */
    pipe_series rss; /* MiB */
    size_t skipped;  /* rows that did not parse */
} pipe_profile;

/* Reads DIR/profile (absent: present = false, 0). At most 1024 GPUs and
   1024 NeuronCores: rows of further ones are skipped. PIPE_ENOMEM. */
int pipe_profile_read(const char *invocation_dir, pipe_profile *out);
void pipe_profile_free(pipe_profile *p);

/* Over every finite sample: mean and peak (both NaN when there is none). */
void pipe_series_stats(const pipe_series *s, double *mean, double *peak);
int pipe_series_push(pipe_series *s, double t, double v);
void pipe_series_free(pipe_series *s);

#endif
