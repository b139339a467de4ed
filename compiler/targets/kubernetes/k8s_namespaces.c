/* W0409: the steps of a pipeline share one artifact store, which on
   Kubernetes is a PersistentVolumeClaim, with the run's ConfigMap beside it,
   in one namespace (kubernetes/prerequisites/<pipeline>.yaml). A pod mounts
   only claims of its own namespace, so a step whose @kubernetes(namespace)
   differs from the others' cannot read their outputs nor write its own. */
#include <string.h>

#include "k8s_target.h"

/* The namespace in force for an invocation (NULL: none written), and
   whether that is known for sure. */
static const char *namespace_of(const invocation *inv, bool *unsure)
{
    if (effective_uncertain(&inv->options, DEC_KUBERNETES, K8S_NAMESPACE))
        *unsure = true;
    opt_value v = effective_opt(&inv->options, DEC_KUBERNETES, K8S_NAMESPACE);
    return v.set && v.valid ? v.s : NULL;
}

static bool same(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* The namespace value written on the step itself, or NULL. */
static const opt_value *step_value(const invocation *inv)
{
    const decorator_inst *k = inv->step->decorators.by_id[DEC_KUBERNETES];
    const opt_value *v = k ? &k->opts[K8S_NAMESPACE] : NULL;
    return v && v->set && v->valid && v->expr ? v : NULL;
}

static void report(diag_engine *d, const pipeline_info *pl, const invocation *at, const invocation *other,
                   const opt_value *pipeline_ns, const char *other_ns)
{
    const opt_value *v = step_value(at);
    diagnostic *dg = diag_report(d, v->expr->sp, DIAG_W0409,
                                 "step `%s` runs in namespace \"%s\", apart from the other steps of pipeline `%s`",
                                 at->step->name, v->s, pl->name);
    diag_label(d, dg, "its Job goes to namespace \"%s\"", v->s);
    if (pipeline_ns)
        diag_note(d, dg, pipeline_ns->expr->sp, "the pipeline's steps run in namespace \"%s\"", pipeline_ns->s);
    else if (other_ns)
        diag_note(d, dg, step_value(other)->expr->sp, "step `%s` runs in namespace \"%s\"", other->step->name,
                  other_ns);
    else
        diag_note(d, dg, other->stmt->call->callee.sp,
                  "step `%s` sets no namespace: its Job goes to the namespace it is applied in", other->step->name);
    diag_help(d, dg, "the store's claim and the run's ConfigMap are in one namespace "
                     "(kubernetes/prerequisites/%s.yaml), and a pod mounts claims of its own namespace only: set "
                     "`@kubernetes(namespace = ...)` once, on the pipeline",
              pl->name);
}

void k8s_check_namespaces(diag_engine *d, const pipeline_info *pl)
{
    size_t n = pl->invocations.len;
    if (n < 2)
        return;
    bool unsure = false;
    const invocation *first = pl->invocations.items[0];
    const char *first_ns = namespace_of(first, &unsure);
    bool split = false;
    for (size_t i = 1; i < n; i++)
        split = split || !same(first_ns, namespace_of(pl->invocations.items[i], &unsure));
    if (!split || unsure)
        return;
    /* The pipeline's namespace is where the store is meant to be: the steps
       that leave it are at fault. Without one, the first step's. */
    const decorator_inst *pk = pl->decorators.by_id[DEC_KUBERNETES];
    const opt_value *pipeline_ns = pk && pk->opts[K8S_NAMESPACE].set && pk->opts[K8S_NAMESPACE].valid &&
                                           pk->opts[K8S_NAMESPACE].expr
                                       ? &pk->opts[K8S_NAMESPACE]
                                       : NULL;
    const char *ref = pipeline_ns ? pipeline_ns->s : first_ns;
    ptr_vec reported = {0}; /* step_info*: one warning per step */
    for (size_t i = 0; i < n; i++) {
        const invocation *inv = pl->invocations.items[i];
        bool dummy = false;
        const char *ns = namespace_of(inv, &dummy);
        if (same(ns, ref))
            continue;
        /* The step that wrote the odd namespace; when this one wrote none,
           the first step's namespace (its own) is the odd one. */
        const invocation *at = ns ? inv : first, *other = ns ? first : inv;
        const char *other_ns = ns ? first_ns : NULL;
        bool seen = false;
        for (size_t k = 0; k < reported.len; k++)
            seen = seen || reported.items[k] == at->step;
        if (seen || !step_value(at))
            continue;
        vec_push(d->arena, &reported, at->step);
        report(d, pl, at, other, pipeline_ns, other_ns);
    }
}
