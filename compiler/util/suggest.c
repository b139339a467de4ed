#include "suggest.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "pipe/base.h"

/* Diagnostics suggest within a third of the name's length (at least 1). */
const char *suggest_closest(const char *name, const char *const *candidates, size_t n)
{
    size_t third = strlen(name) / 3;
    return pipe_closest_name(name, candidates, n, third > 1 ? third : 1);
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

const char *suggest_closest_or_prefix(const char *name, const char *const *candidates, size_t n)
{
    return pipe_suggest_name(name, candidates, n);
}
