/* pipe_manifest_compare: field by field, naming the first difference.
   The model round-trip test uses it (pipec's model -> bundle.yaml -> the
   runtime's parse must give the same structs), so every field of
   pipe/manifest.h is compared here; a field added there and not here makes
   that test blind to it. */
#include "pipe/manifest.h"

#include "pipe/settings.h"

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

/* The settings, by the settings table: "resources.gpu: 1 != 2". */
static int settings(cmp *c, const pipe_minvocation *a, const pipe_minvocation *b)
{
    char what[512];
    if (pipe_settings_compare(a, b, what, sizeof what) == 0)
        return 0;
    snprintf(c->diff, c->size, "%s.%s", c->path, what);
    return 1;
}

static int invocation(cmp *c, const pipe_minvocation *a, const pipe_minvocation *b)
{
    if (str(c, "id", a->id, b->id) || i64(c, "step", a->step, b->step) || count(c, "needs", a->nneeds, b->nneeds))
        return 1;
    for (size_t i = 0; i < a->nneeds; i++)
        if (i64(c, "needs[]", a->needs[i], b->needs[i]))
            return 1;
    return args(c, a, b) || settings(c, a, b);
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
