/* From the checked program to the typed model (model.h). Every rule that
   turns decorators into settings is applied here, once: defaults, the
   pipeline-over-step merge (effective_opt, and effective_map for maps key
   by key), "no @retry means no retry",
   the build image derived from the parent. The generators only read the
   result. */
#include "model_build.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/images.h"
#include "util/strbuf.h"
#include "util/symtab.h"
#include "pipe/base.h"
#include "pipe/settings.h"

typedef struct builder {
    arena *a;
    model *m;
    const program *pg;
    const pipeline_info *pl;
} builder;

static char *dup_or_null(arena *a, const char *s) { return s ? arena_strdup(a, s) : NULL; }

/* The canonical text of a literal: what run records and the runtime use. */
static char *canonical_text(arena *a, const ast_expr *v)
{
    char buf[64];
    switch (v->kind) {
    case EXPR_INT: return arena_printf(a, "%lld", (long long)v->u.i);
    case EXPR_FLOAT: pipe_format_double(v->u.f, buf, sizeof buf); return arena_strdup(a, buf);
    case EXPR_BOOL: return arena_strdup(a, v->u.b ? "true" : "false");
    case EXPR_STRING: return arena_strdup(a, v->u.s.text);
    default: return arena_strdup(a, "");
    }
}

static pipe_type param_type(value_type t)
{
    switch (t) {
    case TYPE_INT: return PIPE_TYPE_INT;
    case TYPE_FLOAT: return PIPE_TYPE_FLOAT;
    case TYPE_BOOL: return PIPE_TYPE_BOOL;
    case TYPE_STRING: return PIPE_TYPE_STRING;
    case TYPE_ARTIFACT: return PIPE_TYPE_ARTIFACT;
    }
    return PIPE_TYPE_STRING;
}

static pipe_mparam *params_of(arena *a, const param_info *ps, size_t n)
{
    pipe_mparam *out = n ? arena_alloc(a, n * sizeof *out) : NULL;
    for (size_t i = 0; i < n; i++) {
        out[i].name = arena_strdup(a, ps[i].name);
        out[i].type = param_type(ps[i].type);
        out[i].type_name = arena_strdup(a, ps[i].type_name);
        out[i].default_value = ps[i].default_value ? canonical_text(a, ps[i].default_value) : NULL;
    }
    return out;
}

/* A list literal of strings (apt_packages, requirements, extra). */
static char **string_list(arena *a, const ast_expr *list, size_t *n)
{
    *n = 0;
    if (!list || list->kind != EXPR_LIST || list->u.items.len == 0)
        return NULL;
    char **out = arena_alloc(a, list->u.items.len * sizeof *out);
    for (size_t i = 0; i < list->u.items.len; i++) {
        const ast_expr *e = list->u.items.items[i];
        if (e->kind == EXPR_STRING)
            out[(*n)++] = arena_strdup(a, e->u.s.text);
    }
    return out;
}

/* Map entries of strings (environments, node_selector); a value of another
   kind (reported by the checker) reads as "". */
static pipe_kv *kv_of(arena *a, const ast_map_entry *const *entries, size_t n)
{
    if (n == 0)
        return NULL;
    pipe_kv *out = arena_alloc(a, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        out[i].key = arena_strdup(a, entries[i]->key.text);
        out[i].value = arena_strdup(a, entries[i]->value->kind == EXPR_STRING ? entries[i]->value->u.s.text : "");
    }
    return out;
}

/* A map literal of strings (the step body's environment). */
static pipe_kv *string_map(arena *a, const ast_expr *map, size_t *n)
{
    *n = map && map->kind == EXPR_MAP ? map->u.items.len : 0;
    return *n ? kv_of(a, (const ast_map_entry *const *)map->u.items.items, *n) : NULL;
}

static void any_value(arena *a, const ast_expr *v, pipe_mvalue *out)
{
    memset(out, 0, sizeof *out);
    if (v->kind == EXPR_LIST || v->kind == EXPR_MAP) {
        out->kind = v->kind == EXPR_LIST ? PIPE_MV_LIST : PIPE_MV_MAP;
        out->n = v->u.items.len;
        out->items = out->n ? arena_alloc(a, out->n * sizeof *out->items) : NULL;
        if (out->kind == PIPE_MV_MAP && out->n)
            out->keys = arena_alloc(a, out->n * sizeof *out->keys);
        for (size_t i = 0; i < out->n; i++) {
            if (out->kind == PIPE_MV_LIST) {
                any_value(a, v->u.items.items[i], &out->items[i]);
            } else {
                const ast_map_entry *e = v->u.items.items[i];
                out->keys[i] = arena_strdup(a, e->key.text);
                any_value(a, e->value, &out->items[i]);
            }
        }
        return;
    }
    out->kind = v->kind == EXPR_STRING ? PIPE_MV_STRING : PIPE_MV_SCALAR;
    out->text = canonical_text(a, v);
}

static model_source_kind source_kind_of(source_kind k)
{
    switch (k) {
    case SOURCE_C: return MODEL_SRC_C;
    case SOURCE_CXX: return MODEL_SRC_CXX;
    case SOURCE_CUDA: return MODEL_SRC_CUDA;
    case SOURCE_HEADER: return MODEL_SRC_HEADER;
    case SOURCE_FILE: return MODEL_SRC_FILE;
    case SOURCE_FOLDER: return MODEL_SRC_FOLDER;
    }
    return MODEL_SRC_FILE;
}

static pipe_mstep build_step(builder *b, const step_info *st, model_step *ms)
{
    arena *a = b->a;
    pipe_mstep s = {0};
    s.name = arena_strdup(a, st->name);
    s.entry = dup_or_null(a, st->is_command ? NULL : st->entry);
    if (st->is_command) {
        s.ncommand = st->ncommand;
        s.command = arena_alloc(a, (st->ncommand + 1) * sizeof *s.command);
        for (size_t i = 0; i < st->ncommand; i++)
            s.command[i] = arena_strdup(a, st->command[i]);
    } else if (st->nlibraries) {
        s.nlibraries = st->nlibraries;
        s.libraries = arena_alloc(a, st->nlibraries * sizeof *s.libraries);
        for (size_t i = 0; i < st->nlibraries; i++)
            s.libraries[i] = arena_strdup(a, st->libraries[i].name);
    }
    s.description = dup_or_null(a, st->description);
    s.cache = st->cache;
    s.params = params_of(a, st->params, st->nparams);
    s.nparams = st->nparams;
    s.noutputs = st->noutputs;
    s.outputs = st->noutputs ? arena_alloc(a, st->noutputs * sizeof *s.outputs) : NULL;
    for (size_t i = 0; i < st->noutputs; i++) {
        s.outputs[i].name = arena_strdup(a, st->outputs[i].name);
        s.outputs[i].type_name = arena_strdup(a, st->outputs[i].type_name);
    }
    s.environment = string_map(a, st->environment, &s.nenvironment);
    ms->nsources = st->nsources;
    ms->sources = st->nsources ? arena_alloc(a, st->nsources * sizeof *ms->sources) : NULL;
    for (size_t i = 0; i < st->nsources; i++) {
        ms->sources[i].path = arena_strdup(a, st->sources[i].path);
        ms->sources[i].resolved = arena_strdup(a, st->sources[i].resolved);
        ms->sources[i].kind = source_kind_of(st->sources[i].kind);
        ms->sources[i].text = st->sources[i].text;
        ms->sources[i].len = st->sources[i].len;
        s.needs_cuda = s.needs_cuda || st->sources[i].kind == SOURCE_CUDA;
    }
    ms->pipe_dir = arena_strdup(a, st->dir);
    const source_file *f = b->pg->sources->files[st->decl->file];
    ms->decl_file = f->path;
    source_position(f, st->decl->name.sp.start, &ms->decl_line, &ms->decl_col);
    return s;
}

/* The steps the pipeline invokes, in first-use order; *index gets each
   invocation's step index. */
static void build_steps(builder *b, int *index)
{
    const ptr_vec *invs = &b->pl->invocations;
    const step_info **seen = arena_alloc(b->a, (invs->len + 1) * sizeof *seen);
    size_t n = 0;
    symtab position = {0}; /* step name (unique) -> its index + 1 */
    for (size_t i = 0; i < invs->len; i++) {
        const invocation *inv = invs->items[i];
        size_t k = (size_t)(uintptr_t)symtab_get(&position, inv->step->name);
        if (k == 0) {
            seen[n++] = inv->step;
            symtab_put(&position, inv->step->name, (void *)(uintptr_t)n);
            k = n;
        }
        index[i] = (int)(k - 1);
    }
    symtab_free(&position);
    pipe_manifest *m = &b->m->manifest;
    m->nsteps = n;
    m->steps = arena_alloc(b->a, (n + 1) * sizeof *m->steps);
    b->m->steps = arena_alloc(b->a, (n + 1) * sizeof *b->m->steps);
    for (size_t k = 0; k < n; k++)
        m->steps[k] = build_step(b, seen[k], &b->m->steps[k]);
}

static void build_args(builder *b, const invocation *inv, pipe_minvocation *out)
{
    arena *a = b->a;
    size_t n = inv->step->nparams;
    out->nargs = n;
    out->args = n ? arena_alloc(a, n * sizeof *out->args) : NULL;
    for (size_t k = 0; k < n; k++) {
        const arg_binding *src = &inv->args[k];
        pipe_marg *arg = &out->args[k];
        arg->name = arena_strdup(a, inv->step->params[k].name);
        arg->producer = arg->output = -1;
        switch (src->kind) {
        case ARG_DEFAULT:
            arg->kind = PIPE_ARG_DEFAULT;
            arg->value = canonical_text(a, src->value);
            break;
        case ARG_LITERAL:
            arg->kind = PIPE_ARG_VALUE;
            arg->value = canonical_text(a, src->value);
            break;
        case ARG_PIPELINE_PARAM:
            arg->kind = PIPE_ARG_PARAM;
            arg->value = arena_strdup(a, src->ref);
            break;
        case ARG_ARTIFACT:
            arg->kind = PIPE_ARG_ARTIFACT;
            arg->value = arena_strdup(a, src->producer->id);
            arg->producer = (int)src->producer->index;
            arg->output = (int)src->producer_output;
            break;
        }
    }
    out->nneeds = inv->deps.len;
    out->needs = inv->deps.len ? arena_alloc(a, inv->deps.len * sizeof *out->needs) : NULL;
    for (size_t k = 0; k < inv->deps.len; k++)
        out->needs[k] = (int)((const invocation *)inv->deps.items[k])->index;
}

/* A string option's text as written (an accelerator keeps its count), or
   the default's; NULL when there is none. */
static char *option_text(arena *a, const opt_value *v)
{
    const char *t = v->expr && v->expr->kind == EXPR_STRING ? v->expr->u.s.text : v->s;
    return t ? arena_strdup(a, t) : NULL;
}

/* A file an option names, kept once per content for the bundle. */
static void add_option_file(builder *b, const opt_file *f)
{
    model *m = b->m;
    for (size_t i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i].sha256, f->sha256) == 0)
            return;
    model_file *files = arena_alloc(b->a, (m->nfiles + 1) * sizeof *files);
    if (m->nfiles)
        memcpy(files, m->files, m->nfiles * sizeof *files);
    files[m->nfiles++] = (model_file){f->resolved, f->sha256, f->text, f->len};
    m->files = files;
}

/* One option's value into its field of the invocation (pipe/settings.h). */
static void store_option(builder *b, const option_schema *os, const opt_value *v, pipe_minvocation *inv)
{
    void *field = pipe_option_field(os, inv);
    size_t *count = pipe_option_count(os, inv);
    switch (pipe_option_ctype(os)) {
    case PIPE_CTYPE_STRING: {
        char *text = option_text(b->a, v);
        memcpy(field, &text, sizeof text);
        break;
    }
    case PIPE_CTYPE_STRINGS: {
        char **items = string_list(b->a, v->expr, count);
        memcpy(field, &items, sizeof items);
        break;
    }
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV: /* merged key by key: store_map */
        break;
    case PIPE_CTYPE_MFILE: {
        pipe_mfile file = {0};
        if (v->file) {
            file.path = option_text(b->a, v);
            file.sha256 = arena_strdup(b->a, v->file->sha256);
            add_option_file(b, v->file);
        }
        memcpy(field, &file, sizeof file);
        break;
    }
    case PIPE_CTYPE_MVALUE:
        if (v->expr)
            any_value(b->a, v->expr, field);
        else
            ((pipe_mvalue *)field)->kind = PIPE_MV_LIST;
        break;
    case PIPE_CTYPE_DOUBLE:
    case PIPE_CTYPE_INT64:
    case PIPE_CTYPE_UINT64:
    case PIPE_CTYPE_BOOL: {
        pipe_value p = {.num = v->num, .i = v->i, .u = v->u, .b = v->b};
        pipe_option_store(os, inv, p);
        break;
    }
    }
}

/* A map option in force, the pipeline's and the step's merged key by key. */
static void store_map(builder *b, const option_schema *os, const effective_options *o, decorator_id d, int i,
                      pipe_minvocation *inv)
{
    size_t n = 0;
    const ast_map_entry **entries = effective_map(b->a, o, d, i, &n);
    pipe_kv *kv = kv_of(b->a, entries, n);
    *pipe_option_count(os, inv) = n;
    memcpy(pipe_option_field(os, inv), &kv, sizeof kv);
}

/* Every setting of the table: when its decorator applies, the value in
   force (the step's own, else the pipeline's, else the default; a map's
   keys merged), else the table's value for an absent decorator; the bits of
   the options written. */
static void build_settings(builder *b, const effective_options *o, pipe_minvocation *inv)
{
    for (int d = 0; d < DEC_COUNT; d++) {
        const decorator_schema *ds = decorator_by_id((decorator_id)d);
        bool present = effective_decorator(o, (decorator_id)d) != NULL;
        unsigned given = 0;
        for (int i = 0; i < ds->noptions; i++) {
            const option_schema *os = &ds->options[i];
            opt_value v = option_default((decorator_id)d, i);
            if (present) {
                v = effective_opt(o, (decorator_id)d, i);
            } else {
                pipe_value absent = pipe_option_initial(os, true);
                v.num = absent.num, v.i = absent.i, v.u = absent.u, v.b = absent.b, v.s = absent.s;
            }
            if (v.set)
                given |= 1u << i;
            if (option_merges_by_key((decorator_id)d, i))
                store_map(b, os, o, (decorator_id)d, i, inv);
            else
                store_option(b, os, &v, inv);
        }
        if (ds->presence != PIPE_NO_FIELD)
            memcpy((char *)inv + ds->presence, &present, sizeof present);
        if (ds->given != PIPE_NO_FIELD)
            memcpy((char *)inv + ds->given, &given, sizeof given);
    }
}

/* The rules that derive one setting from others (the language's, applied
   once here): a port not given is a free one on one machine and 29500
   across machines; a build image not given is the parent's -devel twin;
   Neuron devices written only as @batch(trainium/inferentia) are the
   step's @resources(trainium/inferentia) (one spelling per meaning: every
   target and the runtime read resources; E0211 holds the two equal when
   both are given). */
static void derive_settings(builder *b, const effective_options *o, pipe_minvocation *inv)
{
    if (!effective_opt(o, DEC_RESOURCES, RES_TRAINIUM).set && effective_opt(o, DEC_BATCH, BATCH_TRAINIUM).set)
        inv->resources.trainium = inv->batch.trainium;
    if (!effective_opt(o, DEC_RESOURCES, RES_INFERENTIA).set && effective_opt(o, DEC_BATCH, BATCH_INFERENTIA).set)
        inv->resources.inferentia = inv->batch.inferentia;
    pipe_accelerate *acc = &inv->accelerate;
    if (acc->enabled && !effective_opt(o, DEC_ACCELERATE, ACC_MAIN_PROCESS_PORT).set)
        acc->main_process_port = acc->num_machines > 1 ? PIPE_DEFAULT_MAIN_PROCESS_PORT : 0;
    if (inv->image.parent && !effective_opt(o, DEC_DOCKER, DOCKER_BUILD_IMAGE).set)
        inv->image.build = arena_strdup(b->a, image_default_build(b->a, inv->image.parent));
}

static void build_invocation(builder *b, const invocation *inv, int step, pipe_minvocation *out)
{
    out->id = arena_strdup(b->a, inv->id);
    out->step = step;
    build_args(b, inv, out);
    build_settings(b, &inv->options, out);
    derive_settings(b, &inv->options, out);
}

/* The .pipe file's name as banners and the manifest show it: no control
   character (a newline would end a `#` comment) and no comment end. */
static char *source_name(arena *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    strbuf sb = STRBUF_INIT;
    for (const char *p = name; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            sb_putc(&sb, '?');
        else if (*p == '*' && p[1] == '/')
            sb_puts(&sb, "* ");
        else
            sb_putc(&sb, *p);
    }
    char *out = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    return out;
}

void model_build(model *out, arena *a, const program *pg, const pipeline_info *pl)
{
    memset(out, 0, sizeof *out);
    builder b = {a, out, pg, pl};
    pipe_manifest *m = &out->manifest;
    m->version = PIPE_MANIFEST_VERSION;
    m->pipeline = arena_strdup(a, pl->name);
    m->source = source_name(a, pg->sources->files[pg->root->file]->path);
    m->params = params_of(a, pl->params, pl->nparams);
    m->nparams = pl->nparams;
    effective_options pl_opts = {NULL, &pl->decorators};
    opt_value ns = effective_opt(&pl_opts, DEC_KUBERNETES, K8S_NAMESPACE);
    out->workflow_namespace = ns.set ? arena_strdup(a, ns.s) : NULL;

    size_t ninv = pl->invocations.len;
    int *step_of = arena_alloc(a, (ninv + 1) * sizeof *step_of);
    build_steps(&b, step_of);
    m->ninvocations = ninv;
    m->invocations = arena_alloc(a, (ninv + 1) * sizeof *m->invocations);
    for (size_t i = 0; i < ninv; i++) {
        memset(&m->invocations[i], 0, sizeof m->invocations[i]);
        build_invocation(&b, pl->invocations.items[i], step_of[i], &m->invocations[i]);
    }

    out->npipe_files = pg->files.len;
    out->pipe_files = arena_alloc(a, (pg->files.len + 1) * sizeof *out->pipe_files);
    for (size_t i = 0; i < pg->files.len; i++) {
        const ast_file *f = pg->files.items[i];
        out->pipe_files[i] = pg->sources->files[f->file]->path;
    }
}
