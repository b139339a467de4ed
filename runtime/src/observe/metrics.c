/* metrics.csv (metrics.h). */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util/util.h"

int pipe_metric_name_check(const char *name, char *err, size_t errsize)
{
    const char *why = NULL;
    if (!name || !*name)
        why = "it is empty";
    else if (strlen(name) > PIPE_METRIC_NAME_MAX)
        why = "it is longer than 200 bytes";
    else if (strpbrk(name, ",\""))
        why = "it holds a comma or a quote";
    else if (name[0] == ' ' || name[strlen(name) - 1] == ' ')
        why = "it starts or ends with a space";
    for (const char *p = name; !why && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            why = "it holds a control character";
    if (!why)
        return 0;
    if (name && strlen(name) <= PIPE_METRIC_NAME_MAX && !strpbrk(name, "\r\n"))
        pipe_errf(err, errsize, "bad metric name `%s`: %s", name, why);
    else
        pipe_errf(err, errsize, "bad metric name: %s", why);
    return PIPE_EINVAL;
}

int pipe_metrics_writer_init(pipe_metrics_writer *w, const char *path, double t0)
{
    memset(w, 0, sizeof *w);
    w->t0 = t0;
    return (w->path = pipe_strdup(path)) ? 0 : PIPE_ENOMEM;
}

static pipe_metric_index *find_index(pipe_metrics_writer *w, const char *name)
{
    for (size_t i = 0; i < w->nnames; i++)
        if (strcmp(w->names[i].name, name) == 0)
            return &w->names[i];
    if (w->nnames == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        pipe_metric_index *p = realloc(w->names, cap * sizeof *p);
        if (!p)
            return NULL;
        w->names = p;
        w->cap = cap;
    }
    pipe_metric_index *x = &w->names[w->nnames];
    if (!(x->name = pipe_strdup(name)))
        return NULL;
    x->next = 0;
    w->nnames++;
    return x;
}

static int open_file(pipe_metrics_writer *w, char *err, size_t errsize)
{
    int fd = open(w->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        pipe_errf(err, errsize, "cannot open %s: %s", w->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return PIPE_EIO;
    }
    if (!(w->file = fdopen(fd, "a"))) {
        close(fd);
        pipe_errf(err, errsize, "%s: %s", w->path, strerror(errno));
        return PIPE_ENOMEM;
    }
    if (st.st_size == 0 && fputs(PIPE_METRICS_HEADER "\n", w->file) < 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", w->path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

int pipe_metrics_writer_record(pipe_metrics_writer *w, const char *name, int64_t step, double value, double time_s,
                               char *err, size_t errsize)
{
    int rc = pipe_metric_name_check(name, err, errsize);
    if (rc != 0)
        return rc;
    pipe_metric_index *x = find_index(w, name);
    if (!x) {
        pipe_errf(err, errsize, "out of memory");
        return PIPE_ENOMEM;
    }
    if (!w->file && (rc = open_file(w, err, errsize)) != 0)
        return rc;
    if (step < 0)
        step = x->next;
    x->next = step == INT64_MAX ? step : step + 1;
    if (time_s < 0)
        time_s = pipe_now() - w->t0;
    char num[64];
    pipe_format_double(value, num, sizeof num);
    /* Milliseconds, or round-trip digits for a time %.3f would spell in
       hundreds of digits (a hostile TensorBoard wall time). */
    char t[64];
    if (fabs(time_s) < 1e12)
        snprintf(t, sizeof t, "%.3f", time_s);
    else
        pipe_format_double(time_s, t, sizeof t);
    if (fprintf(w->file, "%s,%lld,%s,%s\n", name, (long long)step, num, t) < 0 || fflush(w->file) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", w->path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

void pipe_metrics_writer_close(pipe_metrics_writer *w)
{
    if (w->file)
        fclose(w->file);
    for (size_t i = 0; i < w->nnames; i++)
        free(w->names[i].name);
    free(w->names);
    free(w->path);
    memset(w, 0, sizeof *w);
}

/* ---- reading ---- */

/* FNV-1a: names come from files anyone may write, but a collision only
   costs a comparison. */
static size_t hash_name(const char *name, size_t len)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211u;
    return (size_t)h;
}

/* The slot of a name: its series' index + 1, or the empty slot it would take. */
static size_t *slot_of(const pipe_metrics *m, const char *name, size_t len)
{
    for (size_t i = hash_name(name, len) & (m->nslots - 1);; i = (i + 1) & (m->nslots - 1)) {
        size_t *slot = &m->slots[i];
        if (*slot == 0)
            return slot;
        const char *have = m->series[*slot - 1].name;
        if (strlen(have) == len && memcmp(have, name, len) == 0)
            return slot;
    }
}

/* Keeps the table at most half full. */
static int grow_slots(pipe_metrics *m)
{
    if (2 * (m->n + 1) <= m->nslots)
        return 0;
    size_t nslots = m->nslots ? 2 * m->nslots : 16;
    size_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return PIPE_ENOMEM;
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    for (size_t i = 0; i < m->n; i++)
        *slot_of(m, m->series[i].name, strlen(m->series[i].name)) = i + 1;
    return 0;
}

static pipe_metric_series *series_of(pipe_metrics *m, const char *name, size_t len)
{
    if (grow_slots(m) != 0)
        return NULL;
    size_t *slot = slot_of(m, name, len);
    if (*slot)
        return &m->series[*slot - 1];
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        pipe_metric_series *p = realloc(m->series, cap * sizeof *p);
        if (!p)
            return NULL;
        m->series = p;
        m->cap = cap;
    }
    pipe_metric_series *s = &m->series[m->n];
    memset(s, 0, sizeof *s);
    if (!(s->name = pipe_strndup(name, len)))
        return NULL;
    *slot = ++m->n;
    return s;
}

static int push_point(pipe_metric_series *s, pipe_metric_point p)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        pipe_metric_point *q = realloc(s->points, cap * sizeof *q);
        if (!q)
            return PIPE_ENOMEM;
        s->points = q;
        s->cap = cap;
    }
    s->points[s->n++] = p;
    return 0;
}

/* Any number strtod reads: the writer's round-trip digits, and a longer
   spelling (%.3f of 1e300) from another writer. */
static bool parse_number(const char *s, size_t len, double *out)
{
    char buf[512];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return *end == '\0';
}

static bool parse_step(const char *s, size_t len, int64_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (buf[i] < '0' || buf[i] > '9')
            return false;
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = (int64_t)v;
    return true;
}

int pipe_metrics_parse(const char *text, pipe_metrics *out)
{
    memset(out, 0, sizeof *out);
    bool legacy = false, first = true;
    size_t lineno = 0;
    /* memchr within the known end, not strchr: a search that may look at
       the whole rest of the text per line (as sanitizers' strict string
       checks do) would make a big file quadratic. */
    const char *end = text + strlen(text);
    for (const char *p = text; p < end;) {
        lineno++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *line = p;
        p += len + (nl ? 1 : 0);
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (len == 0)
            continue;
        if (first) {
            first = false;
            if (len == strlen(PIPE_METRICS_HEADER) && memcmp(line, PIPE_METRICS_HEADER, len) == 0)
                continue;
            if (len == strlen("time_s,name,value") && memcmp(line, "time_s,name,value", len) == 0) {
                legacy = true;
                continue;
            }
            /* A file of the older format without a header: rows start with a number. */
            legacy = line[0] >= '0' && line[0] <= '9';
        }
        /* The name may not hold a comma, so the fields are the commas' pieces. */
        const char *f[4];
        size_t flen[4], nf = 0;
        const char *start = line;
        for (size_t i = 0; i <= len && nf < 4; i++) {
            if (i == len || line[i] == ',') {
                f[nf] = start;
                flen[nf++] = (size_t)(line + i - start);
                start = line + i + 1;
            }
        }
        pipe_metric_point pt = {0, 0, 0};
        const char *name, *why = NULL;
        size_t name_len = 0;
        if (nf != (legacy ? 3u : 4u) || (size_t)(start - line) != len + 1)
            why = legacy ? "expected time_s,name,value" : "expected name,step,value,time_s";
        else if ((name_len = flen[legacy]) == 0)
            why = "the name is empty";
        else if (!legacy && !parse_step(f[1], flen[1], &pt.step))
            why = "the step is not a whole number from 0 to 9223372036854775807";
        else if (!parse_number(f[2], flen[2], &pt.value))
            why = "the value is not a number";
        else if (!parse_number(f[legacy ? 0 : 3], flen[legacy ? 0 : 3], &pt.time_s))
            why = "the time is not a number";
        if (why) {
            if (out->skipped < PIPE_METRICS_SKIPPED_SHOWN)
                out->skips[out->skipped] = (pipe_metrics_skip){lineno, why};
            out->skipped++;
            continue;
        }
        name = f[legacy];
        pipe_metric_series *s = series_of(out, name, name_len);
        if (!s)
            goto nomem;
        if (legacy)
            pt.step = (int64_t)s->n;
        if (push_point(s, pt) != 0)
            goto nomem;
    }
    return 0;
nomem:
    pipe_metrics_free(out);
    return PIPE_ENOMEM;
}

int pipe_metrics_read(const char *path, pipe_metrics *out, char *err, size_t errsize)
{
    char *text = NULL;
    memset(out, 0, sizeof *out);
    int rc = pipe_read_file(path, &text, NULL, err, errsize);
    if (rc != 0)
        return rc;
    rc = pipe_metrics_parse(text, out);
    if (rc == PIPE_ENOMEM)
        pipe_errf(err, errsize, "out of memory");
    free(text);
    return rc;
}

void pipe_metrics_warn(const pipe_metrics *m, const char *path, void (*say)(void *arg, const char *line),
                       void *arg)
{
    char line[1024];
    size_t shown = m->skipped < PIPE_METRICS_SKIPPED_SHOWN ? m->skipped : PIPE_METRICS_SKIPPED_SHOWN;
    for (size_t i = 0; i < shown; i++) {
        snprintf(line, sizeof line, "%s line %zu skipped (%s)", path, m->skips[i].line, m->skips[i].why);
        say(arg, line);
    }
    if (m->skipped > shown) {
        snprintf(line, sizeof line, "%s: %zu more line%s skipped", path, m->skipped - shown,
                 m->skipped - shown == 1 ? "" : "s");
        say(arg, line);
    }
}

const pipe_metric_series *pipe_metrics_find(const pipe_metrics *m, const char *name)
{
    if (m->nslots) {
        size_t slot = *slot_of(m, name, strlen(name));
        return slot ? &m->series[slot - 1] : NULL;
    }
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->series[i].name, name) == 0)
            return &m->series[i];
    return NULL;
}

void pipe_metrics_free(pipe_metrics *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->series[i].name);
        free(m->series[i].points);
    }
    free(m->series);
    free(m->slots);
    memset(m, 0, sizeof *m);
}
