/* slurm/<invocation>.sbatch and slurm/submit.sh (docs/deploy-slurm.md).

   Every value from the .pipe file that reaches these scripts is escaped for
   where it lands: `#SBATCH` arguments for sbatch's own directive parser
   (sbatch_value), shell words with esc_shell_word, comments with control
   characters blanked. Job names are built from identifiers only and
   shortened with a digest when long, so they stay unique.

   A step runs on the node (the bundle's executable on the shared
   filesystem) unless @slurm(container) runs it in its image with pyxis or
   apptainer; GPUs are untyped unless @slurm(gpu_type) names the cluster's
   GRES type; @resources(disk) is --tmp only with @slurm(tmp). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/bundle.h"
#include "targets/targets.h"
#include "util/escape.h"
#include "pipe/base.h"
#include "pipe/version.h"
#include "util/symtab.h"
#include "gen/template.h"
#include "hw/gpu_models.h"
#include "targets/submit_params.h"


/* What a job needs besides its attempts (each up to its @timeout plus
   PIPE_KILL_GRACE_MS, the runtime's SIGTERM-to-SIGKILL grace): starting
   the executable, reading inputs, writing step.yaml. */
#define JOB_MARGIN_MS 60000u
/* Slurm shows and stores long names, but keeps them readable this short. */
#define JOB_NAME_MAX 64

/* Characters that need no quoting in an `#SBATCH` argument (or in a shell word). */
static bool plain_char(unsigned char c) { return isalnum(c) || (c && strchr("_-./:=,+@%", c)); }

static bool has_packjob(const char *s)
{
    for (const char *p = s; *p; p++)
        if (strncasecmp(p, "packjob", 7) == 0)
            return true;
    return false;
}

static bool plain_text(const char *s)
{
    if (!*s)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!plain_char(*p))
            return false;
    return true;
}

/* One `#SBATCH` argument value as sbatch's directive parser reads it: plain
   text as it is, anything else in double quotes with `\` before `"`, `\`,
   `'` and `#` (the parser ends an argument at an unquoted blank and a line
   at an unquoted `#`). Old sbatch versions blank "packjob" anywhere on a
   line; a backslash inside the word keeps it whole. A control character
   cannot be written (a newline would end the comment line and start a
   command): the checker rejects them in @slurm options, and this returns
   false should one get here anyway. */
static bool sbatch_value(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    if (plain_text(s) && !has_packjob(s)) {
        sb_puts(sb, s);
        return true;
    }
    sb_putc(sb, '"');
    for (const char *p = s; *p; p++) {
        if (strchr("\"\\'#", *p))
            sb_putc(sb, '\\');
        else if (strncasecmp(p, "packjob", 7) == 0) {
            sb_putn(sb, p, 4);
            sb_putc(sb, '\\');
            p += 3;
            continue;
        }
        sb_putc(sb, *p);
    }
    sb_putc(sb, '"');
    return true;
}

/* Text for a `#` comment: control characters (a newline would end the
   comment and start a command) become spaces. */
static void comment_text(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        sb_putc(sb, (*p < 0x20 || *p == 0x7f) ? ' ' : (char)*p);
}

static bool is_identifier(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

/* `pipe-<pipeline>-<invocation>`, only [A-Za-z0-9_.-] (anything else
   becomes `-`). Longer than JOB_NAME_MAX, it keeps at most 16 characters
   of the pipeline, as much of the invocation as fits, and ends in `-` and 8
   hex digits of the full name's SHA-256, so that it stays unique. */
static const char *job_name(bundle *b, const pipe_minvocation *inv)
{
    const char *pipeline = b->mf->pipeline;
    const char *full = arena_printf(b->arena, "pipe-%s-%s", pipeline, inv->id);
    char *name = (char *)full;
    if (strlen(full) > JOB_NAME_MAX) {
        char hex[PIPE_SHA256_HEX_SIZE];
        pipe_sha256_hex_of(full, strlen(full), hex);
        size_t plen = strlen(pipeline) < 16 ? strlen(pipeline) : 16;
        size_t room = JOB_NAME_MAX - strlen("pipe-") - plen - strlen("--") - 8;
        name = arena_printf(b->arena, "pipe-%.*s-%.*s-%.8s", (int)plen, pipeline, (int)room, inv->id, hex);
    } else {
        name = arena_strdup(b->arena, full);
    }
    for (char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("_.-", *p)))
            *p = '-';
    return name;
}

/* Bytes in Slurm's binary units: T or G when exact, else MiB rounded up. */
static void slurm_size(strbuf *sb, uint64_t bytes)
{
    const uint64_t mib = UINT64_C(1) << 20, gib = UINT64_C(1) << 30, tib = UINT64_C(1) << 40;
    if (bytes % tib == 0)
        sb_printf(sb, "%" PRIu64 "T", bytes / tib);
    else if (bytes % gib == 0)
        sb_printf(sb, "%" PRIu64 "G", bytes / gib);
    else
        sb_printf(sb, "%" PRIu64 "M", bytes / mib + (bytes % mib != 0));
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

/* The job's time limit: every attempt may run to its @timeout plus the
   kill grace, with the retry delays between them, a margin and the lead of
   @checkpoint's --signal (so that it comes after the last attempt's end),
   rounded up to whole minutes, as D-HH:MM:SS. */
static void slurm_time(strbuf *sb, uint64_t timeout_ms, uint64_t retries, uint64_t delay_ms, uint64_t grace_ms,
                       uint64_t lead_ms)
{
    uint64_t ms = sat_mul(sat_add(timeout_ms, grace_ms), sat_add(retries, 1));
    ms = sat_add(ms, sat_mul(delay_ms, retries));
    ms = sat_add(ms, sat_add(JOB_MARGIN_MS, lead_ms));
    uint64_t minutes = ms / 60000 + (ms % 60000 != 0);
    sb_printf(sb, "%" PRIu64 "-%02" PRIu64 ":%02" PRIu64 ":00", minutes / 1440, minutes / 60 % 24, minutes % 60);
}

/* @slurm(gpu_type): one GRES type as the cluster writes it. The checker
   allows [A-Za-z0-9_.-] only (a `:` or `,` would change the request). */
static bool gres_type(const char *s)
{
    if (!*s)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!(isalnum(*p) && *p < 0x80) && *p != '_' && *p != '.' && *p != '-')
            return false;
    return true;
}

static bool directive(strbuf *sb, const char *option, const char *value)
{
    sb_printf(sb, "#SBATCH %s=", option);
    if (!sbatch_value(sb, value))
        return false;
    sb_putc(sb, '\n');
    return true;
}

/* The --constraint of a step: @slurm(constraint), and for a step with
   Neuron devices @slurm(neuron_constraint) too, both required (Slurm's `&`;
   a constraint with `|` in parentheses, so that `&` cannot bind into it).
   Slurm has no GRES for Neuron devices: without neuron_constraint a Neuron
   step runs on any node of its partition, and a comment in the script says
   so. Returns sl->constraint, NULL, or a malloc'd text. */
static const char *neuron_constraint(const pipe_minvocation *inv, strbuf *sb)
{
    const pipe_mslurm *sl = &inv->slurm;
    int64_t n = inv->resources.trainium > 0 ? inv->resources.trainium : inv->resources.inferentia;
    const char *kind = inv->resources.trainium > 0 ? "Trainium" : "Inferentia";
    if (n <= 0)
        return sl->constraint;
    if (!sl->neuron_constraint) {
        sb_printf(sb,
                  "# %lld %s device%s per node: Slurm has no GRES for them and no @slurm(neuron_constraint) "
                  "selects their nodes, so the partition must be one of Neuron nodes\n",
                  (long long)n, kind, n == 1 ? "" : "s");
        return sl->constraint;
    }
    if (!sl->constraint)
        return sl->neuron_constraint;
    strbuf both = STRBUF_INIT;
    bool group = strchr(sl->constraint, '|') != NULL;
    sb_printf(&both, "%s%s%s&", group ? "(" : "", sl->constraint, group ? ")" : "");
    group = strchr(sl->neuron_constraint, '|') != NULL;
    sb_printf(&both, "%s%s%s", group ? "(" : "", sl->neuron_constraint, group ? ")" : "");
    return sb_cstr(&both);
}

static int sbatch_lines(const pipe_minvocation *inv, const char *name, strbuf *sb, char *err, size_t errsize)
{
    const pipe_resources *r = &inv->resources;
    sb_printf(sb, "#SBATCH --job-name=%s\n", name);
    sb_printf(sb, "#SBATCH --nodes=%lld\n", (long long)invocation_machines(inv));
    sb_puts(sb, "#SBATCH --ntasks-per-node=1\n");

    if (r->cpu > 0)
        sb_printf(sb, "#SBATCH --cpus-per-task=%.0f\n", ceil(r->cpu));
    if (r->memory > 0) {
        sb_puts(sb, "#SBATCH --mem=");
        slurm_size(sb, r->memory);
        sb_putc(sb, '\n');
    }
    /* @resources(gpu_type) is not a GRES type: clusters name their types
       as they like, and many have untyped GPUs (Gres=gpu:N), where a typed
       request is refused. */
    const pipe_mslurm *sl = &inv->slurm;
    if (r->gpu > 0 && sl->gpu_type) {
        if (!gres_type(sl->gpu_type)) {
            snprintf(err, errsize, "invocation `%s`: @slurm(gpu_type) \"%.60s\" is not a GRES type", inv->id,
                     sl->gpu_type);
            return -1;
        }
        sb_printf(sb, "#SBATCH --gpus-per-node=%s:%lld\n", sl->gpu_type, (long long)r->gpu);
    } else if (r->gpu > 0) {
        sb_printf(sb, "#SBATCH --gpus-per-node=%lld\n", (long long)r->gpu);
    }
    /* Node-local disk is not scheduled on most clusters (TmpDisk=0, the
       default, refuses any --tmp): asked for only when @slurm says so. */
    if (r->disk > 0 && sl->tmp) {
        sb_puts(sb, "#SBATCH --tmp=");
        slurm_size(sb, r->disk);
        sb_putc(sb, '\n');
    }

    uint64_t retries = inv->retry_max > 0 ? (uint64_t)inv->retry_max : 0;
    uint64_t delay_ms = retries > 0 ? inv->retry_delay_ms : 0;
    uint64_t grace_s = invocation_grace_s(inv);
    if (inv->timeout_ms) {
        /* A stopped attempt's ranks get @checkpoint's grace, if longer. */
        uint64_t kill_grace_ms = grace_s * 1000 > PIPE_KILL_GRACE_MS ? grace_s * 1000 : PIPE_KILL_GRACE_MS;
        sb_puts(sb, "#SBATCH --time=");
        slurm_time(sb, inv->timeout_ms, retries, delay_ms, kill_grace_ms, grace_s * 1000);
        sb_putc(sb, '\n');
    }
    /* @checkpoint: SIGTERM to the batch shell `grace` before the time limit,
       which the script passes on to the step (launch_lines). */
    if (grace_s)
        sb_printf(sb, "#SBATCH --signal=B:TERM@%" PRIu64 "\n", grace_s);
    /* The runtime retries a failed step inside the job (@retry); Slurm
       requeues the job when its node fails or it is preempted, and a
       requeued job with a checkpoint resumes from it. */
    sb_puts(sb, retries > 0 || grace_s ? "#SBATCH --requeue\n" : "#SBATCH --no-requeue\n");
    sb_puts(sb, "#SBATCH --open-mode=append\n");

    const char *constraint = neuron_constraint(inv, sb);
    const struct {
        const char *value;
        const char *flag;
    } strings[] = {{sl->partition, "--partition"},
                   {sl->account, "--account"},
                   {sl->qos, "--qos"},
                   {constraint, "--constraint"}};
    bool written = true;
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (strings[i].value && !directive(sb, strings[i].flag, strings[i].value))
            written = false;
    if (constraint != sl->constraint && constraint != sl->neuron_constraint)
        free((char *)constraint);
    if (!written)
        goto control;
    for (size_t i = 0; i < sl->nextra; i++) {
        /* "--name=value": the name as it is when plain, the value escaped. */
        const char *t = sl->extra[i];
        const char *eq = strchr(t, '=');
        size_t name_len = eq ? (size_t)(eq - t) : strlen(t);
        bool plain_name = true;
        for (size_t k = 0; k < name_len; k++)
            plain_name = plain_name && (isalnum((unsigned char)t[k]) || t[k] == '-');
        sb_puts(sb, "#SBATCH ");
        bool ok;
        if (plain_name && !has_packjob(t)) {
            sb_putn(sb, t, name_len);
            ok = !eq || (sb_putc(sb, '='), sbatch_value(sb, eq + 1));
        } else {
            ok = sbatch_value(sb, t);
        }
        if (!ok)
            goto control;
        sb_putc(sb, '\n');
    }
    return 0;
control:
    snprintf(err, errsize, "invocation `%s`: an @slurm value holds a control character, which no #SBATCH line can carry",
             inv->id);
    return -1;
}

/* Where the step runs: on the node, or in its image (@slurm(container)). */
typedef enum { RUN_ON_NODE, RUN_PYXIS, RUN_APPTAINER } run_mode;

static run_mode run_mode_of(const pipe_minvocation *inv)
{
    const char *c = inv->slurm.container;
    if (c && strcmp(c, "pyxis") == 0)
        return RUN_PYXIS;
    if (c && strcmp(c, "apptainer") == 0)
        return RUN_APPTAINER;
    return RUN_ON_NODE;
}

/* The part of an image reference after the registry placeholder ("/NAME:TAG"),
   or NULL when the reference names its registry. */
static const char *registry_free_part(const char *ref)
{
    size_t n = strlen(BUNDLE_REGISTRY_PLACEHOLDER);
    return strncmp(ref, BUNDLE_REGISTRY_PLACEHOLDER, n) == 0 && ref[n] == '/' ? ref + n : NULL;
}

static bool needs_registry(bundle *b, const pipe_minvocation *inv)
{
    return run_mode_of(inv) != RUN_ON_NODE && registry_free_part(bundle_image_of(b, inv)->ref);
}

/* The start of the script after `set -e`: the variables submit.sh passes,
   checked, and what runs the step. On the node that is the bundle's
   executable on the shared filesystem; in a container, the executable of
   the step's image (docker/<id>/Dockerfile), whose reference takes its
   registry from PIPE_REGISTRY when the build named none. */
static void prologue_lines(strbuf *sb, bundle *b, const pipe_minvocation *inv)
{
    run_mode mode = run_mode_of(inv);
    if (mode == RUN_ON_NODE) {
        sb_printf(sb,
                  "if [ -z \"${PIPE_BUNDLE_EXE:-}\" ] || [ -z \"${PIPE_STORE:-}\" ] || "
                  "[ -z \"${PIPE_RUN_ID:-}\" ]; then\n"
                  "    echo \"%s.sbatch: PIPE_BUNDLE_EXE, PIPE_STORE and PIPE_RUN_ID must be set: "
                  "submit with submit.sh\" >&2\n"
                  "    exit 2\n"
                  "fi\n"
                  "EXE=$PIPE_BUNDLE_EXE\n"
                  "STORE=$PIPE_STORE\n"
                  "RUN_ID=$PIPE_RUN_ID\n"
                  "if [ ! -x \"$EXE\" ]; then\n"
                  "    echo \"%s.sbatch: $EXE is not an executable on $(hostname): "
                  "the bundle must be on a shared filesystem\" >&2\n"
                  "    exit 2\n"
                  "fi\n",
                  inv->id, inv->id);
        return;
    }
    const bundle_image *img = bundle_image_of(b, inv);
    const char *rest = registry_free_part(img->ref);
    sb_printf(sb,
              "if [ -z \"${PIPE_STORE:-}\" ] || [ -z \"${PIPE_RUN_ID:-}\" ]; then\n"
              "    echo \"%s.sbatch: PIPE_STORE and PIPE_RUN_ID must be set: submit with submit.sh\" >&2\n"
              "    exit 2\n"
              "fi\n"
              "STORE=$PIPE_STORE\n"
              "RUN_ID=$PIPE_RUN_ID\n"
              "# The step runs in its image (@slurm(container = \"%s\")), the one of\n"
              "# docker/%s/Dockerfile, pushed to a registry. The store is mounted at\n"
              "# the same path.\n",
              inv->id, mode == RUN_PYXIS ? "pyxis" : "apptainer", img->id);
    if (rest) {
        sb_printf(sb,
                  "if [ -z \"${PIPE_REGISTRY:-}\" ]; then\n"
                  "    echo \"%s.sbatch: PIPE_REGISTRY must name the registry the image was pushed to "
                  "(the build named none)\" >&2\n"
                  "    exit 2\n"
                  "fi\n"
                  "IMAGE=\"${PIPE_REGISTRY%%/}\"",
                  inv->id);
        esc_shell_word(sb, rest);
    } else {
        sb_puts(sb, "IMAGE=");
        esc_shell_word(sb, img->ref);
    }
    sb_printf(sb,
              "\n"
              "EXE=/opt/pipe/bin/%s\n"
              "case $STORE in\n"
              "*[,:]*)\n"
              "    echo \"%s.sbatch: the store path must not hold ',' or ':', which separate %s's mounts\" >&2\n"
              "    exit 2\n"
              "    ;;\n"
              "esac\n",
              b->mf->pipeline, inv->id, mode == RUN_PYXIS ? "pyxis" : "apptainer");
}

/* The container's part of the srun command line, after SRUN_ARGS. */
static void container_lines(strbuf *sb, const pipe_minvocation *inv)
{
    switch (run_mode_of(inv)) {
    case RUN_ON_NODE: return;
    case RUN_PYXIS:
        sb_puts(sb, "# pyxis (enroot) writes a registry with '#' before the image's path:\n"
                    "# REGISTRY#PATH:TAG. A first part with a '.' or a ':', or localhost, is a\n"
                    "# registry; without one the image is Docker Hub's.\n"
                    "CONTAINER_IMAGE=$IMAGE\n"
                    "if [[ $IMAGE == */* ]]; then\n"
                    "    FIRST=${IMAGE%%/*}\n"
                    "    if [[ $FIRST == *[.:]* || $FIRST == localhost ]]; then\n"
                    "        CONTAINER_IMAGE=\"$FIRST#${IMAGE#*/}\"\n"
                    "    fi\n"
                    "fi\n"
                    "SRUN_ARGS+=(--container-image=\"$CONTAINER_IMAGE\" --container-mounts=\"$STORE:$STORE\")\n");
        return;
    case RUN_APPTAINER: {
        /* The GPUs: NVIDIA's libraries with --nv, ROCm's with --rocm. */
        const pipe_resources *r = &inv->resources;
        const gpu_model *m = r->gpu > 0 ? gpu_model_find(r->gpu_type) : NULL;
        const char *gpus = r->gpu <= 0 ? "" : m && strcmp(m->vendor, "amd") == 0 ? "--rocm" : "--nv";
        sb_puts(sb, "# apptainer pulls the image from the registry (docker://) into its cache");
        if (*gpus)
            sb_printf(sb, "\n# and binds the node's GPU libraries into the container (%s)", gpus);
        sb_printf(sb, ".\nAPPTAINER=(apptainer exec%s%s --bind \"$STORE\" \"docker://$IMAGE\")\n", *gpus ? " " : "",
                  gpus);
        return;
    }
    }
}

/* `export NAME=VALUE` for @docker's environment: Slurm runs no container,
   so the batch script sets what the image would. (The step's own
   `environment` is set by the runtime for every target.) */
static int environment_lines(const pipe_minvocation *inv, strbuf *sb, char *err, size_t errsize)
{
    const pipe_mimage *img = &inv->image;
    if (img->nenvironment == 0)
        return 0;
    sb_puts(sb, "# The environment of the step's image (@docker): Slurm runs no container.\n"
                "# The values are literal text, in single quotes.\n"
                "# shellcheck disable=SC1003,SC2016\n"
                "export");
    for (size_t i = 0; i < img->nenvironment; i++) {
        const pipe_kv *e = &img->environment[i];
        if (!is_identifier(e->key)) {
            snprintf(err, errsize, "invocation `%s`: \"%.60s\" is not an environment variable name", inv->id,
                     e->key);
            return -1;
        }
        sb_printf(sb, " \\\n    %s=", e->key);
        esc_shell_word(sb, e->value);
    }
    sb_putc(sb, '\n');
    return 0;
}

/* Multi-machine steps: the main process's address is the first node of
   the allocation, as its NodeAddr (node names need not resolve), and all
   launchers share one rendezvous token. */
static const char distributed_text[] =
    "\n"
    "# Machine rank: SLURM_NODEID. Main process: the first node of the job,\n"
    "# by its address; one rendezvous token for the launchers on every node.\n"
    "# (No `| head` here: with pipefail, a closed pipe would fail the job.)\n"
    "NODES=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\")\n"
    "FIRST_NODE=${NODES%%$'\\n'*}\n"
    "MAIN_ADDR=$(scontrol show node \"$FIRST_NODE\" | sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p') || true\n"
    "MAIN_ADDR=${MAIN_ADDR%%$'\\n'*}\n"
    "export MASTER_ADDR=\"${MAIN_ADDR:-$FIRST_NODE}\"\n"
    "if [ -z \"${PIPE_RDZV_TOKEN:-}\" ]; then\n"
    "    PIPE_RDZV_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')\n"
    "    export PIPE_RDZV_TOKEN\n"
    "fi\n";

/* How the script starts the step: exec'ed srun, or with @checkpoint a
   background srun and a shell that passes SIGTERM on. srun answers a
   SIGTERM of its own by killing the step at once ("forcing job
   termination"), and --signal=B: reaches only the batch shell (which srun
   is once exec'ed); `scancel --signal` delivers it to the job's steps on
   every node, which is also how Slurm's own requeue, preemption and scancel
   reach them. */
static void launch_lines(strbuf *sb, const pipe_minvocation *inv, const char *word)
{
    const char *srun = run_mode_of(inv) == RUN_APPTAINER
                           ? "\"$SRUN\" \"${SRUN_ARGS[@]}\" \"${APPTAINER[@]}\" \"$EXE\" step "
                           : "\"$SRUN\" \"${SRUN_ARGS[@]}\" \"$EXE\" step ";
    const char *args = " --run-id \"$RUN_ID\" --store \"$STORE\" --echo \"$@\"";
    if (!inv->checkpoint.enabled) {
        sb_printf(sb, "exec %s%s%s", srun, word, args);
        return;
    }
    sb_printf(sb,
              "\n"
              "# @checkpoint: srun runs in the background so that this shell can pass\n"
              "# SIGTERM on (--signal above: the time limit is near); srun would answer\n"
              "# it by killing the step at once. The step gives its ranks the grace to\n"
              "# save. A requeued job (a preemption, a node failure, scontrol requeue)\n"
              "# runs this script again with the same run id, and the step resumes\n"
              "# from its checkpoint folder in the store.\n"
              "pass_term() {\n"
              "    echo \"%s.sbatch: SIGTERM: passing it to the step of job $SLURM_JOB_ID\" >&2\n"
              "    scancel --signal=TERM \"$SLURM_JOB_ID\" || true\n"
              "}\n"
              "trap pass_term TERM\n"
              "%s%s%s &\n"
              "STEP_PID=$!\n"
              "# A trapped signal ends `wait` early (status above 128): wait again\n"
              "# until srun has exited, and exit with its status.\n"
              "while :; do\n"
              "    STATUS=0\n"
              "    wait \"$STEP_PID\" || STATUS=$?\n"
              "    if [ \"$STATUS\" -le 128 ] || ! kill -0 \"$STEP_PID\" 2>/dev/null; then\n"
              "        exit \"$STATUS\"\n"
              "    fi\n"
              "done",
              inv->id, srun, word, args);
}

static int render(bundle *b, const char *tmpl, const char *path, bool executable, const tmpl_var *vars, size_t n,
                  char *err, size_t errsize)
{
    strbuf *out = bundle_add_file(b, path, executable);
    const char *missing = NULL;
    if (tmpl_render(tmpl, vars, n, out, &missing) != 0) {
        snprintf(err, errsize, "internal error: template %s needs `%.40s`", tmpl, missing ? missing : "?");
        return -1;
    }
    return 0;
}

static int gen_sbatch(bundle *b, const pipe_minvocation *inv, const char *name, const char *source, char *err,
                      size_t errsize)
{
    strbuf description = STRBUF_INIT, lines = STRBUF_INIT, env = STRBUF_INIT, word = STRBUF_INIT,
           launch = STRBUF_INIT, prologue = STRBUF_INIT, container = STRBUF_INIT;
    const pipe_mstep *step = bundle_step_of(b, inv);
    int rc = -1;
    if (step->description) {
        sb_puts(&description, "\n# ");
        comment_text(&description, step->description);
    }
    /* In a container the image sets its environment itself. */
    if (sbatch_lines(inv, name, &lines, err, errsize) != 0 ||
        (run_mode_of(inv) == RUN_ON_NODE && environment_lines(inv, &env, err, errsize) != 0))
        goto done;
    prologue_lines(&prologue, b, inv);
    container_lines(&container, inv);
    esc_shell_word(&word, inv->id);
    launch_lines(&launch, inv, sb_cstr(&word));
    bool multi = invocation_machines(inv) > 1;
    tmpl_var vars[] = {
        {"source", source},
        {"invocation", inv->id},
        {"step", step->name},
        {"pipeline", b->mf->pipeline},
        {"description", description.len ? sb_cstr(&description) : ""},
        {"sbatch_lines", sb_cstr(&lines)},
        {"prologue", sb_cstr(&prologue)},
        {"container", container.len ? sb_cstr(&container) : ""},
        {"environment", env.len ? sb_cstr(&env) : ""},
        {"distributed", multi ? distributed_text : ""},
        {"launch", sb_cstr(&launch)},
    };
    const char *path = arena_printf(b->arena, "slurm/%s.sbatch", inv->id);
    rc = render(b, "sbatch.tmpl", path, true, vars, sizeof vars / sizeof vars[0], err, errsize);
done:
    sb_free(&description);
    sb_free(&lines);
    sb_free(&env);
    sb_free(&word);
    sb_free(&launch);
    sb_free(&prologue);
    sb_free(&container);
    return rc;
}

static int gen_submit(bundle *b, const char *source, char *err, size_t errsize)
{
    const pipe_manifest *m = b->mf;
    strbuf names = STRBUF_INIT, required = STRBUF_INIT, help = STRBUF_INIT, subs = STRBUF_INIT,
           line = STRBUF_INIT, word = STRBUF_INIT;
    submit_params(m, &names, &required, NULL, &help);
    sb_puts(&subs, "# Invocations in DAG order: submit INDEX INVOCATION INDICES-OF-THE-INVOCATIONS-IT-NEEDS...\n");
    for (size_t i = 0; i < m->ninvocations; i++) {
        const pipe_minvocation *inv = &m->invocations[i];
        sb_printf(&subs, "submit %zu ", i);
        esc_shell_word(&subs, inv->id);
        for (size_t k = 0; k < inv->nneeds; k++)
            sb_printf(&subs, " %d", inv->needs[k]);
        sb_putc(&subs, '\n');
    }
    bool on_node = false, registry = false;
    for (size_t i = 0; i < m->ninvocations; i++) {
        on_node = on_node || run_mode_of(&m->invocations[i]) == RUN_ON_NODE;
        registry = registry || needs_registry(b, &m->invocations[i]);
    }
    esc_shell_word(&word, m->pipeline);
    tmpl_var vars[] = {
        {"needs_exe", on_node ? "1" : "0"},
        {"needs_registry", registry ? "1" : "0"},
        {"source", source},
        {"pipeline", m->pipeline},
        {"pipeline_word", sb_cstr(&word)},
        {"param_names", sb_cstr(&names)},
        {"required_params", sb_cstr(&required)},
        {"param_help", sb_cstr(&help)},
        {"submissions", sb_cstr(&subs)},
    };
    int rc = render(b, "submit.sh.tmpl", "slurm/submit.sh", true, vars, sizeof vars / sizeof vars[0], err, errsize);
    sb_free(&names);
    sb_free(&required);
    sb_free(&help);
    sb_free(&subs);
    sb_free(&line);
    sb_free(&word);
    return rc;
}

static int gen_slurm(bundle *b, char *err, size_t errsize)
{
    const pipe_manifest *m = b->mf;
    /* Names reach file names, variables and messages unquoted: they must be
       identifiers (the grammar makes them so; check rather than trust). */
    if (!is_identifier(m->pipeline)) {
        snprintf(err, errsize, "pipeline name `%.60s` is not an identifier", m->pipeline);
        return -1;
    }
    for (size_t i = 0; i < m->ninvocations; i++) {
        const pipe_minvocation *inv = &m->invocations[i];
        if (!is_identifier(inv->id) || !is_identifier(bundle_step_of(b, inv)->name)) {
            snprintf(err, errsize, "invocation `%.60s` is not an identifier", inv->id);
            return -1;
        }
    }
    strbuf source = STRBUF_INIT;
    comment_text(&source, b->source_name);
    const char *src = arena_strdup(b->arena, sb_cstr(&source));
    sb_free(&source);

    symtab owners = {0}; /* job name -> the invocation that has it */
    int rc = 0;
    for (size_t i = 0; i < m->ninvocations && rc == 0; i++) {
        const pipe_minvocation *inv = &m->invocations[i];
        const char *name = job_name(b, inv);
        const pipe_minvocation *owner = symtab_get(&owners, name);
        if (owner) {
            snprintf(err, errsize, "Slurm job names of invocations `%.60s` and `%.60s` collide", owner->id, inv->id);
            rc = -1;
            break;
        }
        symtab_put(&owners, name, (void *)inv);
        rc = gen_sbatch(b, inv, name, src, err, errsize);
    }
    symtab_free(&owners);
    return rc != 0 ? rc : gen_submit(b, src, err, errsize);
}

/* Its jobs run the bundle built on the cluster's nodes, or (with
   @slurm(container)) the images of the docker target. */
const deploy_target target_slurm = {
    .name = "slurm",
    .summary = "slurm/<invocation>.sbatch, and slurm/submit.sh that submits them in order",
    .generate = gen_slurm,
    .templates = (const char *const[]){"sbatch.tmpl", "submit.sh.tmpl", NULL},
};
