/* pipe_manifest_compare: field by field, naming the first difference.
   The model round-trip test uses it (pipec's model -> bundle.yaml -> the
   runtime's parse must give the same structs), so every field of
   pipe/manifest.h is compared here; a field added there and not here makes
   that test blind to it. */
#include "pipe/manifest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct cmp {
    char *diff;
    size_t size;
    char path[256];
} cmp;

static int differ(cmp *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int differ(cmp *c, const char *field, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->diff, c->size, "%s%s%s: %s", c->path, *c->path && *field ? "." : "", field, what);
    return 1;
}

/* Appends to the current path for a nested comparison; pop restores it. */
static size_t push(cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t push(cmp *c, const char *fmt, ...)
{
    size_t old = strlen(c->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->path + old, sizeof c->path - old, fmt, ap);
    va_end(ap);
    return old;
}

static void pop(cmp *c, size_t old) { c->path[old] = '\0'; }

static const char *show(const char *s) { return s ? s : "(none)"; }

static int str(cmp *c, const char *field, const char *a, const char *b)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
        return differ(c, field, "`%s` != `%s`", show(a), show(b));
    return 0;
}

static int i64(cmp *c, const char *field, int64_t a, int64_t b)
{
    return a != b ? differ(c, field, "%" PRId64 " != %" PRId64, a, b) : 0;
}

static int u64(cmp *c, const char *field, uint64_t a, uint64_t b)
{
    return a != b ? differ(c, field, "%" PRIu64 " != %" PRIu64, a, b) : 0;
}

static int dbl(cmp *c, const char *field, double a, double b)
{
    return a != b ? differ(c, field, "%.17g != %.17g", a, b) : 0;
}

static int count(cmp *c, const char *field, size_t a, size_t b)
{
    return a != b ? differ(c, field, "%zu != %zu entries", a, b) : 0;
}

static int strs(cmp *c, const char *field, char **a, size_t na, char **b, size_t nb)
{
    if (count(c, field, na, nb))
        return 1;
    for (size_t i = 0; i < na; i++) {
        char f[64];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (str(c, f, a[i], b[i]))
            return 1;
    }
    return 0;
}

static int kvs(cmp *c, const char *field, const pipe_kv *a, size_t na, const pipe_kv *b, size_t nb)
{
    if (count(c, field, na, nb))
        return 1;
    for (size_t i = 0; i < na; i++) {
        char f[64];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (str(c, f, a[i].key, b[i].key) || str(c, f, a[i].value, b[i].value))
            return 1;
    }
    return 0;
}

static int mvalue(cmp *c, const char *field, const pipe_mvalue *a, const pipe_mvalue *b)
{
    if (a->kind != b->kind)
        return differ(c, field, "kind %d != %d", (int)a->kind, (int)b->kind);
    if (str(c, field, a->text, b->text) || count(c, field, a->n, b->n))
        return 1;
    for (size_t i = 0; i < a->n; i++) {
        char f[64];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if ((a->keys && str(c, f, a->keys[i], b->keys ? b->keys[i] : NULL)) ||
            mvalue(c, f, &a->items[i], &b->items[i]))
            return 1;
    }
    return 0;
}

static int param(cmp *c, const pipe_mparam *a, const pipe_mparam *b)
{
    return str(c, "name", a->name, b->name) || i64(c, "type", a->type, b->type) ||
           str(c, "type_name", a->type_name, b->type_name) || str(c, "default", a->default_value, b->default_value);
}

static int params(cmp *c, const char *field, const pipe_mparam *a, size_t na, const pipe_mparam *b, size_t nb)
{
    if (count(c, field, na, nb))
        return 1;
    for (size_t i = 0; i < na; i++) {
        size_t old = push(c, "%s%s[%zu]", *c->path ? "." : "", field, i);
        int rc = param(c, &a[i], &b[i]);
        pop(c, old);
        if (rc)
            return 1;
    }
    return 0;
}

static int step(cmp *c, const pipe_mstep *a, const pipe_mstep *b)
{
    if (str(c, "name", a->name, b->name) || str(c, "entry", a->entry, b->entry) ||
        str(c, "code_digest", a->code_digest, b->code_digest) ||
        str(c, "description", a->description, b->description) || i64(c, "cache", a->cache, b->cache) ||
        i64(c, "needs_cuda", a->needs_cuda, b->needs_cuda) ||
        strs(c, "sources", a->sources, a->nsources, b->sources, b->nsources) ||
        strs(c, "libraries", a->libraries, a->nlibraries, b->libraries, b->nlibraries) ||
        strs(c, "command", a->command, a->ncommand, b->command, b->ncommand) ||
        str(c, "workdir", a->workdir, b->workdir) ||
        params(c, "params", a->params, a->nparams, b->params, b->nparams) ||
        kvs(c, "environment", a->environment, a->nenvironment, b->environment, b->nenvironment) ||
        count(c, "outputs", a->noutputs, b->noutputs))
        return 1;
    for (size_t i = 0; i < a->noutputs; i++) {
        char f[64];
        snprintf(f, sizeof f, "outputs[%zu]", i);
        if (str(c, f, a->outputs[i].name, b->outputs[i].name) ||
            str(c, f, a->outputs[i].type_name, b->outputs[i].type_name))
            return 1;
    }
    return 0;
}

static int args(cmp *c, const pipe_minvocation *a, const pipe_minvocation *b)
{
    if (count(c, "args", a->nargs, b->nargs))
        return 1;
    for (size_t i = 0; i < a->nargs; i++) {
        const pipe_marg *x = &a->args[i], *y = &b->args[i];
        size_t old = push(c, ".args[%zu]", i);
        int rc = str(c, "name", x->name, y->name) || i64(c, "kind", x->kind, y->kind) ||
                 str(c, "value", x->value, y->value) || i64(c, "producer", x->producer, y->producer) ||
                 i64(c, "output", x->output, y->output);
        pop(c, old);
        if (rc)
            return 1;
    }
    return 0;
}

static int resources(cmp *c, const pipe_resources *a, const pipe_resources *b)
{
    return dbl(c, "resources.cpu", a->cpu, b->cpu) || i64(c, "resources.gpu", a->gpu, b->gpu) ||
           u64(c, "resources.memory", a->memory, b->memory) || u64(c, "resources.disk", a->disk, b->disk) ||
           u64(c, "resources.shm", a->shm, b->shm) || str(c, "resources.gpu_type", a->gpu_type, b->gpu_type);
}

static int accelerate(cmp *c, const pipe_accelerate *a, const pipe_accelerate *b)
{
    return i64(c, "accelerate.enabled", a->enabled, b->enabled) ||
           i64(c, "accelerate.num_processes", a->num_processes, b->num_processes) ||
           i64(c, "accelerate.num_machines", a->num_machines, b->num_machines) ||
           i64(c, "accelerate.multi_gpu", a->multi_gpu, b->multi_gpu) || i64(c, "accelerate.cpu", a->cpu, b->cpu) ||
           str(c, "accelerate.mixed_precision", a->mixed_precision, b->mixed_precision) ||
           i64(c, "accelerate.main_process_port", a->main_process_port, b->main_process_port) ||
           str(c, "accelerate.gpu_ids", a->gpu_ids, b->gpu_ids) ||
           i64(c, "accelerate.max_restarts", a->max_restarts, b->max_restarts) ||
           u64(c, "accelerate.rdzv_timeout_ms", a->rdzv_timeout_ms, b->rdzv_timeout_ms) ||
           u64(c, "accelerate.collective_timeout_ms", a->collective_timeout_ms, b->collective_timeout_ms);
}

static int image(cmp *c, const pipe_mimage *a, const pipe_mimage *b)
{
    return str(c, "image.parent", a->parent, b->parent) || str(c, "image.build", a->build, b->build) ||
           strs(c, "image.apt_packages", a->apt_packages, a->napt_packages, b->apt_packages, b->napt_packages) ||
           strs(c, "image.requirements", a->requirements, a->nrequirements, b->requirements, b->nrequirements) ||
           kvs(c, "image.environment", a->environment, a->nenvironment, b->environment, b->nenvironment);
}

static int orchestrators(cmp *c, const pipe_minvocation *a, const pipe_minvocation *b)
{
    const pipe_mslurm *sa = &a->slurm, *sb = &b->slurm;
    const pipe_mkubernetes *ka = &a->kubernetes, *kb = &b->kubernetes;
    const pipe_mskypilot *ya = &a->skypilot, *yb = &b->skypilot;
    return u64(c, "slurm.given", sa->given, sb->given) || str(c, "slurm.partition", sa->partition, sb->partition) ||
           str(c, "slurm.account", sa->account, sb->account) || str(c, "slurm.qos", sa->qos, sb->qos) ||
           str(c, "slurm.constraint", sa->constraint, sb->constraint) ||
           strs(c, "slurm.extra", sa->extra, sa->nextra, sb->extra, sb->nextra) ||
           u64(c, "kubernetes.given", ka->given, kb->given) ||
           str(c, "kubernetes.namespace", ka->namespace_, kb->namespace_) ||
           str(c, "kubernetes.service_account", ka->service_account, kb->service_account) ||
           str(c, "kubernetes.gpu_vendor", ka->gpu_vendor, kb->gpu_vendor) ||
           kvs(c, "kubernetes.node_selector", ka->node_selector, ka->nnode_selector, kb->node_selector,
               kb->nnode_selector) ||
           mvalue(c, "kubernetes.tolerations", &ka->tolerations, &kb->tolerations) ||
           u64(c, "skypilot.given", ya->given, yb->given) || str(c, "skypilot.cloud", ya->cloud, yb->cloud) ||
           str(c, "skypilot.region", ya->region, yb->region) ||
           i64(c, "skypilot.use_spot", ya->use_spot, yb->use_spot) ||
           str(c, "skypilot.accelerators", ya->accelerators, yb->accelerators);
}

static int invocation(cmp *c, const pipe_minvocation *a, const pipe_minvocation *b)
{
    if (str(c, "id", a->id, b->id) || i64(c, "step", a->step, b->step) || count(c, "needs", a->nneeds, b->nneeds))
        return 1;
    for (size_t i = 0; i < a->nneeds; i++)
        if (i64(c, "needs[]", a->needs[i], b->needs[i]))
            return 1;
    return args(c, a, b) || resources(c, &a->resources, &b->resources) ||
           accelerate(c, &a->accelerate, &b->accelerate) ||
           i64(c, "cleanup_memory", a->cleanup_memory, b->cleanup_memory) ||
           u64(c, "profile_interval_ms", a->profile_interval_ms, b->profile_interval_ms) ||
           u64(c, "timeout_ms", a->timeout_ms, b->timeout_ms) || i64(c, "retry_max", a->retry_max, b->retry_max) ||
           u64(c, "retry_delay_ms", a->retry_delay_ms, b->retry_delay_ms) || image(c, &a->image, &b->image) ||
           orchestrators(c, a, b);
}

int pipe_manifest_compare(const pipe_manifest *a, const pipe_manifest *b, char *diff, size_t diffsize)
{
    cmp c = {diff, diffsize, ""};
    if (i64(&c, "manifest_version", a->version, b->version) || str(&c, "pipeline", a->pipeline, b->pipeline) ||
        str(&c, "source", a->source, b->source) ||
        params(&c, "params", a->params, a->nparams, b->params, b->nparams) ||
        count(&c, "steps", a->nsteps, b->nsteps) || count(&c, "invocations", a->ninvocations, b->ninvocations))
        return 1;
    for (size_t i = 0; i < a->nsteps; i++) {
        push(&c, "steps[%zu]", i);
        if (step(&c, &a->steps[i], &b->steps[i]))
            return 1;
        pop(&c, 0);
    }
    for (size_t i = 0; i < a->ninvocations; i++) {
        push(&c, "invocations[%zu]", i);
        if (invocation(&c, &a->invocations[i], &b->invocations[i]))
            return 1;
        pop(&c, 0);
    }
    if (diffsize)
        diff[0] = '\0';
    return 0;
}
