/* @gpu_profile: samples, every interval, each GPU given to a step and the
   step's processes, into PROFILE_DIR/gpu.csv and PROFILE_DIR/process.csv
   (a step with Neuron devices: neuron-monitor's reports into
   PROFILE_DIR/neuron.csv, neuron_monitor.h, instead of GPUs)
   (docs/report.md, "GPU profile"). The supervisor runs it next to the
   step's ranks, in its own loop: no thread, nothing in the ranks. Private
   to the runtime. */
#ifndef PIPE_PROFILER_H
#define PIPE_PROFILER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PIPE_PROFILE_GPU_HEADER \
    "time_s,gpu,name,utilization_pct,memory_used_mib,memory_total_mib,power_w,temperature_c,sm_clock_mhz"
#define PIPE_PROFILE_PROCESS_HEADER "time_s,cpu_pct,rss_mib"
/* The shortest interval sampled: shorter ones would cost the machine more
   than 1% of a core (bench/profile.sh). */
#define PIPE_PROFILE_MIN_INTERVAL_MS 10
/* Written instead of GPU samples, one line: why there are none. */
#define PIPE_PROFILE_GPU_NONE "gpu-unavailable"

typedef struct pipe_profiler pipe_profiler;

/* Where the profiler's one-time notes go (the invocation's log). */
typedef void pipe_profiler_note_fn(void *arg, const char *msg);

typedef struct pipe_profiler_config {
    const char *dir;       /* the profile folder, created */
    uint64_t interval_ms;  /* > 0 */
    double t0;             /* pipe_now() at the invocation's start: time_s counts from it */
    const char *gpus;      /* CUDA_VISIBLE_DEVICES as the step sees it; NULL: every GPU NVML counts */
    pipe_profiler_note_fn *note;
    void *note_arg;
    int neuron_devices;    /* > 0: AWS Neuron devices, sampled by neuron-monitor into neuron.csv instead of NVML */
} pipe_profiler_config;

/* Creates the folder and both files with their header rows, and loads NVML
   for the GPUs. Without NVML (or without GPUs) process samples are still
   taken: the note says once why GPU samples are not, and the reason is
   kept in PROFILE_DIR/gpu-unavailable for the report (for Neuron devices
   without neuron-monitor: PROFILE_DIR/neuron-unavailable). PIPE_EIO naming a
   file that cannot be written. */
int pipe_profiler_start(pipe_profiler **out, const pipe_profiler_config *cfg, char *err, size_t errsize);
/* Where the processes of the next attempt start counting (pipe_now()). */
void pipe_profiler_attempt(pipe_profiler *p, double started);
/* Seconds until the next sample is due, 0 when it is. */
double pipe_profiler_due(const pipe_profiler *p, double now);
/* Samples when due: every GPU, and the processes pids (the ranks still
   running) with their descendants, all together. */
void pipe_profiler_tick(pipe_profiler *p, double now, const pid_t *pids, size_t npids);
/* Closes the files and NVML. NULL is fine. */
void pipe_profiler_stop(pipe_profiler *p);

#endif
