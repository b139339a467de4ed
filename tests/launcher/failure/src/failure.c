/* The steps of failure.pipe: a producer that succeeds, a two-rank step
   whose rank 1 fails first and whose rank 0 fails after it, and a
   one-process step that fails with pipe_fail. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "failure.h"

int prepare(pipe_ctx *ctx, const failure_prepare_args *a)
{
    (void)a;
    FILE *out = pipe_output_open(ctx, "data");
    if (!out)
        return 1;
    fprintf(out, "1 2 3\n");
    return 0;
}

int split_brain(pipe_ctx *ctx, const failure_split_brain_args *a)
{
    if (strcmp(a->mode, "fail") != 0) {
        FILE *out = pipe_output_open(ctx, "out");
        return out ? 0 : 1;
    }
    if (pipe_rank(ctx) == 1) {
        pipe_log(ctx, "rank 1 gives up with exit status 3");
        return 3;
    }
    /* Rank 0 outlives the stop request and fails on its own after rank 1,
       writing an account of its own (as a rank that loses its peer in a
       collective does). */
    signal(SIGTERM, SIG_IGN);
    struct timespec half = {0, 500 * 1000 * 1000};
    while (nanosleep(&half, &half) != 0)
        ;
    return pipe_fail(ctx, "rank 0 lost its peer");
}

int solo(pipe_ctx *ctx, const failure_solo_args *a)
{
    if (strcmp(a->mode, "fail") == 0) {
        pipe_log(ctx, "about to fail");
        FILE *out = pipe_output_open(ctx, "out");
        if (out)
            fprintf(out, "half-written\n");
        return pipe_fail(ctx, "solo gives up on purpose");
    }
    FILE *out = pipe_output_open(ctx, "out");
    return out ? 0 : 1;
}
