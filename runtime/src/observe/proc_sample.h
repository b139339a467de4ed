/* CPU and resident memory of a step's processes, from /proc (Linux): the
   processes given (the ranks) and every descendant they started, summed.
   Private to the runtime; used by the profiler (profiler.h). */
#ifndef PIPE_PROC_SAMPLE_H
#define PIPE_PROC_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The CPU time each process had at the last sample, to take differences. */
typedef struct pipe_proc_seen {
    pid_t pid;
    unsigned long long start; /* its start time: a reused pid is another process */
    unsigned long long ticks; /* utime + stime */
} pipe_proc_seen;

typedef struct pipe_proc_sampler {
    pipe_proc_seen *seen;
    size_t nseen, cap;
    double last;       /* pipe_now() of the last sample; the start before the first */
    long clock_ticks;  /* sysconf(_SC_CLK_TCK) */
    long page_size;
    pid_t *tree;       /* scratch: the processes of one sample */
    size_t ntree, tree_cap;
} pipe_proc_sampler;

/* started: pipe_now() when the processes were started, the first sample's
   interval begins there (everything they used is since then). */
void pipe_proc_sampler_init(pipe_proc_sampler *s, double started);
void pipe_proc_sampler_free(pipe_proc_sampler *s);
/* One sample at now: *cpu_pct is percent of one core over the time since
   the last sample (400 for four busy cores); *rss_mib the resident memory
   summed over the processes. A process counts from its first sample on
   with all its CPU time, so one started between two samples is counted
   whole; one that exits between two samples loses its last interval.
   false when /proc could not be read for any of them (no process left). */
bool pipe_proc_sample(pipe_proc_sampler *s, const pid_t *roots, size_t nroots, double now, double *cpu_pct,
                      double *rss_mib);

#endif
