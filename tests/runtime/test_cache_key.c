/* What the cache key covers, driven by the settings table
   (pipe/settings.def): through the supervisor's key function, changing an
   option the table marks PIPE_KEYED gives another key and an explanation
   naming it; changing any other option gives the same key. Then the step's
   environment, the device, the code, parameters and inputs, the cap on the
   explanation, the parts in step.yaml, and where the ranks run
   (pipe_supervisor_choose_device, _check_device) against the stand-in NVML library:
   which GPUs' models, and the CPU launch when no GPU is usable. */
#include <inttypes.h>
#include <stdlib.h>

#include "check.h"
#include "step/supervisor.h"
#include "pipe/settings.h"
#include "step_fixture.h"
#include "store/cache_key.h"
#include "store/stepfile.h"

/* ---- invocations with every option set ---- */

static char **strings(size_t n, const char *first, const char *second)
{
    char **v = calloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = pipe_strdup(i == 0 ? first : second);
    return v;
}

/* Option o of inv at one of two set values (which 0 or 1), or at its
   zero (which 2: unset). The field holds nothing before. */
static void set_value(const pipe_option *o, pipe_minvocation *inv, int which)
{
    void *field = pipe_option_field(o, inv);
    size_t *count = pipe_option_count(o, inv);
    pipe_value v = {0};
    if (which == 2)
        return; /* memset: the zero of every kind */
    switch (o->kind) {
    case PIPE_KIND_NUMBER: v.num = 2 + which; break;
    case PIPE_KIND_INT:
    case PIPE_KIND_PORT: v.i = (int64_t)o->min + 1 + which; break;
    case PIPE_KIND_SIZE: v.u = (uint64_t)(1 + which) << 30; break;
    case PIPE_KIND_DURATION: v.u = 60000u * (uint64_t)(1 + which); break;
    case PIPE_KIND_BOOL: v.b = which == 0; break;
    case PIPE_KIND_ENUM: *(char **)field = pipe_strdup(o->values[which]); return;
    case PIPE_KIND_STRING:
    case PIPE_KIND_GPU_IDS:
    case PIPE_KIND_ACCELERATORS: *(char **)field = pipe_strdup(which ? "1" : "0"); return;
    case PIPE_KIND_STRING_LIST:
    case PIPE_KIND_PACKAGE_LIST:
    case PIPE_KIND_SBATCH_FLAGS:
        *count = 1 + (size_t)which;
        *(char ***)field = strings(*count, "--x", "--y");
        return;
    case PIPE_KIND_STRING_MAP:
    case PIPE_KIND_ENV_MAP: {
        pipe_kv *kv = calloc(1, sizeof *kv);
        kv->key = pipe_strdup("K");
        kv->value = pipe_strdup(which ? "w" : "v");
        *(pipe_kv **)field = kv;
        *count = 1;
        return;
    }
    case PIPE_KIND_FILE: {
        pipe_mfile *file = field;
        file->path = pipe_strdup("requirements.txt");
        file->sha256 = pipe_strdup(which ? "1111" : "0000");
        return;
    }
    case PIPE_KIND_MAP_LIST: {
        pipe_mvalue *list = field;
        list->kind = PIPE_MV_LIST;
        list->n = 1;
        list->items = calloc(1, sizeof *list->items);
        list->items[0].kind = PIPE_MV_STRING;
        list->items[0].text = pipe_strdup(which ? "b" : "a");
        return;
    }
    case PIPE_KIND_COUNT: return;
    }
    pipe_option_store(o, inv, v);
}

/* inv with every option at its first value, except `changed` at `which`. */
static void make_invocation(pipe_minvocation *inv, const pipe_option *changed, int which)
{
    memset(inv, 0, sizeof *inv);
    inv->id = "train";
    inv->accelerate.enabled = true;
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)d);
        for (int i = 0; i < info->noptions; i++)
            set_value(&info->options[i], inv, &info->options[i] == changed ? which : 0);
    }
}

static pipe_kv environment[] = {{"SEED", "1"}, {"MODE", "fast"}};
static pipe_mstep step = {.name = "train", .entry = "train_main", .code_digest = "d1",
                          .environment = environment, .nenvironment = 2};

/* The record the supervisor makes: parameters, inputs, key parts, key. */
static pipe_step_record *keyed(const pipe_mstep *ms, const pipe_minvocation *inv, const char *device,
                               const char *lr, const char *data_sha)
{
    pipe_step_record *r = calloc(1, sizeof *r);
    pipe_step_ident id = {.ms = ms, .inv = inv};
    pipe_step_record_add_param(r, "lr", lr);
    pipe_step_record_add_input(r, "data", "/store/R/split/outputs/train", data_sha);
    CHECK_EQ_INT(pipe_supervisor_cache_key(&id, device, r), 0);
    CHECK(r->cache_key && strlen(r->cache_key) == 64);
    return r;
}

static bool has_part(const pipe_step_record *r, const char *name)
{
    for (size_t i = 0; i < r->nkey_parts; i++)
        if (strcmp(r->key_parts[i].key, name) == 0)
            return true;
    return false;
}

/* ---- the table ---- */

static void test_every_option(void)
{
    pipe_minvocation base, other;
    make_invocation(&base, NULL, 0);
    pipe_step_record *a = keyed(&step, &base, "cpu", "0.1", "aaaa");
    size_t keyed_options = 0, checked = 0;
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)d);
        for (int i = 0; i < info->noptions; i++) {
            const pipe_option *o = &info->options[i];
            char name[128], expect[160], diff[1024];
            pipe_cache_part_name(o, name, sizeof name);
            keyed_options += o->keyed;
            CHECK(has_part(a, name) == o->keyed);
            /* Another value, then no value at all. */
            for (int which = 1; which <= 2; which++) {
                make_invocation(&other, o, which);
                pipe_step_record *b = keyed(&step, &other, "cpu", "0.1", "aaaa");
                size_t n = pipe_cache_key_diff(b, a, diff, sizeof diff);
                bool same_key = strcmp(a->cache_key, b->cache_key) == 0;
                snprintf(expect, sizeof expect, "%s changed (", name);
                printf("@%s(%s) %s: %s%s\n", info->name, o->name, which == 1 ? "changed" : "unset",
                       same_key ? "hit" : "miss, ", same_key ? "" : diff);
                if (o->keyed) {
                    CHECK(!same_key);
                    CHECK_EQ_U64(n, 1);
                    CHECK(strncmp(diff, expect, strlen(expect)) == 0);
                } else {
                    CHECK(same_key);
                    CHECK_EQ_U64(n, 0);
                }
                checked++;
                pipe_step_record_free(b);
                pipe_settings_free(&other);
            }
        }
    }
    /* The launch settings, image, counts and gpu_type the issue names at
       least; the rest of the table stays out. */
    CHECK(keyed_options >= 15);
    size_t total = 0;
    for (int d = 0; d < PIPE_DEC_COUNT; d++)
        total += (size_t)pipe_decorator_get((pipe_decorator)d)->noptions;
    CHECK_EQ_U64(checked, 2 * total);
    const char *in_key[] = {"num_processes", "num_machines", "multi_gpu", "run_with_accelerate.cpu",
                            "mixed_precision", "gpu_ids", "resources.cpu", "gpu", "gpu_type", "parent_image",
                            "build_image", "requirements", "apt_packages", "environment", "index_url",
                            "requirements_file", "extra_index_urls"};
    for (size_t k = 0; k < sizeof in_key / sizeof in_key[0]; k++) {
        if (!has_part(a, in_key[k]))
            fprintf(stderr, "not in the key: %s\n", in_key[k]);
        CHECK(has_part(a, in_key[k]));
    }
    const char *out_of_key[] = {"max", "delay", "limit", "interval", "main_process_port", "rdzv_timeout",
                                "collective_timeout", "max_restarts", "memory", "disk", "shm", "keep", "grace",
                                "partition", "namespace", "cloud", "use_spot", "registry"};
    for (size_t k = 0; k < sizeof out_of_key / sizeof out_of_key[0]; k++)
        CHECK(!has_part(a, out_of_key[k]));
    /* A value reads as a .pipe file writes it. */
    for (size_t i = 0; i < a->nkey_parts; i++)
        if (strcmp(a->key_parts[i].key, "requirements") == 0)
            CHECK_STREQ(a->key_parts[i].value, "[\"--x\"]");
        else if (strcmp(a->key_parts[i].key, "environment") == 0)
            CHECK_STREQ(a->key_parts[i].value, "{\"K\": \"v\"}");
        else if (strcmp(a->key_parts[i].key, "resources.cpu") == 0)
            CHECK_STREQ(a->key_parts[i].value, "2");
    pipe_step_record_free(a);
    pipe_settings_free(&base);
}

/* @docker(requirements_file) is keyed by its content, which pipec records
   next to the path: editing the file in place gives another key, moving
   it (the same bytes elsewhere) does not. */
static void test_requirements_file_by_content(void)
{
    const pipe_option *o = pipe_option_get(PIPE_DEC_DOCKER, PIPE_DOCKER_REQUIREMENTS_FILE);
    CHECK(o && o->keyed && o->kind == PIPE_KIND_FILE);
    static const char sha_a[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    static const char sha_b[] = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    pipe_minvocation inv;
    make_invocation(&inv, NULL, 0);
    pipe_mfile *file = &inv.image.requirements_file;
    free(file->path);
    free(file->sha256);
    file->path = pipe_strdup("requirements.txt");
    file->sha256 = pipe_strdup(sha_a);
    pipe_step_record *before = keyed(&step, &inv, "cpu", "0.1", "aaaa");
    char part[128];
    snprintf(part, sizeof part, "sha256:%s", sha_a);
    bool found = false;
    for (size_t i = 0; i < before->nkey_parts; i++)
        if (strcmp(before->key_parts[i].key, "requirements_file") == 0)
            found = strcmp(before->key_parts[i].value, part) == 0;
    CHECK(found);

    free(file->sha256);
    file->sha256 = pipe_strdup(sha_b);
    pipe_step_record *edited = keyed(&step, &inv, "cpu", "0.1", "aaaa");
    char diff[1024];
    CHECK_EQ_U64(pipe_cache_key_diff(edited, before, diff, sizeof diff), 1);
    CHECK(strncmp(diff, "requirements_file changed (sha256:0123", 38) == 0);
    CHECK(strcmp(edited->cache_key, before->cache_key) != 0);

    free(file->sha256);
    free(file->path);
    file->sha256 = pipe_strdup(sha_a);
    file->path = pipe_strdup("env/requirements.txt");
    pipe_step_record *moved = keyed(&step, &inv, "cpu", "0.1", "aaaa");
    CHECK_EQ_U64(pipe_cache_key_diff(moved, before, diff, sizeof diff), 0);
    CHECK_STREQ(moved->cache_key, before->cache_key);

    pipe_step_record_free(before);
    pipe_step_record_free(edited);
    pipe_step_record_free(moved);
    pipe_settings_free(&inv);
}

/* ---- the rest of the key ---- */

static void expect_diff(const pipe_step_record *now, const pipe_step_record *before, size_t n, const char *text)
{
    char diff[1024];
    CHECK_EQ_U64(pipe_cache_key_diff(now, before, diff, sizeof diff), n);
    CHECK_STREQ(diff, text);
    CHECK(n == 0 ? strcmp(now->cache_key, before->cache_key) == 0 : strcmp(now->cache_key, before->cache_key) != 0);
}

/* The key of (ms, inv, device, lr, data_sha) differs from before's in n
   parts, said as text. */
static void expect_change(const pipe_mstep *ms, const pipe_minvocation *inv, const char *device, const char *lr,
                          const char *data_sha, const pipe_step_record *before, size_t n, const char *text)
{
    pipe_step_record *r = keyed(ms, inv, device, lr, data_sha);
    expect_diff(r, before, n, text);
    pipe_step_record_free(r);
}

static void test_environment_device_code(void)
{
    pipe_minvocation inv;
    make_invocation(&inv, NULL, 0);
    pipe_step_record *a = keyed(&step, &inv, "cpu", "0.1", "aaaa"), *b;

    /* Deterministic; an input's path is not its bytes. */
    expect_change(&step, &inv, "cpu", "0.1", "aaaa", a, 0, "");

    pipe_kv env2[] = {{"SEED", "2"}, {"MODE", "fast"}}, env_less[] = {{"SEED", "1"}},
            env_more[] = {{"SEED", "1"}, {"MODE", "fast"}, {"EXTRA", "x"}};
    pipe_mstep s = step;
    s.environment = env2;
    expect_change(&s, &inv, "cpu", "0.1", "aaaa", a, 1, "env.SEED changed (1 -> 2)");
    s.environment = env_less;
    s.nenvironment = 1;
    expect_change(&s, &inv, "cpu", "0.1", "aaaa", a, 1, "env.MODE changed (fast -> unset)");
    s.environment = env_more;
    s.nenvironment = 3;
    expect_change(&s, &inv, "cpu", "0.1", "aaaa", a, 1, "env.EXTRA changed (unset -> x)");

    /* A GPU step that fell back to the CPU is another result. */
    expect_change(&step, &inv, "gpu: 1 x Stand-in GPU 0", "0.1", "aaaa", a, 1,
                  "device changed (cpu -> gpu: 1 x Stand-in GPU 0)");

    s = step;
    s.code_digest = "d2";
    expect_change(&s, &inv, "cpu", "0.1", "aaaa", a, 1, "code changed");
    expect_change(&step, &inv, "cpu", "0.2", "aaaa", a, 1, "parameter lr changed (0.1 -> 0.2)");
    expect_change(&step, &inv, "cpu", "0.1", "bbbb", a, 1, "input data changed");

    /* Many at once: the first three, then how many more. */
    s.environment = env2;
    pipe_settings_free(&inv);
    make_invocation(&inv, pipe_option_get(PIPE_DEC_ACCELERATE, PIPE_ACC_MIXED_PRECISION), 1);
    expect_change(&s, &inv, "gpu: 1 x A", "0.2", "bbbb", a, 6,
                  "code changed; parameter lr changed (0.1 -> 0.2); input data changed (and 3 more)");

    /* A long value is cut at a character, not inside one. */
    char long_env[200], expect[128];
    memset(long_env, 'x', sizeof long_env);
    memcpy(long_env + 44, "\xc3\xa9", 2); /* é across the cut */
    long_env[sizeof long_env - 1] = '\0';
    pipe_kv env_long[] = {{"SEED", long_env}, {"MODE", "fast"}};
    s = step;
    s.environment = env_long;
    pipe_settings_free(&inv);
    make_invocation(&inv, NULL, 0);
    snprintf(expect, sizeof expect, "env.SEED changed (1 -> %.44s...)", long_env);
    expect_change(&s, &inv, "cpu", "0.1", "aaaa", a, 1, expect);

    /* The parts cannot run into each other: "a" = "b=c" is not "a=b" = "c". */
    pipe_kv e1[] = {{"A", "B=C"}}, e2[] = {{"A=B", "C"}};
    s.environment = e1;
    s.nenvironment = 1;
    b = keyed(&s, &inv, "cpu", "0.1", "aaaa");
    s.environment = e2;
    pipe_step_record *c = keyed(&s, &inv, "cpu", "0.1", "aaaa");
    CHECK(strcmp(b->cache_key, c->cache_key) != 0);
    pipe_step_record_free(b);
    pipe_step_record_free(c);

    /* step.yaml keeps the code digest, the parts and why it ran again. */
    a->rerun = pipe_strdup("mixed_precision changed (bf16 -> no)");
    a->rerun_of = pipe_strdup("R1/train");
    a->invocation = pipe_strdup("train");
    a->step = pipe_strdup("train");
    a->run_id = pipe_strdup("R2");
    char *text = NULL, err[256];
    size_t len = 0;
    CHECK_EQ_INT(pipe_step_record_format(a, &text, &len, err, sizeof err), 0);
    CHECK(fx_contains(text, "\nkey_parts:\n  resources.cpu: \"2\"\n"));
    CHECK(fx_contains(text, "  env.SEED: \"1\"\n  env.MODE: \"fast\"\n  device: \"cpu\"\n"));
    CHECK(fx_contains(text, "rerun: \"mixed_precision changed (bf16 -> no)\"\nrerun_of: R1/train\n"));
    pipe_step_record *back = NULL;
    CHECK_EQ_INT(pipe_step_record_parse(text, len, &back, err, sizeof err), 0);
    if (back) {
        back->cache_key = back->cache_key ? back->cache_key : pipe_strdup("");
        expect_diff(back, a, 0, "");
        CHECK_EQ_U64(back->nkey_parts, a->nkey_parts);
        CHECK_STREQ(back->code_digest, "d1");
        CHECK_STREQ(back->rerun, a->rerun);
        CHECK_STREQ(back->rerun_of, "R1/train");
    }
    pipe_step_record_free(back);
    free(text);
    pipe_step_record_free(a);
    pipe_settings_free(&inv);
}

/* ---- where the ranks run ---- */

static int fake_select(int device, char *err, size_t errsize)
{
    (void)device;
    (void)err;
    (void)errsize;
    return 0;
}

typedef struct device_case {
    bool cpu, multi_gpu, native_cuda;
    int64_t gpu;
    const char *cvd, *gpu_ids, *nvml;
} device_case;

/* choose_device, then check_device, on a supervisor set up for c: the
   check's rc, s->device, the launch's cpu_only and backend, and what was
   printed (or the error). */
static int choose(const device_case *c, pipe_supervisor *s, char **printed)
{
    static const pipe_cuda_hooks cuda = {.select_device = fake_select};
    static pipe_program prog;
    static pipe_minvocation inv;
    static char *command[] = {"python3", "train.py"};
    static pipe_mstep ms;
    char err[1024] = "";
    ms = step;
    ms.command = c->native_cuda ? NULL : command;
    ms.ncommand = c->native_cuda ? 0 : 2;
    ms.needs_cuda = c->native_cuda;
    prog.cuda = c->native_cuda ? &cuda : NULL;
    memset(&inv, 0, sizeof inv);
    inv.id = "train";
    inv.resources.gpu = c->gpu;
    inv.accelerate = pipe_accelerate_none();
    inv.accelerate.enabled = true;
    inv.accelerate.num_processes = 2;
    inv.accelerate.multi_gpu = c->multi_gpu;
    inv.accelerate.cpu = c->cpu;
    memset(s, 0, sizeof *s);
    s->log.fd = -1;
    s->id.prog = &prog;
    s->id.inv = &inv;
    s->id.ms = &ms;
    s->id.command = !c->native_cuda;
    s->id.nlocal = s->id.world = 2;
    s->launch.cpu_only = pipe_invocation_cpu_only(&inv);
    s->launch.backend = c->multi_gpu && !c->cpu ? "nccl" : "cpu";
    snprintf(s->launch.gpu_ids, sizeof s->launch.gpu_ids, "%s", c->gpu_ids ? c->gpu_ids : "");
    if (c->cvd)
        setenv("CUDA_VISIBLE_DEVICES", c->cvd, 1);
    else
        unsetenv("CUDA_VISIBLE_DEVICES");
    setenv("PIPE_NVML_LIBRARY", c->nvml, 1);
    char *dir = fx_tempdir("device");
    fx_capture cap;
    fx_capture_begin(&cap, dir);
    pipe_supervisor_choose_device(s);
    int rc = pipe_supervisor_check_device(s, err, sizeof err);
    char *out = fx_capture_end(&cap);
    fx_rmtree(dir);
    if (rc != 0) {
        free(out);
        out = pipe_strdup(err);
    }
    *printed = out;
    return rc;
}

static void test_device(void)
{
    const char *standin = getenv("PIPE_TEST_NVML_STANDIN");
    if (!standin || !*standin) {
        fprintf(stderr, "PIPE_TEST_NVML_STANDIN names no stand-in NVML library (CMake sets it)\n");
        CHECK(false);
        return;
    }
    pipe_supervisor s;
    char *out = NULL;
    /* The GPUs the ranks take: both, the one CUDA_VISIBLE_DEVICES leaves, the one gpu_ids names. */
    device_case both = {.multi_gpu = true, .gpu = 2, .nvml = standin};
    CHECK_EQ_INT(choose(&both, &s, &out), 0);
    CHECK_STREQ(s.device, "gpu: 1 x Stand-in GPU 0, 1 x Stand-in GPU 1");
    CHECK(!s.launch.cpu_only && strcmp(s.launch.backend, "nccl") == 0);
    CHECK_STREQ(out, "");
    free(out);
    device_case second = {.gpu = 1, .cvd = "1", .nvml = standin};
    CHECK_EQ_INT(choose(&second, &s, &out), 0);
    CHECK_STREQ(s.device, "gpu: 1 x Stand-in GPU 1");
    free(out);
    device_case ids = {.gpu = 1, .gpu_ids = "0", .nvml = standin};
    CHECK_EQ_INT(choose(&ids, &s, &out), 0);
    CHECK_STREQ(s.device, "gpu: 1 x Stand-in GPU 0");
    free(out);
    /* cpu = true: the CPU, NVML not asked. */
    device_case cpu = {.cpu = true, .gpu = 2, .nvml = "/nonexistent/libnvidia-ml.so.1"};
    CHECK_EQ_INT(choose(&cpu, &s, &out), 0);
    CHECK_STREQ(s.device, "cpu");
    CHECK_STREQ(out, "");
    free(out);

    /* No usable GPU: one training on the CPU, said once, naming the step. */
    device_case none = {.multi_gpu = true, .gpu = 2, .nvml = "/nonexistent/libnvidia-ml.so.1"};
    CHECK_EQ_INT(choose(&none, &s, &out), 0);
    CHECK_STREQ(s.device, "cpu");
    CHECK(s.launch.cpu_only && strcmp(s.launch.backend, "cpu") == 0);
    CHECK(fx_contains(out, "warning: step `train` asks for 2 GPUs (@resources(gpu = 2)) but this machine has no "
                           "usable GPU: NVML cannot be loaded (/nonexistent/libnvidia-ml.so.1"));
    CHECK(fx_contains(out, "; its 2 ranks run on the CPU as one process group, as with cpu = true\n"));
    const char *first = out ? strstr(out, "warning:") : NULL;
    CHECK(first && !strstr(first + 1, "warning:")); /* once, not per rank */
    free(out);
    device_case hidden = {.multi_gpu = true, .gpu = 2, .cvd = "", .nvml = standin};
    CHECK_EQ_INT(choose(&hidden, &s, &out), 0);
    CHECK(s.launch.cpu_only && strcmp(s.device, "cpu") == 0);
    CHECK(fx_contains(out, "CUDA_VISIBLE_DEVICES=\"\" hides them all"));
    free(out);
    /* A native step built with CUDA would fail in every rank: it fails here. */
    device_case native = {.native_cuda = true, .gpu = 1, .nvml = "/nonexistent/libnvidia-ml.so.1"};
    CHECK_EQ_INT(choose(&native, &s, &out), PIPE_ERESOURCE);
    CHECK(fx_contains(out, "step `train` asks for 1 GPU (@resources(gpu = 1)) but this machine has no usable GPU"));
    CHECK(!s.launch.cpu_only);
    free(out);
    unsetenv("PIPE_NVML_LIBRARY");
    unsetenv("CUDA_VISIBLE_DEVICES");
}

int main(void)
{
    unsetenv("PIPE_LOCAL_GPUS");
    test_every_option();
    test_requirements_file_by_content();
    test_environment_device_code();
    test_device();
    return check_summary();
}
