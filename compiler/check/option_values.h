/* The value of one decorator option, checked by the kind the settings table
   gives it (pipe/settings.def), then by the option's own check that the
   table names, and kept as an opt_value. */
#ifndef PIPEC_OPTION_VALUES_H
#define PIPEC_OPTION_VALUES_H

#include "decorators.h"

/* An option's check beyond its kind (the CHECK column of the settings
   table): runs on a value its kind accepted, reports what is wrong where
   v->expr was written; false when the value is not to be used. */
typedef bool option_check(diag_engine *d, const opt_value *v);

/* Parses v as option o of decorator s into out (out->valid when it holds a
   value), reporting E0105 (a map key twice), E0201, E0204-E0207, then
   what the option's check reports. */
void option_value_parse(arena *a, diag_engine *d, const decorator_schema *s, const option_schema *o, ast_expr *v,
                        opt_value *out);
/* The option's default as a parsed value (set = false). */
opt_value option_value_initial(const option_schema *o);

#endif
