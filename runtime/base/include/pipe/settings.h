/* The schema of every setting (pipe/settings.def, one row per decorator
   option) as data: pipec's checker validates options against it, its model
   builder fills an invocation's fields from it, the manifest writer emits
   them, and the runtime parses, compares, frees and describes them with it,
   so that the two sides cannot disagree on a name, a range or a default.
   Not a stable API for pipeline code. */
#ifndef PIPE_SETTINGS_H
#define PIPE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/base.h" /* pipe_sha256 */
#include "pipe/manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an option's value is held: the C type of its field (in parentheses). */
typedef enum {
    PIPE_CTYPE_DOUBLE,  /* a number above 0; 0: not given (double) */
    PIPE_CTYPE_INT64,   /* (int64_t) */
    PIPE_CTYPE_UINT64,  /* bytes or milliseconds (uint64_t) */
    PIPE_CTYPE_BOOL,    /* (bool) */
    PIPE_CTYPE_STRING,  /* (char *) */
    PIPE_CTYPE_STRINGS, /* a list of strings (char **, size_t) */
    PIPE_CTYPE_KVS,     /* a map of strings (pipe_kv *, size_t) */
    PIPE_CTYPE_ENV,     /* a map of strings whose keys are environment variable names (pipe_kv *, size_t) */
    PIPE_CTYPE_MVALUE,  /* a value passed through as written (pipe_mvalue) */
    PIPE_CTYPE_MFILE,   /* a file's path and its content's digest (pipe_mfile) */
} pipe_ctype;

/* How a value is written as a .pipe file writes it (pipe_option_text). */
typedef enum {
    PIPE_TEXT_NUMBER,   /* 0.5 */
    PIPE_TEXT_INT,      /* 42 */
    PIPE_TEXT_SIZE,     /* "16GB" */
    PIPE_TEXT_DURATION, /* "2h" */
    PIPE_TEXT_BOOL,     /* true */
    PIPE_TEXT_STRING,   /* "text" */
    PIPE_TEXT_WORD,     /* one of the table's own values: bf16 */
} pipe_text;

/* The kinds of option values, one per row of pipe/kinds.def: PIPE_KIND_NUMBER, ... */
typedef enum {
#define PIPE_KIND(ID, ...) PIPE_KIND_##ID,
#include "pipe/kinds.def"
#undef PIPE_KIND
    PIPE_KIND_COUNT
} pipe_kind;

/* A row of pipe/kinds.def. */
typedef struct pipe_kind_info {
    const char *name;    /* "SIZE" */
    pipe_ctype ctype;
    pipe_text text;
    const char *expects; /* "a size string such as \"16GB\"" */
    const char *doc;     /* "size" */
} pipe_kind_info;

const pipe_kind_info *pipe_kind_get(pipe_kind k);

enum { PIPE_ON_STEP = 1, PIPE_ON_PIPELINE = 2 };
typedef enum { PIPE_WHEN_ALWAYS, PIPE_WHEN_PRESENT, PIPE_WHEN_ANY, PIPE_WHEN_GIVEN } pipe_section_when;
typedef enum { PIPE_EMIT_ALWAYS, PIPE_EMIT_SET, PIPE_EMIT_GIVEN } pipe_emit;
/* Whether an option is part of an invocation's cache key. */
enum { PIPE_NOT_KEYED = 0, PIPE_KEYED = 1 };

/* Decorators: PIPE_DEC_RESOURCES, ... */
typedef enum {
#define PIPE_DECORATOR(ID, ...) PIPE_DEC_##ID,
#define PIPE_OPTION(...)
#include "pipe/settings.def"
#undef PIPE_DECORATOR
#undef PIPE_OPTION
    PIPE_DEC_COUNT
} pipe_decorator;

/* Options, numbered from 0 in each decorator: PIPE_RES_CPU, ..., and
   PIPE_<DECORATOR>_NOPTIONS. */
#define PIPE_OPTION(ID, ...) PIPE_##ID,
#define PIPE_DECORATOR(ID, NAME, WHERE, POSITIONAL, ORDER, SECTION, FLOW, WHEN, PRESENCE, PRESENCE_KEY, GIVEN, DOC, \
                       ...)                                                                                          \
    enum { __VA_ARGS__ PIPE_##ID##_NOPTIONS };
#include "pipe/settings.def"
#undef PIPE_DECORATOR
#undef PIPE_OPTION

/* The most options one decorator has: a decorator's option values fit an
   array of this size whatever the table holds. */
union pipe_option_counts {
#define PIPE_OPTION(...)
#define PIPE_DECORATOR(ID, ...) char ID[PIPE_##ID##_NOPTIONS + 1];
#include "pipe/settings.def"
#undef PIPE_DECORATOR
#undef PIPE_OPTION
};
#define PIPE_MAX_DECORATOR_OPTIONS (sizeof(union pipe_option_counts) - 1)

/* Where a field is: an offset into pipe_minvocation, or none. */
#define PIPE_NO_FIELD ((size_t)-1)

typedef struct pipe_option {
    const char *name;
    pipe_kind kind;
    uint64_t min, max;          /* INT, PORT, SIZE, DURATION: the range, inclusive (non-negative) */
    const char *default_text;   /* NULL: none */
    const char *absent_text;    /* NULL: zero */
    const char *const *values;  /* ENUM: NULL-terminated */
    const char *key;            /* in bundle.yaml */
    size_t field, count;        /* offsets in pipe_minvocation; count PIPE_NO_FIELD unless a list or map */
    pipe_emit emit;
    bool keyed;                 /* part of the cache key (PIPE_KEYED) */
    const char *help;           /* why the range, or NULL */
    const char *doc;
    int index; /* in its decorator */
} pipe_option;

typedef struct pipe_decorator_info {
    pipe_decorator id;
    const char *name;
    bool on_step, on_pipeline;
    bool positional;
    int order;                /* place in an invocation's manifest entry */
    const char *section;      /* NULL: its keys are the entry's own */
    bool flow;
    pipe_section_when when;
    size_t presence;          /* bool field, or PIPE_NO_FIELD */
    const char *presence_key; /* NULL: the presence is not a key of its own */
    size_t given;             /* unsigned field, or PIPE_NO_FIELD */
    const char *doc;
    const pipe_option *options;
    int noptions;
} pipe_decorator_info;

/* A typed value of an option, as its kind keeps it. */
typedef struct pipe_value {
    double num;       /* NUMBER */
    int64_t i;        /* INT, PORT */
    uint64_t u;       /* SIZE (bytes), DURATION (ms) */
    bool b;           /* BOOL */
    const char *s;    /* STRING, ENUM, GPU_IDS, ACCELERATORS; FILE: its path */
} pipe_value;

const pipe_decorator_info *pipe_decorator_get(pipe_decorator d);
/* By name as written after `@`; NULL when there is none. */
const pipe_decorator_info *pipe_decorator_named(const char *name);
const pipe_option *pipe_option_get(pipe_decorator d, int index);
/* The decorators in the order their fields appear in an invocation's
   manifest entry. */
const pipe_decorator_info *pipe_decorator_in_manifest_order(int i);

/* Whether a kind is a map (STRING_MAP, ENV_MAP): a step's map is merged
   with its pipeline's key by key, where other options are replaced whole. */
bool pipe_kind_is_map(pipe_kind k);
/* The option's default (absent false) or its value when the decorator does
   not apply (absent true), typed; strings point into the table. */
pipe_value pipe_option_initial(const pipe_option *o, bool absent);
/* The decorator an option belongs to. */
const pipe_decorator_info *pipe_option_decorator(const pipe_option *o);
/* The C type of an option's field (its kind's row). */
pipe_ctype pipe_option_ctype(const pipe_option *o);
/* A scalar value as a .pipe file writes it, without quotes ("16GB", "2h",
   0.5, bf16); whether the file writes it in quotes. */
void pipe_option_text(const pipe_option *o, pipe_value v, char *buf, size_t size);
bool pipe_option_text_quoted(const pipe_option *o);
/* Whether v is in the option's range (a DOUBLE: above 0; an INT64 or a
   UINT64: [min, max]; other C types have none). */
bool pipe_option_in_range(const pipe_option *o, pipe_value v);
/* Whether the option has a range [min, max] (an INT64 or a UINT64). */
bool pipe_option_ranged(const pipe_option *o);
/* Whether the option has an upper bound below what its kind can hold. */
bool pipe_option_has_max(const pipe_option *o);
/* Where an option's value lives in an invocation. */
void *pipe_option_field(const pipe_option *o, pipe_minvocation *inv);
const void *pipe_option_cfield(const pipe_option *o, const pipe_minvocation *inv);
/* A list's or map's count field; NULL for other kinds. */
size_t *pipe_option_count(const pipe_option *o, pipe_minvocation *inv);
size_t pipe_option_ccount(const pipe_option *o, const pipe_minvocation *inv);
/* Whether the field holds something: non-zero, non-empty, non-NULL. */
bool pipe_option_is_set(const pipe_option *o, const pipe_minvocation *inv);
bool pipe_option_given(const pipe_option *o, const pipe_minvocation *inv);
bool pipe_decorator_present(const pipe_decorator_info *d, const pipe_minvocation *inv);
/* Whether a decorator's mapping is written to the manifest (its WHEN). */
bool pipe_section_written(const pipe_decorator_info *d, const pipe_minvocation *inv);

/* Scalar fields (NUMBER, INT, SIZE, DURATION, BOOL) to a typed value and
   back. */
pipe_value pipe_option_load(const pipe_option *o, const pipe_minvocation *inv);
void pipe_option_store(const pipe_option *o, pipe_minvocation *inv, pipe_value v);

/* Every setting of inv at its value when no decorator applies, strings and
   lists empty except where the table gives an absent text; strings are
   malloc'ed (0, or PIPE_ENOMEM). */
int pipe_settings_init(pipe_minvocation *inv);
/* Frees a value passed through (tolerations) and zeroes it. */
void pipe_mvalue_free(pipe_mvalue *v);
/* Frees what the settings fields of inv hold (malloc'ed strings, lists,
   maps, values) and zeroes them. */
void pipe_settings_free(pipe_minvocation *inv);
/* Compares the settings of two invocations: 0 when equal, else 1 with
   "SECTION.KEY: a != b" (the key as bundle.yaml writes it) in diff. */
int pipe_settings_compare(const pipe_minvocation *a, const pipe_minvocation *b, char *diff, size_t diffsize);

/* Adds a set option to a digest: its name, its value or items (each with a
   NUL), then "|" (an image's id, a cache key). Nothing for an unset one, so
   that a digest does not change when an option is added to the table. */
void pipe_option_hash(const pipe_option *o, const pipe_minvocation *inv, pipe_sha256 *h);

/* What an invocation without @run_with_accelerate carries: one process on
   one machine, the table's values for an absent decorator (no strings). */
pipe_accelerate pipe_accelerate_none(void);
/* A duration option's default in milliseconds (collective_timeout, ...). */
uint64_t pipe_option_default_ms(pipe_decorator d, int index);

#ifdef __cplusplus
}
#endif

#endif
