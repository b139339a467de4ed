/* `describe`'s text (describe.h). */
#include "describe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/human.h"
#include "pipe/settings.h"

static const char *type_word(const pipe_mparam *p)
{
    return p->type == PIPE_TYPE_ARTIFACT ? p->type_name : p->type_name ? p->type_name : "?";
}

static void print_resources(const pipe_resources *r)
{
    char mem[48];
    const char *sep = "";
    printf("    resources    ");
    if (r->cpu > 0) {
        printf("%g CPU%s", r->cpu, r->cpu == 1 ? "" : "s");
        sep = ", ";
    }
    if (r->gpu > 0) {
        printf("%s%" PRId64 " GPU%s", sep, r->gpu, r->gpu == 1 ? "" : "s");
        if (r->gpu_type)
            printf(" (%s)", r->gpu_type);
        sep = ", ";
    }
    if (r->memory > 0) {
        pipe_format_size_human(r->memory, mem, sizeof mem);
        printf("%s%s memory", sep, mem);
        sep = ", ";
    }
    if (r->disk > 0) {
        pipe_format_size_human(r->disk, mem, sizeof mem);
        printf("%s%s disk", sep, mem);
        sep = ", ";
    }
    if (r->shm > 0) {
        pipe_format_size_human(r->shm, mem, sizeof mem);
        printf("%s%s shm", sep, mem);
        sep = ", ";
    }
    if (!*sep)
        printf("none requested (counts as 1 CPU locally)");
    putchar('\n');
}

/* A value of the manifest passed through (tolerations) in .pipe syntax. */
static void print_mvalue(const pipe_mvalue *v)
{
    switch (v->kind) {
    case PIPE_MV_STRING: printf("\"%s\"", v->text); break;
    case PIPE_MV_SCALAR: printf("%s", v->text); break;
    case PIPE_MV_LIST:
    case PIPE_MV_MAP:
        putchar(v->kind == PIPE_MV_LIST ? '[' : '{');
        for (size_t i = 0; i < v->n; i++) {
            printf("%s", i ? ", " : "");
            if (v->kind == PIPE_MV_MAP)
                printf("\"%s\": ", v->keys[i]);
            print_mvalue(&v->items[i]);
        }
        putchar(v->kind == PIPE_MV_LIST ? ']' : '}');
        break;
    }
}

/* `name = value` as a .pipe file writes the option. */
static void print_option(const pipe_option *o, const pipe_minvocation *inv)
{
    pipe_value v = pipe_option_load(o, inv);
    const void *field = pipe_option_cfield(o, inv);
    size_t n = pipe_option_ccount(o, inv);
    char buf[256];
    printf("%s = ", o->name);
    switch (pipe_option_ctype(o)) {
    case PIPE_CTYPE_DOUBLE: printf("%g", v.num); break;
    case PIPE_CTYPE_INT64:
    case PIPE_CTYPE_UINT64:
    case PIPE_CTYPE_BOOL:
    case PIPE_CTYPE_STRING:
    case PIPE_CTYPE_MFILE:
        pipe_option_text(o, v, buf, sizeof buf);
        printf(pipe_option_text_quoted(o) ? "\"%s\"" : "%s", buf);
        break;
    case PIPE_CTYPE_STRINGS:
        putchar('[');
        for (size_t i = 0; i < n; i++)
            printf("%s\"%s\"", i ? ", " : "", (*(char *const *const *)field)[i]);
        putchar(']');
        break;
    case PIPE_CTYPE_KVS:
    case PIPE_CTYPE_ENV:
        putchar('{');
        for (size_t i = 0; i < n; i++) {
            const pipe_kv *kv = &(*(const pipe_kv *const *)field)[i];
            printf("%s\"%s\": \"%s\"", i ? ", " : "", kv->key, kv->value);
        }
        putchar('}');
        break;
    case PIPE_CTYPE_MVALUE: print_mvalue(field); break;
    }
}

/* The decorators the lines above put in words; the image line says the
   parent image. Every other option in force is listed as written. */
static bool in_words(const pipe_option *o)
{
    const pipe_decorator_info *d = pipe_option_decorator(o);
    switch (d->id) {
    case PIPE_DEC_RESOURCES:
    case PIPE_DEC_ACCELERATE:
    case PIPE_DEC_CLEANUP_MEMORY:
    case PIPE_DEC_GPU_PROFILE:
    case PIPE_DEC_TIMEOUT:
    case PIPE_DEC_RETRY: return true;
    case PIPE_DEC_DOCKER: return o->index == PIPE_DOCKER_PARENT_IMAGE;
    default: return false;
    }
}

static void print_other_options(const pipe_minvocation *inv)
{
    for (int d = 0; d < PIPE_DEC_COUNT; d++) {
        const pipe_decorator_info *info = pipe_decorator_get((pipe_decorator)d);
        bool any = false;
        for (int i = 0; i < info->noptions; i++) {
            const pipe_option *o = &info->options[i];
            bool shown = o->emit == PIPE_EMIT_GIVEN ? pipe_option_given(o, inv) : pipe_option_is_set(o, inv);
            if (!shown || in_words(o))
                continue;
            printf(any ? ", " : "    @%-12s", info->name);
            print_option(o, inv);
            any = true;
        }
        if (any)
            putchar('\n');
    }
}

static void print_invocation(const pipe_manifest *m, const pipe_minvocation *inv)
{
    const pipe_mstep *s = &m->steps[inv->step];
    char buf[64];
    printf("  %s\n", inv->id);
    if (pipe_step_is_command(s)) {
        printf("    step         %s (runs", s->name);
        for (size_t k = 0; k < s->ncommand; k++)
            printf(" %s", s->command[k]);
        printf(" in %s)\n", s->workdir);
    } else {
        printf("    step         %s (entry %s)%s\n", s->name, s->entry, s->needs_cuda ? ", CUDA" : "");
    }
    if (s->nlibraries) {
        printf("    libraries    ");
        for (size_t k = 0; k < s->nlibraries; k++)
            printf("%s%s", k ? ", " : "", s->libraries[k]);
        putchar('\n');
    }
    if (s->description)
        printf("    description  %s\n", s->description);
    printf("    needs        ");
    if (inv->nneeds == 0)
        printf("nothing");
    for (size_t k = 0; k < inv->nneeds; k++)
        printf("%s%s", k ? ", " : "", m->invocations[inv->needs[k]].id);
    putchar('\n');
    if (inv->nargs > 0) {
        printf("    args         ");
        for (size_t k = 0; k < inv->nargs; k++) {
            const pipe_marg *a = &inv->args[k];
            printf("%s%s = ", k ? ", " : "", a->name);
            switch (a->kind) {
            case PIPE_ARG_ARTIFACT:
                printf("%s.%s", m->invocations[a->producer].id,
                       m->steps[m->invocations[a->producer].step].outputs[a->output].name);
                break;
            case PIPE_ARG_PARAM: printf("params.%s", a->value); break;
            case PIPE_ARG_VALUE:
                printf(s->params[k].type == PIPE_TYPE_STRING ? "\"%s\"" : "%s", a->value);
                break;
            case PIPE_ARG_DEFAULT:
                printf(s->params[k].type == PIPE_TYPE_STRING ? "\"%s\" (default)" : "%s (default)", a->value);
                break;
            }
        }
        putchar('\n');
    }
    if (s->noutputs > 0) {
        printf("    outputs      ");
        for (size_t k = 0; k < s->noutputs; k++)
            printf("%s%s: %s", k ? ", " : "", s->outputs[k].name, s->outputs[k].type_name);
        putchar('\n');
    }
    print_resources(&inv->resources);
    if (inv->accelerate.enabled) {
        const pipe_accelerate *a = &inv->accelerate;
        char coll[64];
        pipe_format_duration(a->rdzv_timeout_ms, buf, sizeof buf);
        pipe_format_duration(a->collective_timeout_ms, coll, sizeof coll);
        printf("    accelerate   %" PRId64 " process%s on %" PRId64 " machine%s, %s, mixed_precision %s, "
               "main_process_port %" PRId64 "%s, gpu_ids %s, max_restarts %" PRId64 ", rdzv_timeout %s, "
               "collective_timeout %s\n",
               a->num_processes, a->num_processes == 1 ? "" : "es", a->num_machines, a->num_machines == 1 ? "" : "s",
               a->cpu ? "cpu" : a->multi_gpu ? "multi_gpu" : "single device",
               a->mixed_precision, a->main_process_port,
               a->main_process_port ? "" : " (free ports)", a->gpu_ids ? a->gpu_ids : "all",
               a->max_restarts, buf, coll);
    }
    printf("    image        %s\n", inv->image.parent ? inv->image.parent : "none");
    if (inv->timeout_ms > 0) {
        pipe_format_duration(inv->timeout_ms, buf, sizeof buf);
        printf("    timeout      %s\n", buf);
    } else {
        printf("    timeout      none\n");
    }
    if (inv->retry_max > 0) {
        pipe_format_duration(inv->retry_delay_ms, buf, sizeof buf);
        printf("    retry        %" PRId64 " more attempt%s", inv->retry_max, inv->retry_max == 1 ? "" : "s");
        if (inv->retry_delay_ms > 0)
            printf(", %s apart", buf);
        putchar('\n');
    } else {
        printf("    retry        none\n");
    }
    printf("    cache        %s\n", s->cache ? "on" : "off");
    if (inv->cleanup_memory)
        printf("    cleanup      release CUDA caches before the step\n");
    if (inv->profile_interval_ms > 0) {
        pipe_format_duration(inv->profile_interval_ms, buf, sizeof buf);
        printf("    gpu_profile  every %s\n", buf);
    }
    print_other_options(inv);
    if (s->nenvironment > 0) {
        printf("    environment  ");
        for (size_t k = 0; k < s->nenvironment; k++)
            printf("%s%s=%s", k ? ", " : "", s->environment[k].key, s->environment[k].value);
        putchar('\n');
    }
}

void pipe_describe_print(const pipe_manifest *m)
{
    printf("pipeline %s", m->pipeline);
    if (m->source)
        printf(" (from %s)", m->source);
    printf("\n\nparameters:\n");
    if (m->nparams == 0)
        printf("  none\n");
    int w = 0;
    for (size_t i = 0; i < m->nparams; i++)
        if ((int)strlen(m->params[i].name) > w)
            w = (int)strlen(m->params[i].name);
    for (size_t i = 0; i < m->nparams; i++) {
        const pipe_mparam *p = &m->params[i];
        printf("  %-*s  %-6s  ", w, p->name, type_word(p));
        if (!p->default_value)
            printf("required\n");
        else
            printf(p->type == PIPE_TYPE_STRING ? "default \"%s\"\n" : "default %s\n", p->default_value);
    }
    printf("\ninvocations (%zu, in run order):\n", m->ninvocations);
    for (size_t i = 0; i < m->ninvocations; i++)
        print_invocation(m, &m->invocations[i]);
}
