/* The report's shared pieces (report_page.h). */
#include "report_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/cli.h"
#include "util/util.h"

const char *const pipe_report_palette[PIPE_REPORT_PALETTE_N] = {"#2563eb", "#dc2626", "#059669",
                                                                "#9333ea", "#ea580c", "#0891b2"};

const char pipe_report_css[] =
    ":root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--done:#1a7f37;--done-bg:#dafbe1;"
    "--cached:#0969da;--cached-bg:#ddf4ff;--failed:#cf222e;--failed-bg:#ffebe9;--notrun:#6e7781;--notrun-bg:#eaeef2}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;color:var(--fg);background:#fff;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
    "'Helvetica Neue',Arial,sans-serif}\n"
    "main{max-width:1240px;margin:0 auto;padding:20px 24px 40px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;padding-bottom:4px;"
    "border-bottom:1px solid var(--line)}h3{font-size:15px;margin:18px 0 6px}h4{font-size:14px;margin:12px 0 4px}\n"
    ".muted,small{color:var(--muted)}code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"
    "'Liberation Mono',monospace;font-size:12.5px}\n"
    ".verdict{display:flex;flex-wrap:wrap;gap:6px 18px;align-items:baseline;margin:6px 0 0}\n"
    ".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;font-size:12.5px;"
    "border:1px solid currentColor}\n"
    ".done{color:var(--done)}.cached{color:var(--cached)}.failed{color:var(--failed)}.notrun{color:var(--notrun)}"
    ".running{color:#9a6700}.interrupted{color:#9a6700}\n"
    ".badge.done{background:var(--done-bg)}.badge.cached{background:var(--cached-bg)}"
    ".badge.failed{background:var(--failed-bg)}.badge.notrun{background:var(--notrun-bg)}"
    ".badge.running,.badge.interrupted{background:#fff8c5}\n"
    ".cause{border:1px solid var(--failed);border-left:6px solid var(--failed);background:#fff8f7;"
    "border-radius:6px;padding:10px 16px;margin:18px 0}\n.cause h2{border:0;margin:4px 0 6px;color:var(--failed)}\n"
    "pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;"
    "white-space:pre-wrap;word-break:break-all;margin:6px 0}\n"
    "table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:5px 8px;"
    "border-bottom:1px solid var(--line)}th{background:var(--soft);font-weight:600;font-size:13px}\n"
    ".params{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:0 18px;margin:0}"
    ".params div{display:flex;gap:10px;padding:4px 8px;border-bottom:1px solid var(--line)}.params dt{font-weight:600}"
    ".params dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace;"
    "font-size:12.5px;overflow-wrap:anywhere}\n"
    "table.values{width:auto;min-width:320px}table.values td,table.values th{padding-right:24px}"
    "th.num{text-align:right}\n"
    "td.num{text-align:right;white-space:nowrap}.art{white-space:nowrap}.art code{color:var(--muted)}\n"
    ".scroll{overflow-x:auto}.scroll.tall{max-height:640px;overflow-y:auto;border:1px solid var(--line)}"
    ".scroll.tall th{position:sticky;top:0}\n"
    "svg.graph{max-width:100%;height:auto;display:block}\n"
    ".graph .node rect{stroke-width:1.5}.graph .node .name{font-weight:600;font-size:13px;fill:var(--fg)}"
    ".graph .node .sub{font-size:11.5px;fill:var(--muted)}\n"
    ".graph .done rect{fill:var(--done-bg);stroke:var(--done)}.graph .cached rect{fill:var(--cached-bg);"
    "stroke:var(--cached)}.graph .failed rect{fill:var(--failed-bg);stroke:var(--failed)}"
    ".graph .notrun rect{fill:var(--notrun-bg);stroke:var(--notrun);stroke-dasharray:4 3}"
    ".graph .running rect{fill:#fff8c5;stroke:#9a6700}\n"
    ".graph rect.bar{stroke:none}.graph rect.bar.done{fill:var(--done)}.graph rect.bar.cached{fill:var(--cached)}"
    ".graph rect.bar.failed{fill:var(--failed)}.graph rect.bar.notrun{fill:var(--notrun)}"
    ".graph rect.bar.running{fill:#9a6700}\n"
    ".edge{fill:none;stroke:#8c959f;stroke-width:1.3;marker-end:url(#arrow)}.arrowhead{fill:#8c959f}\n"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(470px,1fr));gap:14px 22px}\n"
    "figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px 10px 4px}\n"
    "figcaption{font-size:13px;margin-bottom:2px}figcaption b{font-size:14px}\n"
    "svg.chart{width:100%;height:auto;display:block}\n"
    ".chart .grid{stroke:#eaeef2;stroke-width:1}.chart .axis{stroke:#8c959f;stroke-width:1}"
    ".chart .tick{font-size:11px;fill:var(--muted)}.chart .label{font-size:11.5px;fill:var(--muted)}"
    ".chart .line{fill:none;stroke-width:1.8;stroke-linejoin:round}.chart .area{opacity:.14;stroke:none}"
    ".chart .ref{stroke:#57606a;stroke-dasharray:5 4;stroke-width:1}.chart .reflabel{font-size:11.5px;fill:#3d444d;"
    "paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round;"
    "font-weight:600}.chart .value{font-size:12px;font-weight:600;fill:var(--fg)}.chart .frame{fill:var(--soft);"
    "stroke:var(--line)}.chart .empty{fill:var(--muted);font-size:13px}\n"
    ".stat{font-size:15px;margin:2px 0 8px}.stat b{font-size:19px}\n"
    
    ".timeline{width:150px;height:12px;display:block}.timeline rect.bg{fill:var(--soft)}\n"
    ".timeline rect.done{fill:var(--done)}.timeline rect.cached{fill:var(--cached)}"
    ".timeline rect.failed{fill:var(--failed)}\n"
    "details{border:1px solid var(--line);border-radius:6px;padding:4px 10px;margin:6px 0}"
    "summary{cursor:pointer;font-weight:600}\n"
    "footer{margin-top:36px;color:var(--muted);font-size:12px}\n"
    ".media{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:12px 16px;margin:6px 0 12px;"
    "align-items:start}"
    ".media img{display:block;max-width:100%;height:auto;margin:4px auto}"
    ".media img.small{width:100%;max-width:240px;image-rendering:pixelated}\n"
    "figure.table{margin:8px 0 12px}table.logged{width:auto;min-width:320px}table.logged td{font-size:13px}"
    ".refused{color:var(--failed);font-size:13px;overflow-wrap:anywhere}.reason{color:#9a6700}\n";

/* A point's step and where it came: sorted by both, a step given twice
   keeps both points in the order they were written. */
typedef struct step_at {
    int64_t step;
    size_t i;
} step_at;

static int by_step(const void *a, const void *b)
{
    const step_at *p = a, *q = b;
    return p->step < q->step ? -1 : p->step > q->step ? 1 : p->i < q->i ? -1 : p->i > q->i;
}

int pipe_report_metric_arrays(const pipe_metric_series *s, double **x, double **y)
{
    step_at *idx = malloc((s->n + 1) * sizeof *idx);
    *x = malloc((s->n + 1) * sizeof **x);
    *y = malloc((s->n + 1) * sizeof **y);
    if (!idx || !*x || !*y) {
        free(idx);
        free(*x);
        free(*y);
        *x = *y = NULL;
        return PIPE_ENOMEM;
    }
    /* n log n whatever the order (an insertion pass was n^2 on steps
       written backwards). */
    for (size_t i = 0; i < s->n; i++)
        idx[i] = (step_at){s->points[i].step, i};
    qsort(idx, s->n, sizeof *idx, by_step);
    for (size_t i = 0; i < s->n; i++) {
        (*x)[i] = (double)idx[i].step;
        (*y)[i] = s->points[idx[i].i].value;
    }
    free(idx);
    return 0;
}

int pipe_report_publish(pipe_textbuf *page, const char *path)
{
    char err[1024];
    size_t len = 0;
    char *text = pipe_tb_take(page, &len);
    int status = PIPE_EXIT_OK;
    if (!text || !path) {
        pipe_cli_error("out of memory");
        status = PIPE_EXIT_USAGE;
    } else if (strcmp(path, "-") == 0) {
        status = fwrite(text, 1, len, stdout) == len ? PIPE_EXIT_OK : PIPE_EXIT_FAILED;
    } else if (pipe_write_file_atomic(path, text, len, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        status = PIPE_EXIT_FAILED;
    }
    pipe_tb_free(page);
    free(text);
    return status;
}

void pipe_report_status_notes(pipe_textbuf *b, const pipe_step_record *r)
{
    if (r && r->status == PIPE_STEP_CACHED && r->cached_from) {
        pipe_tb_puts(b, "<br><small>from ");
        pipe_tb_html(b, r->cached_from);
        pipe_tb_puts(b, "</small>");
    }
    if (r && r->rerun) {
        pipe_tb_puts(b, "<br><small class=\"reason\">re-run: ");
        pipe_tb_html(b, r->rerun);
        pipe_tb_puts(b, "</small>");
    }
    if (r && (r->status == PIPE_STEP_FAILED || r->status == PIPE_STEP_INTERRUPTED)) {
        if (r->has_exit_code)
            pipe_tb_printf(b, "<br><small>exit %d</small>", r->exit_code);
        else if (r->signal) {
            pipe_tb_puts(b, "<br><small>");
            pipe_tb_html(b, r->signal);
            pipe_tb_puts(b, "</small>");
        }
    }
    if (r && r->attempts > 1)
        pipe_tb_printf(b, "<br><small>%d attempts</small>", r->attempts);
}
