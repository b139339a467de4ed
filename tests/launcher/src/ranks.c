/* One body for every step of launch.pipe: check the world, the collectives
   and the environment, or misbehave on purpose (mode). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

/* Writes this rank's pid under marker/ so the test can check nothing survives. */
static void note_pid(pipe_ctx *ctx, const char *marker)
{
    if (!*marker)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-pid-%d", marker, pipe_invocation_id(ctx), pipe_rank(ctx));
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
}

/* mode=segv: a NULL pointer written through, in a frame of its own that
   the backtrace names. The pointer is volatile: the compiler cannot see
   that it is NULL and turn the store into a trap. */
__attribute__((noinline)) static void dereference_null(void)
{
    int *volatile p = NULL;
    *p = 42;
}

static int body(pipe_ctx *ctx, const char *mode, const char *marker)
{
    int rank = pipe_rank(ctx), world = pipe_world_size(ctx);
    pipe_log(ctx, "env RANK=%s LOCAL_RANK=%s WORLD_SIZE=%s LOCAL_WORLD_SIZE=%s MASTER_ADDR=%s MASTER_PORT=%s "
                  "PIPE_MIXED_PRECISION=%s OMP_NUM_THREADS=%s",
             env("RANK"), env("LOCAL_RANK"), env("WORLD_SIZE"), env("LOCAL_WORLD_SIZE"), env("MASTER_ADDR"),
             env("MASTER_PORT"), env("PIPE_MIXED_PRECISION"), env("OMP_NUM_THREADS"));
    pipe_log(ctx, "ports MASTER_PORT=%s PIPE_RDZV_PORT=%s", env("MASTER_PORT"), env("PIPE_RDZV_PORT"));
    note_pid(ctx, marker);
    if (strcmp(mode, "segv") == 0)
        dereference_null();
    if (strcmp(mode, "exit3") == 0 || strcmp(mode, "sigkill") == 0 || strcmp(mode, "hang") == 0) {
        if (strcmp(mode, "exit3") == 0 && rank == 1) {
            pipe_log(ctx, "rank 1 gives up with exit status 3");
            return 3;
        }
        if (strcmp(mode, "sigkill") == 0 && rank == world - 1) {
            pipe_log(ctx, "the last rank kills itself");
            raise(SIGKILL);
        }
        for (;;)
            pause(); /* until the launcher stops the group */
    }
    if (strcmp(mode, "flaky") == 0 && rank == 0 && *marker) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s-first-attempt", marker, pipe_invocation_id(ctx));
        if (access(path, F_OK) != 0) {
            FILE *f = fopen(path, "w");
            if (f)
                fclose(f);
            return pipe_fail(ctx, "failing the first attempt on purpose");
        }
    }
    /* Collectives: sum, max, broadcast, allgather, barrier. */
    double sum = rank + 1, max = rank;
    int64_t bcast = rank == world - 1 ? 4242 : -1;
    int32_t *all = calloc((size_t)world, sizeof *all);
    int32_t mine = rank * 10;
    int rc = pipe_allreduce(ctx, &sum, 1, PIPE_F64, PIPE_SUM);
    rc = rc ? rc : pipe_allreduce(ctx, &max, 1, PIPE_F64, PIPE_MAX);
    rc = rc ? rc : pipe_broadcast(ctx, &bcast, 1, PIPE_I64, world - 1);
    rc = rc ? rc : pipe_allgather(ctx, &mine, all, 1, PIPE_I32);
    rc = rc ? rc : pipe_barrier(ctx);
    if (rc != 0) {
        free(all);
        return pipe_fail(ctx, "collective failed: %s", pipe_last_error(ctx));
    }
    int gathered_ok = 1;
    for (int r = 0; r < world; r++)
        gathered_ok = gathered_ok && all[r] == r * 10;
    free(all);
    pipe_log(ctx, "sum=%g max=%g bcast=%lld gathered=%s", sum, max, (long long)bcast, gathered_ok ? "ok" : "bad");
    if (sum != world * (world + 1) / 2.0 || max != world - 1 || bcast != 4242 || !gathered_ok)
        return pipe_fail(ctx, "wrong collective results on rank %d", rank);
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return 1;
    fprintf(out, "world=%d sum=%g precision=%s\n", world, sum, pipe_mixed_precision(ctx));
    return 0;
}

int ranks_1(pipe_ctx *ctx, const launch_ranks_1_args *a) { return body(ctx, a->mode, a->marker); }
int ranks_2(pipe_ctx *ctx, const launch_ranks_2_args *a) { return body(ctx, a->mode, a->marker); }
int ranks_3(pipe_ctx *ctx, const launch_ranks_3_args *a) { return body(ctx, a->mode, a->marker); }
int ranks_4(pipe_ctx *ctx, const launch_ranks_4_args *a) { return body(ctx, a->mode, a->marker); }
int ranks_8(pipe_ctx *ctx, const launch_ranks_8_args *a) { return body(ctx, a->mode, a->marker); }
int flaky(pipe_ctx *ctx, const launch_flaky_args *a) { return body(ctx, a->mode, a->marker); }
int machines(pipe_ctx *ctx, const launch_machines_args *a) { return body(ctx, a->mode, a->marker); }
int bf16(pipe_ctx *ctx, const launch_bf16_args *a) { return a->seed < 0 ? 1 : body(ctx, a->mode, a->marker); }
