/* bundle.yaml (docs/bundle-manifest.md), written with libyaml's emitter so
   every value from the .pipe file is quoted as YAML needs. */
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "images.h"
#include "pipe/version.h"
#include "yaml_emit.h"

static void param_entry(yaml_out *em, const param_info *p, bool in_step)
{
    ye_map_start(em, true);
    ye_kv_string(em, "name", p->name);
    ye_kv_string(em, "type", p->type_name);
    if (in_step && p->type == TYPE_ARTIFACT)
        ye_kv_bool(em, "artifact", true);
    if (p->default_value)
        ye_kv_value(em, "default", p->default_value);
    ye_map_end(em);
}

static void emit_step(yaml_out *em, const bundle_step *bs)
{
    const step_info *st = bs->step;
    ye_map_start(em, false);
    ye_kv_string(em, "name", st->name);
    ye_kv_string(em, "entry", st->entry);
    ye_kv(em, "code_digest", bs->digest);
    ye_kv_bool(em, "cache", st->cache);
    ye_kv_bool(em, "needs_cuda", bs->has_cuda_sources);
    if (st->description)
        ye_kv_string(em, "description", st->description);
    ye_scalar(em, "sources");
    ye_seq_start(em, true);
    for (size_t i = 0; i < bs->files.len; i++) {
        const bundle_source *s = bs->files.items[i];
        if (!s->is_header)
            ye_string_scalar(em, s->bundle_path);
    }
    ye_seq_end(em);
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
    ye_string_map(em, st->environment);
    ye_map_end(em);
}

static void emit_args(yaml_out *em, const invocation *inv)
{
    ye_scalar(em, "args");
    ye_seq_start(em, false);
    for (size_t k = 0; k < inv->step->nparams; k++) {
        const arg_binding *a = &inv->args[k];
        ye_map_start(em, true);
        ye_kv_string(em, "name", inv->step->params[k].name);
        switch (a->kind) {
        case ARG_DEFAULT: ye_kv_value(em, "default", a->value); break;
        case ARG_LITERAL: ye_kv_value(em, "value", a->value); break;
        case ARG_PIPELINE_PARAM: ye_kv_string(em, "param", a->ref); break;
        case ARG_ARTIFACT:
            ye_kv_string(em, "artifact", a->producer->id);
            ye_kv_string(em, "output", a->producer->step->outputs[a->producer_output].name);
            break;
        }
        ye_map_end(em);
    }
    ye_seq_end(em);
}

static void emit_resources(yaml_out *em, const effective_options *o)
{
    ye_scalar(em, "resources");
    ye_map_start(em, true);
    opt_value cpu = effective_opt(o, DEC_RESOURCES, RES_CPU);
    if (cpu.set) {
        strbuf sb = STRBUF_INIT;
        canonical_value(&sb, &(ast_expr){.kind = EXPR_FLOAT, .u.f = cpu.num});
        ye_kv(em, "cpu", sb_cstr(&sb));
        sb_free(&sb);
    } else {
        ye_kv(em, "cpu", "0");
    }
    ye_kv_int(em, "gpu", (long long)effective_opt(o, DEC_RESOURCES, RES_GPU).i);
    ye_kv_uint(em, "memory", effective_opt(o, DEC_RESOURCES, RES_MEMORY).u);
    ye_kv_uint(em, "disk", effective_opt(o, DEC_RESOURCES, RES_DISK).u);
    ye_kv_uint(em, "shm", effective_opt(o, DEC_RESOURCES, RES_SHM).u);
    opt_value type = effective_opt(o, DEC_RESOURCES, RES_GPU_TYPE);
    if (type.set)
        ye_kv_string(em, "gpu_type", type.s);
    ye_map_end(em);
}

static void emit_accelerate(yaml_out *em, const effective_options *o)
{
    ye_scalar(em, "accelerate");
    ye_map_start(em, false);
    ye_kv_int(em, "num_processes", (long long)effective_opt(o, DEC_ACCELERATE, ACC_NUM_PROCESSES).i);
    ye_kv_int(em, "num_machines", (long long)effective_opt(o, DEC_ACCELERATE, ACC_NUM_MACHINES).i);
    ye_kv_bool(em, "multi_gpu", effective_opt(o, DEC_ACCELERATE, ACC_MULTI_GPU).b);
    ye_kv_bool(em, "cpu", effective_opt(o, DEC_ACCELERATE, ACC_CPU).b);
    ye_kv(em, "mixed_precision", effective_opt(o, DEC_ACCELERATE, ACC_MIXED_PRECISION).s);
    ye_kv_int(em, "main_process_port", (long long)effective_opt(o, DEC_ACCELERATE, ACC_MAIN_PROCESS_PORT).i);
    ye_kv_string(em, "gpu_ids", effective_opt(o, DEC_ACCELERATE, ACC_GPU_IDS).s);
    ye_kv_int(em, "max_restarts", (long long)effective_opt(o, DEC_ACCELERATE, ACC_MAX_RESTARTS).i);
    ye_kv_uint(em, "rdzv_timeout_ms", effective_opt(o, DEC_ACCELERATE, ACC_RDZV_TIMEOUT).u);
    ye_map_end(em);
}

static void emit_image(yaml_out *em, bundle *b, const effective_options *o)
{
    opt_value parent = effective_opt(o, DEC_DOCKER, DOCKER_PARENT_IMAGE);
    if (!parent.set)
        return;
    opt_value build = effective_opt(o, DEC_DOCKER, DOCKER_BUILD_IMAGE);
    ye_scalar(em, "image");
    ye_map_start(em, false);
    ye_kv_string(em, "parent", parent.s);
    ye_kv_string(em, "build", build.set ? build.s : image_default_build(b->arena, parent.s));
    ye_scalar(em, "apt_packages");
    ye_string_list(em, effective_opt(o, DEC_DOCKER, DOCKER_APT_PACKAGES).expr);
    ye_scalar(em, "requirements");
    ye_string_list(em, effective_opt(o, DEC_DOCKER, DOCKER_REQUIREMENTS).expr);
    ye_scalar(em, "environment");
    ye_string_map(em, effective_opt(o, DEC_DOCKER, DOCKER_ENVIRONMENT).expr);
    ye_map_end(em);
}

/* An orchestrator decorator's options as written (only those set). */
static void emit_orchestrator(yaml_out *em, const effective_options *o, decorator_id dec, const char *key)
{
    const decorator_schema *s = decorator_by_id(dec);
    bool any = false;
    for (int i = 0; i < s->noptions; i++)
        any = any || effective_opt(o, dec, i).set;
    if (!any)
        return;
    ye_scalar(em, key);
    ye_map_start(em, false);
    for (int i = 0; i < s->noptions; i++) {
        opt_value v = effective_opt(o, dec, i);
        if (!v.set)
            continue;
        ye_scalar(em, s->options[i].name);
        ye_any_value(em, v.expr);
    }
    ye_map_end(em);
}

static void emit_invocation(yaml_out *em, bundle *b, const invocation *inv)
{
    const effective_options *o = &inv->options;
    ye_map_start(em, false);
    ye_kv_string(em, "id", inv->id);
    ye_kv_string(em, "step", inv->step->name);
    ye_scalar(em, "needs");
    ye_seq_start(em, true);
    for (size_t k = 0; k < inv->deps.len; k++)
        ye_string_scalar(em, ((invocation *)inv->deps.items[k])->id);
    ye_seq_end(em);
    emit_args(em, inv);
    emit_resources(em, o);
    if (inv->step->accelerated)
        emit_accelerate(em, o);
    ye_kv_bool(em, "cleanup_memory", effective_decorator(o, DEC_CLEANUP_MEMORY) != NULL);
    if (effective_decorator(o, DEC_GPU_PROFILE))
        ye_kv_uint(em, "gpu_profile_interval_ms", effective_opt(o, DEC_GPU_PROFILE, PROFILE_INTERVAL).u);
    if (effective_decorator(o, DEC_TIMEOUT))
        ye_kv_uint(em, "timeout_ms", effective_opt(o, DEC_TIMEOUT, TIMEOUT_LIMIT).u);
    ye_scalar(em, "retry");
    ye_map_start(em, true);
    /* Without @retry a step runs once; @retry's own default is one retry. */
    ye_kv_int(em, "max", effective_decorator(o, DEC_RETRY) ? (long long)effective_opt(o, DEC_RETRY, RETRY_MAX).i : 0);
    ye_kv_uint(em, "delay_ms", effective_opt(o, DEC_RETRY, RETRY_DELAY).u);
    ye_map_end(em);
    emit_image(em, b, o);
    emit_orchestrator(em, o, DEC_SLURM, "slurm");
    emit_orchestrator(em, o, DEC_KUBERNETES, "kubernetes");
    emit_orchestrator(em, o, DEC_SKYPILOT, "skypilot");
    ye_map_end(em);
}

int gen_manifest(bundle *b, char *err, size_t errsize)
{
    strbuf *out = bundle_add_file(b, "bundle.yaml", false);
    bundle_banner(b, out, "#");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    ye_doc_start(&em, false);
    ye_map_start(&em, false);
    ye_kv(&em, "manifest_version", PIPE_VERSION_TEXT(PIPE_MANIFEST_VERSION));
    ye_kv_string(&em, "pipeline", b->pl->name);
    ye_kv_string(&em, "source", b->source_name);
    ye_scalar(&em, "params");
    ye_seq_start(&em, false);
    for (size_t i = 0; i < b->pl->nparams; i++)
        param_entry(&em, &b->pl->params[i], false);
    ye_seq_end(&em);
    ye_scalar(&em, "steps");
    ye_seq_start(&em, false);
    for (size_t i = 0; i < b->steps.len; i++)
        emit_step(&em, b->steps.items[i]);
    ye_seq_end(&em);
    ye_scalar(&em, "invocations");
    ye_seq_start(&em, false);
    for (size_t i = 0; i < b->pl->invocations.len; i++)
        emit_invocation(&em, b, b->pl->invocations.items[i]);
    ye_seq_end(&em);
    ye_map_end(&em);
    ye_doc_end(&em);
    return ye_close(&em, "bundle.yaml", err, errsize);
}
