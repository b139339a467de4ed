/* A small JSON reader (private): walks one JSON text and calls back for
   each scalar with the path that leads to it; no allocation, no tree. For
   streams of reports from other programs (neuron-monitor's, one object a
   line): the text is checked whole first, so a malformed or truncated one
   gives no callback at all. Bounded: at most PIPE_JSON_MAX_DEPTH nested
   arrays and objects (deeper is malformed); any length. Keys are compared
   as written (escapes not decoded). */
#ifndef PIPE_JSON_WALK_H
#define PIPE_JSON_WALK_H

#include <stdbool.h>
#include <stddef.h>

#define PIPE_JSON_MAX_DEPTH 32

/* One step of a path: an object member (key, its length as written) or an
   array element (key NULL, index). */
typedef struct pipe_json_step {
    const char *key;
    size_t key_len;
    size_t index;
} pipe_json_step;

typedef enum { PIPE_JSON_STRING, PIPE_JSON_NUMBER, PIPE_JSON_TRUE, PIPE_JSON_FALSE, PIPE_JSON_NULL } pipe_json_type;

typedef struct pipe_json_value {
    pipe_json_type type;
    const char *text; /* as written: a string without its quotes (escapes kept) */
    size_t len;
    double number; /* PIPE_JSON_NUMBER */
} pipe_json_value;

/* Called for each scalar, path[0..depth-1] leading to it. */
typedef void pipe_json_fn(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v);

/* 0 when text[0..len) is one JSON value (whitespace around it allowed),
   after calling fn (when not NULL) for each scalar in document order; -1
   without any call when it is not. */
int pipe_json_walk(const char *text, size_t len, pipe_json_fn *fn, void *arg);

/* Whether step is the member named key. */
bool pipe_json_key_is(const pipe_json_step *step, const char *key);

#endif
