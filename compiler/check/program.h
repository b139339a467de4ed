/* The checked program: what sema builds from the syntax trees, and what the
   commands (graph, build) and the generators read. */
#ifndef PIPEC_PROGRAM_H
#define PIPEC_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "front/ast.h"
#include "decorators.h"
#include "util/diag.h"
#include "util/symtab.h"

typedef enum { TYPE_INT, TYPE_FLOAT, TYPE_BOOL, TYPE_STRING, TYPE_ARTIFACT } value_type;

typedef struct param_info {
    const char *name;
    value_type type;
    const char *type_name; /* "int", ... or the artifact type */
    ast_param *decl;
    ast_expr *default_value; /* NULL when required */
    bool reported; /* its declaration was reported (E0208): arguments for it are not checked */
} param_info;

typedef struct output_info {
    const char *name;
    const char *type_name;
    ast_output *decl;
} output_info;

/* What a `source` entry is: by its extension in a native step (compiled
   C, C++ or CUDA, or a header), a file or folder shipped with a command step. */
typedef enum { SOURCE_C, SOURCE_CXX, SOURCE_CUDA, SOURCE_HEADER, SOURCE_FILE, SOURCE_FOLDER } source_kind;

static inline bool source_kind_compiled(source_kind k)
{
    return k == SOURCE_C || k == SOURCE_CXX || k == SOURCE_CUDA;
}

typedef struct source_ref {
    const char *path;     /* as written, relative to the .pipe file */
    const char *resolved; /* relative to the working directory (or absolute) */
    source_kind kind;
    span sp;
    const char *text; /* its bytes as W0407's scan read them (in the arena), or NULL */
    size_t len;
} source_ref;

/* A `libraries` entry of a native step. */
typedef struct library_ref {
    const char *name; /* "CUDA::cublas", "pkg:openblas" or "m" */
    span sp;
} library_ref;

typedef struct step_info {
    const char *name;
    ast_step *decl;
    uint32_t file;
    const char *dir; /* directory of the declaring .pipe file ("." if none) */
    param_info *params;
    size_t nparams;
    output_info *outputs;
    size_t noutputs;
    source_ref *sources;
    size_t nsources;
    bool is_command;         /* `command` given: a program, not a C function */
    const char **command;    /* the program and its arguments, placeholders as written */
    size_t ncommand;
    library_ref *libraries;
    size_t nlibraries;
    const char *entry;       /* C function name; NULL for a command step */
    bool entry_found;        /* W0407's scan found its definition: at entry_offset of sources[entry_source] */
    size_t entry_source, entry_offset;
    const char *description; /* NULL when absent */
    bool cache;
    ast_expr *environment;   /* EXPR_MAP or NULL */
    decorator_set decorators;
    bool accelerated;
    bool invoked;
} step_info;

typedef enum {
    ARG_DEFAULT,        /* not given: the parameter's default */
    ARG_LITERAL,        /* a literal value */
    ARG_PIPELINE_PARAM, /* a pipeline parameter */
    ARG_ARTIFACT,       /* an output of an earlier invocation */
} arg_kind;

struct invocation;

typedef struct arg_binding {
    arg_kind kind;
    ast_expr *value;          /* the literal, or the default; NULL for references */
    const char *ref;          /* pipeline parameter or artifact name */
    struct invocation *producer; /* ARG_ARTIFACT */
    size_t producer_output;
    span sp;
} arg_binding;

typedef struct invocation {
    const char *id; /* train, train_2, ... */
    size_t index;   /* position in the pipeline */
    step_info *step;
    ast_statement *stmt;
    arg_binding *args;        /* one per step parameter */
    const char **targets;     /* bound name per output, NULL when not bound */
    ptr_vec deps;             /* invocation*: producers of its inputs, no duplicates, in order */
    effective_options options;
} invocation;

typedef struct pipeline_info {
    const char *name;
    ast_pipeline *decl;
    param_info *params;
    size_t nparams;
    decorator_set decorators;
    ptr_vec invocations; /* invocation* in source order (a topological order) */
} pipeline_info;

typedef struct program {
    arena *arena;
    diag_engine *diag;
    source_set *sources;
    ast_file *root;
    ptr_vec files;     /* ast_file*: root first, then imports in load order */
    ptr_vec steps;     /* step_info* from every file */
    ptr_vec pipelines; /* pipeline_info* of the root file */
    symtab step_index; /* name -> step_info* */
} program;

/* A rule that a layer above the checker owns (a deploy target's, in
   targets/<name>/), handed to the checker as data: the checker runs it
   with its own rules, whatever --target says, so that `check` and `build`
   report the same on the same file. */
typedef struct check_rule {
    /* Over the options in force for a step in a pipeline (or its own, when
       no pipeline calls it); NULL: none. Not run on options that a syntax
       error may have damaged. */
    void (*step)(diag_engine *d, const step_info *st, const effective_options *eff);
    /* Over a pipeline's invocations, when no declaration they come from
       was damaged by a syntax error; NULL: none. */
    void (*pipeline)(diag_engine *d, const pipeline_info *pl);
} check_rule;

/* The most rules the checker takes: one per deploy target (a set of
   targets is one bit each of an unsigned). */
#define CHECK_RULES_MAX 32

typedef struct check_options {
    bool container_targets; /* build emits a target that runs containers: W0401 for image-less GPU steps */
    /* The rules of the layers above (session/ gives every deploy target's). */
    const check_rule *rules[CHECK_RULES_MAX];
    size_t nrules;
} check_options;

/* Loads path and its imports, checks everything; diagnostics go to d.
   Returns false on an I/O error for the root file itself (message in err). */
bool program_load(program *pg, arena *a, diag_engine *d, source_set *sources, const char *path,
                  const check_options *opts, char *err, size_t errsize);
/* Loads a file already in the source set (tests, fuzzing). */
void program_check_loaded(program *pg, arena *a, diag_engine *d, source_set *sources, uint32_t file,
                          const check_options *opts);

/* The pipeline to build or draw: the one named, or the only one (E0114 otherwise). */
pipeline_info *program_select_pipeline(program *pg, const char *name);

step_info *program_find_step(const program *pg, const char *name);
/* Frees what the arena does not own (the index tables). */
void program_free(program *pg);

const char *value_type_name(value_type t);

#endif
