/* Helpers shared by the checker's passes (sema_util.c). They call no pass,
   so the dependencies run one way: sema.c -> passes -> these helpers. */
#ifndef PIPEC_SEMA_UTIL_H
#define PIPEC_SEMA_UTIL_H

#include "sema.h"

/* "int", "float", "bool", "string"; any other name is an artifact type. */
value_type sema_type_of(const char *name);
bool sema_value_matches(value_type t, const ast_expr *v);
/* A value type name close to an artifact type name ("flat" -> "float"), or NULL. */
const char *sema_value_type_typo(const char *type_name);

/* A step's or pipeline's parameters, checked (E0105, E0208, E0201) into out[0..n). */
void sema_check_params(sema *s, ptr_vec *params, param_info **out, size_t *n, bool pipeline);

/* A lexical or syntax error was reported inside sp: parts of it may be lost. */
bool sema_damaged(const sema *s, span sp);
/* A lexical or syntax error among the decorators of a declaration (from the
   end of the item before it to its keyword): a decorator may have been lost. */
bool sema_decl_damaged(sema *s, uint32_t file, const void *decl);

/* The source text of a span (for help lines that quote what was written). */
const char *sema_text(const sema *s, span sp);
const char *sema_dirname(arena *a, const char *path);
/* dir/rel, normalized: "./" dropped, "x/.." folded. */
const char *sema_join_path(arena *a, const char *dir, const char *rel);

#endif
