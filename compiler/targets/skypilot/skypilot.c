/* skypilot/<invocation>.yaml (docs/deploy-skypilot.md): one SkyPilot task
   per invocation, run in the invocation's image (resources.image_id); the
   same tasks in the pipeline's order as one chain,
   skypilot/chain/<pipeline>.yaml, and skypilot/submit.sh, which pushes the
   images and launches the chain as a managed job. `setup` makes the store
   folder, `run` starts the invocation with the image's executable; with
   @skypilot(store), every task and node mounts that bucket as the store.
   Written with libyaml's emitter; every value from the .pipe file that
   reaches the shell snippets is one esc_shell_word word, or an environment
   variable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/decorators.h"
#include "check/program.h"
#include "hw/neuron_instances.h"
#include "gen/bundle.h"
#include "gen/template.h"
#include "hw/gpu_models.h"
#include "skypilot_store.h"
#include "targets/submit_params.h"
#include "targets/targets.h"
#include "util/diag.h"
#include "pipe/base.h"
#include "util/escape.h"
#include "targets/k8s_names.h"
#include "gen/yaml_emit.h"


/* Where the store is: the bucket of @skypilot(store) is mounted here. */
#define STORE_MOUNT "/pipe-store"
/* The bundle in its image (docs/deploy-docker.md): the executable is
   IMAGE_PREFIX/bin/<pipeline>, the requirements' environment IMAGE_VENV. */
#define IMAGE_PREFIX "/opt/pipe"
#define IMAGE_VENV IMAGE_PREFIX "/venv"
/* SkyPilot mounts buckets this way for the store: rclone with a full VFS
   cache, where the runtime's renames into place work (skypilot_store.c). */
#define STORE_MODE "MOUNT_CACHED"
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

/* What one invocation's task is made of, worked out once for its file and
   for the chain. */
typedef struct sky_task {
    const pipe_minvocation *inv;
    const char *name;  /* SkyPilot's task name */
    const char *image; /* "docker:<ref>" */
    const char *store; /* the bucket mounted at STORE_MOUNT, or NULL */
    const char *store_path; /* PIPE_STORE: STORE_MOUNT or a folder in the bucket */
    int64_t machines;
} sky_task;

/* SkyPilot's name of a GPU model; an unknown one as written. */
static const char *accelerator_name(const char *gpu_type)
{
    const gpu_model *m = gpu_model_find(gpu_type);
    return m ? m->skypilot : gpu_type;
}

/* Neuron devices as SkyPilot's accelerators, one candidate per generation
   that holds them ("Trainium:16", "Trainium2:16"; SkyPilot's AWS catalog
   names): SkyPilot rents whole instances and matches their device count,
   so a count no instance has is the smallest instance that holds it. */
static void emit_neuron(bundle *b, yaml_out *em, const pipe_resources *r)
{
    neuron_kind k = r->trainium > 0 ? NEURON_TRAINIUM : NEURON_INFERENTIA;
    int64_t n = k == NEURON_TRAINIUM ? r->trainium : r->inferentia;
    const neuron_instance *fit[8];
    size_t nfit = neuron_generation_fits(k, n, fit, sizeof fit / sizeof fit[0]);
    ye_scalar(em, "accelerators");
    if (nfit == 0) { /* more than any instance has (E0402): as asked */
        str(em, arena_printf(b->arena, "%s:%lld", k == NEURON_TRAINIUM ? "Trainium" : "Inferentia", (long long)n));
        return;
    }
    if (nfit == 1) {
        str(em, arena_printf(b->arena, "%s:%d", fit[0]->generation, fit[0]->devices));
        return;
    }
    ye_seq_start(em, true);
    for (size_t i = 0; i < nfit; i++)
        str(em, arena_printf(b->arena, "%s:%d", fit[i]->generation, fit[i]->devices));
    ye_seq_end(em);
}

static void emit_resources(bundle *b, yaml_out *em, const sky_task *t)
{
    const pipe_minvocation *inv = t->inv;
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
    /* SkyPilot runs `setup` and `run` in this container, on every node. */
    kv_str(em, "image_id", t->image);
    if (r->cpu > 0)
        at_least(em, "cpus", r->cpu);
    if (r->memory)
        at_least(em, "memory", ceil((double)r->memory / GIB)); /* GiB, as SkyPilot counts */
    if (r->disk)
        ye_kv_int(em, "disk_size", (long long)ceil((double)r->disk / GIB));
    if (sky->accelerators) {
        kv_str(em, "accelerators", sky->accelerators);
    } else if (gpu > 0 && r->gpu_type) {
        kv_str(em, "accelerators", arena_printf(b->arena, "%s:%lld", accelerator_name(r->gpu_type), (long long)gpu));
    } else if (gpu > 0) {
        ye_scalar(em, "accelerators");
        ye_seq_start(em, true);
        for (size_t i = 0; i < sizeof default_accelerators / sizeof default_accelerators[0]; i++)
            str(em, arena_printf(b->arena, "%s:%lld", default_accelerators[i], (long long)gpu));
        ye_seq_end(em);
    } else if (r->trainium > 0 || r->inferentia > 0) {
        emit_neuron(b, em, r);
    }
    ye_kv_bool(em, "use_spot", sky->use_spot);
    if (inv->checkpoint.enabled)
        ye_kv(em, "job_recovery", JOB_RECOVERY);
    ye_map_end(em);
}

/* PIPE_RUN_ID must be given (`--env PIPE_RUN_ID=...`): null marks it
   required. The image's environment follows, as SkyPilot's shells may
   not read the image's ENV lines. */
static void emit_envs(yaml_out *em, const sky_task *t)
{
    const pipe_mimage *img = &t->inv->image;
    ye_scalar(em, "envs");
    ye_map_start(em, false);
    if (!env_has(img, "PIPE_RUN_ID"))
        ye_kv(em, "PIPE_RUN_ID", "null");
    if (!env_has(img, "PIPE_STORE"))
        kv_str(em, "PIPE_STORE", t->store_path);
    for (size_t i = 0; i < img->nenvironment; i++) {
        const pipe_kv *e = &img->environment[i];
        if (!*e->value)
            continue; /* SkyPilot reads "" as "required": see empty_exports */
        str(em, e->key);
        str(em, e->value);
    }
    ye_map_end(em);
}

/* The bucket, mounted at the same path on every node of every task. */
static void emit_file_mounts(yaml_out *em, const sky_task *t)
{
    if (!t->store)
        return;
    ye_scalar(em, "file_mounts");
    ye_map_start(em, false);
    ye_scalar(em, STORE_MOUNT);
    ye_map_start(em, false);
    kv_str(em, "source", t->store);
    ye_kv(em, "mode", STORE_MODE);
    ye_map_end(em);
    ye_map_end(em);
}

/* The image runs as an unprivileged user (docs/deploy-docker.md), but
   SkyPilot sets up its runtime, ssh and the bucket mount inside the
   container as root or through sudo, which the image does not have: the
   container runs as root, on VMs (docker run options) and on Kubernetes
   (the pod's security context). */
static void emit_config(yaml_out *em)
{
    ye_scalar(em, "config");
    ye_map_start(em, false);
    ye_scalar(em, "docker");
    ye_map_start(em, false);
    ye_scalar(em, "run_options");
    ye_seq_start(em, true);
    ye_scalar(em, "--user=0:0");
    ye_seq_end(em);
    ye_map_end(em);
    ye_scalar(em, "kubernetes");
    ye_map_start(em, false);
    ye_scalar(em, "pod_config");
    ye_map_start(em, false);
    ye_scalar(em, "spec");
    ye_map_start(em, false);
    ye_scalar(em, "securityContext");
    ye_map_start(em, true);
    ye_kv_int(em, "runAsUser", 0);
    ye_kv_int(em, "runAsGroup", 0);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
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

/* The image's executable, as one shell word. */
static void executable(strbuf *sb, const bundle *b)
{
    strbuf path = STRBUF_INIT;
    sb_printf(&path, IMAGE_PREFIX "/bin/%s", b->mf->pipeline);
    esc_shell_word(sb, sb_cstr(&path));
    sb_free(&path);
}

static void setup_script(strbuf *sb, const bundle *b, const pipe_minvocation *inv)
{
    sb_puts(sb, "set -eu\n");
    empty_exports(sb, inv);
    sb_puts(sb, "# SkyPilot runs this in the task's image (resources.image_id).\n"
                "if [ ! -x ");
    executable(sb, b);
    sb_puts(sb, " ]; then\n"
                "  echo \"setup: no ");
    executable(sb, b);
    sb_puts(sb, ": not the image of this task\" >&2\n"
                "  exit 1\n"
                "fi\n"
                "# The store: a folder in the bucket mounted at " STORE_MOUNT " (@skypilot(store)),\n"
                "# else on this node's disk.\n"
                "if [ ! -d \"$PIPE_STORE\" ]; then\n"
                "  if [ \"$(id -u)\" = 0 ]; then\n"
                "    mkdir -p \"$PIPE_STORE\"\n"
                "  else\n"
                "    sudo mkdir -p \"$PIPE_STORE\"\n"
                "    sudo chown \"$(id -u):$(id -g)\" \"$PIPE_STORE\"\n"
                "  fi\n"
                "fi\n");
}

static void run_script(strbuf *sb, const bundle *b, const pipe_minvocation *inv, int64_t machines)
{
    sb_puts(sb, "set -eu\n");
    empty_exports(sb, inv);
    sb_puts(sb, ": \"${PIPE_RUN_ID:?set the run id: sky jobs launch --env PIPE_RUN_ID=ID}\"\n"
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
    sb_puts(sb, "# The image's Python environment (its requirements) comes first for the\n"
                "# step's program, before what SkyPilot's shell puts on the PATH.\n"
                "if [ -d " IMAGE_VENV "/bin ]; then\n"
                "  PATH=\"" IMAGE_VENV "/bin:$PATH\"\n"
                "  export PATH\n"
                "fi\n"
                "# No exec: SkyPilot ends `run` with its wait for the store's uploads\n"
                "# (" STORE_MODE "), then exits with the step's status.\n"
                "set +eu\n");
    executable(sb, b);
    sb_puts(sb, " step ");
    esc_shell_word(sb, inv->id);
    sb_puts(sb, " --run-id \"$PIPE_RUN_ID\" --store \"$PIPE_STORE\" \"$@\"\n");
}

/* One task, as the next document of em. */
static void emit_task_doc(bundle *b, yaml_out *em, const sky_task *t)
{
    ye_doc_start(em, true);
    ye_map_start(em, false);
    kv_str(em, "name", t->name);
    ye_kv_int(em, "num_nodes", (long long)t->machines);
    emit_resources(b, em, t);
    emit_envs(em, t);
    emit_file_mounts(em, t);
    emit_config(em);
    strbuf script = STRBUF_INIT;
    setup_script(&script, b, t->inv);
    ye_scalar(em, "setup");
    scalar(em, sb_cstr(&script), YAML_LITERAL_SCALAR_STYLE);
    sb_reset(&script);
    run_script(&script, b, t->inv, t->machines);
    ye_scalar(em, "run");
    scalar(em, sb_cstr(&script), YAML_LITERAL_SCALAR_STYLE);
    sb_free(&script);
    ye_map_end(em);
    ye_doc_end(em);
}

static int emit_task_file(bundle *b, const sky_task *t, char *err, size_t errsize)
{
    const char *path = arena_printf(b->arena, "skypilot/%s.yaml", t->inv->id);
    strbuf *out = bundle_add_file(b, path, false);
    bundle_banner(b, out, "#");
    if (t->inv->checkpoint.enabled && !t->store)
        sb_puts(out, "# @checkpoint: a managed job (sky jobs launch) that SkyPilot recovers\n"
                     "# (job_recovery) runs again with the same PIPE_RUN_ID, and the step\n"
                     "# resumes from its checkpoint folder only when PIPE_STORE is storage\n"
                     "# that every cluster and node of the job mounts: without\n"
                     "# @skypilot(store), " STORE_MOUNT " is each node's own disk (docs/deploy-skypilot.md).\n");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    emit_task_doc(b, &em, t);
    return ye_close(&em, path, err, errsize);
}

/* The chain: a first document with the job's name, then every task in the
   manifest's order, a topological order of the pipeline's graph. */
static int emit_chain(bundle *b, k8s_names *names, const sky_task *tasks, char *err, size_t errsize)
{
    const char *path = arena_printf(b->arena, "skypilot/chain/%s.yaml", b->mf->pipeline);
    strbuf *out = bundle_add_file(b, path, false);
    bundle_banner(b, out, "#");
    sb_puts(out, "# Every task of the pipeline, one after the other in the pipeline's\n"
                 "# order, as one managed job: skypilot/submit.sh launches it.\n");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    ye_doc_start(&em, true);
    ye_map_start(&em, false);
    kv_str(&em, "name", k8s_name(names, b->mf->pipeline, K8S_LABEL_MAX));
    ye_map_end(&em);
    ye_doc_end(&em);
    for (size_t i = 0; i < b->mf->ninvocations; i++)
        emit_task_doc(b, &em, &tasks[i]);
    return ye_close(&em, path, err, errsize);
}

/* skypilot/submit.sh (templates/skypilot-submit.sh.tmpl). */
static int emit_submit(bundle *b, const sky_task *tasks, char *err, size_t errsize)
{
    const pipe_manifest *m = b->mf;
    strbuf names = STRBUF_INIT, required = STRBUF_INIT, help = STRBUF_INIT, images = STRBUF_INIT;
    submit_params(m, &names, &required, NULL, &help);
    /* Each image the tasks run in once: its Dockerfile and reference. */
    for (size_t i = 0; i < m->ninvocations; i++) {
        const bundle_image *img = bundle_image_of(b, tasks[i].inv);
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = bundle_image_of(b, tasks[k].inv) == img;
        if (seen)
            continue;
        sb_puts(&images, "    ");
        esc_shell_word(&images, arena_printf(b->arena, "docker/%s/Dockerfile", img->id));
        sb_putc(&images, ' ');
        esc_shell_word(&images, img->ref);
        sb_putc(&images, '\n');
    }
    strbuf chain = STRBUF_INIT;
    esc_shell_word(&chain, arena_printf(b->arena, "chain/%s.yaml", m->pipeline));
    tmpl_var vars[] = {
        {"source", b->source_name},
        {"pipeline", m->pipeline},
        {"chain", sb_cstr(&chain)},
        {"placeholder", BUNDLE_REGISTRY_PLACEHOLDER},
        {"param_names", sb_cstr(&names)},
        {"required_params", sb_cstr(&required)},
        {"param_help", sb_cstr(&help)},
        {"images", sb_cstr(&images)},
    };
    strbuf *out = bundle_add_file(b, "skypilot/submit.sh", true);
    const char *missing = NULL;
    int rc = tmpl_render("skypilot-submit.sh.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing);
    if (rc != 0)
        snprintf(err, errsize, "internal error: template skypilot-submit.sh.tmpl needs `%.40s`",
                 missing ? missing : "?");
    sb_free(&names);
    sb_free(&required);
    sb_free(&help);
    sb_free(&images);
    sb_free(&chain);
    return rc;
}

/* The store of an invocation: the bucket to mount and PIPE_STORE. The
   checker refused what does not parse (check_skypilot). */
static void task_store(bundle *b, sky_task *t)
{
    const char *uri = t->inv->skypilot.store;
    sky_store st;
    strbuf why = STRBUF_INIT;
    t->store = NULL;
    t->store_path = STORE_MOUNT;
    if (uri && sky_store_parse(uri, &st, &why)) {
        t->store = arena_printf(b->arena, "%.*s", (int)st.source_len, uri);
        if (st.path_len)
            t->store_path = arena_printf(b->arena, STORE_MOUNT "/%.*s", (int)st.path_len, st.path);
    }
    sb_free(&why);
}

static int gen_skypilot(bundle *b, char *err, size_t errsize)
{
    k8s_names names;
    k8s_names_init(&names, b->arena);
    size_t n = b->mf->ninvocations;
    sky_task *tasks = arena_alloc(b->arena, (n ? n : 1) * sizeof *tasks);
    for (size_t i = 0; i < n; i++) {
        sky_task *t = &tasks[i];
        t->inv = &b->mf->invocations[i];
        t->name = k8s_name(&names, arena_printf(b->arena, "%s-%s", b->mf->pipeline, t->inv->id), K8S_LABEL_MAX);
        t->image = arena_printf(b->arena, "docker:%s", bundle_image_of(b, t->inv)->ref);
        t->machines = invocation_machines(t->inv);
        task_store(b, t);
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = emit_task_file(b, &tasks[i], err, errsize);
    if (rc == 0)
        rc = emit_chain(b, &names, tasks, err, errsize);
    if (rc == 0)
        rc = emit_submit(b, tasks, err, errsize);
    k8s_names_free(&names);
    return rc;
}

/* E0401: @skypilot's accelerator count is per machine, like @resources' gpu;
   when both are set they must agree. */
static void check_accelerators(diag_engine *d, const effective_options *eff)
{
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

/* E0204: a store SkyPilot could not mount with renames (skypilot_store.c),
   at the value. Reported once per step using it; the engine drops the
   copies of one on the pipeline. */
static void check_store(diag_engine *d, const effective_options *eff)
{
    opt_value store = effective_opt(eff, DEC_SKYPILOT, SKY_STORE);
    if (!store.set || !store.valid || !store.s)
        return;
    sky_store parsed;
    strbuf why = STRBUF_INIT, forms = STRBUF_INIT;
    if (!sky_store_parse(store.s, &parsed, &why)) {
        span at = store.expr ? store.expr->sp : store.name_sp;
        diagnostic *dg = diag_report(d, at, DIAG_E0204, "\"%s\" is not a store SkyPilot can mount", store.s);
        diag_label(d, dg, "%s", sb_cstr(&why));
        sky_store_forms(&forms);
        diag_help(d, dg, "write %s", sb_cstr(&forms));
    }
    sb_free(&why);
    sb_free(&forms);
}

static void check_skypilot(diag_engine *d, const step_info *st, const effective_options *eff)
{
    (void)st;
    check_accelerators(d, eff);
    check_store(d, eff);
}

/* The store an invocation's task mounts, or NULL. */
static const char *store_of(const invocation *inv) { return effective_opt(&inv->options, DEC_SKYPILOT, SKY_STORE).s; }

static bool same_store(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* W0410's warning for pl, made at its first note. */
typedef struct lost {
    diag_engine *d;
    const pipeline_info *pl;
    diagnostic *dg;
} lost;

static void lost_note(lost *l, const invocation *inv, const char *text)
{
    if (!l->dg) {
        l->dg = diag_report(l->d, l->pl->decl->name.sp, DIAG_W0410, "the SkyPilot tasks of `%s` share no store",
                            l->pl->name);
        diag_label(l->d, l->dg, "each task keeps " STORE_MOUNT " on its own cluster");
        diag_help(l->d, l->dg, "mount one bucket on every task: `@skypilot(store = \"s3://BUCKET/PATH\")` on the "
                               "pipeline");
    }
    diag_note(l->d, l->dg, inv->stmt ? inv->stmt->sp : l->pl->decl->name.sp, "%s", text);
}

/* W0410, when the SkyPilot tasks are built: without one store that they
   all mount, each task keeps the store on its own cluster's disks, and
   what it would share is lost. One warning at the pipeline's name, and a
   note per thing lost at the invocation it concerns. */
static void check_shared_store(diag_engine *d, const pipeline_info *pl)
{
    lost l = {d, pl, NULL};
    strbuf note = STRBUF_INIT;
    for (size_t i = 0; i < pl->invocations.len; i++) {
        const invocation *inv = pl->invocations.items[i];
        const char *store = store_of(inv);
        for (size_t k = 0; k < inv->deps.len; k++) {
            const invocation *dep = inv->deps.items[k];
            if (same_store(store_of(dep), store))
                continue;
            sb_reset(&note);
            sb_printf(&note, "the outputs of `%s` will not reach `%s`", dep->id, inv->id);
            lost_note(&l, inv, sb_cstr(&note));
        }
        if (store)
            continue;
        int64_t machines = effective_decorator(&inv->options, DEC_ACCELERATE)
                               ? effective_opt(&inv->options, DEC_ACCELERATE, ACC_NUM_MACHINES).i
                               : 1;
        sb_reset(&note);
        if (machines > 2)
            sb_printf(&note, "nodes 1 to %lld of `%s` will not see node 0's store", (long long)machines - 1, inv->id);
        else if (machines == 2)
            sb_printf(&note, "node 1 of `%s` will not see node 0's store", inv->id);
        if (note.len)
            lost_note(&l, inv, sb_cstr(&note));
        if (effective_decorator(&inv->options, DEC_CHECKPOINT)) {
            sb_reset(&note);
            sb_printf(&note, "`%s`, recovered on a new cluster, will not find its checkpoints", inv->id);
            lost_note(&l, inv, sb_cstr(&note));
        }
    }
    sb_free(&note);
}

const deploy_target target_skypilot = {
    .name = "skypilot",
    .summary = "skypilot/: a SkyPilot task per invocation in its image, their chain and submit.sh",
    .runs_containers = true,
    .pulls_images = true,
    .rules = {.step = check_skypilot},
    .check_build = check_shared_store,
    .generate = gen_skypilot,
    .templates = (const char *const[]){"skypilot-submit.sh.tmpl", NULL},
};
