#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pipe/error.h"
#include "pipe/human.h"
#include "util/util.h"

#define TTY_REDRAW_S 0.5

const char *pipe_pstate_name(pipe_pstate s)
{
    switch (s) {
    case PIPE_PS_QUEUED: return "queued";
    case PIPE_PS_STARTING: return "starting";
    case PIPE_PS_RUNNING: return "running";
    case PIPE_PS_DONE: return "done";
    case PIPE_PS_CACHED: return "cached";
    case PIPE_PS_FAILED: return "failed";
    case PIPE_PS_SKIPPED: return "skipped";
    case PIPE_PS_INTERRUPTED: return "interrupted";
    }
    return "?";
}

/* Whole seconds for the running-status lines: "30 s", "2m 05s". */
static void format_elapsed(double s, char *buf, size_t size)
{
    if (s < 60)
        snprintf(buf, size, "%d s", (int)s);
    else
        pipe_format_seconds(s, buf, size);
}

int pipe_progress_init(pipe_progress *p, FILE *out, bool tty, const char *const *ids, size_t n)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = tty;
    p->n = n;
    p->still_interval = 30;
    const char *env = getenv("PIPE_PROGRESS_INTERVAL");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        if (!*end && v > 0 && isfinite(v))
            p->still_interval = v;
    }
    if (n > 0 && !(p->items = calloc(n, sizeof *p->items)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        p->items[i].id = ids[i];
        int w = (int)strlen(ids[i]);
        if (w > p->width)
            p->width = w;
    }
    p->run_started = pipe_now();
    p->last_still = p->run_started;
    return 0;
}

void pipe_progress_free(pipe_progress *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].detail);
        free(p->items[i].cause);
        free(p->items[i].log);
    }
    free(p->items);
    p->items = NULL;
    p->n = 0;
}

static void clear_status(pipe_progress *p)
{
    if (p->status_shown) {
        fputs("\r\033[K", p->out);
        p->status_shown = false;
    }
}

static void print_state(pipe_progress *p, size_t i)
{
    const pipe_progress_item *it = &p->items[i];
    clear_status(p);
    fprintf(p->out, "  %-*s  %s", p->width, it->id, pipe_pstate_name(it->state));
    if (it->state == PIPE_PS_DONE) {
        char d[32];
        pipe_format_seconds(it->finished - it->started, d, sizeof d);
        fprintf(p->out, " (%s)", d);
    }
    if (it->detail && *it->detail)
        fprintf(p->out, it->state == PIPE_PS_SKIPPED ? ": %s" : " %s", it->detail);
    fputc('\n', p->out);
    fflush(p->out);
}

void pipe_progress_start(pipe_progress *p)
{
    for (size_t i = 0; i < p->n; i++)
        print_state(p, i);
}

void pipe_progress_set(pipe_progress *p, size_t i, pipe_pstate state, const char *detail)
{
    pipe_progress_item *it = &p->items[i];
    double now = pipe_now();
    it->state = state;
    if (state == PIPE_PS_RUNNING)
        it->started = now;
    else if (state != PIPE_PS_QUEUED)
        it->finished = now;
    if (state != PIPE_PS_RUNNING && it->started == 0)
        it->started = it->finished;
    free(it->detail);
    it->detail = detail ? pipe_strdup(detail) : NULL;
    if (state != PIPE_PS_STARTING)
        print_state(p, i);
}

void pipe_progress_cause(pipe_progress *p, size_t i, const char *cause, const char *log)
{
    pipe_progress_item *it = &p->items[i];
    free(it->cause);
    free(it->log);
    it->cause = cause ? pipe_strdup(cause) : NULL;
    it->log = log ? pipe_strdup(log) : NULL;
}

/* "ID failed: CAUSE" then the cause's other lines (its log tail), indented,
   and where the whole log is: one block per failed invocation. */
static void print_cause(const pipe_progress *p, const pipe_progress_item *it)
{
    const char *c = it->cause;
    size_t first = strcspn(c, "\n");
    fprintf(p->out, "%s failed: %.*s\n", it->id, (int)first, c);
    for (c += first; *c == '\n';) {
        c++;
        size_t n = strcspn(c, "\n");
        fprintf(p->out, "  %.*s\n", (int)n, c);
        c += n;
    }
    if (it->log)
        fprintf(p->out, "  log: %s\n", it->log);
}

void pipe_progress_metrics(pipe_progress *p, size_t i, const pipe_step_metric *metrics, size_t n)
{
    p->items[i].metrics = metrics;
    p->items[i].nmetrics = n;
}

void pipe_progress_line(pipe_progress *p, const char *text, size_t len)
{
    clear_status(p);
    fwrite(text, 1, len, p->out);
    if (len == 0 || text[len - 1] != '\n')
        fputc('\n', p->out);
    fflush(p->out);
}

/* "train 30 s, eval 2 s" into buf. */
static size_t running_list(const pipe_progress *p, double now, char *buf, size_t size)
{
    size_t used = 0, count = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->n && used < size; i++) {
        const pipe_progress_item *it = &p->items[i];
        if (it->state != PIPE_PS_RUNNING)
            continue;
        char d[32];
        format_elapsed(now - it->started, d, sizeof d);
        used += (size_t)snprintf(buf + used, size - used, "%s%s %s", count ? ", " : "", it->id, d);
        count++;
    }
    return count;
}

static int terminal_width(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
        return ws.ws_col;
    return 80;
}

void pipe_progress_tick(pipe_progress *p)
{
    double now = pipe_now();
    char list[1024];
    if (p->tty) {
        if (now - p->last_draw < TTY_REDRAW_S && p->status_shown)
            return;
        p->last_draw = now;
        size_t finished = 0;
        for (size_t i = 0; i < p->n; i++)
            finished += p->items[i].state >= PIPE_PS_DONE;
        if (running_list(p, now, list, sizeof list) == 0) {
            clear_status(p);
            fflush(p->out);
            return;
        }
        char total[32], line[1200];
        format_elapsed(now - p->run_started, total, sizeof total);
        int n = snprintf(line, sizeof line, "[%zu/%zu, %s] running: %s", finished, p->n, total, list);
        int width = terminal_width(p->out) - 1;
        if (n > width && width > 3) { /* one screen line, or \r cannot erase it */
            line[width - 3] = '\0';
            strcat(line, "...");
        }
        fprintf(p->out, "\r\033[K%s", line);
        p->status_shown = true;
        fflush(p->out);
        return;
    }
    if (now - p->last_still < p->still_interval)
        return;
    p->last_still = now;
    if (running_list(p, now, list, sizeof list) > 0) {
        fprintf(p->out, "  still running: %s\n", list);
        fflush(p->out);
    }
}

double pipe_progress_next_tick(const pipe_progress *p)
{
    double now = pipe_now();
    double next = p->tty ? p->last_draw + TTY_REDRAW_S : p->last_still + p->still_interval;
    return next > now ? next - now : 0;
}

void pipe_progress_summary(pipe_progress *p, const char *run_id, const char *run_dir, int exit_status)
{
    size_t counts[PIPE_PS_INTERRUPTED + 1] = {0};
    bool any_metrics = false;
    int state_width = 0;
    clear_status(p);
    for (size_t i = 0; i < p->n; i++) {
        counts[p->items[i].state]++;
        any_metrics |= p->items[i].nmetrics > 0;
        int w = (int)strlen(pipe_pstate_name(p->items[i].state));
        if (w > state_width)
            state_width = w;
    }
    char total[32];
    pipe_format_seconds(pipe_now() - p->run_started, total, sizeof total);
    fprintf(p->out, "\nsummary: %zu invocation%s", p->n, p->n == 1 ? "" : "s");
    static const pipe_pstate order[] = {PIPE_PS_DONE,    PIPE_PS_CACHED,   PIPE_PS_FAILED,
                                        PIPE_PS_INTERRUPTED, PIPE_PS_SKIPPED, PIPE_PS_RUNNING,
                                        PIPE_PS_STARTING, PIPE_PS_QUEUED};
    const char *sep = ": ";
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        if (counts[order[k]] == 0)
            continue;
        fprintf(p->out, "%s%zu %s", sep, counts[order[k]], pipe_pstate_name(order[k]));
        sep = ", ";
    }
    fprintf(p->out, " in %s\n", total);
    for (size_t i = 0; i < p->n; i++) {
        const pipe_progress_item *it = &p->items[i];
        char d[32] = "-";
        if (it->state == PIPE_PS_DONE || it->state == PIPE_PS_CACHED || it->state == PIPE_PS_FAILED ||
            it->state == PIPE_PS_INTERRUPTED)
            pipe_format_seconds(it->finished - it->started, d, sizeof d);
        fprintf(p->out, "  %-*s  %-*s  %8s", p->width, it->id, state_width, pipe_pstate_name(it->state), d);
        if (it->detail && *it->detail)
            fprintf(p->out, "  %s", it->detail);
        fputc('\n', p->out);
    }
    if (any_metrics) {
        fputs("metrics:\n", p->out);
        for (size_t i = 0; i < p->n; i++) {
            const pipe_progress_item *it = &p->items[i];
            if (it->nmetrics == 0)
                continue;
            fprintf(p->out, "  %s:", it->id);
            for (size_t k = 0; k < it->nmetrics; k++) {
                char v[64];
                pipe_format_number(it->metrics[k].value, 6, v, sizeof v);
                fprintf(p->out, " %s=%s", it->metrics[k].name, v);
            }
            fputc('\n', p->out);
        }
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->items[i].state == PIPE_PS_FAILED && p->items[i].cause)
            print_cause(p, &p->items[i]);
    fprintf(p->out, "run %s %s (exit %d); its records are in %s\n", run_id,
            exit_status == 0 ? "succeeded" : exit_status == 1 ? "failed" : "was interrupted", exit_status, run_dir);
    fflush(p->out);
}
