/* The step API (pipe.h) against a context made by hand: inputs, outputs
   (atomic commit, discard), ranks, logging, metrics, pipe_fail, collectives,
   and every function's error path; and the worker's argument struct. */
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "api/ctx.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "pipe/pipe.h"
#include "step_fixture.h"
#include "step/worker.h"

static void clear_rank_env(void)
{
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    unsetenv("LOCAL_WORLD_SIZE");
    unsetenv("PIPE_MIXED_PRECISION");
    unsetenv("PIPE_SCRATCH_ROOT");
}

static pipe_ctx *make_ctx(const char *dir)
{
    static const char *const in_names[] = {"data", "labels"};
    const char *in_paths[] = {"/store/R/split/outputs/train", "/store/R/split/outputs/labels"};
    static const char *const out_names[] = {"model", "report"};
    char *outputs = pipe_asprintf("%s/outputs", dir), err[512] = "";
    pipe_mkdirs(outputs, err, sizeof err);
    free(outputs);
    pipe_ctx_config cfg = {.invocation = "train", .run_id = "R", .dir = dir, .input_names = in_names,
                           .input_paths = in_paths, .ninputs = 2, .output_names = out_names, .noutputs = 2};
    pipe_ctx *ctx = NULL;
    int rc = pipe_ctx_create(&cfg, &ctx, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "pipe_ctx_create: %s\n", err);
    return ctx;
}

static char *path_in(const char *dir, const char *rel)
{
    return pipe_asprintf("%s/%s", dir, rel);
}

static void test_null_context(void)
{
    int x = 0;
    CHECK_NULL(pipe_input_path(NULL, "data"));
    CHECK_NULL(pipe_output_open(NULL, "model"));
    CHECK_NULL(pipe_output_path(NULL, "model"));
    CHECK_EQ_INT(pipe_rank(NULL), 0);
    CHECK_EQ_INT(pipe_world_size(NULL), 1);
    CHECK_EQ_INT(pipe_local_rank(NULL), 0);
    CHECK_EQ_INT(pipe_local_world_size(NULL), 1);
    CHECK_NULL(pipe_invocation_id(NULL));
    CHECK_NULL(pipe_run_id(NULL));
    CHECK_STREQ(pipe_mixed_precision(NULL), "no");
    CHECK_NULL(pipe_scratch_dir(NULL));
    CHECK_EQ_INT(pipe_metric(NULL, "loss", 1.0), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_fail(NULL, "x"), 1);
    CHECK(fx_contains(pipe_last_error(NULL), "NULL"));
    CHECK_EQ_INT(pipe_allreduce(NULL, &x, 1, PIPE_I32, PIPE_SUM), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_broadcast(NULL, &x, 1, PIPE_I32, 0), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_allgather(NULL, &x, &x, 1, PIPE_I32), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_barrier(NULL), PIPE_EINVAL);
    pipe_log(NULL, "a line without a context"); /* must not crash */
}

static void test_basics(void)
{
    char *dir = fx_tempdir("api");
    clear_rank_env();
    pipe_ctx *ctx = make_ctx(dir);
    CHECK_NOT_NULL(ctx);
    if (!ctx) {
        fx_rmtree(dir);
        return;
    }
    CHECK_EQ_INT(pipe_rank(ctx), 0);
    CHECK_EQ_INT(pipe_world_size(ctx), 1);
    CHECK_EQ_INT(pipe_local_rank(ctx), 0);
    CHECK_EQ_INT(pipe_local_world_size(ctx), 1);
    CHECK_STREQ(pipe_invocation_id(ctx), "train");
    CHECK_STREQ(pipe_run_id(ctx), "R");
    CHECK_STREQ(pipe_mixed_precision(ctx), "no");
    CHECK_STREQ(pipe_last_error(ctx), "");

    CHECK_STREQ(pipe_input_path(ctx, "data"), "/store/R/split/outputs/train");
    CHECK_STREQ(pipe_input_path(ctx, "labels"), "/store/R/split/outputs/labels");
    CHECK_NULL(pipe_input_path(ctx, "model"));
    CHECK(fx_contains(pipe_last_error(ctx), "`model` is not an artifact input of `train`"));
    CHECK_NULL(pipe_input_path(ctx, NULL));
    CHECK(fx_contains(pipe_last_error(ctx), "NULL"));

    /* Outputs: unknown names, the same stream twice, nothing visible before commit. */
    CHECK_NULL(pipe_output_open(ctx, "modle"));
    CHECK(fx_contains(pipe_last_error(ctx), "`modle` is not an output of `train` (its outputs: `model`, `report`)"));
    CHECK_NULL(pipe_output_open(ctx, NULL));
    CHECK_NULL(pipe_output_path(ctx, "weights"));
    CHECK(fx_contains(pipe_last_error(ctx), "weights"));
    FILE *f = pipe_output_open(ctx, "model");
    CHECK_NOT_NULL(f);
    CHECK(f == pipe_output_open(ctx, "model"));
    if (f)
        fputs("the model", f);
    char *final_model = path_in(dir, "outputs/model"), *final_report = path_in(dir, "outputs/report");
    CHECK(!pipe_file_exists(final_model));
    const char *rp = pipe_output_path(ctx, "report");
    CHECK_NOT_NULL(rp);
    CHECK(rp && fx_contains(rp, "/outputs/.report.tmp."));
    CHECK(rp && fx_write(rp, "a report"));
    CHECK(!pipe_file_exists(final_report));

    /* Scratch. */
    const char *scratch = pipe_scratch_dir(ctx);
    CHECK_NOT_NULL(scratch);
    CHECK(scratch && pipe_dir_exists(scratch));
    CHECK(scratch && fx_contains(scratch, "rank-0"));

    /* Metrics. */
    CHECK_EQ_INT(pipe_metric(ctx, "loss", 0.5), 0);
    CHECK_EQ_INT(pipe_metric(ctx, "loss", 0.25), 0);
    CHECK_EQ_INT(pipe_metric(ctx, "accuracy", 0.9), 0);
    CHECK_EQ_INT(pipe_metric(ctx, "bad,name", 1), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "bad,name"));
    CHECK_EQ_INT(pipe_metric(ctx, "", 1), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_metric(ctx, NULL, 1), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_metric(ctx, "line\nbreak", 1), PIPE_EINVAL);
    /* Step indices: per name, one past the last one given. */
    CHECK_EQ_INT(pipe_metric_at(ctx, "val_loss", 10, 0.75), 0);
    CHECK_EQ_INT(pipe_metric(ctx, "val_loss", 0.5), 0);
    CHECK_EQ_INT(pipe_metric_at(ctx, "val_loss", 3, 0.6), 0);
    CHECK_EQ_INT(pipe_metric(ctx, "val_loss", 0.55), 0);
    CHECK_EQ_INT(pipe_metric_at(ctx, "val_loss", -1, 1), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "negative"));
    CHECK_EQ_INT(pipe_metric(ctx, " padded", 1), PIPE_EINVAL);
    char *metrics = path_in(dir, "metrics.csv"), *csv = fx_read(metrics);
    CHECK(csv && strncmp(csv, "name,step,value,time_s\n", 23) == 0);
    CHECK(fx_contains(csv, "\nloss,0,0.5,"));
    CHECK(fx_contains(csv, "\nloss,1,0.25,"));
    CHECK(fx_contains(csv, "\naccuracy,0,0.9,"));
    CHECK(fx_contains(csv, "\nval_loss,10,0.75,"));
    CHECK(fx_contains(csv, "\nval_loss,11,0.5,"));
    CHECK(fx_contains(csv, "\nval_loss,3,0.6,"));
    CHECK(fx_contains(csv, "\nval_loss,4,0.55,"));
    CHECK(!fx_contains(csv, "bad,name"));
    free(csv);

    /* Logging: one timestamped line per call, "[rank 0]". */
    fx_capture cap;
    fx_capture_begin(&cap, dir);
    pipe_log(ctx, "epoch %d loss %.2f", 3, 0.5);
    pipe_log(ctx, "trailing newline\n");
    char *logged = fx_capture_end(&cap);
    CHECK(fx_contains(logged, "Z [rank 0] epoch 3 loss 0.50\n"));
    CHECK(fx_contains(logged, "[rank 0] trailing newline\n"));
    CHECK(!fx_contains(logged, "newline\n\n"));
    free(logged);

    /* Commit. */
    char err[512] = "";
    CHECK_EQ_INT(pipe_ctx_finish(ctx, 0, err, sizeof err), 0);
    char *model = fx_read(final_model), *report = fx_read(final_report);
    CHECK_STREQ(model, "the model");
    CHECK_STREQ(report, "a report");
    free(model);
    free(report);
    char *cmd = pipe_asprintf("test -z \"$(ls -A %s/outputs | grep tmp)\"", dir);
    CHECK_EQ_INT(system(cmd), 0);
    free(cmd);
    /* After the step returned. */
    CHECK_EQ_INT(pipe_ctx_finish(ctx, 0, err, sizeof err), 0); /* idempotent */
    CHECK_NULL(pipe_output_path(ctx, "model"));
    CHECK(fx_contains(pipe_last_error(ctx), "already returned"));
    CHECK_EQ_INT(pipe_metric(ctx, "late", 1), PIPE_ESTATE);

    pipe_ctx_destroy(ctx);
    free(metrics);
    free(final_model);
    free(final_report);
    fx_rmtree(dir);
}

/* A failing step's outputs never appear; nor do those of a crashed one. */
static void test_discard_and_crash(void)
{
    char *dir = fx_tempdir("discard");
    clear_rank_env();
    pipe_ctx *ctx = make_ctx(dir);
    char *final_model = path_in(dir, "outputs/model");
    FILE *f = ctx ? pipe_output_open(ctx, "model") : NULL;
    CHECK_NOT_NULL(f);
    if (f)
        fputs("half", f);
    CHECK_EQ_INT(pipe_ctx_finish(ctx, 1, NULL, 0), 0);
    CHECK(!pipe_file_exists(final_model));
    char *cmd = pipe_asprintf("test -z \"$(ls -A %s/outputs)\"", dir);
    CHECK_EQ_INT(system(cmd), 0);
    pipe_ctx_destroy(ctx);

    /* A process killed while writing leaves only its temporary file. */
    pid_t pid = fork();
    if (pid == 0) {
        pipe_ctx *c = make_ctx(dir);
        FILE *o = c ? pipe_output_open(c, "model") : NULL;
        if (o) {
            for (int i = 0; i < 100000; i++)
                fputs("0123456789", o);
            fflush(o);
        }
        raise(SIGKILL);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st));
    CHECK(!pipe_file_exists(final_model));
    free(cmd);
    cmd = pipe_asprintf("ls -A %s/outputs | grep -q '^.model.tmp.'", dir);
    CHECK_EQ_INT(system(cmd), 0);
    free(cmd);
    free(final_model);
    fx_rmtree(dir);
}

static void test_fail(void)
{
    char *dir = fx_tempdir("fail");
    clear_rank_env();
    pipe_ctx *ctx = make_ctx(dir);
    fx_capture cap;
    fx_capture_begin(&cap, dir);
    CHECK_EQ_INT(pipe_fail(ctx, "loss is %s after %d epochs", "NaN", 3), 1);
    char *logged = fx_capture_end(&cap);
    CHECK(fx_contains(logged, "[rank 0] error: loss is NaN after 3 epochs"));
    free(logged);
    char *errfile = path_in(dir, "error"), *text = fx_read(errfile);
    CHECK_STREQ(text, "loss is NaN after 3 epochs");
    free(text);
    CHECK_EQ_INT(pipe_fail(ctx, NULL), 1);
    pipe_ctx_destroy(ctx);
    free(errfile);
    fx_rmtree(dir);
}

static void test_ranks(void)
{
    char *dir = fx_tempdir("ranks");
    char err[512] = "";
    clear_rank_env();
    setenv("RANK", "3", 1);
    setenv("WORLD_SIZE", "4", 1);
    setenv("LOCAL_RANK", "1", 1);
    setenv("LOCAL_WORLD_SIZE", "2", 1);
    setenv("PIPE_MIXED_PRECISION", "bf16", 1);
    char *scratch_root = path_in(dir, "scratch-root");
    setenv("PIPE_SCRATCH_ROOT", scratch_root, 1);
    /* Made by hand, with no launcher: the transport asked for is NCCL, which
       this runtime lacks, so the collectives say so (the CPU backend needs
       the launcher's shared memory; test_coll_cpu and test_step cover it). */
    setenv("PIPE_COLL_BACKEND", "nccl", 1);
    pipe_ctx *ctx = make_ctx(dir);
    unsetenv("PIPE_COLL_BACKEND");
    CHECK_NOT_NULL(ctx);
    if (ctx) {
        CHECK_EQ_INT(pipe_rank(ctx), 3);
        CHECK_EQ_INT(pipe_world_size(ctx), 4);
        CHECK_EQ_INT(pipe_local_rank(ctx), 1);
        CHECK_EQ_INT(pipe_local_world_size(ctx), 2);
        CHECK_STREQ(pipe_mixed_precision(ctx), "bf16");
        const char *scratch = pipe_scratch_dir(ctx);
        CHECK(scratch && fx_contains(scratch, "scratch-root/rank-3"));
        /* Not rank 0: outputs go nowhere. */
        FILE *f = pipe_output_open(ctx, "model");
        CHECK_NOT_NULL(f);
        if (f)
            fputs("ignored", f);
        const char *p = pipe_output_path(ctx, "report");
        CHECK(p && !fx_contains(p, "/outputs/"));
        CHECK(p && fx_write(p, "ignored too"));
        CHECK_EQ_INT(pipe_metric(ctx, "loss", 1), 0);
        CHECK_EQ_INT(pipe_ctx_finish(ctx, 0, err, sizeof err), 0);
        char *model = path_in(dir, "outputs/model"), *metrics = path_in(dir, "metrics.csv");
        CHECK(!pipe_file_exists(model));
        CHECK(!pipe_file_exists(metrics));
        free(model);
        free(metrics);

        /* Collectives across 4 ranks without their transport. */
        int buf[2] = {1, 2};
        CHECK_EQ_INT(pipe_allreduce(ctx, buf, 2, PIPE_I32, PIPE_SUM), PIPE_ENOTSUP);
        CHECK(fx_contains(pipe_last_error(ctx), "4 ranks"));
        CHECK(fx_contains(pipe_last_error(ctx), "NCCL"));
        CHECK_EQ_INT(pipe_broadcast(ctx, buf, 2, PIPE_I32, 3), PIPE_ENOTSUP);
        CHECK_EQ_INT(pipe_broadcast(ctx, buf, 2, PIPE_I32, 4), PIPE_EINVAL);
        int out[8];
        CHECK_EQ_INT(pipe_allgather(ctx, buf, out, 2, PIPE_I32), PIPE_ENOTSUP);
        CHECK_EQ_INT(pipe_barrier(ctx), PIPE_ENOTSUP);
        CHECK(fx_contains(pipe_last_error(ctx), "pipe_barrier"));
    }
    pipe_ctx_destroy(ctx);

    /* Inconsistent or malformed rank variables. */
    const char *bad[][4] = {{"4", "4", NULL, NULL}, {"x", "2", NULL, NULL}, {"0", "0", NULL, NULL},
                            {"0", "2", "2", "2"}, {"0", "2", "0", "3"}, {"-1", "2", NULL, NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear_rank_env();
        setenv("RANK", bad[i][0], 1);
        setenv("WORLD_SIZE", bad[i][1], 1);
        if (bad[i][2])
            setenv("LOCAL_RANK", bad[i][2], 1);
        if (bad[i][3])
            setenv("LOCAL_WORLD_SIZE", bad[i][3], 1);
        pipe_ctx_config cfg = {.invocation = "t", .run_id = "R", .dir = dir};
        pipe_ctx *c = (pipe_ctx *)1;
        CHECK_EQ_INT(pipe_ctx_create(&cfg, &c, err, sizeof err), PIPE_EINVAL);
        CHECK_NULL(c);
    }
    clear_rank_env();
    free(scratch_root);
    fx_rmtree(dir);
}

static void test_collectives_single(void)
{
    char *dir = fx_tempdir("coll");
    clear_rank_env();
    pipe_ctx *ctx = make_ctx(dir);
    float v[3] = {1, 2, 3};
    CHECK_EQ_INT(pipe_allreduce(ctx, v, 3, PIPE_F32, PIPE_SUM), 0);
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3);
    CHECK_EQ_INT(pipe_allreduce(ctx, v, 3, PIPE_F32, PIPE_AVG), 0);
    CHECK(v[0] == 1 && v[2] == 3);
    CHECK_EQ_INT(pipe_broadcast(ctx, v, 3, PIPE_F32, 0), 0);
    CHECK(v[1] == 2);
    double send[2] = {4, 5}, recv[2] = {0, 0};
    CHECK_EQ_INT(pipe_allgather(ctx, send, recv, 2, PIPE_F64), 0);
    CHECK(recv[0] == 4 && recv[1] == 5);
    CHECK_EQ_INT(pipe_allgather(ctx, send, send, 2, PIPE_F64), 0); /* in place */
    CHECK_EQ_INT(pipe_barrier(ctx), 0);
    CHECK_EQ_INT(pipe_allreduce(ctx, NULL, 0, PIPE_F32, PIPE_SUM), 0); /* nothing to do */

    /* Argument checks. */
    CHECK_EQ_INT(pipe_allreduce(ctx, NULL, 3, PIPE_F32, PIPE_SUM), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "buf is NULL"));
    CHECK_EQ_INT(pipe_allreduce(ctx, v, 3, (pipe_dtype)42, PIPE_SUM), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "dtype 42"));
    CHECK_EQ_INT(pipe_allreduce(ctx, v, 3, PIPE_F32, (pipe_op)9), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "op 9"));
    CHECK_EQ_INT(pipe_allreduce(ctx, v, SIZE_MAX / 2, PIPE_F32, PIPE_SUM), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "overflow"));
    CHECK_EQ_INT(pipe_broadcast(ctx, v, 3, PIPE_F32, 1), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "root 1"));
    CHECK_EQ_INT(pipe_broadcast(ctx, v, 3, PIPE_F32, -1), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_broadcast(ctx, NULL, 3, PIPE_F32, 0), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_allgather(ctx, NULL, recv, 2, PIPE_F64), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "send is NULL"));
    CHECK_EQ_INT(pipe_allgather(ctx, send, NULL, 2, PIPE_F64), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "recv is NULL"));
    CHECK_EQ_INT(pipe_allgather(ctx, send, recv, 2, (pipe_dtype)-1), PIPE_EINVAL);

    CHECK_EQ_U64(pipe_dtype_size(PIPE_F32), 4);
    CHECK_EQ_U64(pipe_dtype_size(PIPE_F64), 8);
    CHECK_EQ_U64(pipe_dtype_size(PIPE_I32), 4);
    CHECK_EQ_U64(pipe_dtype_size(PIPE_I64), 8);
    CHECK_EQ_U64(pipe_dtype_size(PIPE_U8), 1);
    CHECK_EQ_U64(pipe_dtype_size(PIPE_F16), 2);
    CHECK_EQ_U64(pipe_dtype_size(PIPE_BF16), 2);
    CHECK_EQ_U64(pipe_dtype_size((pipe_dtype)99), 0);
    pipe_ctx_destroy(ctx);
    fx_rmtree(dir);
}

/* The worker's argument struct, as a generated driver declares it. */
typedef struct demo_args {
    const char *data;
    int64_t epochs;
    double lr;
    bool shuffle;
    const char *name;
} demo_args;

static const pipe_field demo_fields[] = {
    {"data", PIPE_TYPE_ARTIFACT, offsetof(demo_args, data)},
    {"epochs", PIPE_TYPE_INT, offsetof(demo_args, epochs)},
    {"lr", PIPE_TYPE_FLOAT, offsetof(demo_args, lr)},
    {"shuffle", PIPE_TYPE_BOOL, offsetof(demo_args, shuffle)},
    {"name", PIPE_TYPE_STRING, offsetof(demo_args, name)},
};

static void test_build_args(void)
{
    pipe_mparam params[] = {
        {.name = "data", .type = PIPE_TYPE_ARTIFACT}, {.name = "epochs", .type = PIPE_TYPE_INT},
        {.name = "lr", .type = PIPE_TYPE_FLOAT},      {.name = "shuffle", .type = PIPE_TYPE_BOOL},
        {.name = "name", .type = PIPE_TYPE_STRING},
    };
    pipe_mstep ms = {.name = "demo", .params = params, .nparams = 5};
    pipe_step_impl impl = {.name = "demo", .args_size = sizeof(demo_args), .fields = demo_fields, .nfields = 5};
    const char *values[] = {"/in/path", "-12", "0.050000000000000003", "true", "hello"};
    void *raw = NULL;
    char err[512];
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, values, &raw, err, sizeof err), 0);
    demo_args *a = raw;
    if (a) {
        CHECK_STREQ(a->data, "/in/path");
        CHECK_EQ_INT(a->epochs, -12);
        CHECK(a->lr == 0.05);
        CHECK(a->shuffle);
        CHECK_STREQ(a->name, "hello");
    }
    free(raw);

    const char *bad_int[] = {"/in", "12x", "1", "true", "s"};
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, bad_int, &raw, err, sizeof err), PIPE_EINVAL);
    CHECK(fx_contains(err, "`epochs`: `12x` is not an integer"));
    CHECK_NULL(raw);
    const char *bad_float[] = {"/in", "1", "fast", "true", "s"};
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, bad_float, &raw, err, sizeof err), PIPE_EINVAL);
    CHECK(fx_contains(err, "`lr`"));
    const char *bad_bool[] = {"/in", "1", "1", "yes", "s"};
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, bad_bool, &raw, err, sizeof err), PIPE_EINVAL);
    CHECK(fx_contains(err, "`shuffle`"));
    const char *missing[] = {"/in", "1", "1", "true", NULL};
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, missing, &raw, err, sizeof err), PIPE_EINVAL);
    CHECK(fx_contains(err, "`name` has no value"));

    /* Driver and manifest disagree. */
    pipe_step_impl fewer = impl;
    fewer.nfields = 4;
    CHECK_EQ_INT(pipe_worker_build_args(&fewer, &ms, values, &raw, err, sizeof err), PIPE_EABI);
    pipe_step_impl small = impl;
    small.args_size = 8;
    CHECK_EQ_INT(pipe_worker_build_args(&small, &ms, values, &raw, err, sizeof err), PIPE_EABI);
    CHECK(fx_contains(err, "does not match"));
    params[0].type = PIPE_TYPE_STRING;
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, values, &raw, err, sizeof err), PIPE_EABI);
    CHECK(fx_contains(err, "artifact"));
    params[0].type = PIPE_TYPE_ARTIFACT;
    params[4].name = "title";
    CHECK_EQ_INT(pipe_worker_build_args(&impl, &ms, values, &raw, err, sizeof err), PIPE_EABI);
    params[4].name = "name";

    /* No parameters at all: still a pointer. */
    pipe_mstep none = {.name = "none"};
    pipe_step_impl noimpl = {.name = "none"};
    CHECK_EQ_INT(pipe_worker_build_args(&noimpl, &none, NULL, &raw, err, sizeof err), 0);
    CHECK_NOT_NULL(raw);
    free(raw);
}

/* The scratch root is made by the first rank that needs it (the
   supervisor only names it): private to the user; a folder already there
   under that name is used only when it is this user's and closed to
   others, since TMPDIR is shared. */
static void test_scratch_root_made_private(void)
{
    char *dir = fx_tempdir("api-scratch");
    char *root = path_in(dir, "pipe-train-abcdef");
    clear_rank_env();
    setenv("PIPE_SCRATCH_ROOT", root, 1);
    pipe_ctx *ctx = make_ctx(dir);
    struct stat st;
    CHECK(!pipe_dir_exists(root)); /* nothing made until asked for */
    const char *scratch = ctx ? pipe_scratch_dir(ctx) : NULL;
    CHECK(scratch && pipe_dir_exists(scratch));
    CHECK(stat(root, &st) == 0 && (st.st_mode & 0777) == 0700);
    char err[512];
    if (ctx)
        pipe_ctx_finish(ctx, 0, err, sizeof err);
    pipe_ctx_destroy(ctx);

    char *open_root = path_in(dir, "pipe-train-opened");
    CHECK(mkdir(open_root, 0755) == 0 && chmod(open_root, 0755) == 0);
    setenv("PIPE_SCRATCH_ROOT", open_root, 1);
    ctx = make_ctx(dir);
    CHECK(ctx && pipe_scratch_dir(ctx) == NULL);
    CHECK(ctx && fx_contains(pipe_last_error(ctx), open_root) &&
          fx_contains(pipe_last_error(ctx), "something else has that name"));
    if (ctx)
        pipe_ctx_finish(ctx, 0, err, sizeof err);
    pipe_ctx_destroy(ctx);
    unsetenv("PIPE_SCRATCH_ROOT");
    free(root);
    free(open_root);
    fx_rmtree(dir);
}

int main(void)
{
    test_null_context();
    test_basics();
    test_discard_and_crash();
    test_fail();
    test_ranks();
    test_collectives_single();
    test_build_args();
    test_scratch_root_made_private();
    return check_summary();
}
