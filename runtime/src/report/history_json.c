/* `runs --json` and `show --json` (docs/runtime.md, "JSON output"): one
   JSON document each, the schema named by its "schema" member. */
#include <math.h>
#include <string.h>

#include "history.h"
#include "store/run_state.h"

static void key(pipe_textbuf *b, const char *name, bool *first)
{
    pipe_tb_puts(b, *first ? "" : ", ");
    *first = false;
    pipe_tb_json_str(b, name);
    pipe_tb_puts(b, ": ");
}

static void kv_str(pipe_textbuf *b, const char *name, const char *value, bool *first)
{
    key(b, name, first);
    pipe_tb_json_str(b, value);
}

static void kv_num(pipe_textbuf *b, const char *name, double value, bool *first)
{
    key(b, name, first);
    pipe_tb_json_num(b, value);
}

static void params_object(pipe_textbuf *b, const pipe_kv *kv, size_t n)
{
    bool first = true;
    pipe_tb_puts(b, "{");
    for (size_t i = 0; i < n; i++)
        kv_str(b, kv[i].key, kv[i].value, &first);
    pipe_tb_puts(b, "}");
}

static double duration_of(const pipe_run_info *info)
{
    double a = pipe_parse_iso8601(info->started), z = pipe_parse_iso8601(info->finished);
    return a >= 0 && z >= a ? round((z - a) * 1000.0) / 1000.0 : NAN;
}

/* "metrics": the --metric values of one run (history.h). */
static void run_metrics(pipe_textbuf *b, const char *store, const char *run_id, const pipe_manifest *m,
                        const char *const *names, size_t nnames, bool *f)
{
    char err[256];
    pipe_run_view *v = NULL;
    if (pipe_run_view_load(store, run_id, m, 0, &v, err, sizeof err) != 0)
        v = NULL;
    key(b, "metrics", f);
    pipe_tb_puts(b, "{");
    for (size_t k = 0; k < nnames; k++) {
        double value;
        const char *inv;
        size_t count;
        key(b, names[k], &(bool){k == 0});
        if (!v || pipe_run_metric_value(v, names[k], &value, &inv, &count) != 0) {
            pipe_tb_puts(b, "null");
            continue;
        }
        bool g = true;
        pipe_tb_puts(b, "{");
        kv_num(b, "value", value, &g);
        kv_str(b, "invocation", inv, &g);
        kv_num(b, "invocations", (double)count, &g);
        pipe_tb_puts(b, "}");
    }
    pipe_tb_puts(b, "}");
    pipe_run_view_free(v);
}

void pipe_runs_json(pipe_textbuf *b, const char *store, const pipe_run_entry *runs, size_t n, const pipe_manifest *m,
                    const char *const *metrics, size_t nmetrics)
{
    bool first = true;
    pipe_tb_puts(b, "{");
    kv_str(b, "schema", "pipe.runs/1", &first);
    kv_str(b, "store", store, &first);
    key(b, "runs", &first);
    pipe_tb_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        const pipe_run_info *info = runs[i].info;
        bool f = true;
        pipe_tb_puts(b, i ? ",\n  {" : "\n  {");
        kv_str(b, "run_id", runs[i].id, &f);
        if (!info) {
            kv_str(b, "status", "unreadable", &f);
            pipe_tb_puts(b, "}");
            continue;
        }
        kv_str(b, "pipeline", info->pipeline, &f);
        kv_str(b, "status", pipe_run_state_name(pipe_run_state_of(store, runs[i].id, info, m)), &f);
        kv_str(b, "started", info->started, &f);
        kv_str(b, "finished", info->finished, &f);
        kv_num(b, "duration_s", duration_of(info), &f);
        key(b, "params", &f);
        params_object(b, info->params, info->nparams);
        if (nmetrics)
            run_metrics(b, store, runs[i].id, m, metrics, nmetrics, &f);
        pipe_tb_puts(b, "}");
    }
    pipe_tb_puts(b, n ? "\n]}\n" : "]}\n");
}

static void artifacts(pipe_textbuf *b, const pipe_run_view *v, const pipe_step_artifact *a, size_t n, bool inputs)
{
    pipe_tb_puts(b, "[");
    for (size_t k = 0; k < n; k++) {
        bool f = true;
        pipe_tb_puts(b, k ? ", {" : "{");
        kv_str(b, "name", a[k].name, &f);
        kv_str(b, "path", a[k].path, &f);
        kv_str(b, "sha256", a[k].sha256, &f);
        long long size = a[k].path ? pipe_path_size(a[k].path) : -1;
        kv_num(b, "size_bytes", size >= 0 ? (double)size : NAN, &f);
        if (inputs) {
            const char *output = NULL;
            long from = pipe_run_view_producer(v, a[k].path, &output);
            key(b, "from", &f);
            if (from < 0) {
                pipe_tb_puts(b, "null");
            } else {
                bool g = true;
                pipe_tb_puts(b, "{");
                kv_str(b, "invocation", v->inv[from].id, &g);
                kv_str(b, "output", output, &g);
                pipe_tb_puts(b, "}");
            }
        }
        pipe_tb_puts(b, "}");
    }
    pipe_tb_puts(b, "]");
}

static void metrics(pipe_textbuf *b, const pipe_view_invocation *inv)
{
    pipe_tb_puts(b, "[");
    if (inv->metrics.n > 0) {
        for (size_t k = 0; k < inv->metrics.n; k++) {
            pipe_metric_summary s;
            bool f = true;
            pipe_metric_summarize(&inv->metrics.series[k], &s);
            pipe_tb_puts(b, k ? ", {" : "{");
            kv_str(b, "name", inv->metrics.series[k].name, &f);
            kv_num(b, "last", s.last, &f);
            kv_num(b, "values", (double)s.points, &f);
            kv_num(b, "first_step", (double)s.first_step, &f);
            kv_num(b, "last_step", (double)s.last_step, &f);
            kv_num(b, "min", s.min, &f);
            kv_num(b, "max", s.max, &f);
            pipe_tb_puts(b, "}");
        }
    } else if (inv->rec) { /* no metrics.csv (a cached invocation's original is gone): the record's */
        for (size_t k = 0; k < inv->rec->nmetrics; k++) {
            bool f = true;
            pipe_tb_puts(b, k ? ", {" : "{");
            kv_str(b, "name", inv->rec->metrics[k].name, &f);
            kv_num(b, "last", inv->rec->metrics[k].value, &f);
            pipe_tb_puts(b, "}");
        }
    }
    pipe_tb_puts(b, "]");
}

static void series_stats(pipe_textbuf *b, const char *prefix, const pipe_series *s, bool *f)
{
    double mean, peak;
    char name[64];
    pipe_series_stats(s, &mean, &peak);
    snprintf(name, sizeof name, "%s_mean", prefix);
    kv_num(b, name, mean, f);
    snprintf(name, sizeof name, "%s_peak", prefix);
    kv_num(b, name, peak, f);
}

/* The GPUs' entries, or the NeuronCores' (keyed "core"; no memory total,
   power or temperature). */
static void devices(pipe_textbuf *b, const pipe_gpu_profile *list, size_t n, bool neuron)
{
    pipe_tb_puts(b, "[");
    for (size_t g = 0; g < n; g++) {
        const pipe_gpu_profile *gp = &list[g];
        bool h = true;
        pipe_tb_puts(b, g ? ", {" : "{");
        kv_num(b, neuron ? "core" : "index", gp->index >= 0 ? gp->index : NAN, &h);
        kv_str(b, "name", gp->name, &h);
        kv_num(b, "samples", (double)gp->utilization.n, &h);
        series_stats(b, "utilization_pct", &gp->utilization, &h);
        double mean, peak;
        pipe_series_stats(&gp->memory_used, &mean, &peak);
        kv_num(b, "memory_used_mib_peak", peak, &h);
        if (!neuron) {
            kv_num(b, "memory_total_mib", gp->memory_total_mib > 0 ? gp->memory_total_mib : NAN, &h);
            kv_num(b, "power_w_peak", gp->power_peak_w, &h);
            kv_num(b, "temperature_c_peak", gp->temperature_peak_c, &h);
        }
        pipe_tb_puts(b, "}");
    }
    pipe_tb_puts(b, "]");
}

static void profile(pipe_textbuf *b, const pipe_view_invocation *inv)
{
    const pipe_profile *p = &inv->profile;
    if (!p->present) {
        pipe_tb_puts(b, "null");
        return;
    }
    bool f = true;
    pipe_tb_puts(b, "{");
    kv_num(b, "interval_ms", inv->profile_interval_ms ? (double)inv->profile_interval_ms : NAN, &f);
    kv_str(b, "gpu_unavailable", p->gpu_unavailable, &f);
    key(b, "gpus", &f);
    devices(b, p->gpus, p->ngpus, false);
    kv_str(b, "neuron_unavailable", p->neuron_unavailable, &f);
    key(b, "neuron_cores", &f);
    devices(b, p->neuron_cores, p->nneuron_cores, true);
    key(b, "processes", &f);
    bool h = true;
    pipe_tb_puts(b, "{");
    kv_num(b, "samples", (double)p->cpu.n, &h);
    series_stats(b, "cpu_pct", &p->cpu, &h);
    series_stats(b, "rss_mib", &p->rss, &h);
    pipe_tb_puts(b, "}}");
}

static void invocation(pipe_textbuf *b, const pipe_run_view *v, const pipe_view_invocation *inv)
{
    const pipe_step_record *r = inv->rec;
    bool f = true;
    pipe_tb_puts(b, "{");
    kv_str(b, "id", inv->id, &f);
    kv_str(b, "step", inv->step, &f);
    kv_str(b, "status", strcmp(pipe_view_status(inv), "not run") == 0 ? "not_run" : pipe_view_status(inv), &f);
    key(b, "needs", &f);
    pipe_tb_puts(b, "[");
    for (size_t k = 0; k < inv->nneeds; k++) {
        pipe_tb_puts(b, k ? ", " : "");
        pipe_tb_json_str(b, v->inv[inv->needs[k]].id);
    }
    pipe_tb_puts(b, "]");
    kv_str(b, "started", r ? r->started : NULL, &f);
    kv_str(b, "finished", r ? r->finished : NULL, &f);
    kv_num(b, "duration_s", r ? r->duration_s : NAN, &f);
    kv_num(b, "attempts", r ? r->attempts : NAN, &f);
    kv_num(b, "exit_code", r && r->has_exit_code ? r->exit_code : NAN, &f);
    kv_str(b, "signal", r ? r->signal : NULL, &f);
    kv_str(b, "cached_from", r ? r->cached_from : NULL, &f);
    kv_str(b, "rerun", r ? r->rerun : NULL, &f);
    kv_str(b, "rerun_of", r ? r->rerun_of : NULL, &f);
    kv_str(b, "error", r ? r->error : inv->rec_error, &f);
    key(b, "params", &f);
    params_object(b, r ? r->params : NULL, r ? r->nparams : 0);
    key(b, "inputs", &f);
    artifacts(b, v, r ? r->inputs : NULL, r ? r->ninputs : 0, true);
    key(b, "outputs", &f);
    artifacts(b, v, r ? r->outputs : NULL, r ? r->noutputs : 0, false);
    key(b, "metrics", &f);
    metrics(b, inv);
    kv_str(b, "metrics_from", inv->metrics_from, &f);
    key(b, "profile", &f);
    profile(b, inv);
    kv_str(b, "dir", inv->dir, &f);
    pipe_tb_puts(b, "}");
}

void pipe_show_json(pipe_textbuf *b, const pipe_run_view *v)
{
    bool first = true;
    pipe_tb_puts(b, "{");
    kv_str(b, "schema", "pipe.show/1", &first);
    kv_str(b, "run_id", v->run_id, &first);
    kv_str(b, "pipeline", v->info->pipeline, &first);
    kv_str(b, "status", pipe_run_state_name(v->state), &first);
    kv_str(b, "started", v->info->started, &first);
    kv_str(b, "finished", v->info->finished, &first);
    kv_num(b, "duration_s", v->duration_s, &first);
    key(b, "params", &first);
    params_object(b, v->info->params, v->info->nparams);
    kv_str(b, "store", v->store, &first);
    kv_str(b, "run_dir", v->run_dir, &first);
    key(b, "root_cause", &first);
    if (v->root_cause < 0) {
        pipe_tb_puts(b, "null");
    } else {
        const pipe_view_invocation *inv = &v->inv[v->root_cause];
        bool f = true;
        pipe_tb_puts(b, "{");
        kv_str(b, "invocation", inv->id, &f);
        kv_str(b, "error", inv->rec->error, &f);
        pipe_tb_puts(b, "}");
    }
    key(b, "invocations", &first);
    pipe_tb_puts(b, "[");
    for (size_t i = 0; i < v->n; i++) {
        pipe_tb_puts(b, i ? ",\n  " : "\n  ");
        invocation(b, v, &v->inv[i]);
    }
    pipe_tb_puts(b, v->n ? "\n]}\n" : "]}\n");
}
