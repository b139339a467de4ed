#include "ctx_error.h"

#include <stdarg.h>
#include <stdio.h>

#include "ctx.h"

int pipe_ctx_error(pipe_ctx *ctx, int code, const char *fmt, ...)
{
    if (!ctx)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    return code;
}

const char *pipe_last_error(const pipe_ctx *ctx)
{
    return ctx ? ctx->last_error : "no step context (a NULL pipe_ctx was passed)";
}
