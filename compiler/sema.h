/* Internal interface between the checker's passes (one file per concern). */
#ifndef PIPEC_SEMA_H
#define PIPEC_SEMA_H

#include "program.h"

typedef struct sema {
    program *pg;
    const check_options *opts;
    /* Files with syntax errors: names may have been lost in recovery, so
       "unknown name" errors and unused warnings are not reported. */
    bool lost_names;
    /* An import could not be loaded: unknown steps may be declared there (no E0102). */
    bool import_failed;
    /* import -> the file it loaded, for declaring steps in reading order. */
    ptr_vec import_links; /* import_link* */
    /* Declarations whose decorators may have lost something to a lexical or
       syntax error (sema_decl_damaged), computed once. */
    ptr_vec damaged_decls;
    bool damage_known;
} sema;

typedef struct import_link {
    const ast_import *import;
    uint32_t file;
} import_link;

/* sema_load.c: parses the root file and its imports (E0111, E0112). */
void sema_load_imports(sema *s, uint32_t root);
/* sema_steps.c: step declarations (E0101, E0105, E0110, E0113, E0116, E0201, E0208...). */
void sema_declare_steps(sema *s);
/* sema_pipelines.c: pipelines and their invocations, W0404/W0405. */
void sema_check_pipelines(sema *s);
/* sema_rules.c: rules over the options in force for a step in a pipeline
   (pipeline NULL: the step's own options only). */
void sema_check_accelerate(sema *s, step_info *st);
/* damaged: the declarations the options come from lost something to a
   syntax error, so the rules that combine them (E0305, E0401, W0401-W0403)
   stay silent. */
void sema_check_effective(sema *s, step_info *st, const effective_options *eff, bool damaged);

/* Shared helpers. */
bool sema_value_matches(value_type t, const ast_expr *v);
value_type sema_type_of(const char *name);
void sema_check_params(sema *s, ptr_vec *params, param_info **out, size_t *n, bool pipeline);
const char *sema_dirname(arena *a, const char *path);
const char *sema_join_path(arena *a, const char *dir, const char *rel);
/* A lexical or syntax error was reported inside sp: parts of it may be lost. */
bool sema_damaged(const sema *s, span sp);
/* A lexical or syntax error among the decorators of a declaration (from the
   end of the item before it to its keyword): a decorator may have been lost. */
bool sema_decl_damaged(sema *s, uint32_t file, const void *decl);
/* A value type name close to an artifact type name ("flat" -> "float"), or NULL. */
const char *sema_value_type_typo(const char *type_name);
/* The source text of a span (for help lines that quote what was written). */
const char *sema_text(const sema *s, span sp);

#endif
