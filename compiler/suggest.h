/* "Did you mean" support for diagnostics (E0102, E0103, E0108, E0109, ...). */
#ifndef PIPEC_SUGGEST_H
#define PIPEC_SUGGEST_H

#include <stddef.h>

/* Longest input (in bytes) for which edit_distance computes the exact value. */
#define SUGGEST_MAX_LEN 256

/*
 * Damerau-Levenshtein distance in its optimal-string-alignment form: insert,
 * delete, substitute and swap two adjacent bytes each cost 1 ("epcohs" is 1
 * from "epochs"). Byte-wise and case-sensitive; uses O(SUGGEST_MAX_LEN) stack,
 * no heap. When either string is longer than SUGGEST_MAX_LEN the result is
 * not computed: it returns 0 for equal strings and otherwise
 * max(strlen(a), strlen(b)), an upper bound that is far above any threshold.
 */
size_t edit_distance(const char *a, const char *b);

/*
 * The candidate closest to name, or NULL when none is close enough. A
 * candidate qualifies when it equals name ignoring ASCII case (so "GPU" finds
 * "gpu"), or when edit_distance is at most max(1, strlen(name) / 3).
 * Case-insensitive matches rank before all others; then smaller distance
 * wins; ties go to the first in array order. NULL entries are skipped; an
 * empty name suggests nothing.
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
