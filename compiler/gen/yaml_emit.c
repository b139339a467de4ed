#include "yaml_emit.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>


static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    sb_putn(data, (const char *)buffer, size);
    return 1;
}

static void ye_emit(yaml_out *em, yaml_event_t *ev)
{
    if (!em->failed && !yaml_emitter_emit(&em->e, ev))
        em->failed = true;
}

/* Plain style where YAML allows it; libyaml quotes anything ambiguous. */
void ye_scalar(yaml_out *em, const char *text)
{
    yaml_event_t ev;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1,
                                 YAML_ANY_SCALAR_STYLE);
    ye_emit(em, &ev);
}

/* A string from the .pipe file: quoted when it would read as another type. */
bool ye_plain_ok(const char *s)
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

void ye_string_scalar(yaml_out *em, const char *text)
{
    yaml_event_t ev;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1,
                                 ye_plain_ok(text) ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    ye_emit(em, &ev);
}

void ye_map_start(yaml_out *em, bool flow)
{
    yaml_event_t ev;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
    ye_emit(em, &ev);
}

void ye_map_end(yaml_out *em)
{
    yaml_event_t ev;
    yaml_mapping_end_event_initialize(&ev);
    ye_emit(em, &ev);
}

void ye_seq_start(yaml_out *em, bool flow)
{
    yaml_event_t ev;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
    ye_emit(em, &ev);
}

void ye_seq_end(yaml_out *em)
{
    yaml_event_t ev;
    yaml_sequence_end_event_initialize(&ev);
    ye_emit(em, &ev);
}

void ye_kv(yaml_out *em, const char *key, const char *value)
{
    ye_scalar(em, key);
    ye_scalar(em, value);
}

void ye_kv_string(yaml_out *em, const char *key, const char *value)
{
    ye_scalar(em, key);
    ye_string_scalar(em, value);
}

/* Decimal digits of v ending at end (no terminator written); the first. */
static char *digits(char *end, unsigned long long v)
{
    do
        *--end = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return end;
}

void ye_kv_int(yaml_out *em, const char *key, long long value)
{
    char buf[32];
    buf[31] = '\0';
    unsigned long long magnitude = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    char *first = digits(buf + 31, magnitude);
    if (value < 0)
        *--first = '-';
    ye_kv(em, key, first);
}

/* Hundreds of thousands of these in a large bundle.yaml: no printf. */
void ye_kv_uint(yaml_out *em, const char *key, unsigned long long value)
{
    char buf[32];
    buf[31] = '\0';
    ye_kv(em, key, digits(buf + 31, value));
}

void ye_kv_bool(yaml_out *em, const char *key, bool value) { ye_kv(em, key, value ? "true" : "false"); }

/* A map of strings (environment, node_selector). */
void ye_string_map(yaml_out *em, const pipe_kv *kv, size_t n)
{
    ye_map_start(em, true);
    for (size_t i = 0; i < n; i++) {
        ye_string_scalar(em, kv[i].key);
        ye_string_scalar(em, kv[i].value);
    }
    ye_map_end(em);
}

void ye_string_list(yaml_out *em, char *const *items, size_t n)
{
    ye_seq_start(em, true);
    for (size_t i = 0; i < n; i++)
        ye_string_scalar(em, items[i]);
    ye_seq_end(em);
}

/* Tolerations are lists of maps of anything. */
void ye_mvalue(yaml_out *em, const pipe_mvalue *v)
{
    switch (v->kind) {
    case PIPE_MV_LIST:
        ye_seq_start(em, true);
        for (size_t i = 0; i < v->n; i++)
            ye_mvalue(em, &v->items[i]);
        ye_seq_end(em);
        break;
    case PIPE_MV_MAP:
        ye_map_start(em, true);
        for (size_t i = 0; i < v->n; i++) {
            ye_string_scalar(em, v->keys[i]);
            ye_mvalue(em, &v->items[i]);
        }
        ye_map_end(em);
        break;
    case PIPE_MV_STRING: ye_string_scalar(em, v->text); break;
    case PIPE_MV_SCALAR: ye_scalar(em, v->text); break;
    }
}


bool ye_open(yaml_out *em, strbuf *out)
{
    memset(em, 0, sizeof *em);
    em->out = out;
    if (!yaml_emitter_initialize(&em->e)) {
        em->failed = true;
        return false;
    }
    yaml_emitter_set_output(&em->e, write_handler, out);
    yaml_emitter_set_unicode(&em->e, 1);
    yaml_emitter_set_width(&em->e, -1);
    yaml_emitter_set_indent(&em->e, 2);
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    ye_emit(em, &ev);
    return !em->failed;
}

void ye_doc_start(yaml_out *em, bool explicit_start)
{
    yaml_event_t ev;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, explicit_start ? 0 : 1);
    ye_emit(em, &ev);
}

void ye_doc_end(yaml_out *em)
{
    yaml_event_t ev;
    yaml_document_end_event_initialize(&ev, 1);
    ye_emit(em, &ev);
}

int ye_close(yaml_out *em, const char *what, char *err, size_t errsize)
{
    yaml_event_t ev;
    yaml_stream_end_event_initialize(&ev);
    ye_emit(em, &ev);
    bool failed = em->failed;
    if (failed)
        snprintf(err, errsize, "cannot write %s: %s", what, em->e.problem ? em->e.problem : "YAML emitter error");
    yaml_emitter_delete(&em->e);
    return failed ? -1 : 0;
}
