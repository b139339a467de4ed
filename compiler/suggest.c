#include "suggest.h"

#include <limits.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN) {
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
    size_t rows[3][SUGGEST_MAX_LEN + 1];
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

const char *suggest_closest(const char *name, const char *const *candidates, size_t n)
{
    size_t len = strlen(name);
    if (len == 0)
        return NULL;
    size_t threshold = len / 3 > 1 ? len / 3 : 1;

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
        if (!ci && gap > threshold)
            continue;
        size_t d = edit_distance(name, c);
        if (!ci && d > threshold)
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

/* Appends text to buf without overflowing it; *total counts every byte
 * asked for, so the caller can return the snprintf-style length. */
static void append(char *buf, size_t size, size_t *total, const char *text)
{
    size_t len = strlen(text);
    if (*total + 1 < size) {
        size_t room = size - 1 - *total;
        size_t k = len < room ? len : room;
        memcpy(buf + *total, text, k);
    }
    *total += len;
}

int format_name_list(char *buf, size_t size, const char *const *names, size_t n)
{
    size_t total = 0;
    if (n == 0) {
        append(buf, size, &total, "none");
    } else {
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                append(buf, size, &total, i + 1 == n ? " and " : ", ");
            append(buf, size, &total, "`");
            append(buf, size, &total, names[i] ? names[i] : "");
            append(buf, size, &total, "`");
        }
    }
    if (size > 0)
        buf[total < size ? total : size - 1] = '\0';
    return total > INT_MAX ? INT_MAX : (int)total;
}

/* suggest_closest, else the one candidate the name starts with or that
   starts with the name ("gpu_count" -> "gpu", "cleanup" -> "cleanup_memory"). */
const char *suggest_closest_or_prefix(const char *name, const char *const *candidates, size_t n)
{
    const char *close = suggest_closest(name, candidates, n);
    if (close)
        return close;
    size_t len = strlen(name);
    if (len < 3)
        return NULL;
    const char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        size_t clen = c ? strlen(c) : 0;
        if (clen < 3)
            continue;
        bool prefix = clen < len ? strncmp(name, c, clen) == 0 : strncmp(c, name, len) == 0;
        if (!prefix)
            continue;
        if (found)
            return NULL; /* ambiguous */
        found = c;
    }
    return found;
}
