/* The decorator table (docs/language.md, "Decorators"): names, where they may appear, their
   options with types and defaults; option values parsed and merged. */
#ifndef PIPEC_DECORATORS_H
#define PIPEC_DECORATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "front/ast.h"
#include "util/diag.h"
#include "pipe/settings.h"

/* The decorators and their options come from the settings table
   (pipe/settings.def): DEC_RESOURCES is PIPE_DEC_RESOURCES, RES_CPU is
   PIPE_RES_CPU (an option's index in its decorator), and so on. */
typedef enum {
#define PIPE_OPTION(...)
#define PIPE_DECORATOR(ID, ...) DEC_##ID = PIPE_DEC_##ID,
#include "pipe/settings.def"
#undef PIPE_DECORATOR
#undef PIPE_OPTION
    DEC_COUNT = PIPE_DEC_COUNT
} decorator_id;

enum {
#define PIPE_OPTION(ID, ...) ID = PIPE_##ID,
#define PIPE_DECORATOR(ID, NAME, WHERE, POSITIONAL, ORDER, SECTION, FLOW, WHEN, PRESENCE, PRESENCE_KEY, GIVEN, DOC, \
                       ...)                                                                                          \
    __VA_ARGS__
#include "pipe/settings.def"
#undef PIPE_DECORATOR
#undef PIPE_OPTION
};

/* A decorator's row and its options' rows, as the table has them. */
typedef pipe_decorator_info decorator_schema;
typedef pipe_option option_schema;

/* A file an option names (PIPE_KIND_FILE), as the checker read it: the
   bundle copies these bytes, and their digest goes to bundle.yaml. */
typedef struct opt_file {
    const char *resolved; /* where pipec read it (relative to the working directory, or absolute) */
    const char *sha256;   /* of text, 64 hex digits */
    const char *text;
    size_t len;
} opt_file;

/* A parsed option value. Numbers are kept in the field their kind uses:
   num (NUMBER), i (INT, PORT), b (BOOL), u (SIZE bytes, DURATION ms). */
typedef struct opt_value {
    bool set;          /* given explicitly (else: default) */
    bool valid;        /* parsed without error */
    span name_sp;      /* the option name (or the positional value) */
    span arg_sp;       /* name = value */
    ast_expr *expr;    /* the value as written */
    double num;
    int64_t i;
    uint64_t u;
    bool b;
    const char *s;     /* strings, enums, gpu_ids, accelerators name; a file's path as written */
    const opt_file *file; /* FILE: the file read; NULL otherwise */
} opt_value;

typedef struct decorator_inst {
    const decorator_schema *schema;
    ast_decorator *decl;
    bool on_pipeline; /* declared on a pipeline (a default), not on the step */
    opt_value opts[PIPE_MAX_DECORATOR_OPTIONS]; /* by option index: the table sets the size */
    /* An unknown option or a positional argument was reported: any option
       left at its default may have been meant to be set, so the checks that
       combine options stay silent about those. */
    bool uncertain;
} decorator_inst;

/* The decorators on one step or pipeline, by id (NULL when absent). */
typedef struct decorator_set {
    decorator_inst *by_id[DEC_COUNT];
    /* An unknown decorator (E0108) that looks like this one: what it sets is
       not known, so its options count as uncertain (effective_uncertain). */
    bool misspelled[DEC_COUNT];
} decorator_set;

const decorator_schema *decorator_lookup(const char *name);
const decorator_schema *decorator_by_id(decorator_id id);
int option_index(const decorator_schema *s, const char *name);

/* Checks and parses the decorators of a step (on_pipeline false) or a
   pipeline, reporting E0105 E0108 E0109 E0115 E0117 E0118 E0201 E0204-E0207 E0302. */
void decorators_check(arena *a, diag_engine *d, const ptr_vec *decorators, bool on_pipeline, decorator_set *out);

/* The value in force: the step's own, else the pipeline's, else the default.
   Returns a value with set=false and the default filled in when neither sets it. */
typedef struct effective_options {
    const decorator_set *step, *pipeline;
} effective_options;

opt_value effective_opt(const effective_options *e, decorator_id dec, int opt);
/* Whether the option is a map (pipe_kind_is_map: `environment`,
   `node_selector`), whose value in force is merged key by key: use
   effective_map for it, not effective_opt's one side. */
bool option_merges_by_key(decorator_id dec, int opt);
/* A map option in force (docs/language.md, "Decorators"): the pipeline's
   entries, each overridden by the step's entry of the same key, then the
   step's other entries; *n gets their count (0 and NULL when neither side
   gives it). Allocated in `a`; the entries are the .pipe file's own. */
const ast_map_entry **effective_map(arena *a, const effective_options *e, decorator_id dec, int opt, size_t *n);
/* The instance providing `dec` (step's, else pipeline's), or NULL. */
const decorator_inst *effective_decorator(const effective_options *e, decorator_id dec);
/* The default of an option as a parsed value (set = false). */
opt_value option_default(decorator_id dec, int opt);
/* True when the value of an option in force is not known for sure: it was
   given but invalid (reported), or it is a default where the decorator that
   would set it had an unknown option (reported). Rules that combine options
   stay silent about uncertain ones. */
bool effective_uncertain(const effective_options *e, decorator_id dec, int opt);
bool option_uncertain(const decorator_inst *inst, int opt);

#endif
