/* The run as one self-contained HTML file (report.h; several runs side
   by side: report_compare.c)
   (docs/report.md): inline CSS and SVG, nothing fetched from anywhere, no
   script. Sections: the verdict and its root cause, parameters, the graph,
   a row per invocation, each metric as a chart over its steps, each
   profiled step's GPUs, CPU and memory over time, and the logs' tails.
   The page is written in memory and then to the file atomically. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "util/cli.h"
#include "util/followup.h"
#include "pipe/base.h"
#include "pipe/human.h"
#include "report_graph.h"
#include "report_media.h"
#include "report_page.h"
#include "report_svg.h"
#include "util/util.h"

/* Tables longer than this scroll in a box of their own. */
#define LONG_TABLE 40
/* Metrics recorded once are a table with a column per name, up to this many. */
#define VALUE_COLUMNS 8


/* ---- small pieces ---- */

static void h(pipe_textbuf *b, const char *s) { pipe_tb_html(b, s); }

static void seconds(double s, char *buf, size_t size)
{
    if (isfinite(s) && s >= 0)
        pipe_format_seconds(s, buf, size);
    else
        snprintf(buf, size, "-");
}

static void badge(pipe_textbuf *b, const char *cls, const char *word)
{
    pipe_tb_printf(b, "<span class=\"badge %s\">%s</span>", cls, word);
}

static void percent(double v, char *buf, size_t size)
{
    if (isfinite(v))
        snprintf(buf, size, "%.0f%%", v);
    else
        snprintf(buf, size, "-");
}

static void mib(double v, char *buf, size_t size)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else if (fabs(v) >= 1024.0 * 1e6)
        snprintf(buf, size, "%.3g GiB", v / 1024);
    else if (v >= 1024)
        snprintf(buf, size, "%.1f GiB", v / 1024);
    else
        snprintf(buf, size, "%.0f MiB", v);
}

/* ---- header, root cause, parameters ---- */

static void header(pipe_textbuf *b, const pipe_run_view *v)
{
    const pipe_run_info *info = v->info;
    const char *state = pipe_run_state_name(v->state);
    static const char *const words[] = {"done", "cached", "failed", "interrupted", "running", "unreadable", "not run"};
    enum { NWORDS = sizeof words / sizeof words[0] };
    size_t count[NWORDS] = {0};
    for (size_t i = 0; i < v->n; i++)
        for (size_t k = 0; k < NWORDS; k++)
            count[k] += strcmp(pipe_view_status(&v->inv[i]), words[k]) == 0;
    char d[32];
    seconds(v->duration_s, d, sizeof d);
    pipe_tb_puts(b, "<header><h1>Pipeline ");
    h(b, info->pipeline);
    pipe_tb_puts(b, " <span class=\"muted\">run ");
    h(b, v->run_id);
    pipe_tb_puts(b, "</span></h1>\n<p class=\"verdict\">");
    badge(b, v->state == PIPE_RUN_SUCCEEDED ? "done" : v->state == PIPE_RUN_FAILED ? "failed" : state, state);
    pipe_tb_printf(b, "<span><b>%s</b> in all</span>", d);
    pipe_tb_printf(b, "<span>%zu invocation%s: ", v->n, v->n == 1 ? "" : "s");
    static const char *const classes[NWORDS] = {"done", "cached", "failed", "failed", "running", "notrun", "notrun"};
    const char *sep = "";
    for (size_t k = 0; k < NWORDS; k++)
        if (count[k]) {
            pipe_tb_printf(b, "%s<span class=\"%s\">%zu %s</span>", sep, classes[k], count[k], words[k]);
            sep = ", ";
        }
    pipe_tb_puts(b, "</span><span class=\"muted\">started ");
    h(b, info->started ? info->started : "?");
    if (info->finished) {
        pipe_tb_puts(b, ", finished ");
        h(b, info->finished);
    }
    pipe_tb_puts(b, "</span></p></header>\n");
}

static void root_cause(pipe_textbuf *b, const pipe_run_view *v)
{
    if (v->root_cause < 0)
        return;
    const pipe_view_invocation *inv = &v->inv[v->root_cause];
    const pipe_step_record *r = inv->rec;
    char d[32];
    seconds(r->duration_s, d, sizeof d);
    pipe_tb_puts(b, "<section class=\"cause\" id=\"root-cause\"><h2>Root cause</h2>\n<p><b>");
    h(b, inv->id);
    pipe_tb_puts(b, "</b> failed (");
    if (r->has_exit_code)
        pipe_tb_printf(b, "exit %d, ", r->exit_code);
    else if (r->signal) {
        h(b, r->signal);
        pipe_tb_puts(b, ", ");
    }
    pipe_tb_printf(b, "after %s", d);
    if (r->attempts > 1)
        pipe_tb_printf(b, ", %d attempts", r->attempts);
    pipe_tb_puts(b, "):</p>\n<pre>");
    h(b, r->error ? r->error : "it failed without saying why");
    pipe_tb_puts(b, "</pre>\n");
    if (inv->log_tail) {
        pipe_tb_puts(b, "<p class=\"muted\">The end of its log:</p><pre>");
        h(b, inv->log_tail);
        pipe_tb_puts(b, "</pre>\n");
    }
    size_t skipped = 0;
    for (size_t i = 0; i < v->n; i++)
        skipped += !v->inv[i].rec;
    if (skipped)
        pipe_tb_printf(b, "<p class=\"muted\">%zu invocation%s did not run.</p>\n", skipped,
                       skipped == 1 ? "" : "s");
    pipe_tb_puts(b, "</section>\n");
}

static void parameters(pipe_textbuf *b, const pipe_run_view *v)
{
    pipe_tb_puts(b, "<h2>Parameters</h2>\n");
    if (v->info->nparams == 0) {
        pipe_tb_puts(b, "<p class=\"muted\">none</p>\n");
        return;
    }
    /* Side by side in columns: a dozen parameters fit in a few lines. */
    pipe_tb_puts(b, "<dl class=\"params\">\n");
    for (size_t i = 0; i < v->info->nparams; i++) {
        pipe_tb_puts(b, "<div><dt>");
        h(b, v->info->params[i].key);
        pipe_tb_puts(b, "</dt> <dd>");
        h(b, v->info->params[i].value);
        pipe_tb_puts(b, "</dd></div>\n");
    }
    pipe_tb_puts(b, "</dl>\n");
}

/* ---- invocations ---- */

static void artifact_cell(pipe_textbuf *b, const pipe_run_view *v, const pipe_step_artifact *a, size_t n, bool inputs)
{
    for (size_t k = 0; k < n; k++) {
        char size[32];
        pipe_artifact_size_text(a[k].path, size, sizeof size);
        pipe_tb_puts(b, "<div class=\"art\">");
        h(b, a[k].name);
        const char *output = NULL;
        long from = inputs ? pipe_run_view_producer(v, a[k].path, &output) : -1;
        if (from >= 0) {
            pipe_tb_puts(b, " <span class=\"muted\">\xe2\x86\x90 ");
            h(b, v->inv[from].id);
            pipe_tb_puts(b, ".");
            h(b, output);
            pipe_tb_puts(b, "</span>");
        }
        pipe_tb_printf(b, " \xc2\xb7 %s", size);
        if (a[k].sha256) {
            pipe_tb_puts(b, " \xc2\xb7 <code title=\"SHA-256 ");
            h(b, a[k].sha256);
            pipe_tb_puts(b, "\">");
            pipe_tb_html_n(b, a[k].sha256, strnlen(a[k].sha256, 12));
            pipe_tb_puts(b, "</code>");
        }
        pipe_tb_puts(b, "</div>");
    }
}

/* Where the invocation ran within the run, as a bar. */
static void timeline(pipe_textbuf *b, const pipe_run_view *v, const pipe_view_invocation *inv)
{
    double r0 = pipe_parse_iso8601(v->info->started), total = v->duration_s;
    const pipe_step_record *r = inv->rec;
    double s = r ? pipe_parse_iso8601(r->started) : -1;
    if (!r || r0 < 0 || s < 0 || !(total > 0)) {
        pipe_tb_puts(b, "<td></td>");
        return;
    }
    double x = (s - r0) / total * 150, w = r->duration_s / total * 150;
    if (x < 0)
        x = 0;
    if (x > 149)
        x = 149;
    if (!(w >= 1.5)) /* also a duration of NaN or one the run's does not hold */
        w = 1.5;
    if (x + w > 150)
        w = 150 - x;
    pipe_tb_printf(b,
                   "<td><svg class=\"timeline\" viewBox=\"0 0 150 12\" role=\"img\" aria-label=\"from %.2f s to %.2f s "
                   "of the run\"><rect class=\"bg\" width=\"150\" height=\"12\"/><rect class=\"%s\" x=\"%.1f\" "
                   "y=\"1\" width=\"%.1f\" height=\"10\" rx=\"2\"/></svg></td>",
                   s - r0, s - r0 + r->duration_s, pipe_report_status_class(inv), x, w);
}

static void invocations(pipe_textbuf *b, const pipe_run_view *v)
{
    /* A long table scrolls in its own box, so that the sections after it stay near. */
    pipe_tb_printf(b, "<h2>Invocations</h2>\n<div class=\"scroll%s\"><table class=\"inv\">\n", v->n > LONG_TABLE ? " tall" : "");
    pipe_tb_puts(b, "<thead><tr><th>Invocation"
                    "</th><th>Status</th><th>Duration</th><th>When</th><th>Parameters</th><th>Inputs</th>"
                    "<th>Outputs</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < v->n; i++) {
        const pipe_view_invocation *inv = &v->inv[i];
        const pipe_step_record *r = inv->rec;
        const char *cls = pipe_report_status_class(inv);
        char d[32];
        seconds(r ? r->duration_s : NAN, d, sizeof d);
        pipe_tb_puts(b, "<tr><td><b>");
        h(b, inv->id);
        pipe_tb_puts(b, "</b>");
        if (inv->step && strcmp(inv->step, inv->id) != 0) {
            pipe_tb_puts(b, " <small>");
            h(b, inv->step);
            pipe_tb_puts(b, "</small>");
        }
        pipe_tb_puts(b, "</td><td>");
        badge(b, cls, pipe_view_status(inv));
        pipe_report_status_notes(b, r);
        pipe_tb_printf(b, "</td><td class=\"num\">%s</td>", r ? d : "");
        timeline(b, v, inv);
        pipe_tb_puts(b, "<td class=\"mono\">");
        for (size_t k = 0; r && k < r->nparams; k++) {
            pipe_tb_puts(b, k ? "<br>" : "");
            h(b, r->params[k].key);
            pipe_tb_puts(b, "=");
            h(b, r->params[k].value);
        }
        pipe_tb_puts(b, "</td><td>");
        if (r)
            artifact_cell(b, v, r->inputs, r->ninputs, true);
        pipe_tb_puts(b, "</td><td>");
        if (r)
            artifact_cell(b, v, r->outputs, r->noutputs, false);
        pipe_tb_puts(b, "</td></tr>\n");
    }
    pipe_tb_puts(b, "</tbody></table></div>\n");
}

/* ---- metrics ---- */

static void metric_chart(pipe_textbuf *b, const pipe_view_invocation *inv, const pipe_metric_series *s, size_t color)
{
    pipe_metric_summary sum;
    pipe_metric_summarize(s, &sum);
    char last[64], lo[64], hi[64], title[512];
    pipe_format_short(sum.last, last, sizeof last);
    pipe_format_short(sum.min, lo, sizeof lo);
    pipe_format_short(sum.max, hi, sizeof hi);
    double *x = NULL, *y = NULL;
    if (pipe_report_metric_arrays(s, &x, &y) != 0) {
        b->oom = true;
        return;
    }
    size_t bad = 0;
    for (size_t i = 0; i < s->n; i++)
        bad += !isfinite(y[i]);
    pipe_tb_puts(b, "<figure><figcaption><b>");
    h(b, s->name);
    pipe_tb_printf(b, "</b> \xc2\xb7 last <b>%s</b> \xc2\xb7 min %s \xc2\xb7 max %s \xc2\xb7 %zu value%s, steps "
                      "%lld\xe2\x80\x93%lld",
                   last, lo, hi, s->n, s->n == 1 ? "" : "s", sum.first_step, sum.last_step);
    if (bad)
        pipe_tb_printf(b, " <span class=\"failed\">(%zu not finite, not drawn)</span>", bad);
    pipe_tb_puts(b, "</figcaption>\n");
    snprintf(title, sizeof title, "%s of %s over its steps", s->name, inv->id);
    pipe_chart_series se = {x, y, s->n, pipe_report_palette[color % PIPE_REPORT_PALETTE_N], NULL};
    pipe_chart c = {title, "step", PIPE_X_STEP, PIPE_Y_PLAIN, false, 0, false, NAN, NULL, &se, 1};
    pipe_svg_line_chart(b, &c);
    pipe_tb_puts(b, "</figure>\n");
    free(x);
    free(y);
}

static void metrics(pipe_textbuf *b, const pipe_run_view *v)
{
    size_t with_charts = 0, with_values = 0;
    for (size_t i = 0; i < v->n; i++)
        for (size_t k = 0; k < v->inv[i].metrics.n; k++) {
            with_charts += v->inv[i].metrics.series[k].n > 1;
            with_values += v->inv[i].metrics.series[k].n == 1;
        }
    pipe_tb_puts(b, "<h2>Metrics</h2>\n");
    if (!with_charts && !with_values) {
        pipe_tb_puts(b, "<p class=\"muted\">No invocation recorded a metric (pipe_metric).</p>\n");
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        const pipe_view_invocation *inv = &v->inv[i];
        size_t charts = 0;
        for (size_t k = 0; k < inv->metrics.n; k++)
            charts += inv->metrics.series[k].n > 1;
        if (!charts)
            continue;
        pipe_tb_puts(b, "<h3>");
        h(b, inv->id);
        if (inv->metrics_from) {
            pipe_tb_puts(b, " <small>cached: recorded by ");
            h(b, inv->metrics_from);
            pipe_tb_puts(b, "</small>");
        }
        pipe_tb_puts(b, "</h3>\n<div class=\"grid\">\n");
        for (size_t k = 0, color = 0; k < inv->metrics.n && color < PIPE_REPORT_MAX_CHARTS; k++)
            if (inv->metrics.series[k].n > 1)
                metric_chart(b, inv, &inv->metrics.series[k], color++);
        pipe_tb_puts(b, "</div>\n");
        if (charts > PIPE_REPORT_MAX_CHARTS)
            pipe_tb_printf(b, "<p class=\"muted\">%zu more metrics not drawn (at most %d charts an invocation).</p>\n",
                           charts - PIPE_REPORT_MAX_CHARTS, PIPE_REPORT_MAX_CHARTS);
    }
    if (!with_values)
        return;
    /* Metrics recorded once: values, not charts; a column per name. */
    const char *names[VALUE_COLUMNS];
    size_t nnames = 0, rows = 0;
    bool too_many = false;
    for (size_t i = 0; i < v->n; i++) {
        bool row = false;
        for (size_t k = 0; k < v->inv[i].metrics.n; k++) {
            const pipe_metric_series *s = &v->inv[i].metrics.series[k];
            if (s->n != 1)
                continue;
            row = true;
            size_t c = 0;
            while (c < nnames && strcmp(names[c], s->name) != 0)
                c++;
            if (c == nnames && nnames < VALUE_COLUMNS)
                names[nnames++] = s->name;
            else if (c == nnames)
                too_many = true;
        }
        rows += row;
    }
    pipe_tb_printf(b, "<h3>Values recorded once</h3>\n<div class=\"scroll%s\"><table class=\"values\">\n<thead><tr>"
                      "<th>Invocation</th>",
                   rows > LONG_TABLE ? " tall" : "");
    for (size_t c = 0; c < nnames; c++) {
        pipe_tb_puts(b, "<th class=\"num\">");
        h(b, names[c]);
        pipe_tb_puts(b, "</th>");
    }
    pipe_tb_puts(b, too_many ? "<th>others</th></tr></thead>\n<tbody>\n" : "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < v->n; i++) {
        const pipe_view_invocation *inv = &v->inv[i];
        bool row = false;
        for (size_t k = 0; k < inv->metrics.n && !row; k++)
            row = inv->metrics.series[k].n == 1;
        if (!row)
            continue;
        pipe_tb_puts(b, "<tr><td><b>");
        h(b, inv->id);
        pipe_tb_puts(b, "</b></td>");
        for (size_t c = 0; c <= nnames; c++) {
            if (c == nnames && !too_many)
                break;
            pipe_tb_puts(b, c < nnames ? "<td class=\"num\">" : "<td>");
            for (size_t k = 0; k < inv->metrics.n; k++) {
                const pipe_metric_series *s = &inv->metrics.series[k];
                size_t col = 0;
                while (col < nnames && strcmp(names[col], s->name) != 0)
                    col++;
                if (s->n != 1 || col != c)
                    continue;
                char val[64];
                pipe_format_number(s->points[0].value, 6, val, sizeof val);
                if (c == nnames) {
                    h(b, s->name);
                    pipe_tb_puts(b, "=");
                }
                pipe_tb_printf(b, "<b>%s</b> ", val);
            }
            pipe_tb_puts(b, "</td>");
        }
        pipe_tb_puts(b, "</tr>\n");
    }
    pipe_tb_puts(b, "</tbody></table></div>\n");
}

/* ---- profiles ---- */

/* One GPU's charts, or one NeuronCore's (neuron: its name is "device D,
   TYPE"; no memory total, power or temperature). */
static void gpu_section(pipe_textbuf *b, const pipe_view_invocation *inv, const pipe_gpu_profile *g, size_t color,
                        bool neuron)
{
    const char *kind = neuron ? "NeuronCore" : "GPU";
    double mean, peak, mmean, mpeak;
    char m[16], p[16], used[32], total[32], title[256], ref[64], extra[128] = "";
    pipe_series_stats(&g->utilization, &mean, &peak);
    pipe_series_stats(&g->memory_used, &mmean, &mpeak);
    percent(mean, m, sizeof m);
    percent(peak, p, sizeof p);
    mib(mpeak, used, sizeof used);
    mib(g->memory_total_mib > 0 ? g->memory_total_mib : NAN, total, sizeof total);
    if (isfinite(g->power_peak_w) || isfinite(g->temperature_peak_c))
        snprintf(extra, sizeof extra, " \xc2\xb7 peak %.0f W, %.0f \xc2\xb0""C", g->power_peak_w,
                 g->temperature_peak_c);
    pipe_tb_printf(b, "<h4>%s %d \xc2\xb7 ", kind, g->index);
    h(b, g->name);
    pipe_tb_printf(b, "</h4>\n<p class=\"stat\">utilization mean <b>%s</b> \xc2\xb7 peak <b>%s</b> \xc2\xb7 memory "
                      "peak <b>%s</b>%s%s%s <span class=\"muted\">(%zu sample%s)</span></p>\n",
                   m, p, used, neuron ? "" : " of ", neuron ? "" : total, extra, g->utilization.n,
                   g->utilization.n == 1 ? "" : "s");
    pipe_tb_printf(b, "<div class=\"grid\">\n<figure><figcaption><b>Utilization</b> (%% of the time %s)"
                      "</figcaption>\n",
                   neuron ? "the core was busy" : "a kernel ran");
    snprintf(title, sizeof title, "utilization of %s %d (%s) during %s", kind, g->index, g->name, inv->id);
    snprintf(ref, sizeof ref, "mean %s", m);
    pipe_chart_series su = {g->utilization.t, g->utilization.v, g->utilization.n,
                            pipe_report_palette[color % PIPE_REPORT_PALETTE_N], NULL};
    pipe_chart cu = {title, "time since the step started", PIPE_X_SECONDS, PIPE_Y_PERCENT, true, 100, true, mean, ref,
                     &su, 1};
    pipe_svg_line_chart(b, &cu);
    if (neuron) {
        pipe_tb_puts(b, "</figure>\n<figure><figcaption><b>Memory used</b> (the core's models and tensors)"
                        "</figcaption>\n");
    } else {
        pipe_tb_puts(b, "</figure>\n<figure><figcaption><b>Memory used</b> (of ");
        pipe_tb_puts(b, total);
        pipe_tb_puts(b, ")</figcaption>\n");
    }
    snprintf(title, sizeof title, "memory used on %s %d (%s) during %s", kind, g->index, g->name, inv->id);
    pipe_chart_series sm = {g->memory_used.t, g->memory_used.v, g->memory_used.n,
                            pipe_report_palette[(color + 3) % PIPE_REPORT_PALETTE_N], NULL};
    pipe_chart cm = {title, "time since the step started", PIPE_X_SECONDS, PIPE_Y_MIB, true, g->memory_total_mib, true,
                     NAN, NULL, &sm, 1};
    pipe_svg_line_chart(b, &cm);
    pipe_tb_puts(b, "</figure>\n</div>\n");
}

static void process_section(pipe_textbuf *b, const pipe_view_invocation *inv)
{
    const pipe_profile *p = &inv->profile;
    double cmean, cpeak, rmean, rpeak;
    char cm[16], cp[16], rp[32], title[256], ref[64];
    pipe_series_stats(&p->cpu, &cmean, &cpeak);
    pipe_series_stats(&p->rss, &rmean, &rpeak);
    percent(cmean, cm, sizeof cm);
    percent(cpeak, cp, sizeof cp);
    mib(rpeak, rp, sizeof rp);
    pipe_tb_printf(b, "<h4>Processes%s</h4>\n<p class=\"stat\">CPU mean <b>%s</b> \xc2\xb7 peak <b>%s</b> "
                      "<span class=\"muted\">of one core</span> \xc2\xb7 resident memory peak <b>%s</b> <span "
                      "class=\"muted\">(%zu sample%s)</span></p>\n",
                   inv->world > 1 ? " (all ranks together)" : "", cm, cp, rp, p->cpu.n, p->cpu.n == 1 ? "" : "s");
    pipe_tb_puts(b, "<div class=\"grid\">\n<figure><figcaption><b>CPU</b> (100% is one core)</figcaption>\n");
    snprintf(title, sizeof title, "CPU of %s's processes", inv->id);
    snprintf(ref, sizeof ref, "mean %s", cm);
    pipe_chart_series sc = {p->cpu.t, p->cpu.v, p->cpu.n, pipe_report_palette[2], NULL};
    pipe_chart cc = {title, "time since the step started", PIPE_X_SECONDS, PIPE_Y_PERCENT, true, 100, true, cmean,
                     ref, &sc, 1};
    pipe_svg_line_chart(b, &cc);
    pipe_tb_puts(b, "</figure>\n<figure><figcaption><b>Resident memory</b></figcaption>\n");
    snprintf(title, sizeof title, "resident memory of %s's processes", inv->id);
    pipe_chart_series sr = {p->rss.t, p->rss.v, p->rss.n, pipe_report_palette[3], NULL};
    pipe_chart cr = {title, "time since the step started", PIPE_X_SECONDS, PIPE_Y_MIB, true, 0, true, NAN, NULL, &sr,
                     1};
    pipe_svg_line_chart(b, &cr);
    pipe_tb_puts(b, "</figure>\n</div>\n");
}

static void profiles(pipe_textbuf *b, const pipe_run_view *v)
{
    size_t any = 0;
    for (size_t i = 0; i < v->n; i++)
        any += v->inv[i].profile.present;
    if (!any)
        return;
    pipe_tb_puts(b, "<h2>GPU profile</h2>\n");
    for (size_t i = 0; i < v->n; i++) {
        const pipe_view_invocation *inv = &v->inv[i];
        const pipe_profile *p = &inv->profile;
        if (!p->present)
            continue;
        double span = p->cpu.n ? p->cpu.t[p->cpu.n - 1] : p->ngpus && p->gpus[0].utilization.n
                                                             ? p->gpus[0].utilization.t[p->gpus[0].utilization.n - 1]
                                                             : 0;
        char d[32];
        seconds(span, d, sizeof d);
        pipe_tb_puts(b, "<h3>");
        h(b, inv->id);
        pipe_tb_puts(b, " <small>");
        if (inv->profile_interval_ms)
            pipe_tb_printf(b, "sampled every %llu ms, ", (unsigned long long)inv->profile_interval_ms);
        pipe_tb_printf(b, "over %s; data in ", d);
        h(b, inv->dir);
        pipe_tb_puts(b, "/profile/</small></h3>\n");
        if (p->nneuron_cores == 0 && p->neuron_unavailable) {
            pipe_tb_puts(b, "<p><b>No Neuron samples:</b> ");
            h(b, p->neuron_unavailable);
            pipe_tb_puts(b, ". The processes were sampled.</p>\n");
        } else if (p->ngpus == 0 && p->nneuron_cores == 0) {
            pipe_tb_puts(b, "<p><b>No GPU samples:</b> ");
            h(b, p->gpu_unavailable ? p->gpu_unavailable : "none were recorded");
            pipe_tb_puts(b, ". The processes were sampled.</p>\n");
        }
        for (size_t g = 0; g < p->ngpus; g++)
            gpu_section(b, inv, &p->gpus[g], g, false);
        for (size_t c = 0; c < p->nneuron_cores; c++)
            gpu_section(b, inv, &p->neuron_cores[c], c, true);
        process_section(b, inv);
    }
}

/* ---- logs ---- */

static void logs(pipe_textbuf *b, const pipe_run_view *v)
{
    pipe_tb_printf(b, "<h2>Logs</h2>\n<p class=\"muted\">The last %d lines of each (all of it: <code>",
                   PIPE_VIEW_LOG_LINES);
    /* The command as the user types it: with the run's --store. */
    char *cmd = pipe_followup(v->store, "logs", v->run_id, "INVOCATION", (const char *)NULL);
    h(b, cmd ? cmd : "logs RUN INVOCATION");
    free(cmd);
    pipe_tb_puts(b, "</code>).</p>\n");
    for (size_t i = 0; i < v->n; i++) {
        const pipe_view_invocation *inv = &v->inv[i];
        if (!inv->log_tail)
            continue;
        bool failed = inv->rec && inv->rec->status == PIPE_STEP_FAILED;
        pipe_tb_printf(b, "<details%s><summary>", failed ? " open" : "");
        h(b, inv->id);
        pipe_tb_printf(b, " <small class=\"%s\">%s</small></summary><pre>", pipe_report_status_class(inv),
                       pipe_view_status(inv));
        h(b, inv->log_tail);
        pipe_tb_puts(b, "</pre></details>\n");
    }
}

/* ---- the page ---- */

static void page(pipe_textbuf *b, const pipe_run_view *v)
{
    char stamp[40];
    pipe_iso8601(stamp, sizeof stamp);
    pipe_tb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    h(b, v->info->pipeline);
    pipe_tb_puts(b, " \xc2\xb7 run ");
    h(b, v->run_id);
    pipe_tb_printf(b, " \xc2\xb7 %s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n",
                   pipe_run_state_name(v->state), pipe_report_css);
    header(b, v);
    root_cause(b, v);
    parameters(b, v);
    pipe_tb_puts(b, "<h2>Graph</h2>\n");
    pipe_report_graph(b, v);
    invocations(b, v);
    metrics(b, v);
    pipe_report_media_section(b, v);
    profiles(b, v);
    logs(b, v);
    pipe_tb_puts(b, "<footer>Written by <code>report</code> at ");
    h(b, stamp);
    pipe_tb_puts(b, " from ");
    h(b, v->run_dir);
    pipe_tb_puts(b, ". Self-contained: nothing on this page comes from elsewhere.</footer>\n</main>\n</body>\n"
                    "</html>\n");
}

int pipe_report_write(const pipe_run_view *v, const char *path)
{
    pipe_textbuf b = {0};
    char *own = path ? NULL : pipe_asprintf("%s/report.html", v->run_dir);
    page(&b, v);
    int status = pipe_report_publish(&b, path ? path : own);
    if (status == PIPE_EXIT_OK && strcmp(path ? path : own, "-") != 0)
        printf("report of run %s (%s): %s\n", v->run_id, pipe_run_state_name(v->state), path ? path : own);
    free(own);
    return status;
}
