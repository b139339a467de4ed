/* profile/gpu.csv, profile/neuron.csv and profile/process.csv (profile_read.h). */
#include "profile_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "neuron_monitor.h"
#include "profiler.h"
#include "util/util.h"

int pipe_series_push(pipe_series *s, double t, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        double *nt = realloc(s->t, cap * sizeof *nt);
        if (!nt)
            return PIPE_ENOMEM;
        s->t = nt;
        double *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return PIPE_ENOMEM;
        s->v = nv;
        s->cap = cap;
    }
    s->t[s->n] = t;
    s->v[s->n++] = v;
    return 0;
}

void pipe_series_free(pipe_series *s)
{
    free(s->t);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void pipe_series_stats(const pipe_series *s, double *mean, double *peak)
{
    double sum = 0, max = NAN;
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->v[i]))
            continue;
        sum += s->v[i];
        if (n == 0 || s->v[i] > max)
            max = s->v[i];
        n++;
    }
    *mean = n ? sum / (double)n : NAN;
    *peak = max;
}

/* The fields of one CSV line (a field may be quoted, "" is a quote), cut in
   place: at most max; their count. */
static size_t split_csv(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        if (*p == '"') {
            char *w = ++p, *start = p;
            for (; *p; p++) {
                if (*p == '"' && p[1] == '"')
                    *w++ = *p++;
                else if (*p == '"')
                    break;
                else
                    *w++ = *p;
            }
            if (*p == '"')
                p++;
            *w = '\0';
            fields[n++] = start;
            if (*p != ',')
                break;
            p++;
            continue;
        }
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

/* A number, or NaN for an empty field; false for anything else. */
static bool number(const char *s, double *out)
{
    if (!*s) {
        *out = NAN;
        return true;
    }
    char *end;
    *out = strtod(s, &end);
    return *end == '\0';
}

/* Devices kept per file: more than any machine has (NVML, Neuron cores),
   so that a hostile file cannot make the report draw a million charts. */
#define MAX_DEVICES PIPE_NEURON_MAX_CORES

/* The entry of (index, name) in *list, added when new; NULL for out of
   memory, or with *full set when the list already holds MAX_DEVICES. */
static pipe_gpu_profile *entry_of(pipe_gpu_profile **list, size_t *n, int index, const char *name, bool *full)
{
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i].index == index && strcmp((*list)[i].name, name) == 0)
            return &(*list)[i];
    if ((*full = *n >= MAX_DEVICES))
        return NULL;
    pipe_gpu_profile *g = realloc(*list, (*n + 1) * sizeof *g);
    if (!g)
        return NULL;
    *list = g;
    g = &g[*n];
    memset(g, 0, sizeof *g);
    g->index = index;
    g->power_peak_w = g->temperature_peak_c = NAN;
    if (!(g->name = pipe_strdup(name)))
        return NULL;
    (*n)++;
    return g;
}


/* Each data line of a CSV file (its header skipped) to fn; PIPE_ENOENT when absent. */
static int each_row(const char *path, const char *header, int (*fn)(pipe_profile *, char *), pipe_profile *p)
{
    char *text = NULL;
    int rc = pipe_read_file(path, &text, NULL, NULL, 0);
    if (rc != 0)
        return rc;
    bool first = true;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        if (first && strcmp(line, header) == 0) {
            first = false;
            continue;
        }
        first = false;
        if ((rc = fn(p, line)) != 0)
            break;
    }
    free(text);
    return rc;
}

static int gpu_row(pipe_profile *p, char *line)
{
    char *f[9];
    double t, util, used, total, power, temp, clock;
    if (split_csv(line, f, 9) != 9 || !number(f[0], &t) || !isfinite(t) || !number(f[3], &util) ||
        !number(f[4], &used) || !number(f[5], &total) || !number(f[6], &power) || !number(f[7], &temp) ||
        !number(f[8], &clock)) {
        p->skipped++;
        return 0;
    }
    int index = -1;
    if (*f[1]) {
        char *end;
        long v = strtol(f[1], &end, 10);
        if (*end || v < 0 || v > 1 << 20) {
            p->skipped++;
            return 0;
        }
        index = (int)v;
    }
    bool full = false;
    pipe_gpu_profile *g = entry_of(&p->gpus, &p->ngpus, index, f[2], &full);
    if (full) {
        p->skipped++;
        return 0;
    }
    if (!g || pipe_series_push(&g->utilization, t, util) != 0 || pipe_series_push(&g->memory_used, t, used) != 0)
        return PIPE_ENOMEM;
    if (isfinite(total) && total > g->memory_total_mib)
        g->memory_total_mib = total;
    if (isfinite(power) && !(power <= g->power_peak_w))
        g->power_peak_w = power;
    if (isfinite(temp) && !(temp <= g->temperature_peak_c))
        g->temperature_peak_c = temp;
    return 0;
}

/* A non-negative index below limit, or -1 for an empty field; -2 otherwise. */
static int index_field(const char *s, long limit)
{
    if (!*s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end || v < 0 || v >= limit ? -2 : (int)v;
}

static int neuron_row(pipe_profile *p, char *line)
{
    char *f[6];
    double t, util, used;
    int device, core;
    if (split_csv(line, f, 6) != 6 || !number(f[0], &t) || !isfinite(t) ||
        (device = index_field(f[1], PIPE_NEURON_MAX_CORES)) == -2 ||
        (core = index_field(f[2], PIPE_NEURON_MAX_CORES)) < 0 || !number(f[3], &util) || !number(f[4], &used)) {
        p->skipped++;
        return 0;
    }
    char name[96];
    if (device >= 0)
        snprintf(name, sizeof name, "device %d%s%.32s", device, *f[5] ? ", " : "", f[5]);
    else
        snprintf(name, sizeof name, "%.32s", *f[5] ? f[5] : "Neuron");
    bool full = false;
    pipe_gpu_profile *g = entry_of(&p->neuron_cores, &p->nneuron_cores, core, name, &full);
    if (full) {
        p->skipped++;
        return 0;
    }
    if (!g || pipe_series_push(&g->utilization, t, util) != 0 || pipe_series_push(&g->memory_used, t, used) != 0)
        return PIPE_ENOMEM;
    return 0;
}

/* PATH's first line, or NULL. */
static char *first_line(const char *path)
{
    char *text = NULL;
    if (pipe_read_file(path, &text, NULL, NULL, 0) != 0)
        return NULL;
    text[strcspn(text, "\n")] = '\0';
    return text;
}

static int process_row(pipe_profile *p, char *line)
{
    char *f[3];
    double t, cpu, rss;
    if (split_csv(line, f, 3) != 3 || !number(f[0], &t) || !isfinite(t) || !number(f[1], &cpu) ||
        !number(f[2], &rss)) {
        p->skipped++;
        return 0;
    }
    if (pipe_series_push(&p->cpu, t, cpu) != 0 || pipe_series_push(&p->rss, t, rss) != 0)
        return PIPE_ENOMEM;
    return 0;
}

int pipe_profile_read(const char *invocation_dir, pipe_profile *out)
{
    memset(out, 0, sizeof *out);
    char *dir = pipe_asprintf("%s/profile", invocation_dir);
    char *gpu = dir ? pipe_asprintf("%s/gpu.csv", dir) : NULL;
    char *proc = dir ? pipe_asprintf("%s/process.csv", dir) : NULL;
    char *none = dir ? pipe_asprintf("%s/" PIPE_PROFILE_GPU_NONE, dir) : NULL;
    int rc = PIPE_ENOMEM;
    if (!dir || !gpu || !proc || !none)
        goto done;
    rc = 0;
    if (!pipe_dir_exists(dir))
        goto done;
    out->present = true;
    int r = each_row(gpu, PIPE_PROFILE_GPU_HEADER, gpu_row, out);
    if (r == PIPE_ENOMEM || (r = each_row(proc, PIPE_PROFILE_PROCESS_HEADER, process_row, out)) == PIPE_ENOMEM) {
        rc = PIPE_ENOMEM;
        goto done;
    }
    out->gpu_unavailable = first_line(none);
    char *neuron = pipe_asprintf("%s/neuron.csv", dir);
    char *neuron_none = pipe_asprintf("%s/" PIPE_PROFILE_NEURON_NONE, dir);
    r = neuron && neuron_none ? each_row(neuron, PIPE_PROFILE_NEURON_HEADER, neuron_row, out) : PIPE_ENOMEM;
    if (r != PIPE_ENOMEM && neuron_none)
        out->neuron_unavailable = first_line(neuron_none);
    free(neuron);
    free(neuron_none);
    if (r == PIPE_ENOMEM) {
        rc = PIPE_ENOMEM;
        goto done;
    }
done:
    if (rc != 0)
        pipe_profile_free(out);
    free(dir);
    free(gpu);
    free(proc);
    free(none);
    return rc;
}

void pipe_profile_free(pipe_profile *p)
{
    for (size_t i = 0; i < p->ngpus; i++) {
        free(p->gpus[i].name);
        pipe_series_free(&p->gpus[i].utilization);
        pipe_series_free(&p->gpus[i].memory_used);
    }
    free(p->gpus);
    for (size_t i = 0; i < p->nneuron_cores; i++) {
        free(p->neuron_cores[i].name);
        pipe_series_free(&p->neuron_cores[i].utilization);
        pipe_series_free(&p->neuron_cores[i].memory_used);
    }
    free(p->neuron_cores);
    free(p->neuron_unavailable);
    pipe_series_free(&p->cpu);
    pipe_series_free(&p->rss);
    free(p->gpu_unavailable);
    memset(p, 0, sizeof *p);
}
