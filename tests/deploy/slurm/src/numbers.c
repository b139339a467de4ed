/* Steps of the Slurm test pipeline (../pipeline.pipe). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "slurmtest.h"

/* Reads one integer a line from path into a malloc'ed array. */
static int read_numbers(pipe_ctx *ctx, const char *path, int64_t **out, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return pipe_fail(ctx, "cannot open %s", path);
    size_t cap = 16, len = 0;
    int64_t *v = malloc(cap * sizeof *v), x;
    while (v && fscanf(f, "%" SCNd64, &x) == 1) {
        if (len == cap) {
            int64_t *bigger = realloc(v, 2 * cap * sizeof *v);
            if (!bigger) {
                free(v);
                v = NULL;
                break;
            }
            v = bigger;
            cap *= 2;
        }
        v[len++] = x;
    }
    fclose(f);
    if (!v)
        return pipe_fail(ctx, "out of memory reading %s", path);
    *out = v;
    *n = len;
    return 0;
}

int generate(pipe_ctx *ctx, const slurmtest_generate_args *args)
{
    FILE *out = pipe_output_open(ctx, "numbers");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    for (int64_t i = 1; i <= args->n; i++)
        fprintf(out, "%" PRId64 "\n", i);
    pipe_log(ctx, "wrote %" PRId64 " numbers", args->n);
    return 0;
}

int square(pipe_ctx *ctx, const slurmtest_square_args *args)
{
    if (args->fail)
        return pipe_fail(ctx, "failing on purpose (fail = true)");
    int64_t *v;
    size_t n;
    if (read_numbers(ctx, args->data, &v, &n) != 0)
        return 1;
    FILE *out = pipe_output_open(ctx, "squares");
    if (!out) {
        free(v);
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    }
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%" PRId64 "\n", v[i] * v[i]);
    free(v);
    return 0;
}

int total(pipe_ctx *ctx, const slurmtest_total_args *args)
{
    int64_t *v, sum = 0;
    size_t n;
    if (read_numbers(ctx, args->data, &v, &n) != 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    free(v);
    FILE *out = pipe_output_open(ctx, "report");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    fprintf(out, "%s: %" PRId64 "\n", args->label, sum);
    pipe_metric(ctx, "sum", (double)sum);
    return 0;
}

int distributed_sum(pipe_ctx *ctx, const slurmtest_distributed_sum_args *args)
{
    int64_t *v;
    size_t n;
    if (read_numbers(ctx, args->data, &v, &n) != 0)
        return 1;
    int rank = pipe_rank(ctx), world = pipe_world_size(ctx);
    const char *node = getenv("SLURM_NODEID");
    /* The sum of this rank's lines, one per rank, and a bit for its node:
       summed over one rank on each of two nodes, {total, 2, 3}. */
    int64_t part[3] = {0, 1, (int64_t)1 << (node ? atoi(node) % 62 : 0)};
    for (size_t i = (size_t)rank; i < n; i += (size_t)world)
        part[0] += v[i];
    free(v);
    pipe_log(ctx, "rank %d of %d on SLURM_NODEID %s: partial sum %" PRId64, rank, world, node ? node : "-", part[0]);
    if (pipe_allreduce(ctx, part, 3, PIPE_I64, PIPE_SUM) != 0)
        return pipe_fail(ctx, "all-reduce failed: %s", pipe_last_error(ctx));
    FILE *out = pipe_output_open(ctx, "sum");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    fprintf(out, "sum %" PRId64 " ranks %" PRId64 " nodes %" PRId64 "\n", part[0], part[1], part[2]);
    return 0;
}
