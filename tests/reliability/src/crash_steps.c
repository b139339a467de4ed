/* The crash pipeline (../reliability.pipe): a slow writer, a 2-rank reader
   that all-reduces, a check. Every file ends with a trailer, so that a file
   cut short by a kill is recognized; a step that is handed one fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crash.h"

enum { CHUNK = 4096 };

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0) {
    }
}

/* The chunks and the trailer; slowly, flushing each, so that a kill in the
   middle leaves a partial temporary file behind. */
static int write_chunks(pipe_ctx *ctx, FILE *out, int64_t chunks, int64_t chunk_ms, const char *head)
{
    char line[CHUNK];
    fprintf(out, "%s\n", head);
    for (int64_t i = 0; i < chunks; i++) {
        int n = snprintf(line, sizeof line, "chunk %06lld ", (long long)i);
        memset(line + n, 'a' + (int)(i % 26), sizeof line - (size_t)n - 1);
        line[sizeof line - 1] = '\n';
        if (fwrite(line, 1, sizeof line, out) != sizeof line)
            return pipe_fail(ctx, "cannot write chunk %lld", (long long)i);
        fflush(out);
        sleep_ms(chunk_ms);
    }
    fprintf(out, "END %lld\n", (long long)chunks);
    return 0;
}

/* Checks a file written by write_chunks: its head line, every chunk, the
   trailer. The number of chunks, or -1 with the step failed. */
static long long read_chunks(pipe_ctx *ctx, const char *path, char *head, size_t headsize)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return pipe_fail(ctx, "cannot read %s", path), -1;
    char line[CHUNK + 64];
    long long n = 0, end = -1;
    if (!fgets(head, (int)headsize, in)) {
        fclose(in);
        return pipe_fail(ctx, "%s is empty", path), -1;
    }
    head[strcspn(head, "\n")] = '\0';
    while (fgets(line, sizeof line, in)) {
        long long i;
        if (sscanf(line, "END %lld", &end) == 1)
            break;
        if (sscanf(line, "chunk %lld ", &i) != 1 || i != n || strlen(line) != CHUNK) {
            fclose(in);
            return pipe_fail(ctx, "%s: chunk %lld is damaged", path, n), -1;
        }
        n++;
    }
    fclose(in);
    if (end != n)
        return pipe_fail(ctx, "%s was cut short: %lld chunks and no trailer", path, n), -1;
    return n;
}

int writer(pipe_ctx *ctx, const crash_writer_args *a)
{
    /* Something in the scratch folder, for the test to see it removed. */
    char path[4096];
    snprintf(path, sizeof path, "%s/scratch-file", pipe_scratch_dir(ctx));
    FILE *scratch = fopen(path, "w");
    if (scratch) {
        fputs("scratch\n", scratch);
        fclose(scratch);
    }
    FILE *out = pipe_output_open(ctx, "data");
    if (!out)
        return pipe_fail(ctx, "cannot open output data: %s", pipe_last_error(ctx));
    return write_chunks(ctx, out, a->chunks, a->chunk_ms, "data");
}

int ranked(pipe_ctx *ctx, const crash_ranked_args *a)
{
    char head[64];
    long long n = read_chunks(ctx, a->data, head, sizeof head);
    if (n < 0)
        return 1;
    /* Each rank sums its half of the chunk numbers; the all-reduce adds them. */
    int64_t sum = 0;
    for (long long i = pipe_rank(ctx); i < n; i += pipe_world_size(ctx))
        sum += i;
    if (pipe_allreduce(ctx, &sum, 1, PIPE_I64, PIPE_SUM) != 0)
        return pipe_fail(ctx, "all-reduce: %s", pipe_last_error(ctx));
    if (pipe_rank(ctx) != 0)
        return 0;
    FILE *out = pipe_output_open(ctx, "summed");
    if (!out)
        return pipe_fail(ctx, "cannot open output summed: %s", pipe_last_error(ctx));
    char sumline[64];
    snprintf(sumline, sizeof sumline, "sum %lld", (long long)sum);
    return write_chunks(ctx, out, n, a->chunk_ms, sumline);
}

int verify(pipe_ctx *ctx, const crash_verify_args *a)
{
    char head_data[64], head_sum[64];
    long long n = read_chunks(ctx, a->data, head_data, sizeof head_data);
    long long m = n < 0 ? -1 : read_chunks(ctx, a->summed, head_sum, sizeof head_sum);
    if (n < 0 || m < 0)
        return 1;
    long long sum = -1;
    if (m != n || sscanf(head_sum, "sum %lld", &sum) != 1 || sum != n * (n - 1) / 2)
        return pipe_fail(ctx, "summed (%s, %lld chunks) does not match data (%lld chunks)", head_sum, m, n);
    pipe_log(ctx, "data and summed are whole: %lld chunks", n);
    return 0;
}
