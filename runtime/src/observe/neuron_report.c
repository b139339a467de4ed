/* One neuron-monitor report into rows of neuron.csv (neuron_monitor.h);
   neuron_monitor.c runs the program. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/json_walk.h"
#include "neuron_monitor.h"

/* A core index as neuron-monitor writes it ("0", "17"), or -1. */
static int core_index(const pipe_json_step *step)
{
    if (!step->key || step->key_len == 0 || step->key_len > 4)
        return -1;
    int n = 0;
    for (size_t i = 0; i < step->key_len; i++) {
        if (step->key[i] < '0' || step->key[i] > '9')
            return -1;
        n = n * 10 + (step->key[i] - '0');
    }
    return n < PIPE_NEURON_MAX_CORES ? n : -1;
}

/* path[from..] is exactly the keys given (NULL: any array element). */
static bool path_is(const pipe_json_step *path, int depth, int from, const char *const *keys, int n)
{
    if (depth != from + n)
        return false;
    for (int i = 0; i < n; i++) {
        const pipe_json_step *s = &path[from + i];
        if (keys[i] ? !pipe_json_key_is(s, keys[i]) : s->key != NULL)
            return false;
    }
    return true;
}

static void add(double *slot, double v)
{
    *slot = isnan(*slot) ? v : *slot + v;
}

static void on_value(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v)
{
    pipe_neuron_report *r = arg;
    static const char *const util[] = {"neuron_runtime_data", NULL, "report", "neuroncore_counters",
                                       "neuroncores_in_use"};
    static const char *const mem[] = {"neuron_runtime_data", NULL, "report", "memory_used", "neuron_runtime_used_bytes",
                                      "usage_breakdown", "neuroncore_memory_usage"};
    if (depth == 2 && pipe_json_key_is(&path[0], "neuron_hardware_info")) {
        if (pipe_json_key_is(&path[1], "neuroncore_per_device_count") && v->type == PIPE_JSON_NUMBER &&
            v->number >= 1 && v->number <= 64)
            r->cores_per_device = (int)v->number;
        else if (pipe_json_key_is(&path[1], "neuron_device_type") && v->type == PIPE_JSON_STRING) {
            /* A name for a CSV field: letters, digits and a few marks only;
               escapes ("\n", "\u00e9") dropped whole. */
            size_t n = 0;
            for (size_t i = 0; i < v->len && n + 1 < sizeof r->device_type; i++) {
                char c = v->text[i];
                if (c == '\\') {
                    i += i + 1 < v->len && v->text[i + 1] == 'u' ? 5 : 1;
                    continue;
                }
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.')
                    r->device_type[n++] = c;
            }
            r->device_type[n] = '\0';
        }
        return;
    }
    if (v->type != PIPE_JSON_NUMBER || !isfinite(v->number) || v->number < 0)
        return;
    /* neuron_runtime_data[i].report.neuroncore_counters.neuroncores_in_use.CORE.neuroncore_utilization */
    if (depth == 7 && path_is(path, depth - 2, 0, util, 5) && pipe_json_key_is(&path[6], "neuroncore_utilization")) {
        int core = core_index(&path[5]);
        if (core >= 0) {
            add(&r->utilization_pct[core], v->number);
            if (r->utilization_pct[core] > 100)
                r->utilization_pct[core] = 100;
            if (core + 1 > r->ncores)
                r->ncores = core + 1;
        }
        return;
    }
    /* ...memory_used.neuron_runtime_used_bytes.usage_breakdown.neuroncore_memory_usage.CORE.KIND */
    if (depth == 9 && path_is(path, depth - 2, 0, mem, 7)) {
        int core = core_index(&path[7]);
        if (core >= 0) {
            add(&r->memory_bytes[core], v->number);
            if (core + 1 > r->ncores)
                r->ncores = core + 1;
        }
    }
}

int pipe_neuron_report_parse(const char *line, size_t len, pipe_neuron_report *r)
{
    r->cores_per_device = 0;
    r->device_type[0] = '\0';
    r->ncores = 0;
    for (int i = 0; i < PIPE_NEURON_MAX_CORES; i++)
        r->utilization_pct[i] = r->memory_bytes[i] = NAN;
    /* One object: a report; anything else (a stray number, an array) is not. */
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
        i++;
    if (i == len || line[i] != '{')
        return -1;
    if (pipe_json_walk(line, len, on_value, r) != 0) {
        r->ncores = 0;
        return -1;
    }
    return 0;
}

static void number_field(FILE *f, double v, int decimals)
{
    if (isfinite(v))
        fprintf(f, ",%.*f", decimals, v);
    else
        fputc(',', f);
}

size_t pipe_neuron_report_csv(const pipe_neuron_report *r, pipe_neuron_report *known, double t, FILE *csv)
{
    if (r->cores_per_device > 0)
        known->cores_per_device = r->cores_per_device;
    if (r->device_type[0])
        memcpy(known->device_type, r->device_type, sizeof known->device_type);
    size_t rows = 0;
    for (int core = 0; core < r->ncores; core++) {
        if (isnan(r->utilization_pct[core]) && isnan(r->memory_bytes[core]))
            continue;
        fprintf(csv, "%.3f,", t);
        if (known->cores_per_device > 0)
            fprintf(csv, "%d", core / known->cores_per_device);
        fprintf(csv, ",%d", core);
        number_field(csv, r->utilization_pct[core], 1);
        number_field(csv, r->memory_bytes[core] / (1024.0 * 1024.0), 1);
        fprintf(csv, ",%s\n", known->device_type);
        rows++;
    }
    return rows;
}
