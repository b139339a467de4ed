/* YAML output for the deploy generators (Kubernetes, SkyPilot; bundle.yaml
   has its own direct writer, yaml_direct.h): the compiler's view of the
   base's writer (pipe/yaml_write.h, which the runtime's records use too),
   bound to a strbuf. Values from a .pipe file are quoted by the emitter,
   never by hand. */
#ifndef PIPEC_YAML_EMIT_H
#define PIPEC_YAML_EMIT_H

#include <stdbool.h>

#include "pipe/manifest.h"
#include "pipe/yaml_write.h"
#include "util/strbuf.h"

typedef pipe_yw yaml_out;

/* Starts a stream appending to out (block style, indent 2, no line folding). */
bool ye_open(yaml_out *em, strbuf *out);
/* Documents: `explicit_start` writes `---` (needed between documents). */
static inline void ye_doc_start(yaml_out *em, bool explicit_start) { pipe_yw_doc_begin(em, explicit_start); }
static inline void ye_doc_end(yaml_out *em) { pipe_yw_doc_end(em); }
/* Ends the stream and frees the emitter; -1 with a message if anything failed. */
int ye_close(yaml_out *em, const char *what, char *err, size_t errsize);

/* Whether a string from a .pipe file may be written unquoted (pipe_yaml_plain_ok). */
static inline bool ye_plain_ok(const char *s) { return pipe_yaml_plain_ok(s); }

/* A scalar in plain style where YAML allows it. */
static inline void ye_scalar(yaml_out *em, const char *text) { pipe_yw_plain(em, text); }
/* A string from the .pipe file: plain only when ye_plain_ok, else double-quoted. */
static inline void ye_string_scalar(yaml_out *em, const char *text) { pipe_yw_string(em, text); }
static inline void ye_map_start(yaml_out *em, bool flow) { pipe_yw_map_begin(em, flow); }
static inline void ye_map_end(yaml_out *em) { pipe_yw_map_end(em); }
static inline void ye_seq_start(yaml_out *em, bool flow) { pipe_yw_seq_begin(em, flow); }
static inline void ye_seq_end(yaml_out *em) { pipe_yw_seq_end(em); }
static inline void ye_kv(yaml_out *em, const char *key, const char *value) { pipe_yw_key_plain(em, key, value); }
static inline void ye_kv_string(yaml_out *em, const char *key, const char *value)
{
    pipe_yw_key_string(em, key, value);
}
static inline void ye_kv_int(yaml_out *em, const char *key, long long value) { pipe_yw_key_int(em, key, value); }
static inline void ye_kv_uint(yaml_out *em, const char *key, unsigned long long value)
{
    pipe_yw_key_uint(em, key, value);
}
static inline void ye_kv_bool(yaml_out *em, const char *key, bool value) { ye_kv(em, key, value ? "true" : "false"); }
/* Maps and lists of strings from the .pipe file, in flow style. */
void ye_string_map(yaml_out *em, const pipe_kv *kv, size_t n);
void ye_string_list(yaml_out *em, char *const *items, size_t n);
/* A value passed through as written: lists and maps in flow style, strings
   as ye_string_scalar, numbers and bools plain. */
void ye_mvalue(yaml_out *em, const pipe_mvalue *v);

#endif
