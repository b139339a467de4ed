/* bundle.yaml (docs/bundle-manifest.md): the model's manifest, written with
   libyaml's emitter so every value from the .pipe file is quoted as YAML
   needs. runtime/src/format/manifest.c parses exactly this back into the same
   structs (tests/unit/test_model_roundtrip.c checks that it does). */
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "pipe/base.h"
#include "pipe/settings.h"
#include "pipe/version.h"
#include "yaml_emit.h"

static void param_entry(yaml_out *em, const pipe_mparam *p, bool in_step)
{
    ye_map_start(em, true);
    ye_kv_string(em, "name", p->name);
    ye_kv_string(em, "type", p->type_name);
    if (in_step && p->type == PIPE_TYPE_ARTIFACT)
        ye_kv_bool(em, "artifact", true);
    if (p->default_value)
        ye_kv_string(em, "default", p->default_value);
    ye_map_end(em);
}

static void emit_step(yaml_out *em, const pipe_mstep *st)
{
    ye_map_start(em, false);
    ye_kv_string(em, "name", st->name);
    if (pipe_step_is_command(st)) {
        ye_scalar(em, "command");
        ye_string_list(em, st->command, st->ncommand);
        ye_kv_string(em, "workdir", st->workdir);
    } else {
        ye_kv_string(em, "entry", st->entry);
    }
    ye_kv(em, "code_digest", st->code_digest);
    ye_kv_bool(em, "cache", st->cache);
    ye_kv_bool(em, "needs_cuda", st->needs_cuda);
    if (st->description)
        ye_kv_string(em, "description", st->description);
    ye_scalar(em, "sources");
    ye_string_list(em, st->sources, st->nsources);
    if (st->nlibraries) {
        ye_scalar(em, "libraries");
        ye_string_list(em, st->libraries, st->nlibraries);
    }
    ye_scalar(em, "params");
    ye_seq_start(em, false);
    for (size_t i = 0; i < st->nparams; i++)
        param_entry(em, &st->params[i], true);
    ye_seq_end(em);
    ye_scalar(em, "outputs");
    ye_seq_start(em, false);
    for (size_t i = 0; i < st->noutputs; i++) {
        ye_map_start(em, true);
        ye_kv_string(em, "name", st->outputs[i].name);
        ye_kv_string(em, "type", st->outputs[i].type_name);
        ye_map_end(em);
    }
    ye_seq_end(em);
    ye_scalar(em, "environment");
    ye_string_map(em, st->environment, st->nenvironment);
    ye_map_end(em);
}

static void emit_args(yaml_out *em, const pipe_manifest *m, const pipe_minvocation *inv)
{
    ye_scalar(em, "args");
    ye_seq_start(em, false);
    for (size_t k = 0; k < inv->nargs; k++) {
        const pipe_marg *a = &inv->args[k];
        ye_map_start(em, true);
        ye_kv_string(em, "name", a->name);
        switch (a->kind) {
        case PIPE_ARG_DEFAULT: ye_kv_string(em, "default", a->value); break;
        case PIPE_ARG_VALUE: ye_kv_string(em, "value", a->value); break;
        case PIPE_ARG_PARAM: ye_kv_string(em, "param", a->value); break;
        case PIPE_ARG_ARTIFACT: {
            const pipe_minvocation *producer = &m->invocations[a->producer];
            ye_kv_string(em, "artifact", producer->id);
            ye_kv_string(em, "output", m->steps[producer->step].outputs[a->output].name);
            break;
        }
        }
        ye_map_end(em);
    }
    ye_seq_end(em);
}

/* One option's key, as the settings table says when and how. */
static void emit_option(yaml_out *em, const pipe_option *o, const pipe_minvocation *inv)
{
    if ((o->emit == PIPE_EMIT_SET && !pipe_option_is_set(o, inv)) ||
        (o->emit == PIPE_EMIT_GIVEN && !pipe_option_given(o, inv)))
        return;
    pipe_value v = pipe_option_load(o, inv);
    const void *field = pipe_option_cfield(o, inv);
    size_t n = pipe_option_ccount(o, inv);
    switch (o->kind) {
    case PIPE_KIND_NUMBER: {
        char num[64] = "0";
        if (v.num > 0)
            pipe_format_double(v.num, num, sizeof num);
        ye_kv(em, o->key, num);
        break;
    }
    case PIPE_KIND_INT:
    case PIPE_KIND_PORT: ye_kv_int(em, o->key, (long long)v.i); break;
    case PIPE_KIND_SIZE:
    case PIPE_KIND_DURATION: ye_kv_uint(em, o->key, v.u); break;
    case PIPE_KIND_BOOL: ye_kv_bool(em, o->key, v.b); break;
    case PIPE_KIND_ENUM: ye_kv(em, o->key, v.s); break; /* one of the table's words */
    case PIPE_KIND_STRING:
    case PIPE_KIND_GPU_IDS:
    case PIPE_KIND_ACCELERATORS: ye_kv_string(em, o->key, v.s); break;
    case PIPE_KIND_STRING_LIST:
    case PIPE_KIND_PACKAGE_LIST:
    case PIPE_KIND_SBATCH_FLAGS:
        ye_scalar(em, o->key);
        ye_string_list(em, *(char *const *const *)field, n);
        break;
    case PIPE_KIND_STRING_MAP:
    case PIPE_KIND_ENV_MAP:
        ye_scalar(em, o->key);
        ye_string_map(em, *(const pipe_kv *const *)field, n);
        break;
    case PIPE_KIND_MAP_LIST:
        ye_scalar(em, o->key);
        ye_mvalue(em, field);
        break;
    case PIPE_KIND_FILE: {
        const pipe_mfile *file = field;
        ye_scalar(em, o->key);
        ye_map_start(em, true);
        ye_kv_string(em, "path", file->path);
        ye_kv(em, "sha256", file->sha256);
        ye_map_end(em);
        break;
    }
    }
}

/* Every decorator's fields, in the table's manifest order: its presence
   key, then its mapping when the table says it is written. */
static void emit_settings(yaml_out *em, const pipe_minvocation *inv, bool image_fields)
{
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_in_manifest_order(k);
        if (!image_fields && d->id == PIPE_DEC_DOCKER)
            continue;
        if (d->presence_key)
            ye_kv_bool(em, d->presence_key, pipe_decorator_present(d, inv));
        if (!pipe_section_written(d, inv))
            continue;
        if (d->section) {
            ye_scalar(em, d->section);
            ye_map_start(em, d->flow);
        }
        for (int i = 0; i < d->noptions; i++)
            emit_option(em, &d->options[i], inv);
        if (d->section)
            ye_map_end(em);
    }
}

static void emit_invocation(yaml_out *em, const pipe_manifest *m, const pipe_minvocation *inv, bool image_fields)
{
    ye_map_start(em, false);
    ye_kv_string(em, "id", inv->id);
    ye_kv_string(em, "step", m->steps[inv->step].name);
    ye_scalar(em, "needs");
    ye_seq_start(em, true);
    for (size_t k = 0; k < inv->nneeds; k++)
        ye_string_scalar(em, m->invocations[inv->needs[k]].id);
    ye_seq_end(em);
    emit_args(em, m, inv);
    emit_settings(em, inv, image_fields);
    ye_map_end(em);
}

int gen_invocation_text(const pipe_manifest *m, size_t index, strbuf *out, char *err, size_t errsize)
{
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    ye_doc_start(&em, false);
    emit_invocation(&em, m, &m->invocations[index], true);
    ye_doc_end(&em);
    return ye_close(&em, "an invocation", err, errsize);
}

int gen_manifest_text(bundle *b, bool image_fields, strbuf *out, char *err, size_t errsize)
{
    const pipe_manifest *m = b->mf;
    bundle_banner(b, out, "#");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    ye_doc_start(&em, false);
    ye_map_start(&em, false);
    ye_kv(&em, "manifest_version", PIPE_VERSION_TEXT(PIPE_MANIFEST_VERSION));
    ye_kv_string(&em, "pipeline", m->pipeline);
    ye_kv_string(&em, "source", m->source);
    ye_scalar(&em, "params");
    ye_seq_start(&em, false);
    for (size_t i = 0; i < m->nparams; i++)
        param_entry(&em, &m->params[i], false);
    ye_seq_end(&em);
    ye_scalar(&em, "steps");
    ye_seq_start(&em, false);
    for (size_t i = 0; i < m->nsteps; i++)
        emit_step(&em, &m->steps[i]);
    ye_seq_end(&em);
    ye_scalar(&em, "invocations");
    ye_seq_start(&em, false);
    for (size_t i = 0; i < m->ninvocations; i++)
        emit_invocation(&em, m, &m->invocations[i], image_fields);
    ye_seq_end(&em);
    ye_map_end(&em);
    ye_doc_end(&em);
    return ye_close(&em, "bundle.yaml", err, errsize);
}

int gen_manifest(bundle *b, char *err, size_t errsize)
{
    return gen_manifest_text(b, true, bundle_add_file(b, "bundle.yaml", false), err, errsize);
}
