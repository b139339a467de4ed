/* What `runs` and `show` print of the history kept in the artifact store
   (history.h; docs/runtime.md, "Commands"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"
#include "util/followup.h"
#include "history.h"
#include "pipe/human.h"
#include "store/run_state.h"
#include "util/util.h"

static void duration_text(double seconds, char *buf, size_t size)
{
    if (isfinite(seconds) && seconds >= 0)
        pipe_format_seconds(seconds, buf, size);
    else
        snprintf(buf, size, "-");
}

/* ---- runs ---- */

/* The --metric cells of one run: "0.8123", "0.8123 (evaluate)" when several
   invocations recorded the name, "-" when none did. */
static void metric_cells(const char *store, const char *run_id, const pipe_manifest *m, const char *const *metrics,
                         size_t nmetrics, char cells[][64])
{
    char err[256];
    pipe_run_view *v = NULL;
    if (pipe_run_view_load(store, run_id, m, 0, &v, err, sizeof err) != 0)
        v = NULL;
    for (size_t k = 0; k < nmetrics; k++) {
        double value;
        const char *inv;
        size_t count;
        char num[32];
        if (!v || pipe_run_metric_value(v, metrics[k], &value, &inv, &count) != 0) {
            snprintf(cells[k], 64, "-");
            continue;
        }
        pipe_format_short(value, num, sizeof num);
        if (count > 1)
            snprintf(cells[k], 64, "%s (%.28s)", num, inv);
        else
            snprintf(cells[k], 64, "%s", num);
    }
    pipe_run_view_free(v);
}

int pipe_runs_print(const char *store, const pipe_manifest *m, const char *const *metrics, size_t nmetrics, bool json)
{
    char err[1024];
    pipe_run_entry *runs = NULL;
    size_t n = 0;
    int status = PIPE_EXIT_USAGE;
    if (nmetrics > PIPE_RUNS_METRICS_MAX)
        nmetrics = PIPE_RUNS_METRICS_MAX; /* `runs` refuses more (cmd/run_cmd.h) */
    if (pipe_run_entries_read(store, &runs, &n, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        goto done;
    }
    if (json) {
        pipe_textbuf b = {0};
        pipe_runs_json(&b, store, runs, n, m, metrics, nmetrics);
        if (pipe_tb_write(&b, stdout) != 0)
            goto nomem;
        status = PIPE_EXIT_OK;
        goto done;
    }
    if (n == 0) {
        printf("no runs in %s\n", store);
        status = PIPE_EXIT_OK;
        goto done;
    }
    int wid = (int)strlen("RUN"), wpipe = (int)strlen("PIPELINE");
    for (size_t i = 0; i < n; i++) {
        if ((int)strlen(runs[i].id) > wid)
            wid = (int)strlen(runs[i].id);
        if (runs[i].info && runs[i].info->pipeline && (int)strlen(runs[i].info->pipeline) > wpipe)
            wpipe = (int)strlen(runs[i].info->pipeline);
    }
    /* The --metric columns, as wide as their widest cell. */
    char (*cells)[PIPE_RUNS_METRICS_MAX][64] = calloc(n + 1, sizeof *cells);
    int wmetric[PIPE_RUNS_METRICS_MAX] = {0};
    if (!cells)
        goto nomem;
    for (int k = 0; k < (int)nmetrics; k++)
        wmetric[k] = (int)strlen(metrics[k]);
    for (size_t i = 0; i < n && (int)nmetrics; i++) {
        metric_cells(store, runs[i].id, m, metrics, nmetrics, cells[i]);
        for (int k = 0; k < (int)nmetrics; k++)
            if ((int)strlen(cells[i][k]) > wmetric[k])
                wmetric[k] = (int)strlen(cells[i][k]);
    }
    printf("%-*s  %-*s  %-11s  %-24s  %s", wid, "RUN", wpipe, "PIPELINE", "STATUS", "STARTED",
           (int)nmetrics ? "DURATION  " : "DURATION");
    for (int k = 0; k < (int)nmetrics; k++) /* the last column without trailing spaces */
        printf("  %-*s", k + 1 < (int)nmetrics ? wmetric[k] : 0, metrics[k]);
    printf("\n");
    for (size_t i = 0; i < n; i++) {
        const pipe_run_info *info = runs[i].info;
        if (!info) {
            printf("%-*s  %-*s  %-11s\n", wid, runs[i].id, wpipe, "?", "unreadable");
            continue;
        }
        pipe_run_state st = pipe_run_state_of(store, runs[i].id, info, m);
        double a0 = pipe_parse_iso8601(info->started), b0 = pipe_parse_iso8601(info->finished);
        char d[32];
        duration_text(a0 >= 0 && b0 >= a0 ? b0 - a0 : NAN, d, sizeof d);
        printf("%-*s  %-*s  %-11s  %-24s  ", wid, runs[i].id, wpipe, info->pipeline ? info->pipeline : "?",
               pipe_run_state_name(st), info->started ? info->started : "?");
        if (!(int)nmetrics) {
            printf("%s\n", d);
            continue;
        }
        printf("%-10s", d);
        for (int k = 0; k < (int)nmetrics; k++)
            printf("  %-*s", k + 1 < (int)nmetrics ? wmetric[k] : 0, cells[i][k]);
        printf("\n");
    }
    free(cells);
    status = PIPE_EXIT_OK;
    goto done;
nomem:
    pipe_cli_error("out of memory");
done:
    pipe_run_entries_free(runs, n);
    return status;
}

/* ---- show ---- */

static void print_artifacts(const pipe_run_view *v, const char *label, const pipe_step_artifact *a, size_t n,
                            bool inputs)
{
    for (size_t k = 0; k < n; k++) {
        char size[32];
        pipe_artifact_size_text(a[k].path, size, sizeof size);
        printf("      %-8s %s", label, a[k].name);
        const char *output = NULL;
        long from = inputs ? pipe_run_view_producer(v, a[k].path, &output) : -1;
        if (from >= 0)
            printf(" <- %s.%s", v->inv[from].id, output);
        printf("  %s  sha256 %s\n", size, a[k].sha256 ? a[k].sha256 : "(none)");
        if (from < 0)
            printf("               %s\n", a[k].path ? a[k].path : "?");
    }
}

static void print_metrics(const pipe_view_invocation *inv)
{
    const pipe_step_record *r = inv->rec;
    if (inv->metrics.n > 0) {
        for (size_t k = 0; k < inv->metrics.n; k++) {
            pipe_metric_summary s;
            char last[64], lo[64], hi[64];
            pipe_metric_summarize(&inv->metrics.series[k], &s);
            pipe_format_number(s.last, 6, last, sizeof last);
            printf("      %-8s %s=%s", k == 0 ? "metrics" : "", inv->metrics.series[k].name, last);
            if (s.points > 1) {
                pipe_format_number(s.min, 4, lo, sizeof lo);
                pipe_format_number(s.max, 4, hi, sizeof hi);
                printf("  (%zu values, steps %lld..%lld, min %s, max %s)", s.points, s.first_step, s.last_step, lo,
                       hi);
            }
            putchar('\n');
        }
        if (inv->metrics_from)
            printf("               (recorded by %s)\n", inv->metrics_from);
    } else if (r && r->nmetrics > 0) {
        printf("      %-8s", "metrics");
        for (size_t k = 0; k < r->nmetrics; k++) {
            char val[64];
            pipe_format_number(r->metrics[k].value, 6, val, sizeof val);
            printf(" %s=%s", r->metrics[k].name, val);
        }
        putchar('\n');
    }
}

static void print_profile(const pipe_view_invocation *inv)
{
    const pipe_profile *p = &inv->profile;
    if (!p->present)
        return;
    for (size_t g = 0; g < p->ngpus; g++) {
        const pipe_gpu_profile *gp = &p->gpus[g];
        double mean, peak, mmean, mpeak;
        pipe_series_stats(&gp->utilization, &mean, &peak);
        pipe_series_stats(&gp->memory_used, &mmean, &mpeak);
        printf("      %-8s GPU %d (%s): utilization mean %.0f%%, peak %.0f%%; memory peak %.0f of %.0f MiB (%zu "
               "samples)\n",
               g == 0 ? "profile" : "", gp->index, gp->name, mean, peak, mpeak, gp->memory_total_mib,
               gp->utilization.n);
    }
    for (size_t c = 0; c < p->nneuron_cores; c++) {
        const pipe_gpu_profile *nc = &p->neuron_cores[c];
        double mean, peak, mmean, mpeak;
        pipe_series_stats(&nc->utilization, &mean, &peak);
        pipe_series_stats(&nc->memory_used, &mmean, &mpeak);
        printf("      %-8s NeuronCore %d (%s): utilization mean %.0f%%, peak %.0f%%; memory peak %.0f MiB (%zu "
               "samples)\n",
               c == 0 ? "profile" : "", nc->index, nc->name, mean, peak, mpeak, nc->utilization.n);
    }
    if (p->nneuron_cores == 0 && p->neuron_unavailable)
        printf("      %-8s no Neuron samples: %s\n", "profile", p->neuron_unavailable);
    else if (p->ngpus == 0 && p->nneuron_cores == 0)
        printf("      %-8s no GPU samples: %s\n", "profile", p->gpu_unavailable ? p->gpu_unavailable : "none recorded");
    double cmean, cpeak, rmean, rpeak;
    pipe_series_stats(&p->cpu, &cmean, &cpeak);
    pipe_series_stats(&p->rss, &rmean, &rpeak);
    if (p->cpu.n > 0)
        printf("               processes: CPU mean %.0f%%, peak %.0f%% of one core; memory peak %.1f MiB (%zu "
               "samples)\n",
               cmean, cpeak, rpeak, p->cpu.n);
}

static void print_invocation(const pipe_run_view *v, const pipe_view_invocation *inv, int w)
{
    const pipe_step_record *r = inv->rec;
    if (!r) {
        printf("  %-*s  %s\n", w, inv->id, pipe_view_status(inv));
        if (inv->rec_error)
            printf("      error    %s\n", inv->rec_error);
        return;
    }
    char d[32];
    pipe_format_seconds(r->duration_s, d, sizeof d);
    printf("  %-*s  %-6s  %8s", w, inv->id, pipe_step_status_name(r->status), d);
    if (r->status == PIPE_STEP_CACHED && r->cached_from)
        printf("  (from %s)", r->cached_from);
    if (r->status == PIPE_STEP_FAILED || r->status == PIPE_STEP_INTERRUPTED) {
        if (r->has_exit_code)
            printf("  exit %d", r->exit_code);
        else if (r->signal)
            printf("  %s", r->signal);
    }
    if (r->attempts > 1)
        printf("  %d attempts", r->attempts);
    putchar('\n');
    if (r->started)
        printf("      %-8s %s .. %s\n", "times", r->started, r->finished ? r->finished : "?");
    if (r->rerun)
        printf("      %-8s %s (earlier success: %s)\n", "re-run", r->rerun, r->rerun_of ? r->rerun_of : "?");
    if (r->nparams > 0) {
        printf("      %-8s", "params");
        for (size_t k = 0; k < r->nparams; k++)
            printf(" %s=%s", r->params[k].key, r->params[k].value);
        putchar('\n');
    }
    print_artifacts(v, "input", r->inputs, r->ninputs, true);
    print_artifacts(v, "output", r->outputs, r->noutputs, false);
    print_metrics(inv);
    print_profile(inv);
    if (r->error) {
        /* Indented under its label, line by line (a log tail may follow). */
        const char *e = r->error;
        printf("      %-8s ", "error");
        for (; *e; e++) {
            putchar(*e);
            if (*e == '\n' && e[1])
                printf("               ");
        }
        putchar('\n');
    }
}

int pipe_show_print(const pipe_run_view *v, bool json)
{
    if (json) {
        pipe_textbuf b = {0};
        pipe_show_json(&b, v);
        int status = pipe_tb_write(&b, stdout) == 0 ? PIPE_EXIT_OK : PIPE_EXIT_USAGE;
        if (status != PIPE_EXIT_OK)
            pipe_cli_error("out of memory");
        return status;
    }
    const pipe_run_info *info = v->info;
    char d[32];
    duration_text(v->duration_s, d, sizeof d);
    printf("run %s of pipeline %s: %s\n", v->run_id, info->pipeline ? info->pipeline : "?",
           pipe_run_state_name(v->state));
    printf("  started   %s\n", info->started ? info->started : "?");
    if (info->finished)
        printf("  finished  %s (%s)\n", info->finished, d);
    printf("  params    ");
    if (info->nparams == 0)
        printf("none");
    for (size_t i = 0; i < info->nparams; i++)
        printf("%s%s=%s", i ? " " : "", info->params[i].key, info->params[i].value);
    printf("\n  store     %s\n\ninvocations:\n", v->run_dir);
    int w = 0;
    for (size_t i = 0; i < v->n; i++)
        if ((int)strlen(v->inv[i].id) > w)
            w = (int)strlen(v->inv[i].id);
    for (size_t i = 0; i < v->n; i++)
        print_invocation(v, &v->inv[i], w);
    if (v->root_cause >= 0) {
        const pipe_view_invocation *rc_inv = &v->inv[v->root_cause];
        const char *why = rc_inv->rec->error ? rc_inv->rec->error : "it failed";
        printf("\nroot cause: %s failed: %.*s\n", rc_inv->id, (int)strcspn(why, "\n"), why);
        char *cmd = pipe_followup(v->store, "logs", v->run_id, rc_inv->id, (char *)NULL);
        printf("  (the whole log: `%s`)\n", cmd ? cmd : "logs");
        free(cmd);
    }
    return PIPE_EXIT_OK;
}
