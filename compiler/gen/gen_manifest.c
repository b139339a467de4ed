/* bundle.yaml (docs/bundle-manifest.md): the model's manifest, written with
   libyaml's emitter so every value from the .pipe file is quoted as YAML
   needs. runtime/src/format/manifest.c parses exactly this back into the same
   structs (tests/unit/test_model_roundtrip.c checks that it does). */
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "pipe/base.h"
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

static void emit_resources(yaml_out *em, const pipe_resources *r)
{
    ye_scalar(em, "resources");
    ye_map_start(em, true);
    char cpu[64] = "0";
    if (r->cpu > 0)
        pipe_format_double(r->cpu, cpu, sizeof cpu);
    ye_kv(em, "cpu", cpu);
    ye_kv_int(em, "gpu", (long long)r->gpu);
    ye_kv_uint(em, "memory", r->memory);
    ye_kv_uint(em, "disk", r->disk);
    ye_kv_uint(em, "shm", r->shm);
    if (r->gpu_type)
        ye_kv_string(em, "gpu_type", r->gpu_type);
    ye_map_end(em);
}

static void emit_accelerate(yaml_out *em, const pipe_accelerate *a)
{
    ye_scalar(em, "accelerate");
    ye_map_start(em, false);
    ye_kv_int(em, "num_processes", (long long)a->num_processes);
    ye_kv_int(em, "num_machines", (long long)a->num_machines);
    ye_kv_bool(em, "multi_gpu", a->multi_gpu);
    ye_kv_bool(em, "cpu", a->cpu);
    ye_kv(em, "mixed_precision", a->mixed_precision);
    ye_kv_int(em, "main_process_port", (long long)a->main_process_port);
    ye_kv_string(em, "gpu_ids", a->gpu_ids);
    ye_kv_int(em, "max_restarts", (long long)a->max_restarts);
    ye_kv_uint(em, "rdzv_timeout_ms", a->rdzv_timeout_ms);
    ye_kv_uint(em, "collective_timeout_ms", a->collective_timeout_ms);
    ye_map_end(em);
}

/* Written when any @docker option applies: the parent, the build image,
   the lists and the environment. */
static void emit_image(yaml_out *em, const pipe_mimage *img)
{
    if (!img->parent && !img->build && !img->napt_packages && !img->nrequirements && !img->nenvironment)
        return;
    ye_scalar(em, "image");
    ye_map_start(em, false);
    if (img->parent)
        ye_kv_string(em, "parent", img->parent);
    if (img->build)
        ye_kv_string(em, "build", img->build);
    ye_scalar(em, "apt_packages");
    ye_string_list(em, img->apt_packages, img->napt_packages);
    ye_scalar(em, "requirements");
    ye_string_list(em, img->requirements, img->nrequirements);
    ye_scalar(em, "environment");
    ye_string_map(em, img->environment, img->nenvironment);
    ye_map_end(em);
}

/* An orchestrator's options as written: only those given. */
static bool given(unsigned mask, int opt) { return (mask >> opt) & 1u; }

static void kv_given_string(yaml_out *em, unsigned mask, int opt, const char *key, const char *value)
{
    if (given(mask, opt))
        ye_kv_string(em, key, value);
}

static void emit_slurm(yaml_out *em, const pipe_mslurm *s)
{
    if (!s->given)
        return;
    ye_scalar(em, "slurm");
    ye_map_start(em, false);
    kv_given_string(em, s->given, PIPE_SLURM_PARTITION, "partition", s->partition);
    kv_given_string(em, s->given, PIPE_SLURM_ACCOUNT, "account", s->account);
    kv_given_string(em, s->given, PIPE_SLURM_QOS, "qos", s->qos);
    kv_given_string(em, s->given, PIPE_SLURM_CONSTRAINT, "constraint", s->constraint);
    if (given(s->given, PIPE_SLURM_EXTRA)) {
        ye_scalar(em, "extra");
        ye_string_list(em, s->extra, s->nextra);
    }
    ye_map_end(em);
}

static void emit_kubernetes(yaml_out *em, const pipe_mkubernetes *k)
{
    if (!k->given)
        return;
    ye_scalar(em, "kubernetes");
    ye_map_start(em, false);
    kv_given_string(em, k->given, PIPE_K8S_NAMESPACE, "namespace", k->namespace_);
    kv_given_string(em, k->given, PIPE_K8S_SERVICE_ACCOUNT, "service_account", k->service_account);
    kv_given_string(em, k->given, PIPE_K8S_GPU_VENDOR, "gpu_vendor", k->gpu_vendor);
    if (given(k->given, PIPE_K8S_NODE_SELECTOR)) {
        ye_scalar(em, "node_selector");
        ye_string_map(em, k->node_selector, k->nnode_selector);
    }
    if (given(k->given, PIPE_K8S_TOLERATIONS)) {
        ye_scalar(em, "tolerations");
        ye_mvalue(em, &k->tolerations);
    }
    ye_map_end(em);
}

static void emit_skypilot(yaml_out *em, const pipe_mskypilot *s)
{
    if (!s->given)
        return;
    ye_scalar(em, "skypilot");
    ye_map_start(em, false);
    kv_given_string(em, s->given, PIPE_SKY_CLOUD, "cloud", s->cloud);
    kv_given_string(em, s->given, PIPE_SKY_REGION, "region", s->region);
    if (given(s->given, PIPE_SKY_USE_SPOT))
        ye_kv_bool(em, "use_spot", s->use_spot);
    kv_given_string(em, s->given, PIPE_SKY_ACCELERATORS, "accelerators", s->accelerators);
    ye_map_end(em);
}

static void emit_invocation(yaml_out *em, const pipe_manifest *m, const pipe_minvocation *inv)
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
    emit_resources(em, &inv->resources);
    if (inv->accelerate.enabled)
        emit_accelerate(em, &inv->accelerate);
    ye_kv_bool(em, "cleanup_memory", inv->cleanup_memory);
    if (inv->profile_interval_ms)
        ye_kv_uint(em, "gpu_profile_interval_ms", inv->profile_interval_ms);
    if (inv->timeout_ms)
        ye_kv_uint(em, "timeout_ms", inv->timeout_ms);
    ye_scalar(em, "retry");
    ye_map_start(em, true);
    ye_kv_int(em, "max", (long long)inv->retry_max);
    ye_kv_uint(em, "delay_ms", inv->retry_delay_ms);
    ye_map_end(em);
    emit_image(em, &inv->image);
    emit_slurm(em, &inv->slurm);
    emit_kubernetes(em, &inv->kubernetes);
    emit_skypilot(em, &inv->skypilot);
    ye_map_end(em);
}

int gen_manifest(bundle *b, char *err, size_t errsize)
{
    const pipe_manifest *m = b->mf;
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
        emit_invocation(&em, m, &m->invocations[i]);
    ye_seq_end(&em);
    ye_map_end(&em);
    ye_doc_end(&em);
    return ye_close(&em, "bundle.yaml", err, errsize);
}
