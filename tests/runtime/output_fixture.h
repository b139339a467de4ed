/* A step context with one output, `model`, for the tests of how outputs
   are written and hashed (test_hashed_output.c, test_hash_pipeline.c):
   rank 0 of 1 in DIR (its outputs/ made), as a supervisor would start it.
   Static: include from the single .c file of a test program. */
#ifndef PIPE_TESTS_OUTPUT_FIXTURE_H
#define PIPE_TESTS_OUTPUT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "api/ctx.h"
#include "util/util.h"

static inline pipe_ctx *fx_model_ctx(const char *dir)
{
    static const char *const out_names[] = {"model"};
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    unsetenv("LOCAL_WORLD_SIZE");
    char *outputs = pipe_asprintf("%s/outputs", dir), err[512] = "";
    pipe_mkdirs(outputs, err, sizeof err);
    free(outputs);
    pipe_ctx_config cfg = {.invocation = "train", .run_id = "R", .dir = dir, .output_names = out_names,
                           .noutputs = 1};
    pipe_ctx *ctx = NULL;
    if (pipe_ctx_create(&cfg, &ctx, err, sizeof err) != 0)
        fprintf(stderr, "pipe_ctx_create: %s\n", err);
    return ctx;
}

#endif
