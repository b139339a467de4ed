/* skypilot/<invocation>.yaml (docs/deploy-skypilot.md): one SkyPilot task
   per invocation. `setup` builds the bundle on every node, `run` starts the
   invocation with the runtime's `step` command. Written with libyaml's
   emitter; every value from the .pipe file that reaches the shell snippets
   is one esc_shell_word word, or an environment variable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/decorators.h"
#include "gen/bundle.h"
#include "targets.h"
#include "util/diag.h"
#include "pipe/base.h"
#include "gen/escape.h"
#include "k8s_names.h"
#include "gen/yaml_emit.h"

#define STORE_DEFAULT "/pipe-store"
#define BUILD_DIR "build-skypilot"
/* The virtual environment of `requirements`, under $HOME on the node. */
#define VENV_DIR ".pipe-venv"
#define GIB (1024.0 * 1024.0 * 1024.0)

/* @checkpoint: how a managed job (`sky jobs launch`) comes back after a
   preemption or a failed machine. FAILOVER tries the region it ran in
   first, near the store that holds the checkpoints, then any other. */
#define JOB_RECOVERY "FAILOVER"

/* Tried in this order when a GPU step names no model. */
static const char *const default_accelerators[] = {"L4", "A10G", "A100", "H100"};

static void scalar(yaml_out *em, const char *s, yaml_scalar_style_t style) { pipe_yw_scalar(em, s, style); }

/* A string that may come from the .pipe file: double-quoted unless plainly
   safe, so YAML 1.1 readers (PyYAML in SkyPilot) see the same string. */
static void str(yaml_out *em, const char *s)
{
    scalar(em, s, ye_plain_ok(s) ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void kv_str(yaml_out *em, const char *key, const char *value)
{
    ye_scalar(em, key);
    str(em, value);
}

/* "48+", "1.5+": at least this many. */
static void at_least(yaml_out *em, const char *key, double v)
{
    strbuf sb = STRBUF_INIT;
    char buf[64];
    if (v == floor(v) && v < 1e15)
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        pipe_format_double(v, buf, sizeof buf);
    sb_puts(&sb, buf);
    sb_putc(&sb, '+');
    kv_str(em, key, sb_cstr(&sb));
    sb_free(&sb);
}

static bool env_has(const pipe_mimage *img, const char *name)
{
    for (size_t i = 0; i < img->nenvironment; i++)
        if (strcmp(img->environment[i].key, name) == 0)
            return true;
    return false;
}

static void emit_resources(yaml_out *em, const pipe_minvocation *inv)
{
    const pipe_mskypilot *sky = &inv->skypilot;
    const pipe_resources *r = &inv->resources;
    int64_t gpu = r->gpu;
    if (gpu <= 0 && pipe_invocation_needs_gpu(inv))
        gpu = 1;

    ye_scalar(em, "resources");
    ye_map_start(em, false);
    if (sky->cloud)
        kv_str(em, "cloud", sky->cloud);
    if (sky->region)
        kv_str(em, "region", sky->region);
    if (r->cpu > 0)
        at_least(em, "cpus", r->cpu);
    if (r->memory)
        at_least(em, "memory", ceil((double)r->memory / GIB)); /* GiB, as SkyPilot counts */
    if (r->disk)
        ye_kv_int(em, "disk_size", (long long)ceil((double)r->disk / GIB));
    if (sky->accelerators) {
        kv_str(em, "accelerators", sky->accelerators);
    } else if (gpu > 0 && r->gpu_type) {
        strbuf sb = STRBUF_INIT;
        sb_printf(&sb, "%s:%lld", r->gpu_type, (long long)gpu);
        kv_str(em, "accelerators", sb_cstr(&sb));
        sb_free(&sb);
    } else if (gpu > 0) {
        ye_scalar(em, "accelerators");
        ye_seq_start(em, true);
        for (size_t i = 0; i < sizeof default_accelerators / sizeof default_accelerators[0]; i++) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s:%lld", default_accelerators[i], (long long)gpu);
            str(em, buf);
        }
        ye_seq_end(em);
    }
    ye_kv_bool(em, "use_spot", sky->use_spot);
    if (inv->checkpoint.enabled)
        ye_kv(em, "job_recovery", JOB_RECOVERY);
    ye_map_end(em);
}

/* PIPE_RUN_ID must be given (`sky launch --env PIPE_RUN_ID=...`): null
   marks it required. The image's environment follows: there is no image. */
static void emit_envs(yaml_out *em, const pipe_minvocation *inv)
{
    const pipe_mimage *img = &inv->image;
    ye_scalar(em, "envs");
    ye_map_start(em, false);
    if (!env_has(img, "PIPE_RUN_ID"))
        ye_kv(em, "PIPE_RUN_ID", "null");
    if (!env_has(img, "PIPE_STORE"))
        kv_str(em, "PIPE_STORE", STORE_DEFAULT);
    for (size_t i = 0; i < img->nenvironment; i++) {
        const pipe_kv *e = &img->environment[i];
        if (!*e->value)
            continue; /* SkyPilot reads "" as "required": see empty_exports */
        str(em, e->key);
        str(em, e->value);
    }
    ye_map_end(em);
}

/* Variables of @docker environment set to "": exported by the scripts. */
static void empty_exports(strbuf *sb, const pipe_minvocation *inv)
{
    const pipe_mimage *img = &inv->image;
    for (size_t i = 0; i < img->nenvironment; i++) {
        const pipe_kv *e = &img->environment[i];
        if (!*e->value) {
            sb_puts(sb, "export ");
            esc_shell_word(sb, e->key); /* a variable name (checked) */
            sb_puts(sb, "=\n");
        }
    }
}

static void shell_words(strbuf *sb, char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sb_putc(sb, ' ');
        esc_shell_word(sb, words[i]);
    }
}

/* The node builds the whole bundle's executable: the apt packages of every
   invocation (what the steps' `libraries` need), each once. */
static void all_packages(const bundle *b, strbuf *sb)
{
    for (size_t i = 0; i < b->mf->ninvocations; i++) {
        const pipe_mimage *img = &b->mf->invocations[i].image;
        for (size_t k = 0; k < img->napt_packages; k++) {
            bool seen = false;
            for (size_t j = 0; j <= i && !seen; j++) {
                const pipe_mimage *prev = &b->mf->invocations[j].image;
                for (size_t q = 0; q < prev->napt_packages && !seen && (j < i || q < k); q++)
                    seen = strcmp(prev->apt_packages[q], img->apt_packages[k]) == 0;
            }
            if (!seen)
                shell_words(sb, &img->apt_packages[k], 1);
        }
    }
}

/* A command step whose program is python, python3, ... */
static bool runs_python(const pipe_mstep *st)
{
    if (!st->ncommand)
        return false;
    const char *prog = strrchr(st->command[0], '/');
    return strncmp(prog ? prog + 1 : st->command[0], "python", 6) == 0;
}

static void setup_script(strbuf *sb, const bundle *b, const pipe_minvocation *inv)
{
    const pipe_mimage *img = &inv->image;
    sb_puts(sb, "set -eu\n");
    empty_exports(sb, inv);
    sb_puts(sb, "as_root() { if [ \"$(id -u)\" = 0 ]; then \"$@\"; else sudo \"$@\"; fi; }\n"
                "# Build tools, libyaml and the packages of @docker, then the bundle.\n"
                "as_root env DEBIAN_FRONTEND=noninteractive apt-get update\n"
                "as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends"
                " cmake build-essential pkg-config libyaml-dev libssl-dev");
    all_packages(b, sb);
    if (img->nrequirements)
        sb_puts(sb, " python3-venv");
    else if (runs_python(bundle_step_of(b, inv)))
        sb_puts(sb, " python3");
    sb_putc(sb, '\n');
    if (img->nrequirements) {
        /* A virtual environment of the task's own, seeing the machine's
           packages; `--`: each entry is a requirement, never a pip option. */
        sb_puts(sb, "python3 -m venv --system-site-packages \"$HOME/" VENV_DIR "\"\n"
                    "\"$HOME/" VENV_DIR "/bin/python3\" -m pip install --");
        shell_words(sb, img->requirements, img->nrequirements);
        sb_putc(sb, '\n');
    }
    sb_puts(sb, "if [ ! -d \"$PIPE_STORE\" ]; then\n"
                "  as_root mkdir -p \"$PIPE_STORE\"\n"
                "  as_root chown \"$(id -u):$(id -g)\" \"$PIPE_STORE\"\n"
                "fi\n");
    if (pipe_invocation_needs_gpu(inv))
        sb_puts(sb, "if [ -d /usr/local/cuda/bin ]; then PATH=\"$PATH:/usr/local/cuda/bin\"; export PATH; fi\n");
    sb_puts(sb, "cmake -S . -B " BUILD_DIR " -DCMAKE_BUILD_TYPE=Release\n"
                "cmake --build " BUILD_DIR " -j \"$(nproc)\"\n");
}

static void run_script(strbuf *sb, const bundle *b, const pipe_minvocation *inv, int64_t machines)
{
    sb_puts(sb, "set -eu\n");
    empty_exports(sb, inv);
    sb_puts(sb, ": \"${PIPE_RUN_ID:?set the run id: sky launch --env PIPE_RUN_ID=ID}\"\n"
                "# PIPE_PARAMS: NAME=VALUE lines, each passed on as --param NAME=VALUE.\n"
                "set --\n"
                "while IFS= read -r param; do\n"
                "  if [ -n \"$param\" ]; then set -- \"$@\" --param \"$param\"; fi\n"
                "done <<EOF\n"
                "${PIPE_PARAMS:-}\n"
                "EOF\n");
    if (machines > 1)
        sb_puts(sb, "# Machine rank, main process address and a rendezvous token that\n"
                    "# every node of this task computes alike, for the runtime.\n"
                    "PIPE_MACHINE_RANK=\"${SKYPILOT_NODE_RANK:-0}\"\n"
                    "MASTER_ADDR=\"$(printf '%s\\n' \"$SKYPILOT_NODE_IPS\" | head -n 1)\"\n"
                    "if [ -z \"${PIPE_RDZV_TOKEN:-}\" ]; then\n"
                    "  PIPE_RDZV_TOKEN=\"$(printf '%s %s' \"${SKYPILOT_TASK_ID:-}\" \"$PIPE_RUN_ID\" | sha256sum | cut -c1-32)\"\n"
                    "fi\n"
                    "export PIPE_MACHINE_RANK MASTER_ADDR PIPE_RDZV_TOKEN\n");
    if (inv->image.nrequirements)
        sb_puts(sb, "# The requirements come first for the step's program.\n"
                    "PATH=\"$HOME/" VENV_DIR "/bin:$PATH\"\n"
                    "export PATH\n");
    sb_puts(sb, "exec ./" BUILD_DIR "/");
    esc_shell_word(sb, b->mf->pipeline);
    sb_puts(sb, " step ");
    esc_shell_word(sb, inv->id);
    sb_puts(sb, " --run-id \"$PIPE_RUN_ID\" --store \"$PIPE_STORE\" \"$@\"\n");
}

static int emit_task(bundle *b, k8s_names *names, const pipe_minvocation *inv, char *err, size_t errsize)
{
    int64_t machines = invocation_machines(inv);
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "skypilot/%s.yaml", inv->id), false);
    bundle_banner(b, out, "#");
    if (inv->checkpoint.enabled)
        sb_puts(out, "# @checkpoint: a managed job (sky jobs launch) that SkyPilot recovers\n"
                     "# (job_recovery) runs again with the same PIPE_RUN_ID, and the step\n"
                     "# resumes from its checkpoint folder only when PIPE_STORE is storage\n"
                     "# that every cluster and node of the job mounts: the default\n"
                     "# /pipe-store is each node's own disk (docs/deploy-skypilot.md).\n");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    ye_doc_start(&em, true);
    ye_map_start(&em, false);
    kv_str(&em, "name", k8s_name(names, arena_printf(b->arena, "%s-%s", b->mf->pipeline, inv->id), K8S_LABEL_MAX));
    /* Relative to where `sky launch` runs: the bundle's root. */
    kv_str(&em, "workdir", ".");
    ye_kv_int(&em, "num_nodes", (long long)machines);
    emit_resources(&em, inv);
    emit_envs(&em, inv);
    strbuf script = STRBUF_INIT;
    setup_script(&script, b, inv);
    ye_scalar(&em, "setup");
    scalar(&em, sb_cstr(&script), YAML_LITERAL_SCALAR_STYLE);
    sb_reset(&script);
    run_script(&script, b, inv, machines);
    ye_scalar(&em, "run");
    scalar(&em, sb_cstr(&script), YAML_LITERAL_SCALAR_STYLE);
    sb_free(&script);
    ye_map_end(&em);
    ye_doc_end(&em);
    return ye_close(&em, arena_printf(b->arena, "skypilot/%s.yaml", inv->id), err, errsize);
}

static int gen_skypilot(bundle *b, char *err, size_t errsize)
{
    k8s_names names;
    k8s_names_init(&names, b->arena);
    int rc = 0;
    for (size_t i = 0; i < b->mf->ninvocations && rc == 0; i++)
        rc = emit_task(b, &names, &b->mf->invocations[i], err, errsize);
    k8s_names_free(&names);
    return rc;
}

/* E0401: @skypilot's accelerator count is per machine, like @resources' gpu;
   when both are set they must agree. */
static void check_skypilot(diag_engine *d, const step_info *st, const effective_options *eff)
{
    (void)st;
    opt_value accel = effective_opt(eff, DEC_SKYPILOT, SKY_ACCELERATORS);
    opt_value g = effective_opt(eff, DEC_RESOURCES, RES_GPU);
    int64_t gpu = g.i;
    if (!accel.set || !g.set || (int64_t)accel.u == gpu)
        return;
    if (effective_uncertain(eff, DEC_SKYPILOT, SKY_ACCELERATORS) || effective_uncertain(eff, DEC_RESOURCES, RES_GPU))
        return;
    span at = accel.expr ? accel.expr->sp : accel.name_sp; /* the value as written */
    diagnostic *dg = diag_report(d, at, DIAG_E0401,
                                 "@skypilot asks for %llu GPU%s per machine but @resources says `gpu = %lld`",
                                 (unsigned long long)accel.u, accel.u == 1 ? "" : "s", (long long)gpu);
    diag_label(d, dg, "%llu GPU%s", (unsigned long long)accel.u, accel.u == 1 ? "" : "s");
    diag_note(d, dg, g.arg_sp, "`gpu = %lld` is set here", (long long)gpu);
    diag_help(d, dg, "make them agree, e.g. `accelerators = \"%s:%lld\"`", accel.s ? accel.s : "H100",
              (long long)gpu);
}

const deploy_target target_skypilot = {
    .name = "skypilot",
    .summary = "skypilot/<invocation>.yaml: a SkyPilot task per invocation",
    /* Counted with the container targets, so that a GPU step without an
       image is warned about (W0401), although its tasks run on the node's
       own image (docs/deploy-skypilot.md). */
    .runs_containers = true,
    .pulls_images = true,
    .check = check_skypilot,
    .generate = gen_skypilot,
};
