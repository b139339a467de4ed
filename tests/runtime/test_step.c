/* The `step` command (supervisor.c) end to end, in this process: a
   hand-written manifest and step table stand in for generated code. Covers
   success, inputs from producers, caching (hit, miss, --no-cache, an
   invalidated digest), failures (pipe_fail, a return value, a signal, a
   missing output), @timeout (SIGTERM, then SIGKILL), @retry, signal
   forwarding, several ranks, the environment, and the usage errors. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"
#include "cmd/commands.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "pipe/pipe.h"
#include "step/step.h"
#include "step_fixture.h"
#include "store/stepfile.h"

static const char manifest_text[] =
    "manifest_version: 2\n"
    "pipeline: demo\n"
    "params:\n"
    "  - {name: count, type: int, default: \"3\"}\n"
    "  - {name: scale, type: float, default: \"2.5\"}\n"
    "  - {name: tag, type: string}\n"
    "steps:\n"
    "  - name: produce\n"
    "    entry: produce_main\n"
    "    code_digest: d1\n"
    "    cache: true\n"
    "    params: [{name: n, type: int}]\n"
    "    outputs: [{name: data, type: dataset}, {name: env, type: text}]\n"
    "    environment: {PIPE_TEST_VAR: \"from the step\"}\n"
    "  - name: consume\n"
    "    entry: consume_main\n"
    "    code_digest: d2\n"
    "    cache: true\n"
    "    params: [{name: data, type: dataset, artifact: true}, {name: scale, type: float}, {name: tag, type: string}]\n"
    "    outputs: [{name: result, type: text}]\n"
    "  - name: misbehave\n"
    "    entry: misbehave_main\n"
    "    code_digest: d3\n"
    "    cache: false\n"
    "    params: [{name: mode, type: string}]\n"
    "    outputs: [{name: out, type: text}]\n"
    "  - name: ranks\n"
    "    entry: ranks_main\n"
    "    code_digest: d4\n"
    "    cache: true\n"
    "    outputs: [{name: out, type: text}]\n"
    "  - name: nocuda\n"
    "    entry: nocuda_main\n"
    "    code_digest: d5\n"
    "    cache: false\n"
    "    outputs: [{name: out, type: text}]\n"
    "invocations:\n"
    "  - id: produce\n"
    "    step: produce\n"
    "    args: [{name: n, param: count}]\n"
    "    resources: {cpu: 2.5}\n"
    "  - id: consume\n"
    "    step: consume\n"
    "    needs: [produce]\n"
    "    args: [{name: data, artifact: produce, output: data}, {name: scale, param: scale}, {name: tag, param: tag}]\n"
    "  - {id: fail, step: misbehave, args: [{name: mode, value: fail}]}\n"
    "  - {id: ret7, step: misbehave, args: [{name: mode, value: ret7}]}\n"
    "  - {id: crash, step: misbehave, args: [{name: mode, value: crash}]}\n"
    "  - {id: lazy, step: misbehave, args: [{name: mode, value: lazy}]}\n"
    "  - {id: passwd, step: misbehave, args: [{name: mode, value: passwd}]}\n"
    "  - {id: hardlink, step: misbehave, args: [{name: mode, value: hardlink}]}\n"
    "  - {id: sleepy, step: misbehave, args: [{name: mode, value: sleep}], timeout_ms: 300}\n"
    "  - {id: stubborn, step: misbehave, args: [{name: mode, value: stubborn}], timeout_ms: 300}\n"
    "  - {id: forever, step: misbehave, args: [{name: mode, value: sleep}]}\n"
    "  - {id: flaky_ok, step: misbehave, args: [{name: mode, value: flaky}], retry: {max: 2, delay_ms: 10}}\n"
    "  - {id: flaky_bad, step: misbehave, args: [{name: mode, value: flaky}], retry: {max: 1, delay_ms: 0}}\n"
    "  - id: gpu_produce\n"
    "    step: produce\n"
    "    args: [{name: n, value: \"1\"}]\n"
    "    resources: {gpu: 1}\n"
    "    cleanup_memory: true\n"
    "  - {id: nocuda, step: nocuda}\n"
    "  - id: multi\n"
    "    step: ranks\n"
    "    accelerate: {num_processes: 2, num_machines: 1, cpu: true, mixed_precision: bf16, main_process_port: 29511}\n";

/* The argument structs and step table, as a generated driver has them. */
typedef struct produce_args {
    int64_t n;
} produce_args;
typedef struct consume_args {
    const char *data;
    double scale;
    const char *tag;
} consume_args;
typedef struct misbehave_args {
    const char *mode;
} misbehave_args;

static int produce_main(pipe_ctx *ctx, const void *raw)
{
    const produce_args *a = raw;
    FILE *out = pipe_output_open(ctx, "data");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    for (int64_t i = 0; i < a->n; i++)
        fprintf(out, "line %lld\n", (long long)i);
    printf("printed by produce\n");
    pipe_log(ctx, "wrote %lld lines", (long long)a->n);
    pipe_metric(ctx, "lines", (double)a->n);
    pipe_metric(ctx, "loss", 0.5);
    pipe_metric(ctx, "loss", 0.125);
    FILE *env = pipe_output_open(ctx, "env");
    const char *var = getenv("PIPE_TEST_VAR"), *omp = getenv("OMP_NUM_THREADS");
    fprintf(env, "PIPE_TEST_VAR=%s\nOMP_NUM_THREADS=%s\nPIPE_RUN_ID=%s\nPIPE_INVOCATION=%s\nRANK=%s\n",
            var ? var : "", omp ? omp : "", getenv("PIPE_RUN_ID"), getenv("PIPE_INVOCATION"), getenv("RANK"));
    return 0;
}

static int consume_main(pipe_ctx *ctx, const void *raw)
{
    const consume_args *a = raw;
    if (!a->data || strcmp(a->data, pipe_input_path(ctx, "data")) != 0)
        return pipe_fail(ctx, "the argument and pipe_input_path disagree");
    FILE *in = fopen(a->data, "r");
    if (!in)
        return pipe_fail(ctx, "cannot open %s", a->data);
    int lines = 0, c;
    while ((c = fgetc(in)) != EOF)
        lines += c == '\n';
    fclose(in);
    fprintf(pipe_output_open(ctx, "result"), "%s: %d lines scaled %g\n", a->tag, lines, a->scale * lines);
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int misbehave_main(pipe_ctx *ctx, const void *raw)
{
    const misbehave_args *a = raw;
    FILE *out = pipe_output_open(ctx, "out");
    fputs("partial output", out);
    fflush(out);
    if (strcmp(a->mode, "fail") == 0)
        return pipe_fail(ctx, "bad thing happened at step %d", 42);
    if (strcmp(a->mode, "ret7") == 0)
        return 7;
    if (strcmp(a->mode, "crash") == 0) {
        raise(SIGKILL);
        return 0;
    }
    if (strcmp(a->mode, "lazy") == 0) {
        /* Claims success without the output: drop the stream's file by hand. */
        char *tmp = pipe_asprintf("%s", pipe_output_path(ctx, "out"));
        unlink(tmp);
        free(tmp);
        return 0;
    }
    if (strcmp(a->mode, "passwd") == 0 || strcmp(a->mode, "hardlink") == 0) {
        /* Its output a link to a file elsewhere (once recorded done with
           that file's digest), or a second name of one. */
        char *tmp = pipe_asprintf("%s", pipe_output_path(ctx, "out"));
        char *elsewhere = pipe_asprintf("%s/elsewhere", getenv("PIPE_STORE"));
        fx_write(elsewhere, "not the step's");
        unlink(tmp);
        int rc = strcmp(a->mode, "passwd") == 0 ? symlink("/etc/passwd", tmp) : link(elsewhere, tmp);
        free(tmp);
        free(elsewhere);
        return rc == 0 ? 0 : pipe_fail(ctx, "cannot link: %s", strerror(errno));
    }
    if (strcmp(a->mode, "sleep") == 0 || strcmp(a->mode, "stubborn") == 0) {
        if (strcmp(a->mode, "stubborn") == 0)
            signal(SIGTERM, SIG_IGN);
        char *pidfile = pipe_asprintf("%s/%s.pid", getenv("PIPE_STORE"), pipe_invocation_id(ctx));
        char pid[32];
        snprintf(pid, sizeof pid, "%ld", (long)getpid());
        fx_write(pidfile, pid);
        free(pidfile);
        pipe_log(ctx, "sleeping");
        sleep_ms(30000);
        return 0;
    }
    if (strcmp(a->mode, "flaky") == 0) {
        /* Fails until its third attempt. */
        char *counter = pipe_asprintf("%s/%s.count", getenv("PIPE_STORE"), pipe_invocation_id(ctx));
        char *text = fx_read(counter);
        int n = text ? atoi(text) + 1 : 1;
        free(text);
        char buf[16];
        snprintf(buf, sizeof buf, "%d", n);
        fx_write(counter, buf);
        free(counter);
        pipe_metric(ctx, "attempt", n);
        if (n < 3)
            return pipe_fail(ctx, "flaky failure %d", n);
        return 0;
    }
    return pipe_fail(ctx, "unknown mode %s", a->mode);
}

static int ranks_main(pipe_ctx *ctx, const void *raw)
{
    (void)raw;
    int v = pipe_rank(ctx) + 1;
    int rc = pipe_allreduce(ctx, &v, 1, PIPE_I32, PIPE_SUM);
    pipe_log(ctx, "rank %d of %d (local %d of %d), precision %s, allreduce %d sum %d", pipe_rank(ctx),
             pipe_world_size(ctx), pipe_local_rank(ctx), pipe_local_world_size(ctx), pipe_mixed_precision(ctx), rc, v);
    FILE *out = pipe_output_open(ctx, "out");
    fprintf(out, "written by rank %d of %d, port %s\n", pipe_rank(ctx), pipe_world_size(ctx),
            getenv("MASTER_PORT") ? getenv("MASTER_PORT") : "?");
    return rc == 0 ? 0 : pipe_fail(ctx, "allreduce returned %d", rc);
}

static const pipe_field produce_fields[] = {{"n", PIPE_TYPE_INT, offsetof(produce_args, n)}};
static const pipe_field consume_fields[] = {
    {"data", PIPE_TYPE_ARTIFACT, offsetof(consume_args, data)},
    {"scale", PIPE_TYPE_FLOAT, offsetof(consume_args, scale)},
    {"tag", PIPE_TYPE_STRING, offsetof(consume_args, tag)},
};
static const pipe_field misbehave_fields[] = {{"mode", PIPE_TYPE_STRING, offsetof(misbehave_args, mode)}};

static const pipe_step_fn produce_fn = produce_main;
static const pipe_step_fn consume_fn = consume_main;
static const pipe_step_fn misbehave_fn = misbehave_main;
static const pipe_step_fn ranks_fn = ranks_main;
/* A CUDA step's entry in a bundle built without CUDA: a weak reference that
   stayed undefined. */
static const pipe_step_fn nocuda_fn = NULL;

static const pipe_step_impl steps[] = {
    {"produce", &produce_fn, sizeof(produce_args), produce_fields, 1},
    {"consume", &consume_fn, sizeof(consume_args), consume_fields, 3},
    {"misbehave", &misbehave_fn, sizeof(misbehave_args), misbehave_fields, 1},
    {"ranks", &ranks_fn, 0, NULL, 0},
    {"nocuda", &nocuda_fn, 0, NULL, 0},
};

/* Device glue as <pipeline>_cuda.cu provides it, faked: it says when it is called. */
static int fake_select_device(int local_rank, char *err, size_t errsize)
{
    (void)err, (void)errsize;
    printf("select_device(%d)\n", local_rank);
    return 0;
}

static int fake_release_caches(size_t *freed, char *err, size_t errsize)
{
    (void)err, (void)errsize;
    *freed = 4096;
    return 0;
}

static const pipe_cuda_hooks cuda_hooks = {fake_select_device, fake_release_caches};

static const pipe_program program = {PIPE_ABI_VERSION, manifest_text, sizeof manifest_text - 1, steps, 5,
                                     &cuda_hooks, NULL, NULL, NULL, NULL};

static pipe_manifest *manifest;
static char *store;

/* Runs `step ARGS... --store STORE`; *out gets what it wrote to stderr. */
static int step(char **out, const char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "step";
    for (; args[argc - 1] && argc < 28; argc++)
        argv[argc] = (char *)args[argc - 1];
    argv[argc++] = "--store";
    argv[argc++] = store;
    argv[argc] = NULL;
    fx_capture cap;
    fx_capture_begin(&cap, store);
    int status = pipe_cmd_step(&program, manifest, argc, argv);
    char *text = fx_capture_end(&cap);
    if (out)
        *out = text;
    else
        free(text);
    return status;
}

#define STEP(out, ...) step(out, (const char *const[]){__VA_ARGS__, NULL})

static pipe_step_record *record(const char *run, const char *inv)
{
    char *path = pipe_store_step_file(store, run, inv), err[512];
    pipe_step_record *r = NULL;
    if (pipe_step_record_read(path, &r, err, sizeof err) != 0)
        fprintf(stderr, "%s\n", err);
    free(path);
    return r;
}

static char *file_in(const char *run, const char *inv, const char *rel)
{
    char *path = pipe_asprintf("%s/%s/%s/%s", store, run, inv, rel);
    char *text = fx_read(path);
    free(path);
    return text;
}

static bool output_exists(const char *run, const char *inv, const char *name)
{
    char *path = pipe_store_output_path(store, run, inv, name);
    bool there = pipe_file_exists(path);
    free(path);
    return there;
}

/* No temporary file is left in an invocation's outputs/. */
static bool outputs_clean(const char *run, const char *inv)
{
    char *cmd = pipe_asprintf("test -z \"$(ls -A %s/%s/%s/outputs | grep tmp)\"", store, run, inv);
    int rc = system(cmd);
    free(cmd);
    return rc == 0;
}

/* A failed invocation keeps no outputs/ folder at all. */
static bool no_outputs_dir(const char *run, const char *inv)
{
    char *path = pipe_asprintf("%s/%s/%s/outputs", store, run, inv);
    bool none = path && !pipe_dir_exists(path) && !pipe_file_exists(path);
    free(path);
    return none;
}

/* The record's error: its first line is want, and its tail holds tail
   (NULL: no tail). */
static void check_cause(const pipe_step_record *r, const char *want, const char *tail)
{
    const char *e = r ? r->error : NULL;
    size_t first = e ? strcspn(e, "\n") : 0;
    if (!e || strlen(want) != first || strncmp(e, want, first) != 0) {
        fprintf(stderr, "cause: got \"%s\", want first line \"%s\"\n", e ? e : "(null)", want);
        CHECK(false);
        return;
    }
    if (tail)
        CHECK(strstr(e + first, tail) != NULL);
    else
        CHECK(e[first] == '\0');
}

static void test_usage_errors(void)
{
    char *out = NULL;
    CHECK_EQ_INT(STEP(&out, "produc", "--run-id", "U"), 2);
    CHECK(fx_contains(out, "no invocation `produc`; did you mean `produce`?"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "zzzzzzzzzz", "--run-id", "U"), 2);
    CHECK(fx_contains(out, "its invocations: produce, consume"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce"), 2);
    CHECK(fx_contains(out, "step `produce` needs --run-id"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "--run-id", "U"), 2);
    CHECK(fx_contains(out, "needs the id of the invocation"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "U", "--bogus"), 2);
    CHECK(fx_contains(out, "unknown option `--bogus`"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce", "consume", "--run-id", "U"), 2);
    CHECK(fx_contains(out, "unexpected argument `consume`"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id"), 2);
    CHECK(fx_contains(out, "--run-id needs a value"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "../escape", "--param", "tag=x"), 2);
    CHECK(fx_contains(out, "../escape"));
    free(out);
    /* run.yaml does not exist yet: the required parameter must be given. */
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "U"), 2);
    CHECK(fx_contains(out, "tag"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "U", "--param", "count=many", "--param", "tag=x"), 2);
    CHECK(fx_contains(out, "count"));
    free(out);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "U", "--param", "nope=1", "--param", "tag=x"), 2);
    CHECK(fx_contains(out, "nope"));
    free(out);
    char *run_yaml = pipe_store_run_file(store, "U");
    CHECK(!pipe_file_exists(run_yaml));
    free(run_yaml);
    CHECK_EQ_INT(STEP(&out, "produce", "--help"), 0);
    free(out);
}

static void test_produce_consume(void)
{
    char *out = NULL;
    /* The consumer first: its producer has not finished. */
    CHECK_EQ_INT(STEP(&out, "consume", "--run-id", "R1", "--param", "tag=first"), 1);
    CHECK(fx_contains(out, "input `data` of `consume` comes from `produce`, which has not finished in run `R1`"));
    free(out);
    pipe_step_record *r = record("R1", "consume");
    CHECK(r && r->status == PIPE_STEP_FAILED && r->attempts == 0);
    CHECK(r && fx_contains(r->error, "has not finished"));
    pipe_step_record_free(r);

    /* run.yaml was created by that first step, with its --param. */
    pipe_run_info *info = NULL;
    char err[512];
    CHECK_EQ_INT(pipe_run_info_read(store, "R1", &info, err, sizeof err), 0);
    CHECK_STREQ(info ? pipe_run_info_param(info, "tag") : NULL, "first");
    CHECK_STREQ(info ? pipe_run_info_param(info, "count") : NULL, "3");
    CHECK_STREQ(info ? info->pipeline : NULL, "demo");
    pipe_run_info_free(info);

    /* A --param that contradicts the run. */
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R1", "--param", "count=4"), 2);
    CHECK(fx_contains(out, "parameter `count` is `3` in run `R1`"));
    free(out);
    /* One that agrees is fine (the same text after canonicalization). */
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R1", "--param", "count=+3", "--echo"), 0);
    CHECK(fx_contains(out, "[produce] printed by produce\n"));
    CHECK(fx_contains(out, "[produce] "));
    free(out);

    r = record("R1", "produce");
    CHECK_NOT_NULL(r);
    if (r) {
        CHECK_EQ_INT(r->status, PIPE_STEP_DONE);
        CHECK(r->has_exit_code && r->exit_code == 0);
        CHECK_EQ_INT(r->attempts, 1);
        CHECK_NULL(r->error);
        CHECK_NULL(r->signal);
        CHECK(r->cache_key && strlen(r->cache_key) == 64);
        CHECK_EQ_U64(r->nparams, 1);
        CHECK(r->nparams == 1 && strcmp(r->params[0].key, "n") == 0 && strcmp(r->params[0].value, "3") == 0);
        CHECK_EQ_U64(r->noutputs, 2);
        const pipe_step_artifact *d = pipe_step_record_output(r, "data");
        CHECK(d && d->sha256 && strlen(d->sha256) == 64);
        CHECK(d && d->path[0] == '/' && fx_contains(d->path, "/R1/produce/outputs/data"));
        CHECK_EQ_U64(r->nmetrics, 2);
        CHECK(r->nmetrics == 2 && strcmp(r->metrics[1].name, "loss") == 0 && r->metrics[1].value == 0.125);
        CHECK(r->started && r->finished && r->duration_s >= 0);
    }
    pipe_step_record_free(r);
    char *data = file_in("R1", "produce", "outputs/data");
    CHECK_STREQ(data, "line 0\nline 1\nline 2\n");
    free(data);
    /* Committed: read-only. */
    char *data_path = pipe_store_output_path(store, "R1", "produce", "data");
    struct stat st;
    CHECK(stat(data_path, &st) == 0 && (st.st_mode & 0222) == 0);
    free(data_path);
    char *env = file_in("R1", "produce", "outputs/env");
    CHECK(fx_contains(env, "PIPE_TEST_VAR=from the step\n"));
    CHECK(fx_contains(env, "OMP_NUM_THREADS=2\n")); /* floor(2.5) */
    CHECK(fx_contains(env, "PIPE_RUN_ID=R1\nPIPE_INVOCATION=produce\nRANK=0\n"));
    free(env);
    char *log = file_in("R1", "produce", "log");
    CHECK(fx_contains(log, "printed by produce\n"));
    CHECK(fx_contains(log, "[rank 0] wrote 3 lines\n"));
    free(log);
    char *csv = file_in("R1", "produce", "metrics.csv");
    CHECK(fx_contains(csv, "name,step,value,time_s\nlines,0,3,"));
    free(csv);
    CHECK(outputs_clean("R1", "produce"));

    /* Now the consumer runs, reading the producer's output. */
    CHECK_EQ_INT(STEP(&out, "consume", "--run-id", "R1"), 0);
    free(out);
    char *result = file_in("R1", "consume", "outputs/result");
    CHECK_STREQ(result, "first: 3 lines scaled 7.5\n");
    free(result);
    r = record("R1", "consume");
    pipe_step_record *p = record("R1", "produce");
    if (r && p) {
        CHECK_EQ_INT(r->status, PIPE_STEP_DONE);
        const pipe_step_artifact *in = pipe_step_record_input(r, "data");
        const pipe_step_artifact *src = pipe_step_record_output(p, "data");
        CHECK(in && src && strcmp(in->sha256, src->sha256) == 0 && strcmp(in->path, src->path) == 0);
        CHECK_EQ_U64(r->nparams, 2); /* scale and tag; the artifact is an input */
        CHECK(r->nparams == 2 && strcmp(r->params[0].value, "2.5") == 0);
    }
    pipe_step_record_free(r);
    pipe_step_record_free(p);

    /* A failed producer is named as such. */
    char *pfile = pipe_store_step_file(store, "R1", "produce");
    char *ptext = fx_read(pfile);
    char *failed = pipe_asprintf("invocation: produce\nstatus: failed\n");
    fx_write(pfile, failed);
    CHECK_EQ_INT(STEP(&out, "consume", "--run-id", "R1"), 1);
    CHECK(fx_contains(out, "comes from `produce`, which failed in run `R1`"));
    free(out);
    /* A producer's record cut short at a line's end is not done (once it
       was, without its outputs). */
    fx_write(pfile, ptext);
    const char *cut = strstr(ptext, "\noutputs:");
    CHECK(cut && truncate(pfile, cut + 1 - ptext) == 0);
    CHECK_EQ_INT(STEP(&out, "consume", "--run-id", "R1"), 1);
    CHECK(fx_contains(out, "cannot read the record of `produce`") && fx_contains(out, "says done but is not whole"));
    free(out);
    fx_write(pfile, ptext);
    free(failed);
    free(ptext);
    free(pfile);
}

static void test_cache(void)
{
    char *out = NULL;
    /* Same code, parameters and inputs as R1: cached. */
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R2", "--param", "tag=second"), 0);
    free(out);
    pipe_step_record *r = record("R2", "produce");
    CHECK(r && r->status == PIPE_STEP_CACHED);
    CHECK_STREQ(r ? r->cached_from : NULL, "R1/produce");
    CHECK(r && r->attempts == 0 && !r->has_exit_code);
    CHECK(r && r->nmetrics == 2);
    const pipe_step_artifact *d = r ? pipe_step_record_output(r, "data") : NULL;
    CHECK(d && fx_contains(d->path, "/R2/produce/outputs/data"));
    pipe_step_record_free(r);
    char *data = file_in("R2", "produce", "outputs/data");
    CHECK_STREQ(data, "line 0\nline 1\nline 2\n");
    free(data);
    char *log = file_in("R2", "produce", "log");
    CHECK(fx_contains(log, "cached: reusing the outputs of R1/produce"));
    free(log);

    /* A downstream step with a different parameter is not cached... */
    CHECK_EQ_INT(STEP(&out, "consume", "--run-id", "R2"), 0);
    free(out);
    r = record("R2", "consume");
    CHECK(r && r->status == PIPE_STEP_DONE);
    pipe_step_record_free(r);
    char *result = file_in("R2", "consume", "outputs/result");
    CHECK_STREQ(result, "second: 3 lines scaled 7.5\n");
    free(result);

    /* --no-cache runs it (and records the key again). */
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R3", "--param", "tag=x", "--no-cache"), 0);
    free(out);
    r = record("R3", "produce");
    CHECK(r && r->status == PIPE_STEP_DONE && r->attempts == 1);
    pipe_step_record_free(r);

    /* Another parameter value: a miss. */
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R4", "--param", "tag=x", "--param", "count=5"), 0);
    free(out);
    r = record("R4", "produce");
    CHECK(r && r->status == PIPE_STEP_DONE);
    pipe_step_record_free(r);

    /* The recorded output changed on disk: the entry is not trusted. */
    char *path = pipe_store_output_path(store, "R3", "produce", "data");
    unlink(path); /* may be a hard link shared with another run: replace, do not modify in place */
    fx_write(path, "tampered\n");
    free(path);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R5", "--param", "tag=x"), 0);
    free(out);
    r = record("R5", "produce");
    CHECK(r && r->status == PIPE_STEP_DONE);
    pipe_step_record_free(r);
    log = file_in("R5", "produce", "log");
    CHECK(fx_contains(log, "cache miss: output `data` of R3/produce changed"));
    free(log);
    /* Its own outputs are right. */
    data = file_in("R5", "produce", "outputs/data");
    CHECK_STREQ(data, "line 0\nline 1\nline 2\n");
    free(data);

    /* cache = false on the step: never a hit. */
    CHECK_EQ_INT(STEP(&out, "ret7", "--run-id", "R5"), 1);
    free(out);

    /* It succeeded before with another key: what differs from that
       success, in the log, in step.yaml and, with --echo, to the runner. */
    r = record("R4", "produce");
    CHECK_STREQ(r ? r->rerun : NULL, "parameter n changed (3 -> 5)");
    CHECK_STREQ(r ? r->rerun_of : NULL, "R3/produce");
    pipe_step_record_free(r);
    log = file_in("R4", "produce", "log");
    CHECK(fx_contains(log, "re-running produce: parameter n changed (3 -> 5) (earlier success: R3/produce)"));
    free(log);
    CHECK_EQ_INT(STEP(&out, "produce", "--run-id", "R6", "--param", "tag=x", "--param", "count=7", "--echo"), 0);
    CHECK(fx_contains(out, PIPE_RUNNER_STATE_PREFIX "running parameter n changed (3 -> 7)\n"));
    free(out);
    /* The same key as a success whose output changed: that is why. */
    r = record("R5", "produce");
    CHECK(r && r->rerun && fx_contains(r->rerun, "output `data` of R3/produce changed"));
    pipe_step_record_free(r);
    /* Never run before under that name: nothing to compare with. */
    r = record("R1", "produce");
    CHECK(r && !r->rerun && !r->rerun_of);
    pipe_step_record_free(r);
}

static void test_failures(void)
{
    char *out = NULL;
    pipe_step_record *r;

    CHECK_EQ_INT(STEP(&out, "fail", "--run-id", "F", "--param", "tag=t"), 1);
    CHECK(fx_contains(out, "bad thing happened at step 42"));
    free(out);
    r = record("F", "fail");
    CHECK(r && r->status == PIPE_STEP_FAILED && r->has_exit_code && r->exit_code == 1 && r->attempts == 1);
    check_cause(r, "exited with status 1: bad thing happened at step 42",
                "last lines of its output:\n    ");
    pipe_step_record_free(r);
    CHECK(!output_exists("F", "fail", "out"));
    CHECK(no_outputs_dir("F", "fail"));

    CHECK_EQ_INT(STEP(&out, "ret7", "--run-id", "F"), 1);
    free(out);
    r = record("F", "ret7");
    CHECK(r && r->exit_code == 7);
    check_cause(r, "exited with status 7: step `misbehave` returned 7", NULL);
    pipe_step_record_free(r);
    CHECK(!output_exists("F", "ret7", "out"));

    /* Killed mid-write: no outputs/out, the temporary file cleaned away. */
    CHECK_EQ_INT(STEP(&out, "crash", "--run-id", "F"), 1);
    free(out);
    r = record("F", "crash");
    CHECK(r && !r->has_exit_code);
    CHECK_STREQ(r ? r->signal : NULL, "SIGKILL");
    CHECK(r && r->error && strncmp(r->error, "was killed by SIGKILL", 21) == 0);
    pipe_step_record_free(r);
    CHECK(!output_exists("F", "crash", "out"));
    CHECK(no_outputs_dir("F", "crash"));

    CHECK_EQ_INT(STEP(&out, "lazy", "--run-id", "F"), 1);
    CHECK(fx_contains(out, "did not write output `out`"));
    free(out);
    r = record("F", "lazy");
    CHECK(r && r->status == PIPE_STEP_FAILED && r->exit_code == 0);
    pipe_step_record_free(r);

    /* An output that is a link to /etc/passwd, or a hard link to a file
       outside: refused, naming the step, the output and the link; nothing
       kept. */
    CHECK_EQ_INT(STEP(&out, "passwd", "--run-id", "F"), 1);
    CHECK(fx_contains(out, "step `misbehave`: output `out` cannot be kept: out is a symbolic link (to `/etc/passwd`)"));
    free(out);
    r = record("F", "passwd");
    CHECK(r && r->status == PIPE_STEP_FAILED && r->noutputs == 0);
    pipe_step_record_free(r);
    CHECK(no_outputs_dir("F", "passwd"));
    CHECK_EQ_INT(STEP(&out, "hardlink", "--run-id", "F"), 1);
    CHECK(fx_contains(out, "output `out` cannot be kept: out is a hard link to a file elsewhere (2 links)"));
    free(out);
    CHECK(no_outputs_dir("F", "hardlink"));
}

/* An entry the bundle was built without (a CUDA step, no CUDA compiler):
   the step fails with a message that says so, and nothing is committed. */
static void test_missing_entry(void)
{
    char *out = NULL;
    CHECK_EQ_INT(STEP(&out, "nocuda", "--run-id", "N", "--param", "tag=t"), 1);
    CHECK(fx_contains(out, "step `nocuda` needs its CUDA sources, and this bundle was built without a CUDA compiler"));
    free(out);
    pipe_step_record *r = record("N", "nocuda");
    CHECK(r && r->status == PIPE_STEP_FAILED && r->exit_code == 1);
    pipe_step_record_free(r);
    CHECK(!output_exists("N", "nocuda", "out"));
}

static void test_timeout(void)
{
    char *out = NULL;
    pipe_step_record *r;
    double t0 = pipe_now();
    CHECK_EQ_INT(STEP(&out, "sleepy", "--run-id", "T", "--param", "tag=t"), 1);
    CHECK(pipe_now() - t0 < 10);
    free(out);
    r = record("T", "sleepy");
    CHECK_STREQ(r ? r->error : NULL, "timed out after 300ms");
    CHECK_STREQ(r ? r->signal : NULL, "SIGTERM");
    pipe_step_record_free(r);
    CHECK(!output_exists("T", "sleepy", "out"));

    /* It ignores SIGTERM: SIGKILL after the grace period. */
    setenv("PIPE_KILL_GRACE_MS", "300", 1);
    t0 = pipe_now();
    CHECK_EQ_INT(STEP(&out, "stubborn", "--run-id", "T"), 1);
    CHECK(pipe_now() - t0 < 10);
    free(out);
    unsetenv("PIPE_KILL_GRACE_MS");
    r = record("T", "stubborn");
    CHECK_STREQ(r ? r->error : NULL, "timed out after 300ms");
    CHECK_STREQ(r ? r->signal : NULL, "SIGKILL");
    pipe_step_record_free(r);
    char *log = file_in("T", "stubborn", "log");
    CHECK(fx_contains(log, "sending SIGKILL"));
    free(log);
}

static void test_retry(void)
{
    char *out = NULL;
    pipe_step_record *r;
    CHECK_EQ_INT(STEP(&out, "flaky_ok", "--run-id", "Y", "--param", "tag=t"), 0);
    free(out);
    r = record("Y", "flaky_ok");
    CHECK(r && r->status == PIPE_STEP_DONE);
    CHECK_EQ_INT(r ? r->attempts : -1, 3);
    CHECK(r && r->nmetrics == 1 && r->metrics[0].value == 3); /* the last attempt's metrics */
    pipe_step_record_free(r);
    char *log = file_in("Y", "flaky_ok", "log");
    CHECK(fx_contains(log, "attempt 1 failed: exited with status 1: flaky failure 1; retrying in 10ms"));
    CHECK(fx_contains(log, "attempt 3 of 3"));
    free(log);

    CHECK_EQ_INT(STEP(&out, "flaky_bad", "--run-id", "Y"), 1);
    free(out);
    r = record("Y", "flaky_bad");
    CHECK(r && r->status == PIPE_STEP_FAILED);
    CHECK_EQ_INT(r ? r->attempts : -1, 2);
    check_cause(r, "exited with status 1: flaky failure 2", "flaky failure 2");
    /* The tail is the last attempt's: not the first failure's lines. */
    CHECK(r && r->error && !strstr(r->error, "flaky failure 1"));
    pipe_step_record_free(r);
}

/* SIGTERM to the supervisor reaches the worker, which is gone afterwards;
   the invocation is interrupted, not failed, and `step` exits 143. */
static void test_forwarding(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        int status = STEP(NULL, "forever", "--run-id", "S", "--param", "tag=t");
        _exit(status);
    }
    char *pidfile = pipe_asprintf("%s/forever.pid", store), *text = NULL;
    for (int i = 0; i < 200 && !(text = fx_read(pidfile)); i++)
        sleep_ms(25);
    CHECK_NOT_NULL(text);
    pid_t worker = text ? (pid_t)atol(text) : 0;
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM); /* 143, as a shell reports it */
    CHECK(worker > 0 && kill(worker, 0) != 0 && errno == ESRCH);
    pipe_step_record *r = record("S", "forever");
    CHECK_STREQ(r ? r->error : NULL, "interrupted by SIGTERM");
    CHECK(r && r->status == PIPE_STEP_INTERRUPTED); /* not failed */
    pipe_step_record_free(r);
    free(text);
    free(pidfile);
}

static void test_ranks(void)
{
    char *out = NULL;
    CHECK_EQ_INT(STEP(&out, "multi", "--run-id", "M", "--param", "tag=t"), 0);
    free(out);
    pipe_step_record *r = record("M", "multi");
    CHECK(r && r->status == PIPE_STEP_DONE);
    pipe_step_record_free(r);
    char *text = file_in("M", "multi", "outputs/out");
    CHECK_STREQ(text, "written by rank 0 of 2, port 29511\n");
    free(text);
    char *log = file_in("M", "multi", "log");
    /* The CPU backend all-reduced 1 + 2 over the launcher's rendezvous. */
    CHECK(fx_contains(log, "[rank 0] rank 0 of 2 (local 0 of 2), precision bf16, allreduce 0 sum 3"));
    CHECK(fx_contains(log, "[rank 1] rank 1 of 2 (local 1 of 2), precision bf16, allreduce 0 sum 3"));
    free(log);
}

/* The device hooks run for GPU invocations only. */
static void test_gpu_hooks(void)
{
    char *out = NULL;
    /* This machine has no GPU: PIPE_LOCAL_GPUS says it has one. */
    setenv("PIPE_LOCAL_GPUS", "1", 1);
    CHECK_EQ_INT(STEP(&out, "gpu_produce", "--run-id", "G", "--param", "tag=t"), 0);
    unsetenv("PIPE_LOCAL_GPUS");
    free(out);
    char *log = file_in("G", "gpu_produce", "log");
    CHECK(fx_contains(log, "select_device(0)\n"));
    CHECK(fx_contains(log, "[rank 0] cleanup_memory: released 4096 bytes of CUDA caches"));
    free(log);
    log = file_in("R1", "produce", "log");
    CHECK(log && !fx_contains(log, "select_device"));
    free(log);

    /* Without a usable GPU a step that selects one fails before it starts,
       in one line: the step, what it asked for, NVML's reason. */
    setenv("PIPE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK_EQ_INT(STEP(&out, "gpu_produce", "--run-id", "G2", "--param", "tag=t", "--no-cache"), 1);
    CHECK(out && fx_contains(out, "step `gpu_produce` asks for 1 GPU (@resources(gpu = 1)) but this machine has no "
                                  "usable GPU: NVML cannot be loaded (/nonexistent/libnvidia-ml.so.1"));
    free(out);
    log = file_in("G2", "gpu_produce", "log");
    CHECK(log && !fx_contains(log, "select_device"));
    free(log);
    unsetenv("PIPE_NVML_LIBRARY");
}

/* How many file descriptors this process has open. */
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}

int main(void)
{
    char err[512];
    int fds_before = open_fds();
    unsetenv("OMP_NUM_THREADS");
    unsetenv("PIPE_STORE");
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    unsetenv("LOCAL_WORLD_SIZE");
    unsetenv("PIPE_KILL_GRACE_MS");
    if (pipe_manifest_parse(manifest_text, sizeof manifest_text - 1, &manifest, err, sizeof err) != 0) {
        fprintf(stderr, "manifest: %s\n", err);
        return 1;
    }
    store = fx_tempdir("step");
    test_usage_errors();
    test_produce_consume();
    test_cache();
    test_failures();
    test_timeout();
    test_retry();
    test_forwarding();
    test_ranks();
    test_missing_entry();
    test_gpu_hooks();
    CHECK_EQ_INT(open_fds(), fds_before); /* the supervisor leaks no descriptors */
    /* ...and leaves the signal dispositions as it found them. */
    int sigs[] = {SIGINT, SIGTERM, SIGCHLD, SIGPIPE};
    for (size_t i = 0; i < 4; i++) {
        struct sigaction sa;
        sigaction(sigs[i], NULL, &sa);
        CHECK(sa.sa_handler == SIG_DFL);
    }
    pipe_manifest_free(manifest);
    fx_rmtree(store);
    return check_summary();
}
