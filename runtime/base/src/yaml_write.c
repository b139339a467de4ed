/* The YAML writer pipec and the runtime share (pipe/yaml_write.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "pipe/yaml_write.h"

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    pipe_yw *w = data;
    return w->sink(w->arg, (const char *)buffer, size) ? 1 : 0;
}

/* made: what the event's initializer returned. An event that is not
   emitted is freed here (libyaml owns the ones it is given). */
static void emit(pipe_yw *w, yaml_event_t *ev, int made)
{
    if (w->failed) {
        if (made)
            yaml_event_delete(ev);
        return;
    }
    if (!made || !yaml_emitter_emit(&w->emitter, ev))
        w->failed = true;
}

int pipe_yw_open(pipe_yw *w, pipe_yw_sink *sink, void *arg)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->arg = arg;
    if (!yaml_emitter_initialize(&w->emitter)) {
        w->failed = true;
        return PIPE_ENOMEM;
    }
    w->started = true;
    yaml_emitter_set_output(&w->emitter, write_handler, w);
    yaml_emitter_set_unicode(&w->emitter, 1);
    yaml_emitter_set_width(&w->emitter, -1);
    yaml_emitter_set_indent(&w->emitter, 2);
    yaml_event_t ev;
    emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    return 0;
}

void pipe_yw_doc_begin(pipe_yw *w, bool explicit_start)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, explicit_start ? 0 : 1));
}

void pipe_yw_doc_end(pipe_yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_document_end_event_initialize(&ev, 1));
}

int pipe_yw_close(pipe_yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_stream_end_event_initialize(&ev));
    if (!w->failed && !yaml_emitter_flush(&w->emitter))
        w->failed = true;
    int rc = 0;
    if (w->failed) {
        w->problem = w->emitter.problem;
        rc = w->problem ? PIPE_EINVAL : PIPE_ENOMEM;
    }
    if (w->started)
        yaml_emitter_delete(&w->emitter);
    w->started = false;
    return rc;
}

void pipe_yw_map_begin(pipe_yw *w, bool flow)
{
    yaml_event_t ev;
    emit(w, &ev,
         yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                             flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

void pipe_yw_map_end(pipe_yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

void pipe_yw_seq_begin(pipe_yw *w, bool flow)
{
    yaml_event_t ev;
    emit(w, &ev,
         yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                              flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void pipe_yw_seq_end(pipe_yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

void pipe_yw_scalar(pipe_yw *w, const char *s, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    if (!s)
        s = "";
    emit(w, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

void pipe_yw_plain(pipe_yw *w, const char *s) { pipe_yw_scalar(w, s, YAML_PLAIN_SCALAR_STYLE); }
void pipe_yw_quoted(pipe_yw *w, const char *s) { pipe_yw_scalar(w, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE); }

bool pipe_yaml_plain_ok(const char *s)
{
    static const char *const typed[] = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"};
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    const char *p = s;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.' || *p == '/'))
            return false;
    if (p - s > 5) /* longer than every word below */
        return true;
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
        if (strcasecmp(s, typed[i]) == 0)
            return false;
    return true;
}

void pipe_yw_string(pipe_yw *w, const char *s)
{
    pipe_yw_scalar(w, s, s && pipe_yaml_plain_ok(s) ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void pipe_yw_key_plain(pipe_yw *w, const char *key, const char *value)
{
    pipe_yw_plain(w, key);
    pipe_yw_plain(w, value);
}

void pipe_yw_key_quoted(pipe_yw *w, const char *key, const char *value)
{
    pipe_yw_plain(w, key);
    pipe_yw_quoted(w, value);
}

void pipe_yw_key_string(pipe_yw *w, const char *key, const char *value)
{
    pipe_yw_plain(w, key);
    pipe_yw_string(w, value);
}

/* Decimal digits of v ending at end (no terminator written); the first. */
static char *digits(char *end, unsigned long long v)
{
    do
        *--end = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return end;
}

void pipe_yw_key_int(pipe_yw *w, const char *key, long long value)
{
    char buf[32];
    buf[31] = '\0';
    unsigned long long magnitude = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    char *first = digits(buf + 31, magnitude);
    if (value < 0)
        *--first = '-';
    pipe_yw_key_plain(w, key, first);
}

void pipe_yw_key_uint(pipe_yw *w, const char *key, unsigned long long value)
{
    char buf[32];
    buf[31] = '\0';
    pipe_yw_key_plain(w, key, digits(buf + 31, value));
}

/* ---- one document into a malloc'ed buffer ---- */

static bool buffer_sink(void *arg, const char *data, size_t n)
{
    pipe_yw *w = arg;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 1024;
        while (cap < w->len + n + 1)
            cap *= 2;
        char *p = realloc(w->buf, cap);
        if (!p)
            return false;
        w->buf = p;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, data, n);
    w->len += n;
    return true;
}

int pipe_yw_begin(pipe_yw *w)
{
    int rc = pipe_yw_open(w, buffer_sink, w);
    if (rc == 0)
        pipe_yw_doc_begin(w, false);
    return rc;
}

void pipe_yw_abandon(pipe_yw *w)
{
    if (w->started)
        yaml_emitter_delete(&w->emitter);
    free(w->buf);
    memset(w, 0, sizeof *w);
}

int pipe_yw_finish(pipe_yw *w, char **text, size_t *len, char *err, size_t errsize)
{
    pipe_yw_doc_end(w);
    int rc = pipe_yw_close(w);
    if (rc == 0 && !w->buf)
        rc = PIPE_ENOMEM;
    if (rc != 0) {
        pipe_errf(err, errsize, "cannot render YAML: %s", w->problem ? w->problem : "out of memory");
        pipe_yw_abandon(w);
        return rc;
    }
    w->buf[w->len] = '\0';
    *text = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    pipe_yw_abandon(w);
    return 0;
}
