#include "yamlio.h"

#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    pipe_yw *w = data;
    if (w->len + size + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 1024;
        while (cap < w->len + size + 1)
            cap *= 2;
        char *p = realloc(w->buf, cap);
        if (!p)
            return 0;
        w->buf = p;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, buffer, size);
    w->len += size;
    return 1;
}

static void emit(pipe_yw *w, yaml_event_t *ev, int made)
{
    if (w->failed)
        return;
    if (!made || !yaml_emitter_emit(&w->emitter, ev))
        w->failed = true;
}

int pipe_yw_begin(pipe_yw *w)
{
    memset(w, 0, sizeof *w);
    if (!yaml_emitter_initialize(&w->emitter))
        return PIPE_ENOMEM;
    w->started = true;
    yaml_emitter_set_output(&w->emitter, write_handler, w);
    yaml_emitter_set_unicode(&w->emitter, 1);
    yaml_emitter_set_width(&w->emitter, -1);
    yaml_event_t ev;
    emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    emit(w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    return 0;
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

static void scalar(pipe_yw *w, const char *s, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    if (!s)
        s = "";
    emit(w, &ev,
         yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

void pipe_yw_plain(pipe_yw *w, const char *s) { scalar(w, s, YAML_PLAIN_SCALAR_STYLE); }
void pipe_yw_quoted(pipe_yw *w, const char *s) { scalar(w, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE); }

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

void pipe_yw_abandon(pipe_yw *w)
{
    if (w->started)
        yaml_emitter_delete(&w->emitter);
    free(w->buf);
    memset(w, 0, sizeof *w);
}

int pipe_yw_finish(pipe_yw *w, char **text, size_t *len, char *err, size_t errsize)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_document_end_event_initialize(&ev, 1));
    emit(w, &ev, yaml_stream_end_event_initialize(&ev));
    if (!w->failed && !yaml_emitter_flush(&w->emitter))
        w->failed = true;
    if (w->failed || !w->buf) {
        pipe_errf(err, errsize, "cannot render YAML: %s",
                  w->emitter.problem ? w->emitter.problem : "out of memory");
        int code = w->emitter.problem ? PIPE_EINVAL : PIPE_ENOMEM;
        pipe_yw_abandon(w);
        return code;
    }
    w->buf[w->len] = '\0';
    *text = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    pipe_yw_abandon(w);
    return 0;
}

int pipe_yr_load(pipe_yr *r, const char *text, size_t len, const char *what, char *err, size_t errsize)
{
    memset(r, 0, sizeof *r);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return PIPE_ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &r->doc)) {
        pipe_errf(err, errsize, "%s:%zu:%zu: %s", what, parser.problem_mark.line + 1,
                  parser.problem_mark.column + 1, parser.problem ? parser.problem : "malformed YAML");
        int code = parser.error == YAML_MEMORY_ERROR ? PIPE_ENOMEM : PIPE_EFORMAT;
        yaml_parser_delete(&parser);
        return code;
    }
    yaml_parser_delete(&parser);
    r->loaded = true;
    yaml_node_t *root = yaml_document_get_root_node(&r->doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        pipe_errf(err, errsize, "%s:1:1: expected a mapping at the top level", what);
        pipe_yr_free(r);
        return PIPE_EFORMAT;
    }
    return 0;
}

void pipe_yr_free(pipe_yr *r)
{
    if (r->loaded)
        yaml_document_delete(&r->doc);
    r->loaded = false;
}

yaml_node_t *pipe_yr_root(pipe_yr *r) { return yaml_document_get_root_node(&r->doc); }

bool pipe_yr_pair(pipe_yr *r, yaml_node_t *map, size_t i, yaml_node_t **key, yaml_node_t **value)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return false;
    yaml_node_pair_t *p = map->data.mapping.pairs.start + i;
    if (p >= map->data.mapping.pairs.top)
        return false;
    *key = yaml_document_get_node(&r->doc, p->key);
    *value = yaml_document_get_node(&r->doc, p->value);
    return true;
}

yaml_node_t *pipe_yr_get(pipe_yr *r, yaml_node_t *map, const char *key)
{
    yaml_node_t *k, *v;
    for (size_t i = 0; pipe_yr_pair(r, map, i, &k, &v); i++) {
        const char *t = pipe_yr_text(k);
        if (t && strcmp(t, key) == 0)
            return v;
    }
    return NULL;
}

const char *pipe_yr_text(yaml_node_t *node)
{
    if (!node || node->type != YAML_SCALAR_NODE)
        return NULL;
    return (const char *)node->data.scalar.value;
}

int pipe_yr_line(const yaml_node_t *node) { return node ? (int)node->start_mark.line + 1 : 0; }
