/* The summaries that `show` (text and --json) and the report share
   (history.h): a metric series in a few numbers, an artifact's size. A file
   of their own, below both history.c and history_json.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "history.h"
#include "pipe/human.h"

void pipe_metric_summarize(const pipe_metric_series *s, pipe_metric_summary *out)
{
    out->points = s->n;
    out->last = out->min = out->max = NAN;
    out->first_step = out->last_step = 0;
    for (size_t i = 0; i < s->n; i++) {
        const pipe_metric_point *p = &s->points[i];
        if (i == 0 || p->step < out->first_step)
            out->first_step = p->step;
        if (i == 0 || p->step > out->last_step)
            out->last_step = p->step;
        if (!isfinite(p->value))
            continue;
        if (!(p->value >= out->min))
            out->min = p->value;
        if (!(p->value <= out->max))
            out->max = p->value;
    }
    if (s->n > 0)
        out->last = s->points[s->n - 1].value;
}

void pipe_artifact_size_text(const char *path, char *buf, size_t size)
{
    long long bytes = path ? pipe_path_size(path) : -1;
    if (bytes < 0)
        snprintf(buf, size, "missing");
    else
        pipe_format_size_human((uint64_t)bytes, buf, size);
}

int pipe_run_metric_value(const pipe_run_view *v, const char *name, double *value, const char **invocation,
                          size_t *count)
{
    *count = 0;
    for (size_t i = 0; i < v->n; i++) {
        const pipe_step_record *r = v->inv[i].rec;
        for (size_t k = 0; r && k < r->nmetrics; k++)
            if (strcmp(r->metrics[k].name, name) == 0) {
                *value = r->metrics[k].value;
                *invocation = v->inv[i].id;
                ++*count;
            }
    }
    return *count ? 0 : -1;
}
