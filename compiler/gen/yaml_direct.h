/* bundle.yaml's writer: YAML written straight into a strbuf, without
   libyaml's emitter (which was a third to a half of a large build's
   instructions; docs/performance.md "Builds"). It writes the one layout
   bundle.yaml uses, the one libyaml wrote: block style, indent 2, sequences
   in a mapping not indented, empty block collections as [] and {}, no line
   folding. Strings from a .pipe file are plain only when pipe_yaml_plain_ok,
   else double-quoted with libyaml's escapes, so that each stays one scalar
   of the same text for YAML 1.1 and 1.2 readers. Text that is not UTF-8
   fails the write.

   The same calls write JSON when opened with json = true (pipec's hidden
   `build --manifest-json`): every scalar typed as the model holds it, so
   that tests/golden/manifest_data.py can compare what YAML readers load
   from bundle.yaml with the model. */
#ifndef PIPEC_YAML_DIRECT_H
#define PIPEC_YAML_DIRECT_H

#include <stdbool.h>

#include "pipe/manifest.h"
#include "util/strbuf.h"

enum { YD_MAX_DEPTH = 32 };

typedef struct yd_frame {
    bool map, flow;
    bool inline_first; /* a block mapping after "- ": its first key on that line */
    int indent;        /* of a block collection's keys or "- " */
    size_t count;      /* entries written */
} yd_frame;

typedef struct yd {
    strbuf *out;
    bool json;
    bool line_start; /* nothing written on the current line */
    bool failed;
    const char *problem;
    int depth;
    yd_frame frames[YD_MAX_DEPTH];
} yd;

/* Writes to out, which ends with a whole line (or is empty). */
void yd_open(yd *w, strbuf *out, bool json);
/* Ends the last line; -1 with "cannot write WHAT: ..." if anything failed. */
int yd_close(yd *w, const char *what, char *err, size_t errsize);

void yd_map_begin(yd *w, bool flow);
void yd_map_end(yd *w);
void yd_seq_begin(yd *w, bool flow);
void yd_seq_end(yd *w);

/* A key of the format's own (a word): plain. */
void yd_key(yd *w, const char *key);
/* A key from the .pipe file (environment, tolerations): as yd_string. */
void yd_string_key(yd *w, const char *key);
/* A string from the .pipe file; NULL is "". */
void yd_string(yd *w, const char *s);
/* A string pipec made (a digest, an enum word): plain when it can be, else
   double-quoted. */
void yd_word(yd *w, const char *s);
/* A number pipec formatted (pipe_format_double): plain. */
void yd_number(yd *w, const char *text);
void yd_int(yd *w, long long v);
void yd_uint(yd *w, unsigned long long v);
void yd_bool(yd *w, bool v);

static inline void yd_kv_string(yd *w, const char *k, const char *v) { yd_key(w, k), yd_string(w, v); }
static inline void yd_kv_word(yd *w, const char *k, const char *v) { yd_key(w, k), yd_word(w, v); }
static inline void yd_kv_number(yd *w, const char *k, const char *v) { yd_key(w, k), yd_number(w, v); }
static inline void yd_kv_int(yd *w, const char *k, long long v) { yd_key(w, k), yd_int(w, v); }
static inline void yd_kv_uint(yd *w, const char *k, unsigned long long v) { yd_key(w, k), yd_uint(w, v); }
static inline void yd_kv_bool(yd *w, const char *k, bool v) { yd_key(w, k), yd_bool(w, v); }

/* Maps and lists of strings from the .pipe file, in flow style. */
void yd_string_map(yd *w, const pipe_kv *kv, size_t n);
void yd_string_list(yd *w, char *const *items, size_t n);
/* A value passed through as written (tolerations): collections in flow
   style, strings as yd_string, numbers and bools plain. */
void yd_mvalue(yd *w, const pipe_mvalue *v);

#endif
