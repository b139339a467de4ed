/* JSON messages as a small tree in an arena, for the language server.
   The text is read by the runtime's JSON reader (runtime/src/format/
   json_walk.c: checked whole, depth bounded); this only assembles its
   scalars into objects and arrays and decodes strings. An empty object
   or array reads as absent, which is what every LSP field that can be
   empty means anyway. */
#ifndef PIPEC_LSP_JSON_H
#define PIPEC_LSP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

typedef enum { JSON_NONE, JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value json_value;
struct json_value {
    json_kind kind;
    const char *key; /* member name (decoded) in an object, NULL in an array */
    size_t index;    /* position in an array */
    const char *str; /* JSON_STRING: decoded, NUL-terminated; JSON_NUMBER: as written */
    size_t len;
    double number;
    bool boolean;
    json_value *first, *last, *next; /* members or elements */
};

/* The tree of text[0..len), or NULL when it is not one JSON value. */
json_value *json_parse(arena *a, const char *text, size_t len);

/* The member key of an object (NULL when v is no object or lacks it). */
const json_value *json_get(const json_value *v, const char *key);
/* v's string, or NULL when v is no string. */
const char *json_string(const json_value *v);
/* v as an integer: false when v is no number or not a whole one in range. */
bool json_integer(const json_value *v, int64_t *out);

#endif
