#include "utf8.h"

#include "pipe/base.h"

size_t utf8_count(const char *s, size_t n)
{
    size_t count = 0, i = 0;
    while (i < n) {
        size_t len = pipe_utf8_valid_prefix(s + i, n - i);
        i += len ? len : 1;
        count++;
    }
    return count;
}
