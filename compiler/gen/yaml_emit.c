#include "yaml_emit.h"

#include <stdio.h>

static bool append(void *out, const char *data, size_t n)
{
    sb_putn(out, data, n);
    return true;
}

bool ye_open(yaml_out *em, strbuf *out) { return pipe_yw_open(em, append, out) == 0 && !em->failed; }

int ye_close(yaml_out *em, const char *what, char *err, size_t errsize)
{
    if (pipe_yw_close(em) == 0)
        return 0;
    snprintf(err, errsize, "cannot write %s: %s", what, em->problem ? em->problem : "YAML emitter error");
    return -1;
}

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
