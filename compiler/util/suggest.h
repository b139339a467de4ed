/* "Did you mean" support for diagnostics (E0102, E0103, E0108, E0109, ...). */
#ifndef PIPEC_SUGGEST_H
#define PIPEC_SUGGEST_H

#include <stddef.h>

/*
 * pipe_closest_name (pipe/base.h) within max(1, strlen(name) / 3) edits: the
 * candidate equal to name ignoring ASCII case, else the closest, first of
 * equals; NULL when none is close enough.
 */
const char *suggest_closest(const char *name, const char *const *candidates, size_t n);

/*
 * Writes "`a`", "`a` and `b`", "`a`, `b` and `c`" (no Oxford comma) into buf,
 * or "none" when n == 0. Returns the length the full text needs, as snprintf
 * does; buf is always NUL-terminated when size > 0, and buf may be NULL when
 * size is 0.
 */
int format_name_list(char *buf, size_t size, const char *const *names, size_t n);

/* suggest_closest, falling back to the single candidate that is a prefix of
   the name or that the name is a prefix of (3 characters or more). */
const char *suggest_closest_or_prefix(const char *name, const char *const *candidates, size_t n);

#endif /* PIPEC_SUGGEST_H */
