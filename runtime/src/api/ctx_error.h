/* The step context's last error (private): what pipe_last_error returns.
   Set by the step API (api.c, checkpoint.c); the collectives write into
   the same buffer through the context's pipe_coll (dist/collectives.h). */
#ifndef PIPE_CTX_ERROR_H
#define PIPE_CTX_ERROR_H

#include "pipe/pipe.h"

/* Sets ctx's last error (pipe_last_error) and returns code. */
int pipe_ctx_error(pipe_ctx *ctx, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
