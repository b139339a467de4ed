/* batch/<definition>.json (docs/deploy-batch.md): one AWS Batch job
   definition per shape of job (image, resources, devices, roles, retries,
   timeout), as the input of `aws batch register-job-definition
   --cli-input-json`, named after a digest of its content so that an
   unchanged one keeps its name; invocations of the same shape share it,
   the invocation, run id and parameters reaching the command as Ref::
   parameters of submit-job. batch/submit.sh (batch_submit.c) registers
   them and submits the DAG. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch_json.h"
#include "batch_rules.h"
#include "batch_target.h"
#include "util/escape.h"
#include "pipe/base.h"
#include "targets/targets.h"

#define MIB (1024.0 * 1024.0)
/* Without @resources: what a job asks for. */
#define DEFAULT_VCPU 1
#define DEFAULT_MEMORY_MIB 2048
/* Batch's limits: attempts 1 to 10, a timeout of at least 60 s, names of
   at most 128 letters, digits, - and _. */
#define MAX_ATTEMPTS 10
#define MIN_TIMEOUT_S 60
#define NAME_MAX_LEN 128

static bool is_fargate(const pipe_minvocation *inv)
{
    return inv->batch.platform && strcmp(inv->batch.platform, "FARGATE") == 0;
}

/* Fargate takes these vCPU counts, each with memory from min to max MiB in
   steps (512, 1024 and 2048 for a quarter vCPU). */
static const struct fargate_size {
    double vcpu;
    const char *text;
    long long min_mib, max_mib, step_mib;
} fargate_sizes[] = {
    {0.25, "0.25", 512, 2048, 512}, {0.5, "0.5", 1024, 4096, 1024}, {1, "1", 2048, 8192, 1024},
    {2, "2", 4096, 16384, 1024},    {4, "4", 8192, 30720, 1024},    {8, "8", 16384, 61440, 4096},
    {16, "16", 32768, 122880, 8192},
};

/* The smallest Fargate size that holds cpu and memory_mib; the largest
   when none does. */
static void fargate_size(double cpu, long long memory_mib, const char **vcpu, long long *mib)
{
    size_t n = sizeof fargate_sizes / sizeof fargate_sizes[0];
    const struct fargate_size *f = &fargate_sizes[n - 1];
    for (size_t i = 0; i < n; i++) {
        if (fargate_sizes[i].vcpu >= cpu && fargate_sizes[i].max_mib >= memory_mib) {
            f = &fargate_sizes[i];
            break;
        }
    }
    long long m = memory_mib < f->min_mib ? f->min_mib : memory_mib;
    m = (m + f->step_mib - 1) / f->step_mib * f->step_mib;
    if (f->vcpu == 0.25 && m == 1536)
        m = 2048;
    *vcpu = f->text;
    *mib = m < f->max_mib ? m : f->max_mib;
}

static void requirement(json_writer *w, const char *type, const char *value)
{
    jw_object_start(w);
    jw_kv_string(w, "type", type);
    jw_kv_string(w, "value", value);
    jw_object_end(w);
}

/* VCPU rounded up, MEMORY in MiB rounded up, GPU. */
static void emit_resources(json_writer *w, const pipe_minvocation *inv)
{
    const pipe_resources *r = &inv->resources;
    char buf[32];
    long long mib = r->memory ? (long long)ceil((double)r->memory / MIB) : DEFAULT_MEMORY_MIB;
    jw_key(w, "resourceRequirements");
    jw_array_start(w);
    if (is_fargate(inv)) {
        const char *vcpu;
        fargate_size(r->cpu > 0 ? r->cpu : 0.25, r->memory ? mib : 0, &vcpu, &mib);
        requirement(w, "VCPU", vcpu);
    } else {
        double cpu = r->cpu > 0 ? ceil(r->cpu - 1e-9) : DEFAULT_VCPU;
        snprintf(buf, sizeof buf, "%.0f", cpu);
        requirement(w, "VCPU", buf);
    }
    snprintf(buf, sizeof buf, "%lld", mib);
    requirement(w, "MEMORY", buf);
    int64_t gpu = r->gpu;
    if (gpu <= 0 && pipe_invocation_needs_gpu(inv))
        gpu = 1;
    if (gpu > 0 && !is_fargate(inv)) {
        snprintf(buf, sizeof buf, "%lld", (long long)gpu);
        requirement(w, "GPU", buf);
    }
    jw_array_end(w);
}

/* count devices PREFIX0..PREFIX<count-1>, with the permissions given. */
static void devices(json_writer *w, arena *a, const char *prefix, int64_t count, bool mknod)
{
    for (int64_t i = 0; i < count; i++) {
        const char *path = arena_printf(a, "%s%lld", prefix, (long long)i);
        jw_object_start(w);
        jw_kv_string(w, "hostPath", path);
        jw_kv_string(w, "containerPath", path);
        jw_key(w, "permissions");
        jw_array_start(w);
        jw_string(w, "READ");
        jw_string(w, "WRITE");
        if (mknod)
            jw_string(w, "MKNOD");
        jw_array_end(w);
        jw_object_end(w);
    }
}

/* The value of key in a map of @batch(tmpfs) (checked: option_tmpfs.c). */
static const pipe_mvalue *map_get(const pipe_mvalue *map, const char *key)
{
    for (size_t i = 0; map->kind == PIPE_MV_MAP && i < map->n; i++)
        if (strcmp(map->keys[i], key) == 0)
            return &map->items[i];
    return NULL;
}

static void emit_tmpfs(json_writer *w, const pipe_mvalue *list)
{
    jw_key(w, "tmpfs");
    jw_array_start(w);
    for (size_t i = 0; i < list->n; i++) {
        const pipe_mvalue *m = &list->items[i];
        const pipe_mvalue *path = map_get(m, "path"), *size = map_get(m, "size"), *options = map_get(m, "options");
        uint64_t bytes = 0;
        if (!path || !path->text || !size || !size->text ||
            pipe_parse_size(size->text, strlen(size->text), 0, &bytes) != PIPE_UNIT_OK)
            continue; /* the checker refused it */
        jw_object_start(w);
        jw_kv_string(w, "containerPath", path->text);
        jw_kv_int(w, "size", (long long)ceil((double)bytes / MIB));
        if (options && options->kind == PIPE_MV_LIST && options->n) {
            jw_key(w, "mountOptions");
            jw_array_start(w);
            for (size_t k = 0; k < options->n; k++)
                if (options->items[k].text)
                    jw_string(w, options->items[k].text);
            jw_array_end(w);
        }
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Shared memory, Neuron and EFA devices, tmpfs mounts; Fargate has none. */
static void emit_linux(json_writer *w, arena *a, const pipe_minvocation *inv)
{
    /* The model puts @batch(trainium/inferentia) in resources (one
       spelling per meaning); the checker refuses both kinds at once. */
    int64_t neuron = inv->resources.trainium + inv->resources.inferentia;
    int64_t efa = inv->batch.efa;
    bool tmpfs = inv->batch.tmpfs.n > 0;
    if (is_fargate(inv) || (!inv->resources.shm && !neuron && !efa && !tmpfs))
        return;
    jw_key(w, "linuxParameters");
    jw_object_start(w);
    if (inv->resources.shm)
        jw_kv_int(w, "sharedMemorySize", (long long)ceil((double)inv->resources.shm / MIB));
    if (neuron || efa) {
        jw_key(w, "devices");
        jw_array_start(w);
        devices(w, a, "/dev/neuron", neuron, false);
        devices(w, a, "/dev/infiniband/uverbs", efa, true);
        jw_array_end(w);
    }
    if (tmpfs)
        emit_tmpfs(w, &inv->batch.tmpfs);
    jw_object_end(w);
}

static void env_var(json_writer *w, const char *name, const char *value)
{
    jw_object_start(w);
    jw_kv_string(w, "name", name);
    jw_kv_string(w, "value", value);
    jw_object_end(w);
}

/* The bundle's `step` command; the image's ENTRYPOINT is its executable. */
static void emit_command(json_writer *w, const bundle *b)
{
    const pipe_manifest *m = b->mf;
    jw_key(w, "command");
    jw_array_start(w);
    jw_string(w, "step");
    jw_string(w, "Ref::" BATCH_REF_INVOCATION);
    jw_string(w, "--run-id");
    jw_string(w, "Ref::" BATCH_REF_RUN_ID);
    jw_string(w, "--store");
    jw_string(w, BATCH_STORE_PATH);
    for (size_t i = 0; i < m->nparams; i++) {
        jw_string(w, "--param");
        jw_string(w, arena_printf(b->arena, "Ref::" BATCH_PARAM_PREFIX "%s", m->params[i].name));
    }
    jw_array_end(w);
}

static void emit_container(json_writer *w, bundle *b, const pipe_minvocation *inv)
{
    bool fargate = is_fargate(inv);
    jw_object_start(w);
    jw_kv_string(w, "image", bundle_image_of(b, inv)->ref);
    emit_command(w, b);
    if (inv->batch.job_role)
        jw_kv_string(w, "jobRoleArn", inv->batch.job_role);
    if (fargate)
        jw_kv_string(w, "executionRoleArn", BATCH_EXECUTION_ROLE_PLACEHOLDER);
    emit_resources(w, inv);
    jw_key(w, "environment");
    jw_array_start(w);
    env_var(w, "PIPE_STORE", BATCH_STORE_PATH);
    if (invocation_machines(inv) > 1 && inv->accelerate.main_process_port > 0)
        env_var(w, "MASTER_PORT", arena_printf(b->arena, "%lld", (long long)inv->accelerate.main_process_port));
    jw_array_end(w);
    if (!fargate) {
        /* The store: shared storage (EFS, FSx) the instances mount. */
        jw_key(w, "volumes");
        jw_array_start(w);
        jw_object_start(w);
        jw_kv_string(w, "name", "pipe-store");
        jw_key(w, "host");
        jw_object_start(w);
        jw_kv_string(w, "sourcePath", BATCH_STORE_HOST);
        jw_object_end(w);
        jw_object_end(w);
        jw_array_end(w);
        jw_key(w, "mountPoints");
        jw_array_start(w);
        jw_object_start(w);
        jw_kv_string(w, "sourceVolume", "pipe-store");
        jw_kv_string(w, "containerPath", BATCH_STORE_PATH);
        jw_key(w, "readOnly");
        jw_bool(w, false);
        jw_object_end(w);
        jw_array_end(w);
    }
    emit_linux(w, b->arena, inv);
    if (fargate) {
        jw_key(w, "networkConfiguration");
        jw_object_start(w);
        jw_kv_string(w, "assignPublicIp", "ENABLED");
        jw_object_end(w);
        jw_key(w, "fargatePlatformConfiguration");
        jw_object_start(w);
        jw_kv_string(w, "platformVersion", "LATEST");
        jw_object_end(w);
    }
    jw_object_end(w);
}

/* Everything after the name: the digest of this text names the definition. */
static void emit_body(json_writer *w, bundle *b, const pipe_minvocation *inv)
{
    int64_t machines = invocation_machines(inv);
    jw_kv_string(w, "type", machines > 1 ? "multinode" : "container");
    jw_key(w, "platformCapabilities");
    jw_array_start(w);
    jw_string(w, is_fargate(inv) ? "FARGATE" : "EC2"); /* SPOT: an EC2 job; the queue chooses Spot */
    jw_array_end(w);
    if (machines > 1) {
        /* Every node runs the same container; node 0 is the main node. */
        jw_key(w, "nodeProperties");
        jw_object_start(w);
        jw_kv_int(w, "numNodes", (long long)machines);
        jw_kv_int(w, "mainNode", 0);
        jw_key(w, "nodeRangeProperties");
        jw_array_start(w);
        jw_object_start(w);
        jw_kv_string(w, "targetNodes", "0:");
        jw_key(w, "container");
        emit_container(w, b, inv);
        jw_object_end(w);
        jw_array_end(w);
        jw_object_end(w);
    } else {
        jw_key(w, "containerProperties");
        emit_container(w, b, inv);
    }
    if (inv->retry_max > 0) {
        jw_key(w, "retryStrategy");
        jw_object_start(w);
        jw_kv_int(w, "attempts", inv->retry_max + 1 < MAX_ATTEMPTS ? (long long)inv->retry_max + 1 : MAX_ATTEMPTS);
        jw_object_end(w);
    }
    if (inv->timeout_ms) {
        /* @timeout, with @checkpoint's grace for the save. */
        uint64_t s = (inv->timeout_ms + 999) / 1000 + invocation_grace_s(inv);
        jw_key(w, "timeout");
        jw_object_start(w);
        jw_kv_int(w, "attemptDurationSeconds", (long long)(s < MIN_TIMEOUT_S ? MIN_TIMEOUT_S : s));
        jw_object_end(w);
    }
}

/* Letters, digits, - and _, starting with a letter or digit, at most max
   bytes (less room for a suffix). */
static const char *batch_name(arena *a, const char *s, size_t max)
{
    strbuf sb = STRBUF_INIT;
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
        sb_putc(&sb, 'p');
    for (; *s && sb.len < max; s++) {
        char c = *s;
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        sb_putc(&sb, ok ? c : '-');
    }
    const char *out = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    return out;
}

/* The definition of inv: written once per distinct body; its name. */
static const char *emit_definition(bundle *b, const pipe_minvocation *inv)
{
    strbuf body = STRBUF_INIT;
    json_writer w;
    jw_init(&w, &body);
    jw_object_start(&w);
    w.has_items[w.depth] = true; /* the name comes first */
    emit_body(&w, b, inv);
    jw_object_end(&w);
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_hex_of(body.data, body.len, hex);
    const char *name = arena_printf(b->arena, "%s-%.16s", batch_name(b->arena, b->mf->pipeline, NAME_MAX_LEN - 17), hex);
    const char *path = arena_printf(b->arena, "batch/%s.json", name);
    bool seen = false;
    for (size_t i = 0; i < b->files.len && !seen; i++)
        seen = strcmp(((const bundle_file *)b->files.items[i])->path, path) == 0;
    if (!seen) {
        strbuf *out = bundle_add_file(b, path, false);
        /* JSON has no comments and the CLI refuses unknown keys: no banner. */
        sb_puts(out, "{\n  ");
        esc_json_string(out, "jobDefinitionName");
        sb_puts(out, ": ");
        esc_json_string(out, name);
        sb_puts(out, body.data + 1); /* after the `{`: `,` and the rest */
    }
    sb_free(&body);
    return name;
}

static int gen_batch(bundle *b, char *err, size_t errsize)
{
    size_t n = b->mf->ninvocations;
    batch_job *jobs = arena_alloc(b->arena, (n ? n : 1) * sizeof *jobs);
    for (size_t i = 0; i < n; i++) {
        batch_job *j = &jobs[i];
        j->inv = &b->mf->invocations[i];
        j->job_name = batch_name(b->arena, arena_printf(b->arena, "%s-%s", b->mf->pipeline, j->inv->id), NAME_MAX_LEN);
        j->definition = emit_definition(b, j->inv);
    }
    return batch_gen_submit(b, jobs, err, errsize);
}

const deploy_target target_batch = {
    .name = "batch",
    .summary = "batch/: an AWS Batch job definition per job shape (JSON for --cli-input-json) and submit.sh",
    .runs_containers = true,
    .pulls_images = true,
    .rules = {.step = batch_check_step},
    .generate = gen_batch,
    .templates = (const char *const[]){"batch-submit.sh.tmpl", NULL},
};
