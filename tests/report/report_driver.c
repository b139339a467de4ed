/* A stand-in for a generated bundle executable, for the profile and report
   tests: its manifest is built at start from REPORT_SHAPE.

     train (default)  prepare -> train (@gpu_profile 100ms, 2 GPUs) -> evaluate
                      prepare -> multi (@gpu_profile 100ms, 2 ranks, cpu = true)
     wide             prepare -> shard_1 .. shard_K -> join: REPORT_INVOCATIONS
                      invocations in all (default 200)
     idle             idle: sleeps work_ms, sampled every REPORT_PROFILE_MS
                      (default 100; 0: not profiled), for bench/profile.sh
     neuron           idle on 2 Trainium devices, sampled every 100 ms
                      (neuron-monitor: PIPE_NEURON_MONITOR, a stand-in)
     chain            prepare -> link_1 -> ... -> link_8 -> join, and join
                      needs prepare too: ten layers, drawn top to bottom,
                      with an edge past eight boxes
     skip             prepare -> train -> evaluate, and evaluate needs
                      prepare too: an edge that skips over train's box
                      (the report's graph routes it around)

   train records `loss` and `train_accuracy` each epoch (pipe_metric) and
   `val_loss` every tenth (pipe_metric_at), falling faster with a larger
   lr, busy for work_ms with 32 MiB
   resident; evaluate records `accuracy` and fails when asked to. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipe/driver.h"
#include "pipe/pipe.h"

typedef struct prepare_args {
    int64_t n;
} prepare_args;
typedef struct train_args {
    const char *data;
    int64_t epochs, work_ms;
    double lr;
} train_args;
typedef struct evaluate_args {
    const char *model;
    bool fail;
} evaluate_args;
typedef struct multi_args {
    const char *data;
    int64_t work_ms;
} multi_args;
typedef struct shard_args {
    const char *data;
    int64_t index;
} shard_args;
typedef struct join_args {
    int64_t unused;
} join_args;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Keeps a core busy for ms milliseconds (the sum goes to a volatile, so
   the loop is not optimised away). */
static volatile double spin_sink;

static void spin_ms(double ms)
{
    double until = now_s() + ms / 1000.0;
    double x = 0;
    while (now_s() < until)
        for (int i = 0; i < 10000; i++)
            x += i * 0.5;
    spin_sink = x;
}

static char *touch_mib(size_t mib)
{
    char *mem = malloc(mib << 20);
    for (size_t i = 0; mem && i < (mib << 20); i += 4096)
        mem[i] = (char)i;
    return mem;
}

static int prepare_main(pipe_ctx *ctx, const prepare_args *a)
{
    FILE *out = pipe_output_open(ctx, "data");
    if (!out)
        return pipe_fail(ctx, "cannot open output data: %s", pipe_last_error(ctx));
    for (int64_t i = 0; i < a->n; i++)
        fprintf(out, "%" PRId64 "\n", i);
    pipe_log(ctx, "wrote %" PRId64 " rows", a->n);
    pipe_metric(ctx, "rows", (double)a->n);
    return 0;
}

static int train_main(pipe_ctx *ctx, const train_args *a)
{
    char *mem = touch_mib(32);
    double per_epoch = a->epochs > 0 ? (double)a->work_ms / (double)a->epochs : 0;
    for (int64_t e = 0; e < a->epochs; e++) {
        if (per_epoch > 0)
            spin_ms(per_epoch);
        /* lr 0.05 (the default) gives the curve the tests know; another
           one a faster or slower fall, so that two runs compare. */
        double speed = a->lr > 0 ? sqrt(a->lr / 0.05) : 1;
        double loss =
            2.3 * exp(-(double)e * speed / (a->epochs / 4.0 + 1)) * (1 + 0.05 * sin((double)e * 1.7)) + 0.05;
        pipe_metric(ctx, "loss", loss);
        pipe_metric(ctx, "train_accuracy", 1.0 - loss / 2.5);
        if (e % 10 == 9)
            pipe_metric_at(ctx, "val_loss", e, loss * 1.1);
        if (e % 100 == 0 || e + 1 == a->epochs)
            pipe_log(ctx, "epoch %" PRId64 "/%" PRId64 " loss %.4f", e + 1, a->epochs, loss);
    }
    FILE *out = pipe_output_open(ctx, "model");
    if (!out)
        return pipe_fail(ctx, "cannot open output model: %s", pipe_last_error(ctx));
    fprintf(out, "weights for lr %g\n", a->lr);
    free(mem);
    return 0;
}

static int evaluate_main(pipe_ctx *ctx, const evaluate_args *a)
{
    (void)a->model;
    pipe_log(ctx, "evaluating");
    pipe_metric(ctx, "accuracy", a->fail ? 0.42 : 0.9712);
    if (a->fail)
        return pipe_fail(ctx, "accuracy 0.42 is below min_accuracy 0.9");
    return 0;
}

static int multi_main(pipe_ctx *ctx, const multi_args *a)
{
    char *mem = touch_mib(48);
    pipe_log(ctx, "rank %d of %d busy for %" PRId64 " ms", pipe_rank(ctx), pipe_world_size(ctx), a->work_ms);
    spin_ms((double)a->work_ms);
    free(mem);
    return 0;
}

static int shard_main(pipe_ctx *ctx, const shard_args *a)
{
    pipe_metric(ctx, "shard_rows", (double)(100 + a->index));
    return 0;
}

static int idle_main(pipe_ctx *ctx, const multi_args *a)
{
    (void)ctx;
    struct timespec ts = {(time_t)(a->work_ms / 1000), (long)(a->work_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
    return 0;
}

static int join_main(pipe_ctx *ctx, const join_args *a)
{
    (void)a;
    pipe_log(ctx, "all shards done");
    return 0;
}

static int prepare_entry(pipe_ctx *c, const void *a) { return prepare_main(c, a); }
static int train_entry(pipe_ctx *c, const void *a) { return train_main(c, a); }
static int evaluate_entry(pipe_ctx *c, const void *a) { return evaluate_main(c, a); }
static int multi_entry(pipe_ctx *c, const void *a) { return multi_main(c, a); }
static int shard_entry(pipe_ctx *c, const void *a) { return shard_main(c, a); }
static int join_entry(pipe_ctx *c, const void *a) { return join_main(c, a); }
static int idle_entry(pipe_ctx *c, const void *a) { return idle_main(c, a); }

static const pipe_field prepare_fields[] = {{"n", PIPE_TYPE_INT, offsetof(prepare_args, n)}};
static const pipe_field train_fields[] = {
    {"data", PIPE_TYPE_ARTIFACT, offsetof(train_args, data)},
    {"epochs", PIPE_TYPE_INT, offsetof(train_args, epochs)},
    {"work_ms", PIPE_TYPE_INT, offsetof(train_args, work_ms)},
    {"lr", PIPE_TYPE_FLOAT, offsetof(train_args, lr)},
};
static const pipe_field evaluate_fields[] = {
    {"model", PIPE_TYPE_ARTIFACT, offsetof(evaluate_args, model)},
    {"fail", PIPE_TYPE_BOOL, offsetof(evaluate_args, fail)},
};
static const pipe_field multi_fields[] = {
    {"data", PIPE_TYPE_ARTIFACT, offsetof(multi_args, data)},
    {"work_ms", PIPE_TYPE_INT, offsetof(multi_args, work_ms)},
};
static const pipe_field shard_fields[] = {
    {"data", PIPE_TYPE_ARTIFACT, offsetof(shard_args, data)},
    {"index", PIPE_TYPE_INT, offsetof(shard_args, index)},
};
static const pipe_field join_fields[] = {{"unused", PIPE_TYPE_INT, offsetof(join_args, unused)}};
static const pipe_field idle_fields[] = {{"work_ms", PIPE_TYPE_INT, offsetof(multi_args, work_ms)}};

/* The named constants that point at the entries, as in a generated driver. */
static const pipe_step_fn prepare_fn = prepare_entry;
static const pipe_step_fn train_fn = train_entry;
static const pipe_step_fn evaluate_fn = evaluate_entry;
static const pipe_step_fn multi_fn = multi_entry;
static const pipe_step_fn shard_fn = shard_entry;
static const pipe_step_fn join_fn = join_entry;
static const pipe_step_fn idle_fn = idle_entry;

static const pipe_step_impl steps[] = {
    {"prepare", &prepare_fn, sizeof(prepare_args), prepare_fields, 1},
    {"train", &train_fn, sizeof(train_args), train_fields, 4},
    {"evaluate", &evaluate_fn, sizeof(evaluate_args), evaluate_fields, 2},
    {"multi", &multi_fn, sizeof(multi_args), multi_fields, 2},
    {"shard", &shard_fn, sizeof(shard_args), shard_fields, 2},
    {"join", &join_fn, sizeof(join_args), join_fields, 1},
    {"idle", &idle_fn, sizeof(multi_args), idle_fields, 1},
};

static const char common[] =
    "manifest_version: 2\n"
    "pipeline: report_demo\n"
    "source: report_demo.pipe\n"
    "params:\n"
    "  - {name: n, type: int, default: \"1000\"}\n"
    "  - {name: epochs, type: int, default: \"60\"}\n"
    "  - {name: work_ms, type: int, default: \"1500\"}\n"
    "  - {name: lr, type: float, default: \"0.05\"}\n"
    "  - {name: fail, type: bool, default: \"false\"}\n"
    "steps:\n"
    "  - {name: prepare, entry: prepare_main, code_digest: "
    "\"1111111111111111111111111111111111111111111111111111111111111111\", cache: true, needs_cuda: false,\n"
    "     sources: [report_driver.c], params: [{name: n, type: int}], outputs: [{name: data, type: dataset}]}\n"
    "  - {name: train, entry: train_main, code_digest: "
    "\"2222222222222222222222222222222222222222222222222222222222222222\", cache: true, needs_cuda: false,\n"
    "     description: \"Busy CPU, a falling loss\", sources: [report_driver.c],\n"
    "     params: [{name: data, type: dataset, artifact: true}, {name: epochs, type: int},\n"
    "              {name: work_ms, type: int}, {name: lr, type: float}],\n"
    "     outputs: [{name: model, type: model}]}\n"
    "  - {name: evaluate, entry: evaluate_main, code_digest: "
    "\"3333333333333333333333333333333333333333333333333333333333333333\", cache: false, needs_cuda: false,\n"
    "     sources: [report_driver.c], params: [{name: model, type: model, artifact: true}, {name: fail, type: bool}],\n"
    "     outputs: []}\n"
    "  - {name: multi, entry: multi_main, code_digest: "
    "\"4444444444444444444444444444444444444444444444444444444444444444\", cache: true, needs_cuda: false,\n"
    "     sources: [report_driver.c], params: [{name: data, type: dataset, artifact: true}, {name: work_ms, type: int}],\n"
    "     outputs: []}\n"
    "  - {name: shard, entry: shard_main, code_digest: "
    "\"5555555555555555555555555555555555555555555555555555555555555555\", cache: true, needs_cuda: false,\n"
    "     sources: [report_driver.c], params: [{name: data, type: dataset, artifact: true}, {name: index, type: int}],\n"
    "     outputs: []}\n"
    "  - {name: join, entry: join_main, code_digest: "
    "\"6666666666666666666666666666666666666666666666666666666666666666\", cache: true, needs_cuda: false,\n"
    "     sources: [report_driver.c], params: [{name: unused, type: int}], outputs: []}\n"
    "  - {name: idle, entry: idle_main, code_digest: "
    "\"7777777777777777777777777777777777777777777777777777777777777777\", cache: false, needs_cuda: false,\n"
    "     sources: [report_driver.c], params: [{name: work_ms, type: int}], outputs: []}\n"
    "invocations:\n"
    "  - {id: prepare, step: prepare, needs: [], args: [{name: n, param: n}]}\n";

static const char train_shape[] =
    "  - id: train\n"
    "    step: train\n"
    "    needs: [prepare]\n"
    "    args: [{name: data, artifact: prepare, output: data}, {name: epochs, param: epochs},\n"
    "           {name: work_ms, param: work_ms}, {name: lr, param: lr}]\n"
    "    resources: {cpu: 1, gpu: 2}\n"
    "    gpu_profile_interval_ms: 100\n"
    "  - id: evaluate\n"
    "    step: evaluate\n"
    "    needs: [train]\n"
    "    args: [{name: model, artifact: train, output: model}, {name: fail, param: fail}]\n"
    "  - id: multi\n"
    "    step: multi\n"
    "    needs: [prepare]\n"
    "    args: [{name: data, artifact: prepare, output: data}, {name: work_ms, param: work_ms}]\n"
    "    resources: {cpu: 2}\n"
    "    accelerate: {num_processes: 2, num_machines: 1, cpu: true, main_process_port: 0}\n"
    "    gpu_profile_interval_ms: 100\n";

/* The manifest of the wide shape: prepare, K shards, join. */
static char *wide_manifest(int total)
{
    size_t cap = sizeof common + (size_t)total * 200 + 4096, used;
    char *m = malloc(cap);
    if (!m)
        return NULL;
    used = (size_t)snprintf(m, cap, "%s", common);
    int shards = total - 2 > 0 ? total - 2 : 1;
    for (int i = 1; i <= shards; i++)
        used += (size_t)snprintf(m + used, cap - used,
                                 "  - {id: shard_%d, step: shard, needs: [prepare], args: [{name: data, artifact: "
                                 "prepare, output: data}, {name: index, value: \"%d\"}]}\n",
                                 i, i);
    used += (size_t)snprintf(m + used, cap - used, "  - id: join\n    step: join\n    needs: [");
    for (int i = 1; i <= shards; i++)
        used += (size_t)snprintf(m + used, cap - used, "%sshard_%d", i > 1 ? ", " : "", i);
    snprintf(m + used, cap - used, "]\n    args: [{name: unused, value: \"0\"}]\n");
    return m;
}

/* The manifest of the chain shape. */
static char *chain_manifest(void)
{
    size_t cap = sizeof common + 4096, used;
    char *m = malloc(cap);
    if (!m)
        return NULL;
    used = (size_t)snprintf(m, cap, "%s", common);
    for (int i = 1; i <= 8; i++)
        used += (size_t)snprintf(m + used, cap - used,
                                 "  - {id: link_%d, step: join, needs: [%s%.0d], args: [{name: unused, value: "
                                 "\"%d\"}]}\n",
                                 i, i == 1 ? "prepare" : "link_", i == 1 ? 0 : i - 1, i);
    snprintf(m + used, cap - used,
             "  - {id: join, step: join, needs: [link_8, prepare], args: [{name: unused, value: \"0\"}]}\n");
    return m;
}

int main(int argc, char **argv)
{
    const char *shape = getenv("REPORT_SHAPE");
    char *manifest;
    if (shape && strcmp(shape, "wide") == 0) {
        const char *n = getenv("REPORT_INVOCATIONS");
        manifest = wide_manifest(n ? atoi(n) : 200);
    } else if (shape && strcmp(shape, "chain") == 0) {
        manifest = chain_manifest();
    } else if (shape && strcmp(shape, "idle") == 0) {
        const char *ms = getenv("REPORT_PROFILE_MS");
        size_t cap = sizeof common + 512;
        if ((manifest = malloc(cap)))
            snprintf(manifest, cap,
                     "%s  - {id: idle, step: idle, needs: [], args: [{name: work_ms, param: work_ms}], "
                     "gpu_profile_interval_ms: %d}\n",
                     common, ms ? atoi(ms) : 100);
    } else if (shape && strcmp(shape, "neuron") == 0) {
        size_t cap = sizeof common + 512;
        if ((manifest = malloc(cap)))
            snprintf(manifest, cap,
                     "%s  - {id: idle, step: idle, needs: [], args: [{name: work_ms, param: work_ms}], "
                     "resources: {cpu: 1, trainium: 2}, gpu_profile_interval_ms: 100}\n",
                     common);
    } else {
        manifest = malloc(sizeof common + sizeof train_shape + 16);
        if (manifest)
            snprintf(manifest, sizeof common + sizeof train_shape, "%s%s", common, train_shape);
        char *needs = manifest && shape && strcmp(shape, "skip") == 0 ? strstr(manifest, "needs: [train]") : NULL;
        if (needs) { /* evaluate: needs: [train, prepare]; no multi */
            char *multi = strstr(manifest, "  - id: multi\n");
            if (multi)
                *multi = '\0';
            memmove(needs + 23, needs + 14, strlen(needs + 14) + 1);
            memcpy(needs + 13, ", prepare]", 10);
        }
    }
    if (!manifest)
        return 2;
    pipe_program program = {PIPE_ABI_VERSION, manifest, strlen(manifest), steps, 7, NULL, NULL, NULL, NULL, NULL};
    int status = pipe_main(&program, argc, argv);
    free(manifest);
    return status;
}
