/* Several runs side by side on one self-contained
   page (docs/report.md, "Comparing runs"): the runs, their parameters
   (those that differ marked), each invocation's status and duration per
   run and why a step ran again, each metric's last, minimum and maximum
   per run with a chart of the runs overlaid (one colour per run), and the
   images and tables each run logged. Same style sheet as the report. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "pipe/human.h"
#include "report.h"
#include "report_graph.h"
#include "report_media.h"
#include "report_page.h"
#include "report_svg.h"
#include "util/cli.h"
#include "util/util.h"

/* A file name made of the ids longer than this uses a digest instead. */
#define NAME_MAX_IDS 120

static const char compare_css[] =
    ".swatch{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;vertical-align:-1px}\n"
    "tr.differs td,tr.differs th{background:#fff8c5}.differs .mark{color:#9a6700;font-weight:700}\n"
    "table.cmp{width:auto;min-width:480px}table.cmp td,table.cmp th{white-space:nowrap;padding-right:22px}"
    "table.cmp td.wrap{white-space:normal}\n"
    ".side{display:grid;gap:12px 18px}\n";

typedef struct runs {
    const pipe_run_view *v[PIPE_REPORT_COMPARE_MAX];
    char label[PIPE_REPORT_COMPARE_MAX][24]; /* for legends: the id's random part */
    size_t n;
} runs;

static void h(pipe_textbuf *b, const char *s) { pipe_tb_html(b, s ? s : ""); }

static const char *color(size_t r) { return pipe_report_palette[r % PIPE_REPORT_PALETTE_N]; }

static void swatch(pipe_textbuf *b, size_t r)
{
    pipe_tb_printf(b, "<span class=\"swatch\" style=\"background:%s\"></span>", color(r));
}

static void run_head(pipe_textbuf *b, const runs *R)
{
    pipe_tb_puts(b, "<th></th>");
    for (size_t r = 0; r < R->n; r++) {
        pipe_tb_puts(b, "<th>");
        swatch(b, r);
        h(b, R->v[r]->run_id);
        pipe_tb_puts(b, "</th>");
    }
}

static void seconds(double s, char *buf, size_t size)
{
    if (isfinite(s) && s >= 0)
        pipe_format_seconds(s, buf, size);
    else
        snprintf(buf, size, "-");
}

/* ---- the runs ---- */

static void overview(pipe_textbuf *b, const runs *R)
{
    pipe_tb_puts(b, "<h2>Runs</h2>\n<div class=\"scroll\"><table class=\"cmp\"><thead><tr><th>Run</th><th>Status</th>"
                    "<th class=\"num\">Duration</th><th>Started</th><th>Invocations</th></tr></thead><tbody>\n");
    for (size_t r = 0; r < R->n; r++) {
        const pipe_run_view *v = R->v[r];
        const char *state = pipe_run_state_name(v->state);
        char d[32];
        seconds(v->duration_s, d, sizeof d);
        size_t done = 0, cached = 0, failed = 0;
        for (size_t i = 0; i < v->n; i++) {
            const char *s = pipe_view_status(&v->inv[i]);
            done += strcmp(s, "done") == 0;
            cached += strcmp(s, "cached") == 0;
            failed += strcmp(s, "failed") == 0;
        }
        pipe_tb_puts(b, "<tr><td>");
        swatch(b, r);
        pipe_tb_puts(b, "<b>");
        h(b, v->run_id);
        pipe_tb_printf(b, "</b></td><td><span class=\"badge %s\">%s</span></td><td class=\"num\">%s</td><td>",
                       v->state == PIPE_RUN_SUCCEEDED ? "done" : v->state == PIPE_RUN_FAILED ? "failed" : state, state,
                       d);
        h(b, v->info->started ? v->info->started : "?");
        pipe_tb_printf(b, "</td><td>%zu: %zu done, %zu cached, %zu failed</td></tr>\n", v->n, done, cached, failed);
    }
    pipe_tb_puts(b, "</tbody></table></div>\n");
}

/* ---- parameters ---- */

static const char *param_of(const pipe_run_view *v, const char *name)
{
    for (size_t i = 0; i < v->info->nparams; i++)
        if (strcmp(v->info->params[i].key, name) == 0)
            return v->info->params[i].value;
    return NULL;
}

/* Whether name was seen in an earlier run's parameters (or earlier in
   run r's), so that each name is one row. */
static bool param_seen(const runs *R, size_t r, size_t i)
{
    const char *name = R->v[r]->info->params[i].key;
    for (size_t q = 0; q <= r; q++)
        for (size_t k = 0; k < (q == r ? i : R->v[q]->info->nparams); k++)
            if (strcmp(R->v[q]->info->params[k].key, name) == 0)
                return true;
    return false;
}

static void parameters(pipe_textbuf *b, const runs *R)
{
    size_t rows = 0, differ = 0;
    pipe_textbuf t = {0};
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->info->nparams; i++) {
            if (param_seen(R, r, i))
                continue;
            const char *name = R->v[r]->info->params[i].key, *first = param_of(R->v[0], name);
            bool same = true;
            for (size_t q = 1; q < R->n; q++) {
                const char *val = param_of(R->v[q], name);
                same &= (!first && !val) || (first && val && strcmp(first, val) == 0);
            }
            rows++;
            differ += !same;
            pipe_tb_puts(&t, same ? "<tr><th>" : "<tr class=\"differs\"><th><span class=\"mark\" title=\"differs\">"
                                                 "\xe2\x89\xa0</span> ");
            h(&t, name);
            pipe_tb_puts(&t, "</th>");
            for (size_t q = 0; q < R->n; q++) {
                const char *val = param_of(R->v[q], name);
                pipe_tb_puts(&t, val ? "<td class=\"mono\">" : "<td class=\"muted\">");
                h(&t, val ? val : "(not set)");
                pipe_tb_puts(&t, "</td>");
            }
            pipe_tb_puts(&t, "</tr>\n");
        }
    pipe_tb_printf(b, "<h2>Parameters</h2>\n<p>%zu of %zu differ%s.</p>\n", differ, rows,
                   differ ? " (marked \xe2\x89\xa0)" : "");
    if (rows) {
        pipe_tb_puts(b, "<div class=\"scroll\"><table class=\"cmp\"><thead><tr>");
        run_head(b, R);
        pipe_tb_puts(b, "</tr></thead><tbody>\n");
        size_t len = 0;
        char *text = pipe_tb_take(&t, &len);
        if (text)
            pipe_tb_append(b, text, len);
        else
            b->oom = true;
        free(text);
        pipe_tb_puts(b, "</tbody></table></div>\n");
    }
    pipe_tb_free(&t);
}

/* ---- invocations ---- */

/* Each invocation id once, in the order of the runs that have it. Returns
   the index in run r of the invocation id, -1 when run r has none. */
static long inv_in(const runs *R, size_t r, const char *id) { return pipe_run_view_find(R->v[r], id); }

static bool inv_seen(const runs *R, size_t r, size_t i)
{
    for (size_t q = 0; q < r; q++)
        if (inv_in(R, q, R->v[r]->inv[i].id) >= 0)
            return true;
    return false;
}

static void inv_cell(pipe_textbuf *b, const pipe_run_view *v, long i)
{
    if (i < 0) {
        pipe_tb_puts(b, "<td class=\"muted\">not in this run</td>");
        return;
    }
    const pipe_view_invocation *inv = &v->inv[i];
    const pipe_step_record *r = inv->rec;
    char d[32];
    seconds(r ? r->duration_s : NAN, d, sizeof d);
    pipe_tb_printf(b, "<td class=\"wrap\"><span class=\"badge %s\">%s</span>", pipe_report_status_class(inv),
                   pipe_view_status(inv));
    if (r)
        pipe_tb_printf(b, " %s", d);
    pipe_report_status_notes(b, r);
    pipe_tb_puts(b, "</td>");
}

static void invocations(pipe_textbuf *b, const runs *R)
{
    pipe_tb_puts(b, "<h2>Invocations</h2>\n<div class=\"scroll\"><table class=\"cmp\"><thead><tr>");
    run_head(b, R);
    pipe_tb_puts(b, "</tr></thead><tbody>\n");
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++) {
            if (inv_seen(R, r, i))
                continue;
            const char *id = R->v[r]->inv[i].id;
            pipe_tb_puts(b, "<tr><th>");
            h(b, id);
            pipe_tb_puts(b, "</th>");
            for (size_t q = 0; q < R->n; q++)
                inv_cell(b, R->v[q], inv_in(R, q, id));
            pipe_tb_puts(b, "</tr>\n");
        }
    pipe_tb_puts(b, "</tbody></table></div>\n");
    /* Why a step ran again though an earlier success of it existed: the
       parts of the cache key that differ, as the run recorded them. */
    size_t reruns = 0;
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++)
            reruns += R->v[r]->inv[i].rec && R->v[r]->inv[i].rec->rerun;
    pipe_tb_puts(b, "<h3>Cache misses</h3>\n");
    if (!reruns) {
        pipe_tb_puts(b, "<p class=\"muted\">No step ran again where an earlier success of it existed.</p>\n");
        return;
    }
    pipe_tb_puts(b, "<ul>\n");
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++) {
            const pipe_step_record *rec = R->v[r]->inv[i].rec;
            if (!rec || !rec->rerun)
                continue;
            pipe_tb_puts(b, "<li>");
            swatch(b, r);
            h(b, R->v[r]->run_id);
            pipe_tb_puts(b, ": <b>");
            h(b, R->v[r]->inv[i].id);
            pipe_tb_puts(b, "</b> ran again: <span class=\"reason\">");
            h(b, rec->rerun);
            pipe_tb_puts(b, "</span>");
            if (rec->rerun_of) {
                pipe_tb_puts(b, " <small class=\"muted\">(earlier success: ");
                h(b, rec->rerun_of);
                pipe_tb_puts(b, ")</small>");
            }
            pipe_tb_puts(b, "</li>\n");
        }
    pipe_tb_puts(b, "</ul>\n");
}

/* ---- metrics ---- */

static const pipe_metric_series *series_of(const pipe_run_view *v, const char *inv, const char *name)
{
    long i = pipe_run_view_find(v, inv);
    if (i < 0)
        return NULL;
    return pipe_metrics_find(&v->inv[i].metrics, name);
}

/* Whether (invocation, metric) was seen in an earlier run or earlier in run r. */
static bool metric_seen(const runs *R, size_t r, size_t i, size_t k)
{
    const char *inv = R->v[r]->inv[i].id, *name = R->v[r]->inv[i].metrics.series[k].name;
    for (size_t q = 0; q < r; q++)
        if (series_of(R->v[q], inv, name))
            return true;
    /* Constant time: a run of a million names is compared in n, not n^2. */
    return pipe_metrics_find(&R->v[r]->inv[i].metrics, name) != &R->v[r]->inv[i].metrics.series[k];
}

static void metric_figure(pipe_textbuf *b, const runs *R, const char *inv, const char *name)
{
    const pipe_metric_series *s[PIPE_REPORT_COMPARE_MAX];
    bool chart = false;
    for (size_t r = 0; r < R->n; r++) {
        s[r] = series_of(R->v[r], inv, name);
        chart |= s[r] && s[r]->n > 1;
    }
    pipe_tb_puts(b, "<figure><figcaption><b>");
    h(b, name);
    pipe_tb_puts(b, "</b> <span class=\"muted\">of ");
    h(b, inv);
    pipe_tb_puts(b, "</span></figcaption>\n<table class=\"cmp values\"><thead><tr><th>Run</th><th class=\"num\">last"
                    "</th><th class=\"num\">min</th><th class=\"num\">max</th><th class=\"num\">values</th></tr>"
                    "</thead><tbody>\n");
    for (size_t r = 0; r < R->n; r++) {
        pipe_tb_puts(b, "<tr><td>");
        swatch(b, r);
        h(b, R->label[r]);
        pipe_tb_puts(b, "</td>");
        if (!s[r]) {
            pipe_tb_puts(b, "<td class=\"muted\" colspan=\"4\">not recorded</td></tr>\n");
            continue;
        }
        pipe_metric_summary sum;
        pipe_metric_summarize(s[r], &sum);
        char last[64], lo[64], hi[64];
        pipe_format_short(sum.last, last, sizeof last);
        pipe_format_short(sum.min, lo, sizeof lo);
        pipe_format_short(sum.max, hi, sizeof hi);
        pipe_tb_printf(b, "<td class=\"num\"><b>%s</b></td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
                          "<td class=\"num\">%zu</td></tr>\n",
                       last, lo, hi, s[r]->n);
    }
    pipe_tb_puts(b, "</tbody></table>\n");
    if (chart) {
        pipe_chart_series se[PIPE_REPORT_COMPARE_MAX];
        double *xs[PIPE_REPORT_COMPARE_MAX] = {0}, *ys[PIPE_REPORT_COMPARE_MAX] = {0};
        size_t n = 0;
        for (size_t r = 0; r < R->n; r++) {
            if (!s[r])
                continue;
            if (pipe_report_metric_arrays(s[r], &xs[r], &ys[r]) != 0) {
                b->oom = true;
                continue;
            }
            se[n++] = (pipe_chart_series){xs[r], ys[r], s[r]->n, color(r), R->label[r]};
        }
        char title[512];
        snprintf(title, sizeof title, "%s of %s over its steps, one line per run", name, inv);
        pipe_chart c = {title, "step", PIPE_X_STEP, PIPE_Y_PLAIN, false, 0, false, NAN, NULL, se, n};
        pipe_svg_line_chart(b, &c);
        for (size_t r = 0; r < R->n; r++) {
            free(xs[r]);
            free(ys[r]);
        }
    }
    pipe_tb_puts(b, "</figure>\n");
}

/* Whether a metric has a chart: some run recorded it more than once. */
static bool metric_charted(const runs *R, const char *inv, const char *name)
{
    for (size_t r = 0; r < R->n; r++) {
        const pipe_metric_series *s = series_of(R->v[r], inv, name);
        if (s && s->n > 1)
            return true;
    }
    return false;
}

/* Metrics recorded once per run: one table, a row each, a column per run
   (a row whose values differ marked). */
static void single_values(pipe_textbuf *b, const runs *R)
{
    bool any = false;
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++)
            for (size_t k = 0; k < R->v[r]->inv[i].metrics.n; k++) {
                const char *inv = R->v[r]->inv[i].id, *name = R->v[r]->inv[i].metrics.series[k].name;
                if (metric_seen(R, r, i, k) || metric_charted(R, inv, name))
                    continue;
                if (!any) {
                    pipe_tb_puts(b, "<h3>Values recorded once</h3>\n<div class=\"scroll\"><table class=\"cmp\"><thead>"
                                    "<tr>");
                    run_head(b, R);
                    pipe_tb_puts(b, "</tr></thead><tbody>\n");
                }
                any = true;
                char cells[PIPE_REPORT_COMPARE_MAX][64];
                bool same = true;
                for (size_t q = 0; q < R->n; q++) {
                    const pipe_metric_series *s = series_of(R->v[q], inv, name);
                    if (s && s->n)
                        pipe_format_short(s->points[s->n - 1].value, cells[q], sizeof cells[q]);
                    else
                        snprintf(cells[q], sizeof cells[q], "-");
                    same &= strcmp(cells[q], cells[0]) == 0;
                }
                pipe_tb_puts(b, same ? "<tr><th>"
                                     : "<tr class=\"differs\"><th><span class=\"mark\">\xe2\x89\xa0</span> ");
                h(b, name);
                pipe_tb_puts(b, " <span class=\"muted\">of ");
                h(b, inv);
                pipe_tb_puts(b, "</span></th>");
                for (size_t q = 0; q < R->n; q++)
                    pipe_tb_printf(b, "<td class=\"num\">%s</td>", cells[q]);
                pipe_tb_puts(b, "</tr>\n");
            }
    if (any)
        pipe_tb_puts(b, "</tbody></table></div>\n");
}

static void metrics(pipe_textbuf *b, const runs *R)
{
    pipe_tb_puts(b, "<h2>Metrics</h2>\n");
    size_t any = 0;
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++)
            any += R->v[r]->inv[i].metrics.n;
    if (!any) {
        pipe_tb_puts(b, "<p class=\"muted\">No run recorded a metric.</p>\n");
        return;
    }
    pipe_tb_puts(b, "<div class=\"grid\">\n");
    size_t left_out = 0;
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++) {
            size_t drawn = 0;
            for (size_t k = 0; k < R->v[r]->inv[i].metrics.n; k++) {
                const char *inv = R->v[r]->inv[i].id, *name = R->v[r]->inv[i].metrics.series[k].name;
                if (metric_seen(R, r, i, k) || !metric_charted(R, inv, name))
                    continue;
                if (drawn++ < PIPE_REPORT_MAX_CHARTS)
                    metric_figure(b, R, inv, name);
                else
                    left_out++;
            }
        }
    pipe_tb_puts(b, "</div>\n");
    if (left_out)
        pipe_tb_printf(b, "<p class=\"muted\">%zu more metrics not drawn (at most %d charts an invocation).</p>\n",
                       left_out, PIPE_REPORT_MAX_CHARTS);
    single_values(b, R);
}

/* ---- images and tables, a column per run ---- */

static void media(pipe_textbuf *b, const runs *R)
{
    bool heading = false;
    for (size_t r = 0; r < R->n; r++)
        for (size_t i = 0; i < R->v[r]->n; i++) {
            if (inv_seen(R, r, i))
                continue;
            const char *id = R->v[r]->inv[i].id;
            bool any = false;
            for (size_t q = 0; q < R->n; q++) {
                long k = inv_in(R, q, id);
                any |= k >= 0 && pipe_report_has_media(R->v[q], &R->v[q]->inv[k]);
            }
            if (!any)
                continue;
            if (!heading)
                pipe_tb_puts(b, "<h2>Images and tables</h2>\n");
            heading = true;
            pipe_tb_puts(b, "<h3>");
            h(b, id);
            pipe_tb_printf(b, "</h3>\n<div class=\"side\" style=\"grid-template-columns:repeat(%zu,minmax(0,1fr))\">\n",
                           R->n);
            for (size_t q = 0; q < R->n; q++) {
                long k = inv_in(R, q, id);
                pipe_tb_puts(b, "<div><h4>");
                swatch(b, q);
                h(b, R->v[q]->run_id);
                pipe_tb_puts(b, "</h4>\n");
                if (k >= 0 && pipe_report_has_media(R->v[q], &R->v[q]->inv[k]))
                    pipe_report_media(b, R->v[q], &R->v[q]->inv[k]);
                else
                    pipe_tb_puts(b, "<p class=\"muted\">none logged</p>\n");
                pipe_tb_puts(b, "</div>\n");
            }
            pipe_tb_puts(b, "</div>\n");
        }
}

/* ---- the page ---- */

static void page(pipe_textbuf *b, const runs *R)
{
    char stamp[40];
    pipe_iso8601(stamp, sizeof stamp);
    const char *pipeline = R->v[0]->info->pipeline;
    pipe_tb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    h(b, pipeline);
    pipe_tb_printf(b, " \xc2\xb7 %zu runs compared</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<main>\n", R->n,
                   pipe_report_css, compare_css);
    pipe_tb_puts(b, "<header><h1>Pipeline ");
    h(b, pipeline);
    pipe_tb_printf(b, " <span class=\"muted\">%zu runs compared</span></h1>\n<p class=\"verdict\">", R->n);
    for (size_t r = 0; r < R->n; r++) {
        pipe_tb_puts(b, "<span>");
        swatch(b, r);
        h(b, R->v[r]->run_id);
        pipe_tb_puts(b, "</span>");
    }
    pipe_tb_puts(b, "</p></header>\n");
    for (size_t r = 1; r < R->n; r++)
        if (strcmp(R->v[r]->info->pipeline ? R->v[r]->info->pipeline : "", pipeline ? pipeline : "") != 0) {
            pipe_tb_puts(b, "<p class=\"reason\">Run ");
            h(b, R->v[r]->run_id);
            pipe_tb_puts(b, " is of another pipeline, ");
            h(b, R->v[r]->info->pipeline);
            pipe_tb_puts(b, ".</p>\n");
        }
    overview(b, R);
    parameters(b, R);
    metrics(b, R);
    invocations(b, R);
    media(b, R);
    pipe_tb_puts(b, "<footer>Written by <code>report</code> at ");
    h(b, stamp);
    pipe_tb_puts(b, " from ");
    h(b, R->v[0]->store);
    pipe_tb_puts(b, ". Self-contained: nothing on this page comes from elsewhere.</footer>\n</main>\n</body>\n"
                    "</html>\n");
}

/* STORE/compare-ID1-ID2-....html, or with many long ids
   compare-ID1-and-N-more-DIGEST.html (FNV-1a of the ids). */
static char *default_path(const runs *R)
{
    size_t len = 0;
    for (size_t r = 0; r < R->n; r++)
        len += strlen(R->v[r]->run_id) + 1;
    if (len <= NAME_MAX_IDS) {
        pipe_textbuf t = {0};
        pipe_tb_printf(&t, "%s/compare", R->v[0]->store);
        for (size_t r = 0; r < R->n; r++)
            pipe_tb_printf(&t, "-%s", R->v[r]->run_id);
        pipe_tb_puts(&t, ".html");
        return pipe_tb_take(&t, &len);
    }
    uint32_t d = 2166136261u;
    for (size_t r = 0; r < R->n; r++)
        for (const char *c = R->v[r]->run_id; ; c++) {
            d = (d ^ (unsigned char)*c) * 16777619u;
            if (!*c)
                break;
        }
    return pipe_asprintf("%s/compare-%.60s-and-%zu-more-%08x.html", R->v[0]->store, R->v[0]->run_id, R->n - 1, d);
}

/* The legend's name of a run: an id as `run` makes them (DATE-TIME-RANDOM)
   by its random part, another by itself (cut to fit). */
static void legend_label(const char *id, char *buf, size_t size)
{
    const char *dash = strrchr(id, '-');
    size_t dashes = 0;
    for (const char *c = id; *c; c++)
        dashes += *c == '-';
    snprintf(buf, size, "%s", dashes >= 2 && dash[1] ? dash + 1 : id);
}

int pipe_report_compare_write(const pipe_run_view *const *views, size_t n, const char *path)
{
    runs R = {0};
    pipe_textbuf b = {0};
    for (; R.n < n && R.n < PIPE_REPORT_COMPARE_MAX; R.n++) {
        R.v[R.n] = views[R.n];
        legend_label(R.v[R.n]->run_id, R.label[R.n], sizeof R.label[R.n]);
    }
    char *own = path ? NULL : default_path(&R);
    page(&b, &R);
    int status = pipe_report_publish(&b, path ? path : own);
    if (status == PIPE_EXIT_OK && strcmp(path ? path : own, "-") != 0)
        printf("comparison of %zu runs: %s\n", R.n, path ? path : own);
    free(own);
    return status;
}
