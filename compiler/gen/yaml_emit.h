/* YAML output through libyaml's emitter, shared by every generator that
   writes YAML (bundle.yaml, Kubernetes, SkyPilot): values from a .pipe file
   are quoted by the emitter, never by hand. */
#ifndef PIPEC_YAML_EMIT_H
#define PIPEC_YAML_EMIT_H

#include <stdbool.h>
#include <yaml.h>

#include "pipe/manifest.h"
#include "util/strbuf.h"

typedef struct yaml_out {
    yaml_emitter_t e;
    strbuf *out;
    bool failed;
} yaml_out;

/* Starts a stream appending to out (block style, indent 2, no line folding). */
bool ye_open(yaml_out *em, strbuf *out);
/* Documents: `explicit_start` writes `---` (needed between documents). */
void ye_doc_start(yaml_out *em, bool explicit_start);
void ye_doc_end(yaml_out *em);
/* Ends the stream and frees the emitter; -1 with a message if anything failed. */
int ye_close(yaml_out *em, const char *what, char *err, size_t errsize);

/* Whether a string from a .pipe file may be written unquoted: a letter,
   then letters, digits and -_./ only, and not a word YAML 1.1 readers take
   for a bool or null (y, n, yes, no, on, off, true, false, null). */
bool ye_plain_ok(const char *s);

/* A scalar in plain style where YAML allows it. */
void ye_scalar(yaml_out *em, const char *text);
/* A string from the .pipe file: plain only when ye_plain_ok, else double-quoted. */
void ye_string_scalar(yaml_out *em, const char *text);
void ye_map_start(yaml_out *em, bool flow);
void ye_map_end(yaml_out *em);
void ye_seq_start(yaml_out *em, bool flow);
void ye_seq_end(yaml_out *em);
void ye_kv(yaml_out *em, const char *key, const char *value);
void ye_kv_string(yaml_out *em, const char *key, const char *value);
void ye_kv_int(yaml_out *em, const char *key, long long value);
void ye_kv_uint(yaml_out *em, const char *key, unsigned long long value);
void ye_kv_bool(yaml_out *em, const char *key, bool value);
/* Maps and lists of strings from the .pipe file, in flow style. */
void ye_string_map(yaml_out *em, const pipe_kv *kv, size_t n);
void ye_string_list(yaml_out *em, char *const *items, size_t n);
/* A value passed through as written: lists and maps in flow style, strings
   as ye_string_scalar, numbers and bools plain. */
void ye_mvalue(yaml_out *em, const pipe_mvalue *v);

#endif
