/* "Did you mean": pipec's diagnostics and the runtime's unknown-name errors
   pick suggestions the same way. */
#include <stdint.h>
#include <string.h>

#include "pipe/base.h"

size_t pipe_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > PIPE_EDIT_DISTANCE_MAX_LEN || lb > PIPE_EDIT_DISTANCE_MAX_LEN) {
        /* Identifiers are never this long; don't spend quadratic time on
         * them. The max length is a true upper bound on the distance. */
        if (la == lb && memcmp(a, b, la) == 0)
            return 0;
        return la > lb ? la : lb;
    }
    if (la == 0)
        return lb;
    if (lb == 0)
        return la;

    /* Three rolling rows: the transposition step looks two rows back. */
    size_t rows[3][PIPE_EDIT_DISTANCE_MAX_LEN + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;

    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = prev[j] + 1;                 /* delete */
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;                 /* insert */
            if (prev[j - 1] + cost < best)
                best = prev[j - 1] + cost;             /* substitute */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;               /* transpose */
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

static int ascii_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* strcasecmp is POSIX but locale-dependent; identifiers are ASCII. */
static int equal_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b))
            return 0;
    return *a == *b;
}

const char *pipe_closest_name(const char *name, const char *const *candidates, size_t n, size_t max_distance)
{
    size_t len = strlen(name);
    if (len == 0)
        return NULL;

    const char *best = NULL;
    int best_ci = 0;
    size_t best_dist = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        if (!c)
            continue;
        int ci = equal_ignoring_case(name, c);
        size_t clen = strlen(c);
        size_t gap = clen > len ? clen - len : len - clen;
        /* The length gap bounds the distance from below: skip the work. */
        if (!ci && gap > max_distance)
            continue;
        size_t d = pipe_edit_distance(name, c);
        if (!ci && d > max_distance)
            continue;
        /* Strict comparisons keep the first of equals. */
        if ((ci && !best_ci) || (ci == best_ci && d < best_dist)) {
            best = c;
            best_ci = ci;
            best_dist = d;
        }
    }
    return best;
}

const char *pipe_suggest_name(const char *name, const char *const *candidates, size_t n)
{
    size_t len = strlen(name);
    size_t third = len / 3;
    const char *close = pipe_closest_name(name, candidates, n, third > 1 ? third : 1);
    if (close || len < 3)
        return close;
    /* The one candidate the name starts with or that starts with the name
       ("gpu_count" -> "gpu", "cleanup" -> "cleanup_memory"). */
    const char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        size_t clen = c ? strlen(c) : 0;
        if (clen < 3)
            continue;
        int prefix = clen < len ? strncmp(name, c, clen) == 0 : strncmp(c, name, len) == 0;
        if (!prefix)
            continue;
        if (found)
            return NULL; /* ambiguous */
        found = c;
    }
    return found;
}
