/* Error codes as text, and error messages into caller-given buffers. */
#include <stdarg.h>
#include <stdio.h>

#include "pipe/base.h"
#include "pipe/error.h"

const char *pipe_strerror(int code)
{
    switch (code) {
#define PIPE_ERROR_CASE(name, value, text) \
    case -(value): return text;
        PIPE_ERRORS(PIPE_ERROR_CASE)
#undef PIPE_ERROR_CASE
    }
    return "unknown error";
}

void pipe_errf(char *err, size_t errsize, const char *fmt, ...)
{
    if (!err || errsize == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
}
