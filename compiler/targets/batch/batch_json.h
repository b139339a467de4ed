/* A small pretty-printing JSON writer for the AWS Batch target's
   `--cli-input-json` files: two-space indentation, keys in the order
   written, every string through esc_json_string. */
#ifndef PIPEC_BATCH_JSON_H
#define PIPEC_BATCH_JSON_H

#include <stdbool.h>

#include "util/strbuf.h"

#define JW_MAX_DEPTH 16

typedef struct json_writer {
    strbuf *out;
    int depth;
    bool has_items[JW_MAX_DEPTH]; /* per open object or array: a member was written */
    bool after_key;               /* the next value follows "key": on its line */
} json_writer;

void jw_init(json_writer *w, strbuf *out);
/* Inside an object, the next value's key. */
void jw_key(json_writer *w, const char *key);
void jw_object_start(json_writer *w);
void jw_object_end(json_writer *w);
void jw_array_start(json_writer *w);
void jw_array_end(json_writer *w);
void jw_string(json_writer *w, const char *s);
void jw_int(json_writer *w, long long v);
void jw_bool(json_writer *w, bool v);
/* key and value at once */
void jw_kv_string(json_writer *w, const char *key, const char *s);
void jw_kv_int(json_writer *w, const char *key, long long v);

#endif
