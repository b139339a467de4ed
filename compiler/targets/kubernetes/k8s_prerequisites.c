/* kubernetes/prerequisites/<pipeline>.yaml (docs/deploy-kubernetes.md,
   "Before the first run"): what the Jobs and the Workflow of
   kubernetes/<pipeline>.yaml need and do not create, applied once before
   them, in the store's namespace:
   - the artifact store, a ReadWriteMany PersistentVolumeClaim that every
     step's pods mount (shared by the pipelines of the namespace);
   - the run's ConfigMap, which the top-level Jobs read their run id and
     parameters from (without it their pods never start);
   - the service account the Workflow runs as, with a Role that lets Argo's
     executor create and watch the Jobs (and Services) and report its
     results, bound to it. */
#include <stdio.h>

#include "gen/yaml_emit.h"
#include "k8s_target.h"
#include "pipe/base.h"

/* The claim's size until someone edits it; the storage class is the
   cluster's default, which must provide ReadWriteMany volumes. */
#define STORE_SIZE "100Gi"
/* Where the binding's service account is when no namespace is known:
   where kubectl applies by default. */
#define DEFAULT_NAMESPACE "default"

static void quoted(yaml_out *em, const char *key, const char *value)
{
    ye_scalar(em, key);
    pipe_yw_scalar(em, value, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void metadata(yaml_out *em, const k8s_plan *p, const char *name, bool of_pipeline)
{
    ye_scalar(em, "metadata");
    ye_map_start(em, false);
    ye_kv_string(em, "name", name);
    if (p->store_ns)
        ye_kv_string(em, "namespace", p->store_ns);
    ye_scalar(em, "labels");
    ye_map_start(em, false);
    ye_kv(em, "app.kubernetes.io/managed-by", "pipec");
    if (of_pipeline)
        ye_kv_string(em, "pipec/pipeline", p->pl_label);
    ye_map_end(em);
    ye_map_end(em);
}

static void object(yaml_out *em, const k8s_plan *p, const char *api, const char *kind, const char *name,
                   bool of_pipeline)
{
    ye_map_start(em, false);
    ye_kv(em, "apiVersion", api);
    ye_kv(em, "kind", kind);
    metadata(em, p, name, of_pipeline);
}

static void words(yaml_out *em, const char *key, const char *const *list)
{
    ye_scalar(em, key);
    ye_seq_start(em, true);
    for (; *list; list++)
        pipe_yw_scalar(em, *list, **list ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    ye_seq_end(em);
}

static void rule(yaml_out *em, const char *group, const char *resource, const char *const *verbs)
{
    const char *const groups[] = {group, NULL}, *const resources[] = {resource, NULL};
    ye_map_start(em, false);
    words(em, "apiGroups", groups);
    words(em, "resources", resources);
    words(em, "verbs", verbs);
    ye_map_end(em);
}

static void emit_claim(yaml_out *em, const k8s_plan *p)
{
    static const char *const modes[] = {"ReadWriteMany", NULL};
    ye_doc_start(em, true);
    /* Not labelled with the pipeline: every pipeline of the namespace
       applies the same claim. */
    object(em, p, "v1", "PersistentVolumeClaim", K8S_STORE_CLAIM, false);
    ye_scalar(em, "spec");
    ye_map_start(em, false);
    words(em, "accessModes", modes);
    ye_scalar(em, "resources");
    ye_map_start(em, false);
    ye_scalar(em, "requests");
    ye_map_start(em, false);
    ye_kv(em, "storage", STORE_SIZE);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
    ye_doc_end(em);
}

/* The run id and each parameter's default; submit.sh applies one with the
   run's own. A parameter without a default has no key: a Job's pod waits
   for it (CreateContainerConfigError) until its deadline. */
static void emit_configmap(yaml_out *em, const k8s_plan *p)
{
    const pipe_manifest *m = p->b->mf;
    ye_doc_start(em, true);
    object(em, p, "v1", "ConfigMap", p->configmap, true);
    ye_scalar(em, "data");
    ye_map_start(em, false);
    quoted(em, K8S_RUN_ID_KEY, K8S_MANUAL_RUN_ID);
    for (size_t i = 0; i < m->nparams; i++)
        if (m->params[i].default_value)
            quoted(em, arena_printf(p->b->arena, K8S_PARAM_KEY_PREFIX "%s", m->params[i].name),
                   m->params[i].default_value);
    ye_map_end(em);
    ye_map_end(em);
    ye_doc_end(em);
}

/* Argo's executor in the Workflow's pods: since Argo 3.4 it reports through
   workflowtaskresults (Argo's documented minimum for the emissary
   executor); before, it patched its pod. The resource templates create the
   Jobs, read them until a condition holds, and apply the Services of
   multi-machine steps. */
static void emit_rbac(yaml_out *em, const k8s_plan *p)
{
    static const char *const task_results[] = {"create", "patch", NULL};
    static const char *const pods[] = {"get", "watch", "patch", NULL};
    static const char *const jobs[] = {"create", "get", "list", "watch", "patch", "delete", NULL};
    static const char *const services[] = {"get", "create", "patch", NULL};
    ye_doc_start(em, true);
    object(em, p, "v1", "ServiceAccount", p->service_account, true);
    ye_map_end(em);
    ye_doc_end(em);

    ye_doc_start(em, true);
    object(em, p, "rbac.authorization.k8s.io/v1", "Role", p->service_account, true);
    ye_scalar(em, "rules");
    ye_seq_start(em, false);
    rule(em, "argoproj.io", "workflowtaskresults", task_results);
    rule(em, "", "pods", pods);
    rule(em, "batch", "jobs", jobs);
    if (p->nservices)
        rule(em, "", "services", services);
    ye_seq_end(em);
    ye_map_end(em);
    ye_doc_end(em);

    ye_doc_start(em, true);
    object(em, p, "rbac.authorization.k8s.io/v1", "RoleBinding", p->service_account, true);
    ye_scalar(em, "roleRef");
    ye_map_start(em, false);
    ye_kv(em, "apiGroup", "rbac.authorization.k8s.io");
    ye_kv(em, "kind", "Role");
    ye_kv_string(em, "name", p->service_account);
    ye_map_end(em);
    ye_scalar(em, "subjects");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "kind", "ServiceAccount");
    ye_kv_string(em, "name", p->service_account);
    ye_kv_string(em, "namespace", p->store_ns ? p->store_ns : DEFAULT_NAMESPACE);
    ye_map_end(em);
    ye_seq_end(em);
    ye_map_end(em);
    ye_doc_end(em);
}

int k8s_gen_prerequisites(const k8s_plan *p, char *err, size_t errsize)
{
    bundle *b = p->b;
    const char *pipeline = b->mf->pipeline;
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "kubernetes/prerequisites/%s.yaml", pipeline), false);
    bundle_banner(b, out, "#");
    sb_printf(out, "# Apply once, before kubernetes/%s.yaml or kubernetes/submit.sh:\n"
                   "#   kubectl apply -f kubernetes/prerequisites/%s.yaml\n",
              pipeline, pipeline);
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    emit_claim(&em, p);
    emit_configmap(&em, p);
    emit_rbac(&em, p);
    return ye_close(&em, "the Kubernetes prerequisites", err, errsize);
}
