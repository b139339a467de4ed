/* @gpu_profile on AWS Neuron devices (private): runs `neuron-monitor` (the
   AWS Neuron tools' metrics stream: one JSON report a line on stdout) next
   to the step and turns each report into rows of PROFILE_DIR/neuron.csv,
   one per NeuronCore (docs/report.md, "GPU profile"). The profiler
   (profiler.c) starts, reads and stops it (neuron_monitor.c); each report
   is read by neuron_report.c; profile_read.c reads the CSV. */
#ifndef PIPE_NEURON_MONITOR_H
#define PIPE_NEURON_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PIPE_PROFILE_NEURON_HEADER "time_s,device,core,utilization_pct,memory_used_mib,name"
/* Written instead of Neuron samples, one line: why there are none. */
#define PIPE_PROFILE_NEURON_NONE "neuron-unavailable"
/* The configuration given to neuron-monitor, kept beside the samples. */
#define PIPE_PROFILE_NEURON_CONF "neuron-monitor.json"
/* NeuronCores read from a report (trn2.48xlarge has 128 physical ones);
   higher indices are ignored. */
#define PIPE_NEURON_MAX_CORES 1024
/* A report line longer than this is skipped. */
#define PIPE_NEURON_MAX_LINE (16u << 20)

/* What one report says, per NeuronCore: the sum over the Neuron runtimes
   (processes) that report the core. */
typedef struct pipe_neuron_report {
    int cores_per_device; /* neuron_hardware_info.neuroncore_per_device_count; 0 when not said */
    char device_type[32]; /* neuron_hardware_info.neuron_device_type ("trainium"); "" when not said */
    int ncores;           /* 1 + the highest core index seen */
    double utilization_pct[PIPE_NEURON_MAX_CORES]; /* NaN when not reported */
    double memory_bytes[PIPE_NEURON_MAX_CORES];    /* NaN when not reported */
} pipe_neuron_report;

/* One line of neuron-monitor's stream: 0 with r filled (a report may have
   no cores), -1 when the line is not one JSON object (r then says nothing).
   Reads neuron_runtime_data[].report.neuroncore_counters.neuroncores_in_use
   .CORE.neuroncore_utilization, neuron_runtime_data[].report.memory_used
   .neuron_runtime_used_bytes.usage_breakdown.neuroncore_memory_usage.CORE
   (the sum of its kinds) and neuron_hardware_info. */
int pipe_neuron_report_parse(const char *line, size_t len, pipe_neuron_report *r);

/* r's rows of neuron.csv at time t, one per reported core: the device is
   core / cores_per_device (empty when unknown), the name the device type.
   cores_per_device and device_type, when r does not say them, are taken from
   the last report that did (known, updated). The number of rows. */
size_t pipe_neuron_report_csv(const pipe_neuron_report *r, pipe_neuron_report *known, double t, FILE *csv);

typedef struct pipe_neuron_monitor pipe_neuron_monitor;

/* The program: PIPE_NEURON_MONITOR when set, else `neuron-monitor` on
   PATH, else /opt/aws/neuron/bin/neuron-monitor. 0 with a malloc'd path in
   *out; -1 with why when there is none to run. */
int pipe_neuron_monitor_find(char **out, char *why, size_t whysize);

/* Writes DIR/neuron-monitor.json (a period of interval_ms, the core
   counters and memory of every Neuron runtime) and starts the program with
   it, its output into a pipe read by pipe_neuron_monitor_read. 0, or -1
   with why. */
int pipe_neuron_monitor_start(pipe_neuron_monitor **out, const char *dir, uint64_t interval_ms, char *why,
                              size_t whysize);
/* What arrived since the last call, without waiting: each complete report
   as rows at time t (the time it was read); malformed lines are skipped
   and counted. */
void pipe_neuron_monitor_read(pipe_neuron_monitor *m, double t, FILE *csv);
/* Reports skipped as malformed or too long so far. */
size_t pipe_neuron_monitor_skipped(const pipe_neuron_monitor *m);
/* Stops the program (SIGTERM, then SIGKILL) and frees m. NULL is fine. */
void pipe_neuron_monitor_stop(pipe_neuron_monitor *m);

#endif
