/* The resume_c pipeline (../reliability.pipe; checkpoint_kill.sh): a
   deterministic loop that checkpoints through the step API
   (pipe_checkpoint_*) every `every` iterations and at SIGTERM, and resumes
   from pipe_checkpoint_latest. The state is an iteration count, a random
   generator's state and 64 numbers; a checkpoint holds it in state.bin and
   its checksum in sum, written `save_ms` apart so that a kill can land
   between them. What it loads is checked: a torn checkpoint would be
   noted in MARKER/torn and fail the step. For the test it writes MARKER/
   progress (iterations done, after each) and appends "start N" to
   MARKER/starts. Its output is the final state. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "resume_c.h"

enum { N = 64 };

typedef struct state {
    uint64_t done; /* iterations done */
    uint64_t rng;
    double x[N];
} state;

static volatile sig_atomic_t stop_requested;

static void on_term(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* One iteration: the same numbers on every run, from the same state. */
static void iterate(state *s)
{
    for (int j = 0; j < N; j++) {
        s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
        double noise = (double)(s->rng >> 11) / 9007199254740992.0 - 0.5;
        s->x[j] = s->x[j] * 0.999 + sin((double)s->done * 0.01 + j) * 0.001 + noise * 1e-4;
    }
    s->done++;
}

static int write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static void note(const char *marker, const char *name, const char *text, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", marker, name);
    FILE *f = fopen(path, mode);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void progress(const char *marker, uint64_t done)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64 "\n", done);
    note(marker, "progress", text, "w");
}

/* The checkpoint at path, checked: 0, or -1 when it is torn. */
static int load(const char *path, state *s)
{
    char p[4096];
    uint64_t sum = 0;
    snprintf(p, sizeof p, "%s/state.bin", path);
    FILE *f = fopen(p, "rb");
    size_t got = f ? fread(s, 1, sizeof *s, f) : 0;
    int extra = f ? fgetc(f) : EOF;
    if (f)
        fclose(f);
    snprintf(p, sizeof p, "%s/sum", path);
    f = fopen(p, "r");
    int ok = f && fscanf(f, "%" SCNx64, &sum) == 1;
    if (f)
        fclose(f);
    return got == sizeof *s && extra == EOF && ok && sum == fnv1a(s, sizeof *s) ? 0 : -1;
}

static int save(pipe_ctx *ctx, const state *s, int64_t save_ms)
{
    char name[32], sum[32];
    snprintf(name, sizeof name, "step_%" PRIu64, s->done);
    const char *dir = pipe_checkpoint_begin(ctx, name);
    if (!dir)
        return -1;
    snprintf(sum, sizeof sum, "%016" PRIx64 "\n", fnv1a(s, sizeof *s));
    if (write_file(dir, "state.bin", s, sizeof *s) != 0)
        return -1;
    sleep_ms(save_ms); /* a large checkpoint takes a while: kills land here too */
    if (write_file(dir, "sum", sum, strlen(sum)) != 0)
        return -1;
    return pipe_checkpoint_commit(ctx, name);
}

int loop_c(pipe_ctx *ctx, const resume_c_loop_c_args *a)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);

    state s = {.done = 0, .rng = (uint64_t)a->seed};
    for (int j = 0; j < N; j++)
        s.x[j] = (double)j / N;
    const char *latest = pipe_checkpoint_latest(ctx);
    if (latest && load(latest, &s) != 0) {
        note(a->marker, "torn", latest, "a");
        return pipe_fail(ctx, "torn checkpoint %s", latest);
    }
    char line[64];
    snprintf(line, sizeof line, "start %" PRIu64 "\n", s.done);
    note(a->marker, "starts", line, "a");
    pipe_log(ctx, "starting at iteration %" PRIu64 "%s%s", s.done, latest ? " from " : "", latest ? latest : "");
    while (s.done < (uint64_t)a->iterations) {
        iterate(&s);
        progress(a->marker, s.done);
        bool due = s.done % (uint64_t)a->every == 0;
        if ((due || stop_requested) && save(ctx, &s, a->save_ms) != 0)
            return pipe_fail(ctx, "cannot save a checkpoint at %" PRIu64 ": %s", s.done, pipe_last_error(ctx));
        if (stop_requested) {
            pipe_log(ctx, "stopped at iteration %" PRIu64 ", saved", s.done);
            return 1;
        }
        sleep_ms(a->iter_ms);
    }
    FILE *out = pipe_output_open(ctx, "state");
    if (!out || fwrite(&s, sizeof s, 1, out) != 1)
        return pipe_fail(ctx, "cannot write the state: %s", pipe_last_error(ctx));
    return 0;
}
