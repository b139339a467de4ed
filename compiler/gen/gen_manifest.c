/* bundle.yaml (docs/bundle-manifest.md): the model's manifest, written by
   yaml_direct.h, which quotes every value from the .pipe file as YAML
   needs (and writes the same walk as JSON for `build --manifest-json`). runtime/src/format/manifest.c parses exactly this back into the same
   structs (tests/unit/test_model_roundtrip.c checks that it does). */
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "pipe/base.h"
#include "pipe/settings.h"
#include "pipe/version.h"
#include "yaml_direct.h"

static void param_entry(yd *em, const pipe_mparam *p, bool in_step)
{
    yd_map_begin(em, true);
    yd_kv_string(em, "name", p->name);
    yd_kv_string(em, "type", p->type_name);
    if (in_step && p->type == PIPE_TYPE_ARTIFACT)
        yd_kv_bool(em, "artifact", true);
    if (p->default_value)
        yd_kv_string(em, "default", p->default_value);
    yd_map_end(em);
}

static void emit_step(yd *em, const pipe_mstep *st)
{
    yd_map_begin(em, false);
    yd_kv_string(em, "name", st->name);
    if (pipe_step_is_command(st)) {
        yd_key(em, "command");
        yd_string_list(em, st->command, st->ncommand);
        yd_kv_string(em, "workdir", st->workdir);
    } else {
        yd_kv_string(em, "entry", st->entry);
    }
    yd_kv_word(em, "code_digest", st->code_digest);
    yd_kv_bool(em, "cache", st->cache);
    yd_kv_bool(em, "needs_cuda", st->needs_cuda);
    if (st->description)
        yd_kv_string(em, "description", st->description);
    yd_key(em, "sources");
    yd_string_list(em, st->sources, st->nsources);
    if (st->nlibraries) {
        yd_key(em, "libraries");
        yd_string_list(em, st->libraries, st->nlibraries);
    }
    yd_key(em, "params");
    yd_seq_begin(em, false);
    for (size_t i = 0; i < st->nparams; i++)
        param_entry(em, &st->params[i], true);
    yd_seq_end(em);
    yd_key(em, "outputs");
    yd_seq_begin(em, false);
    for (size_t i = 0; i < st->noutputs; i++) {
        yd_map_begin(em, true);
        yd_kv_string(em, "name", st->outputs[i].name);
        yd_kv_string(em, "type", st->outputs[i].type_name);
        yd_map_end(em);
    }
    yd_seq_end(em);
    yd_key(em, "environment");
    yd_string_map(em, st->environment, st->nenvironment);
    yd_map_end(em);
}

static void emit_args(yd *em, const pipe_manifest *m, const pipe_minvocation *inv)
{
    yd_key(em, "args");
    yd_seq_begin(em, false);
    for (size_t k = 0; k < inv->nargs; k++) {
        const pipe_marg *a = &inv->args[k];
        yd_map_begin(em, true);
        yd_kv_string(em, "name", a->name);
        switch (a->kind) {
        case PIPE_ARG_DEFAULT: yd_kv_string(em, "default", a->value); break;
        case PIPE_ARG_VALUE: yd_kv_string(em, "value", a->value); break;
        case PIPE_ARG_PARAM: yd_kv_string(em, "param", a->value); break;
        case PIPE_ARG_ARTIFACT: {
            const pipe_minvocation *producer = &m->invocations[a->producer];
            yd_kv_string(em, "artifact", producer->id);
            yd_kv_string(em, "output", m->steps[producer->step].outputs[a->output].name);
            break;
        }
        }
        yd_map_end(em);
    }
    yd_seq_end(em);
}

/* One option's key, as the settings table says when and how. */
static void emit_option(yd *em, const pipe_option *o, const pipe_minvocation *inv)
{
    if ((o->emit == PIPE_EMIT_SET && !pipe_option_is_set(o, inv)) ||
        (o->emit == PIPE_EMIT_GIVEN && !pipe_option_given(o, inv)))
        return;
    pipe_value v = pipe_option_load(o, inv);
    const void *field = pipe_option_cfield(o, inv);
    size_t n = pipe_option_ccount(o, inv);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE: {
        char num[64] = "0";
        if (v.num > 0)
            pipe_format_double(v.num, num, sizeof num);
        yd_kv_number(em, o->key, num);
        break;
    }
    case PIPE_CTYPE_INT64: yd_kv_int(em, o->key, (long long)v.i); break;
    case PIPE_CTYPE_UINT64: yd_kv_uint(em, o->key, v.u); break; /* bytes, milliseconds */
    case PIPE_CTYPE_BOOL: yd_kv_bool(em, o->key, v.b); break;
    case PIPE_CTYPE_STRING:
        if (pipe_kind_get(o->kind)->text == PIPE_TEXT_WORD)
            yd_kv_word(em, o->key, v.s); /* one of the table's words */
        else
            yd_kv_string(em, o->key, v.s);
        break;
    case PIPE_CTYPE_STRINGS:
        yd_key(em, o->key);
        yd_string_list(em, *(char *const *const *)field, n);
        break;
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
        yd_key(em, o->key);
        yd_string_map(em, *(const pipe_kv *const *)field, n);
        break;
    case PIPE_CTYPE_MVALUE:
        yd_key(em, o->key);
        yd_mvalue(em, field);
        break;
    case PIPE_CTYPE_MFILE: {
        const pipe_mfile *file = field;
        yd_key(em, o->key);
        yd_map_begin(em, true);
        yd_kv_string(em, "path", file->path);
        yd_kv_word(em, "sha256", file->sha256);
        yd_map_end(em);
        break;
    }
    }
}

/* Every decorator's fields, in the table's manifest order: its presence
   key, then its mapping when the table says it is written. */
static void emit_settings(yd *em, const pipe_minvocation *inv, bool image_fields)
{
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_in_manifest_order(k);
        if (!image_fields && d->id == PIPE_DEC_DOCKER)
            continue;
        if (d->presence_key)
            yd_kv_bool(em, d->presence_key, pipe_decorator_present(d, inv));
        if (!pipe_section_written(d, inv))
            continue;
        if (d->section) {
            yd_key(em, d->section);
            yd_map_begin(em, d->flow);
        }
        for (int i = 0; i < d->noptions; i++)
            emit_option(em, &d->options[i], inv);
        if (d->section)
            yd_map_end(em);
    }
}

static void emit_invocation(yd *em, const pipe_manifest *m, const pipe_minvocation *inv, bool image_fields)
{
    yd_map_begin(em, false);
    yd_kv_string(em, "id", inv->id);
    yd_kv_string(em, "step", m->steps[inv->step].name);
    yd_key(em, "needs");
    yd_seq_begin(em, true);
    for (size_t k = 0; k < inv->nneeds; k++)
        yd_string(em, m->invocations[inv->needs[k]].id);
    yd_seq_end(em);
    emit_args(em, m, inv);
    emit_settings(em, inv, image_fields);
    yd_map_end(em);
}

int gen_invocation_text(const pipe_manifest *m, size_t index, strbuf *out, char *err, size_t errsize)
{
    yd em;
    yd_open(&em, out, false);
    emit_invocation(&em, m, &m->invocations[index], true);
    return yd_close(&em, "an invocation", err, errsize);
}

static void emit_manifest(yd *em, const pipe_manifest *m, bool image_fields)
{
    yd_map_begin(em, false);
    yd_kv_uint(em, "manifest_version", PIPE_MANIFEST_VERSION);
    yd_kv_string(em, "pipeline", m->pipeline);
    yd_kv_string(em, "source", m->source);
    yd_key(em, "params");
    yd_seq_begin(em, false);
    for (size_t i = 0; i < m->nparams; i++)
        param_entry(em, &m->params[i], false);
    yd_seq_end(em);
    yd_key(em, "steps");
    yd_seq_begin(em, false);
    for (size_t i = 0; i < m->nsteps; i++)
        emit_step(em, &m->steps[i]);
    yd_seq_end(em);
    yd_key(em, "invocations");
    yd_seq_begin(em, false);
    for (size_t i = 0; i < m->ninvocations; i++)
        emit_invocation(em, m, &m->invocations[i], image_fields);
    yd_seq_end(em);
    yd_map_end(em);
}

int gen_manifest_text(bundle *b, bool image_fields, strbuf *out, char *err, size_t errsize)
{
    bundle_banner(b, out, "#");
    yd em;
    yd_open(&em, out, false);
    emit_manifest(&em, b->mf, image_fields);
    return yd_close(&em, "bundle.yaml", err, errsize);
}

int gen_manifest_json(const pipe_manifest *m, strbuf *out, char *err, size_t errsize)
{
    yd em;
    yd_open(&em, out, true);
    emit_manifest(&em, m, true);
    return yd_close(&em, "the manifest as JSON", err, errsize);
}

int gen_manifest(bundle *b, char *err, size_t errsize)
{
    return gen_manifest_text(b, true, bundle_add_file(b, "bundle.yaml", false), err, errsize);
}
