/* What the checkers of map-valued options share (@kubernetes(volumes),
   @batch(tmpfs), option_values.c's strings): placing a map entry by its
   key, and the test for control characters in a value. */
#ifndef PIPEC_OPTION_MAP_H
#define PIPEC_OPTION_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "front/ast.h"
#include "util/diag.h"

enum { OPTION_KEY_UNKNOWN = -1, OPTION_KEY_TWICE = -2 };

/* The index of e's key in keys[0..nkeys), and entries[index] = e. A key
   already in entries is reported (E0105 at e, a note at the first) and
   gives OPTION_KEY_TWICE; a key not in keys gives OPTION_KEY_UNKNOWN,
   reported by the caller (its help names its own keys). */
int option_map_place(diag_engine *d, const ast_map_entry *e, const char *const *keys, size_t nkeys,
                     const ast_map_entry **entries);

/* s holds a byte below 0x20 or DEL: nothing a generated file may carry. */
bool option_has_control_chars(const char *s);

#endif
