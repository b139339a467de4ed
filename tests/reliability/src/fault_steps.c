/* The faults pipeline (../reliability.pipe): ranks that hang on purpose,
   two machines that all-reduce for a while (the rendezvous under attack),
   and two machines where rank 3 misbehaves (machines_blame.sh). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "faults.h"

/* marker/INVOCATION-pid-RANK holds this rank's pid: the test checks that
   none survives. */
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

int hang(pipe_ctx *ctx, const faults_hang_args *a)
{
    note_pid(ctx, a->marker);
    double x = pipe_rank(ctx);
    if (pipe_allreduce(ctx, &x, 1, PIPE_F64, PIPE_SUM) != 0) /* collective #1: everyone */
        return pipe_fail(ctx, "all-reduce: %s", pipe_last_error(ctx));
    if (strcmp(a->mode, "sigstop") == 0 && pipe_rank(ctx) == 1) {
        pipe_log(ctx, "rank 1 stops itself before the second all-reduce");
        raise(SIGSTOP);
    }
    if (pipe_allreduce(ctx, &x, 1, PIPE_F64, PIPE_SUM) != 0) /* collective #2: rank 1 never comes */
        return pipe_fail(ctx, "all-reduce: %s", pipe_last_error(ctx));
    pipe_log(ctx, "sum %g", x);
    return 0;
}

int machines(pipe_ctx *ctx, const faults_machines_args *a)
{
    note_pid(ctx, a->marker);
    struct timespec start, now, tick = {0, 100 * 1000000L};
    clock_gettime(CLOCK_MONOTONIC, &start);
    long rounds = 0;
    double x = 0;
    do {
        x = 1;
        if (pipe_allreduce(ctx, &x, 1, PIPE_F64, PIPE_SUM) != 0)
            return pipe_fail(ctx, "all-reduce %ld: %s", rounds, pipe_last_error(ctx));
        rounds++;
        nanosleep(&tick, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < a->seconds);
    if (x != pipe_world_size(ctx))
        return pipe_fail(ctx, "all-reduce gave %g, not %d", x, pipe_world_size(ctx));
    pipe_log(ctx, "world=%d rounds=%ld", pipe_world_size(ctx), rounds);
    return 0;
}

/* Every rank all-reduces until stopped, after rank 3 (on machine 1) did
   what mode says: "fail" exits 1 through pipe_fail once marker/go exists
   (the test first leaves what a rank killed while writing its error file
   leaves), "stop" sends itself SIGSTOP; "fail0": rank 0 (machine 0) exits
   1 at once; "hang": nobody misbehaves. */
int machines_fail(pipe_ctx *ctx, const faults_machines_fail_args *a)
{
    note_pid(ctx, a->marker);
    struct timespec tick = {0, 100 * 1000000L};
    double x = 1;
    if (pipe_allreduce(ctx, &x, 1, PIPE_F64, PIPE_SUM) != 0)
        return pipe_fail(ctx, "all-reduce: %s", pipe_last_error(ctx));
    if (pipe_rank(ctx) == 3 && strcmp(a->mode, "fail") == 0) {
        char go[4096];
        snprintf(go, sizeof go, "%s/go", a->marker);
        for (int i = 0; i < 100 && access(go, F_OK) != 0; i++)
            nanosleep(&tick, NULL);
        pipe_log(ctx, "rank 3 gives up with exit status 1");
        return pipe_fail(ctx, "rank 3 gives up on purpose");
    }
    if (pipe_rank(ctx) == 0 && strcmp(a->mode, "fail0") == 0) {
        pipe_log(ctx, "rank 0 gives up with exit status 1");
        return pipe_fail(ctx, "rank 0 gives up on purpose");
    }
    if (pipe_rank(ctx) == 3 && strcmp(a->mode, "stop") == 0) {
        pipe_log(ctx, "rank 3 stops itself");
        raise(SIGSTOP);
    }
    for (;;) {
        x = 1;
        if (pipe_allreduce(ctx, &x, 1, PIPE_F64, PIPE_SUM) != 0)
            return pipe_fail(ctx, "all-reduce: %s", pipe_last_error(ctx));
        nanosleep(&tick, NULL);
    }
}
