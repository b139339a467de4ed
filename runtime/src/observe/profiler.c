/* The @gpu_profile sampler (profiler.h). */
#include "profiler.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_list.h"
#include "neuron_monitor.h"
#include "nvml.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "proc_sample.h"
#include "util/util.h"

struct pipe_profiler {
    pipe_profiler_config cfg;
    char *dir;
    FILE *gpu_csv, *process_csv, *neuron_csv;
    pipe_neuron_monitor *neuron; /* a step with Neuron devices: neuron-monitor, instead of NVML */
    pipe_nvml *nvml;
    pipe_nvml_gpu *gpus;
    size_t ngpus;
    bool *gpu_failed; /* a GPU whose sample failed once is noted once */
    double interval_s, next;
    pipe_proc_sampler proc;
};

static void note(pipe_profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(pipe_profiler *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->cfg.note)
        p->cfg.note(p->cfg.note_arg, msg);
}

static FILE *open_csv(const char *dir, const char *name, const char *header, char *err, size_t errsize)
{
    char *path = pipe_asprintf("%s/%s", dir, name);
    FILE *f = path ? fopen(path, "we") : NULL;
    if (!f || fprintf(f, "%s\n", header) < 0 || fflush(f) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", path ? path : name, strerror(errno));
        if (f)
            fclose(f);
        f = NULL;
    }
    free(path);
    return f;
}

/* No GPU samples, and why: said once in the log and kept for the report. */
static void no_gpus(pipe_profiler *p, const char *why)
{
    note(p, "gpu_profile: no GPU samples: %s; sampling the step's processes only", why);
    char *path = pipe_asprintf("%s/" PIPE_PROFILE_GPU_NONE, p->dir);
    char *text = pipe_asprintf("%s\n", why);
    char err[256];
    if (path && text)
        pipe_write_file_atomic(path, text, strlen(text), err, sizeof err);
    free(path);
    free(text);
}

/* A step with Neuron devices: neuron-monitor's stream into neuron.csv;
   without it, one note and the reason kept for the report, as without NVML. */
static void open_neuron(pipe_profiler *p)
{
    char why[512], err[512];
    if (!(p->neuron_csv = open_csv(p->dir, "neuron.csv", PIPE_PROFILE_NEURON_HEADER, err, sizeof err))) {
        note(p, "gpu_profile: %s", err);
        return;
    }
    if (pipe_neuron_monitor_start(&p->neuron, p->dir, (uint64_t)(p->interval_s * 1000 + 0.5), why, sizeof why) != 0) {
        note(p, "gpu_profile: no Neuron samples: %s; sampling the step's processes only", why);
        char *path = pipe_asprintf("%s/" PIPE_PROFILE_NEURON_NONE, p->dir);
        char *text = pipe_asprintf("%s\n", why);
        if (path && text)
            pipe_write_file_atomic(path, text, strlen(text), err, sizeof err);
        free(path);
        free(text);
        return;
    }
    note(p, "gpu_profile: sampling every %.0f ms: the step's %d Neuron device%s (neuron-monitor) and its processes",
         p->interval_s * 1000, p->cfg.neuron_devices, p->cfg.neuron_devices == 1 ? "" : "s");
}

/* NVML and the GPUs the step was given. */
static void open_gpus(pipe_profiler *p)
{
    char why[512];
    const char *cvd = p->cfg.gpus;
    if (cvd && (!*cvd || strcmp(cvd, "-1") == 0)) {
        no_gpus(p, "the step was given no GPU (CUDA_VISIBLE_DEVICES is empty)");
        return;
    }
    if (pipe_nvml_open(&p->nvml, why, sizeof why) != 0) {
        no_gpus(p, why);
        return;
    }
    unsigned count = 0;
    char **specs = NULL;
    size_t nspecs = 0;
    if (pipe_nvml_count(p->nvml, &count, why, sizeof why) != 0) {
        no_gpus(p, why);
        return;
    }
    if (pipe_gpu_list(count, cvd, &specs, &nspecs) != 0) {
        no_gpus(p, "out of memory");
        return;
    }
    if (nspecs > 0) {
        p->gpus = calloc(nspecs, sizeof *p->gpus);
        p->gpu_failed = calloc(nspecs, sizeof *p->gpu_failed);
    }
    char first_why[512] = "";
    for (size_t i = 0; i < nspecs && p->gpus && p->gpu_failed; i++) {
        if (pipe_nvml_device(p->nvml, specs[i], &p->gpus[p->ngpus], why, sizeof why) == 0)
            p->ngpus++;
        else {
            note(p, "gpu_profile: %s", why);
            if (!first_why[0])
                snprintf(first_why, sizeof first_why, "%s", why);
        }
    }
    pipe_gpu_list_free(specs, nspecs);
    if (p->ngpus == 0) {
        if (first_why[0])
            no_gpus(p, first_why);
        else if (cvd)
            no_gpus(p, "NVML knows none of the GPUs in CUDA_VISIBLE_DEVICES");
        else
            no_gpus(p, count == 0 ? "NVML counts no GPU on this machine" : "out of memory");
        return;
    }
    char list[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->ngpus && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d (%s)", i ? ", " : "", p->gpus[i].index,
                                 p->gpus[i].name);
    note(p, "gpu_profile: sampling every %.0f ms: GPU %s and the step's processes (NVML: %s)", p->interval_s * 1000,
         list, pipe_nvml_library(p->nvml));
}

int pipe_profiler_start(pipe_profiler **out, const pipe_profiler_config *cfg, char *err, size_t errsize)
{
    *out = NULL;
    pipe_profiler *p = calloc(1, sizeof *p);
    if (!p || !(p->dir = pipe_strdup(cfg->dir))) {
        free(p);
        return PIPE_ENOMEM;
    }
    p->cfg = *cfg;
    p->cfg.dir = p->dir;
    p->cfg.gpus = NULL; /* read below, not kept */
    p->interval_s = (double)(cfg->interval_ms ? cfg->interval_ms : 1000) / 1000.0;
    if (cfg->interval_ms < PIPE_PROFILE_MIN_INTERVAL_MS)
        p->interval_s = PIPE_PROFILE_MIN_INTERVAL_MS / 1000.0;
    int rc = pipe_mkdirs(p->dir, err, errsize);
    if (rc == 0 && (!(p->gpu_csv = open_csv(p->dir, "gpu.csv", PIPE_PROFILE_GPU_HEADER, err, errsize)) ||
                    !(p->process_csv = open_csv(p->dir, "process.csv", PIPE_PROFILE_PROCESS_HEADER, err, errsize))))
        rc = PIPE_EIO;
    if (rc != 0) {
        pipe_profiler_stop(p);
        return rc;
    }
    p->cfg.gpus = cfg->gpus;
    if (cfg->interval_ms < PIPE_PROFILE_MIN_INTERVAL_MS)
        note(p, "gpu_profile: an interval of %llu ms is below %d ms; sampling every %d ms",
             (unsigned long long)cfg->interval_ms, PIPE_PROFILE_MIN_INTERVAL_MS, PIPE_PROFILE_MIN_INTERVAL_MS);
    if (cfg->neuron_devices > 0)
        open_neuron(p);
    else
        open_gpus(p);
    p->cfg.gpus = NULL;
    double now = pipe_now();
    pipe_proc_sampler_init(&p->proc, now);
    p->next = now; /* the first sample at once: a short step gets one too */
    *out = p;
    return 0;
}

void pipe_profiler_attempt(pipe_profiler *p, double started)
{
    if (!p)
        return;
    pipe_proc_sampler_free(&p->proc);
    pipe_proc_sampler_init(&p->proc, started);
    p->next = started;
}

double pipe_profiler_due(const pipe_profiler *p, double now) { return p->next > now ? p->next - now : 0; }

/* A number for the CSV: empty when unknown. */
static void field(FILE *f, double v, int decimals)
{
    if (isfinite(v) && v >= 0)
        fprintf(f, ",%.*f", decimals, v);
    else
        fputc(',', f);
}

/* NVML names hold no comma or quote, but a name is text from elsewhere. */
static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\r' || *s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

void pipe_profiler_tick(pipe_profiler *p, double now, const pid_t *pids, size_t npids)
{
    if (!p || now < p->next)
        return;
    /* The next sample on the interval's grid; a late wake-up skips, never bunches. */
    while (p->next <= now)
        p->next += p->interval_s;
    double t = now - p->cfg.t0;
    char err[512];
    for (size_t i = 0; i < p->ngpus; i++) {
        pipe_gpu_sample s;
        if (pipe_nvml_sample(p->nvml, &p->gpus[i], &s, err, sizeof err) != 0) {
            if (!p->gpu_failed[i])
                note(p, "gpu_profile: %s", err);
            p->gpu_failed[i] = true;
            continue;
        }
        fprintf(p->gpu_csv, "%.3f,", t);
        if (p->gpus[i].index >= 0)
            fprintf(p->gpu_csv, "%d", p->gpus[i].index);
        fputc(',', p->gpu_csv);
        csv_text(p->gpu_csv, p->gpus[i].name);
        field(p->gpu_csv, s.utilization_pct, 0);
        field(p->gpu_csv, s.memory_used_mib, 0);
        field(p->gpu_csv, s.memory_total_mib, 0);
        field(p->gpu_csv, s.power_w, 1);
        field(p->gpu_csv, s.temperature_c, 0);
        field(p->gpu_csv, s.sm_clock_mhz, 0);
        fputc('\n', p->gpu_csv);
    }
    if (p->ngpus > 0)
        fflush(p->gpu_csv);
    pipe_neuron_monitor_read(p->neuron, t, p->neuron_csv);
    double cpu, rss;
    if (npids > 0 && pipe_proc_sample(&p->proc, pids, npids, now, &cpu, &rss)) {
        fprintf(p->process_csv, "%.3f,%.1f,%.1f\n", t, cpu, rss);
        fflush(p->process_csv);
    }
}

void pipe_profiler_stop(pipe_profiler *p)
{
    if (!p)
        return;
    if (p->gpu_csv)
        fclose(p->gpu_csv);
    if (p->process_csv)
        fclose(p->process_csv);
    if (p->neuron) {
        /* What the monitor wrote since the last sample. */
        pipe_neuron_monitor_read(p->neuron, pipe_now() - p->cfg.t0, p->neuron_csv);
        size_t skipped = pipe_neuron_monitor_skipped(p->neuron);
        if (skipped)
            note(p, "gpu_profile: %zu neuron-monitor report%s could not be read and %s skipped", skipped,
                 skipped == 1 ? "" : "s", skipped == 1 ? "was" : "were");
        pipe_neuron_monitor_stop(p->neuron);
    }
    if (p->neuron_csv)
        fclose(p->neuron_csv);
    pipe_nvml_close(p->nvml);
    free(p->gpus);
    free(p->gpu_failed);
    pipe_proc_sampler_free(&p->proc);
    free(p->dir);
    free(p);
}
