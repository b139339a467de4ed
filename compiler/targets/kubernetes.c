/* kubernetes/<pipeline>.yaml (docs/deploy-kubernetes.md): per invocation a
   batch/v1 Job (an Indexed Job with a headless Service when it runs on
   several machines), then an Argo Workflows Workflow whose DAG creates those
   Jobs in order. Written with libyaml's emitter; strings from the .pipe file
   are quoted unless plainly safe, object names are sanitized (k8s_names.h),
   and inside the Workflow every "{{" is kept away from Argo's templating. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gen/bundle.h"
#include "targets.h"
#include "k8s_names.h"
#include "pipe/base.h"
#include "gen/yaml_emit.h"

#define STORE_PATH "/pipe-store"
#define STORE_CLAIM "pipe-store" /* the default PersistentVolumeClaim */
#define CONTAINER "step"
#define LABEL_PIPELINE "pipec/pipeline"
#define LABEL_INVOCATION "pipec/invocation"
#define LABEL_RUN "pipec/run-id"
#define DEADLINE_SLACK_S 60 /* per attempt: pod start, the runtime's kill grace */
/* @checkpoint: what the runtime needs after its ranks' grace (stop them,
   write step.yaml) before the kubelet's SIGKILL. */
#define STOP_SLACK_S 15

typedef struct k8s_inv {
    const pipe_minvocation *inv;
    const char *name;         /* Argo task and template name, invocation label value */
    const char *job;          /* Job name; also the headless Service's */
    const char *service_task; /* Argo task applying the Service; NULL on one machine */
    int64_t machines;
} k8s_inv;

typedef struct k8s_gen {
    bundle *b;
    yaml_out *em;
    bool argo; /* writing a manifest for the Workflow */
    const char *pl_label, *configmap, *dag_name;
    k8s_inv *invs;
    size_t ninvs;
} k8s_gen;

static void scalar(yaml_out *em, const char *s, yaml_scalar_style_t style) { pipe_yw_scalar(em, s, style); }

/* Argo expands "{{...}}" anywhere in a resource manifest and has no escape
   for it; "{{='{'+'{'}}" is an expression tag whose value is "{{". Every
   "{{" is replaced, left to right, so none is left for Argo to expand. */
static void argo_guard(strbuf *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            sb_puts(out, "{{='{'+'{'}}");
            p++;
        } else {
            sb_putc(out, *p);
        }
    }
}

/* A string that may come from the .pipe file. Double quotes unless plainly
   safe: they keep every byte (escapes for control characters), and inside the
   Workflow they keep argo_guard's quotes as written. */
static void str(k8s_gen *g, const char *s)
{
    if (g->argo && strstr(s, "{{")) {
        strbuf sb = STRBUF_INIT;
        argo_guard(&sb, s);
        scalar(g->em, sb_cstr(&sb), YAML_DOUBLE_QUOTED_SCALAR_STYLE);
        sb_free(&sb);
        return;
    }
    scalar(g->em, s, ye_plain_ok(s) ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void kv_str(k8s_gen *g, const char *key, const char *value)
{
    ye_scalar(g->em, key);
    str(g, value);
}

/* Argo's own placeholders ("{{workflow.name}}"): never guarded. */
static void kv_argo(k8s_gen *g, const char *key, const char *value)
{
    ye_scalar(g->em, key);
    scalar(g->em, value, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

/* A value passed through as written (tolerations): maps and lists in block
   style, strings through str(), numbers and bools plain. */
static void value(k8s_gen *g, const pipe_mvalue *v)
{
    switch (v->kind) {
    case PIPE_MV_LIST:
        ye_seq_start(g->em, false);
        for (size_t i = 0; i < v->n; i++)
            value(g, &v->items[i]);
        ye_seq_end(g->em);
        break;
    case PIPE_MV_MAP:
        ye_map_start(g->em, false);
        for (size_t i = 0; i < v->n; i++) {
            str(g, v->keys[i]);
            value(g, &v->items[i]);
        }
        ye_map_end(g->em);
        break;
    case PIPE_MV_STRING: str(g, v->text); break;
    case PIPE_MV_SCALAR: ye_scalar(g->em, v->text); break;
    }
}

/* Bytes as a Kubernetes quantity: "16GB" -> "16G", "512MiB" -> "512Mi". */
static void quantity_bytes(char *buf, size_t n, uint64_t bytes)
{
    char size[32];
    pipe_format_size(bytes, size, sizeof size);
    size_t len = strlen(size);
    if (len > 3 && strcmp(size + len - 2, "iB") == 0) {
        size[len - 1] = '\0'; /* KiB -> Ki */
    } else if (len > 2 && size[len - 1] == 'B' && strchr("KMGTP", size[len - 2])) {
        size[len - 1] = '\0'; /* GB -> G; Kubernetes spells kilo `k` */
        if (size[len - 2] == 'K')
            size[len - 2] = 'k';
    } else if (len > 1 && size[len - 1] == 'B') {
        size[len - 1] = '\0'; /* plain bytes */
    }
    snprintf(buf, n, "%s", size);
}

/* CPUs: whole numbers as they are, else millicores rounded up. */
static void quantity_cpu(char *buf, size_t n, double cpu)
{
    if (cpu == floor(cpu) && cpu < 1e12)
        snprintf(buf, n, "%.0f", cpu);
    else
        snprintf(buf, n, "%.0fm", ceil(cpu * 1000.0 - 1e-6));
}

/* backoffLimit and the failure condition: an int32 field. */
static long long retry_limit(const pipe_minvocation *inv)
{
    return inv->retry_max < INT32_MAX ? (long long)inv->retry_max : INT32_MAX;
}

typedef enum { LABELS, LABELS_OF_RUN, SELECTOR } label_kind;

/* Objects of one run (Jobs and their pods made by the Workflow) also carry
   the run's id; the selector picks the pods of every run. */
static void labels(k8s_gen *g, const k8s_inv *ki, label_kind kind)
{
    ye_scalar(g->em, kind == SELECTOR ? "selector" : "labels");
    ye_map_start(g->em, false);
    kv_str(g, "app.kubernetes.io/managed-by", "pipec");
    kv_str(g, LABEL_PIPELINE, g->pl_label);
    if (ki)
        kv_str(g, LABEL_INVOCATION, ki->name);
    if (kind == LABELS_OF_RUN)
        kv_argo(g, LABEL_RUN, "{{workflow.name}}");
    ye_map_end(g->em);
}

/* The headless Service that gives an Indexed Job's pods their DNS names. */
static void emit_service(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const char *ns = ki->inv->kubernetes.namespace_;
    ye_map_start(em, false);
    ye_kv(em, "apiVersion", "v1");
    ye_kv(em, "kind", "Service");
    ye_scalar(em, "metadata");
    ye_map_start(em, false);
    kv_str(g, "name", ki->job);
    if (ns)
        kv_str(g, "namespace", ns);
    labels(g, ki, LABELS); /* shared by every run */
    ye_map_end(em);
    ye_scalar(em, "spec");
    ye_map_start(em, false);
    ye_kv(em, "clusterIP", "None");
    ye_kv_bool(em, "publishNotReadyAddresses", true);
    labels(g, ki, SELECTOR);
    /* MASTER_PORT for the step's framework (torch.distributed), and the
       port above it for pipe's own rendezvous. */
    int64_t port = ki->inv->accelerate.main_process_port;
    if (port > 0) {
        static const char *const names[] = {"main-process", "rendezvous"};
        ye_scalar(em, "ports");
        ye_seq_start(em, false);
        for (int k = 0; k < 2; k++) {
            ye_map_start(em, false);
            ye_kv(em, "name", names[k]);
            ye_kv_int(em, "port", (long long)(port + k));
            ye_kv(em, "protocol", "TCP");
            ye_map_end(em);
        }
        ye_seq_end(em);
    }
    ye_map_end(em);
    ye_map_end(em);
}

static void env_value(k8s_gen *g, const char *name, const char *v)
{
    ye_map_start(g->em, false);
    kv_str(g, "name", name);
    kv_str(g, "value", v);
    ye_map_end(g->em);
}

/* A variable from the pod's own fields (the downward API). */
static void env_field(k8s_gen *g, const char *name, const char *path)
{
    yaml_out *em = g->em;
    ye_map_start(em, false);
    kv_str(g, "name", name);
    ye_scalar(em, "valueFrom");
    ye_map_start(em, false);
    ye_scalar(em, "fieldRef");
    ye_map_start(em, false);
    kv_str(g, "fieldPath", path);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
}

static void emit_env(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    ye_scalar(em, "env");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    kv_str(g, "name", "PIPE_RUN_ID");
    if (g->argo) {
        kv_argo(g, "value", "{{workflow.name}}");
    } else {
        ye_scalar(em, "valueFrom");
        ye_map_start(em, false);
        ye_scalar(em, "configMapKeyRef");
        ye_map_start(em, false);
        kv_str(g, "name", g->configmap);
        kv_str(g, "key", "run-id");
        ye_map_end(em);
        ye_map_end(em);
    }
    ye_map_end(em);
    env_value(g, "PIPE_STORE", STORE_PATH);
    if (ki->machines > 1) {
        /* Pod i of an Indexed Job is <job>-i under the Service; the runtime
           reads its machine rank from JOB_COMPLETION_INDEX. The Job's uid,
           which its pods share, is the rendezvous token. */
        env_field(g, "PIPE_JOB_NAME", "metadata.labels['job-name']");
        env_field(g, "PIPE_RDZV_TOKEN", "metadata.labels['controller-uid']");
        env_value(g, "MASTER_ADDR", arena_printf(g->b->arena, "$(PIPE_JOB_NAME)-0.%s", ki->job));
        env_value(g, "MASTER_PORT", arena_printf(g->b->arena, "%lld", (long long)ki->inv->accelerate.main_process_port));
    }
    ye_seq_end(em);
}

static void emit_resources(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_resources *r = &ki->inv->resources;
    double cpu = r->cpu;
    uint64_t memory = r->memory, disk = r->disk, shm = r->shm;
    int64_t gpu = r->gpu;
    const char *vendor = ki->inv->kubernetes.gpu_vendor;
    bool any_request = cpu > 0 || memory || disk;
    if (!any_request && gpu <= 0)
        return;
    char q[64];
    ye_scalar(em, "resources");
    ye_map_start(em, false);
    if (any_request) {
        ye_scalar(em, "requests");
        ye_map_start(em, false);
        if (cpu > 0) {
            quantity_cpu(q, sizeof q, cpu);
            kv_str(g, "cpu", q);
        }
        if (memory) {
            quantity_bytes(q, sizeof q, memory);
            kv_str(g, "memory", q);
        }
        if (disk) {
            quantity_bytes(q, sizeof q, disk);
            kv_str(g, "ephemeral-storage", q);
        }
        ye_map_end(em);
    }
    if (cpu > 0 || memory || gpu > 0) {
        ye_scalar(em, "limits");
        ye_map_start(em, false);
        if (cpu > 0) {
            quantity_cpu(q, sizeof q, cpu);
            kv_str(g, "cpu", q);
        }
        if (memory) {
            /* /dev/shm is memory the container's limit is charged for. */
            quantity_bytes(q, sizeof q, memory + shm);
            kv_str(g, "memory", q);
        }
        if (gpu > 0) {
            snprintf(q, sizeof q, "%lld", (long long)gpu);
            kv_str(g, strcmp(vendor, "amd") == 0 ? "amd.com/gpu" : "nvidia.com/gpu", q);
        }
        ye_map_end(em);
    }
    ye_map_end(em);
}

/* The GPU model label first (unless node_selector sets that key itself),
   then node_selector as written. */
static void emit_node_selector(k8s_gen *g, const k8s_inv *ki)
{
    const pipe_mkubernetes *k = &ki->inv->kubernetes;
    const char *type = ki->inv->resources.gpu_type;
    const char *gpu_key = NULL;
    if (type && pipe_invocation_needs_gpu(ki->inv)) {
        gpu_key = strcmp(k->gpu_vendor, "amd") == 0 ? "amd.com/gpu.product-name" : "nvidia.com/gpu.product";
        for (size_t i = 0; i < k->nnode_selector; i++)
            if (strcmp(k->node_selector[i].key, gpu_key) == 0)
                gpu_key = NULL;
    }
    if (!gpu_key && !k->nnode_selector)
        return;
    ye_scalar(g->em, "nodeSelector");
    ye_map_start(g->em, false);
    if (gpu_key)
        kv_str(g, gpu_key, type);
    for (size_t i = 0; i < k->nnode_selector; i++) {
        str(g, k->node_selector[i].key);
        str(g, k->node_selector[i].value);
    }
    ye_map_end(g->em);
}

static void emit_pod_spec(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_mkubernetes *k = &ki->inv->kubernetes;
    uint64_t shm = ki->inv->resources.shm;
    const char *image = bundle_image_of(g->b, ki->inv)->ref;
    char q[64];

    ye_map_start(em, false);
    ye_kv(em, "restartPolicy", "Never");
    /* The kubelet's SIGTERM goes to the container's first process, the
       bundle's `step`, which gives its ranks the grace to save. */
    if (ki->inv->checkpoint.enabled)
        ye_kv_uint(em, "terminationGracePeriodSeconds",
                   (unsigned long long)(invocation_grace_s(ki->inv) + STOP_SLACK_S));
    if (k->service_account)
        kv_str(g, "serviceAccountName", k->service_account);
    if (ki->machines > 1)
        kv_str(g, "subdomain", ki->job);
    emit_node_selector(g, ki);
    if (k->tolerations.n) {
        ye_scalar(em, "tolerations");
        value(g, &k->tolerations);
    }
    ye_scalar(em, "containers");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    kv_str(g, "name", CONTAINER);
    if (g->argo)
        kv_argo(g, "image", arena_printf(g->b->arena, "{{workflow.parameters.image-prefix}}%s", image));
    else
        kv_str(g, "image", image);
    ye_kv(em, "imagePullPolicy", "IfNotPresent");
    /* The image's ENTRYPOINT is the bundle's executable. */
    ye_scalar(em, "args");
    ye_seq_start(em, true);
    const char *args[] = {"step", ki->inv->id, "--run-id", "$(PIPE_RUN_ID)", "--store", STORE_PATH};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        str(g, args[i]);
    ye_seq_end(em);
    emit_env(g, ki);
    emit_resources(g, ki);
    ye_scalar(em, "volumeMounts");
    ye_seq_start(em, false);
    ye_map_start(em, true);
    ye_kv(em, "name", "pipe-store");
    ye_kv(em, "mountPath", STORE_PATH);
    ye_map_end(em);
    if (shm) {
        ye_map_start(em, true);
        ye_kv(em, "name", "dshm");
        ye_kv(em, "mountPath", "/dev/shm");
        ye_map_end(em);
    }
    ye_seq_end(em);
    ye_map_end(em);
    ye_seq_end(em);

    ye_scalar(em, "volumes");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "name", "pipe-store");
    ye_scalar(em, "persistentVolumeClaim");
    ye_map_start(em, false);
    if (g->argo)
        kv_argo(g, "claimName", "{{workflow.parameters.store-claim}}");
    else
        kv_str(g, "claimName", STORE_CLAIM);
    ye_map_end(em);
    ye_map_end(em);
    if (shm) {
        ye_map_start(em, false);
        ye_kv(em, "name", "dshm");
        ye_scalar(em, "emptyDir");
        ye_map_start(em, false);
        ye_kv(em, "medium", "Memory");
        quantity_bytes(q, sizeof q, shm);
        kv_str(g, "sizeLimit", q);
        ye_map_end(em);
        ye_map_end(em);
    }
    ye_seq_end(em);
    ye_map_end(em);
}

/* Job-level backstop for @timeout, which the runtime enforces per attempt:
   every attempt may take the limit (and a stopped one @checkpoint's grace),
   plus the delays between them. */
static uint64_t deadline_seconds(const pipe_minvocation *inv)
{
    double limit_ms = (double)inv->timeout_ms + 1000.0 * (double)invocation_grace_s(inv);
    double attempts = (double)inv->retry_max + 1;
    double delay_ms = (double)inv->retry_delay_ms;
    double s = ceil((attempts * (limit_ms + DEADLINE_SLACK_S * 1000.0) + (attempts - 1) * delay_ms) / 1000.0);
    return s < 9e18 ? (uint64_t)s : (uint64_t)INT64_MAX; /* Kubernetes' field is an int64 */
}

/* @checkpoint: a pod that a preemption, an eviction or a node drain
   stopped (the DisruptionTarget condition) is replaced without counting
   against backoffLimit, and the replacement resumes from the checkpoint
   folder. podFailurePolicy needs restartPolicy: Never, which every pod here
   has; with it the Job creates the replacement once the old pod has ended
   (podReplacementPolicy: Failed, since Kubernetes 1.28). Argo's
   failureCondition reads status.failed, which such pods do not increase
   either. */
static void emit_pod_failure_policy(k8s_gen *g)
{
    yaml_out *em = g->em;
    ye_scalar(em, "podFailurePolicy");
    ye_map_start(em, false);
    ye_scalar(em, "rules");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "action", "Ignore");
    ye_scalar(em, "onPodConditions");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "type", "DisruptionTarget");
    kv_str(g, "status", "True"); /* a string: quoted, since YAML 1.1 reads True as a boolean */
    ye_map_end(em);
    ye_seq_end(em);
    ye_map_end(em);
    ye_seq_end(em);
    ye_map_end(em);
}

static void emit_job(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_minvocation *inv = ki->inv;
    const pipe_mstep *step = bundle_step_of(g->b, inv);
    ye_map_start(em, false);
    ye_kv(em, "apiVersion", "batch/v1");
    ye_kv(em, "kind", "Job");
    ye_scalar(em, "metadata");
    ye_map_start(em, false);
    if (g->argo)
        kv_str(g, "generateName", arena_printf(g->b->arena, "%s-", ki->job));
    else
        kv_str(g, "name", ki->job);
    if (inv->kubernetes.namespace_)
        kv_str(g, "namespace", inv->kubernetes.namespace_);
    labels(g, ki, g->argo ? LABELS_OF_RUN : LABELS);
    ye_scalar(em, "annotations");
    ye_map_start(em, false);
    kv_str(g, "pipec/step", step->name);
    if (step->description)
        kv_str(g, "pipec/description", step->description);
    ye_map_end(em);
    ye_map_end(em);

    ye_scalar(em, "spec");
    ye_map_start(em, false);
    ye_kv_int(em, "backoffLimit", retry_limit(inv));
    if (inv->checkpoint.enabled)
        emit_pod_failure_policy(g);
    if (inv->timeout_ms)
        ye_kv_uint(em, "activeDeadlineSeconds", (unsigned long long)deadline_seconds(inv));
    if (ki->machines > 1) {
        ye_kv(em, "completionMode", "Indexed");
        ye_kv_int(em, "completions", (long long)ki->machines);
        ye_kv_int(em, "parallelism", (long long)ki->machines);
    }
    ye_scalar(em, "template");
    ye_map_start(em, false);
    ye_scalar(em, "metadata");
    ye_map_start(em, false);
    labels(g, ki, g->argo ? LABELS_OF_RUN : LABELS);
    ye_map_end(em);
    ye_scalar(em, "spec");
    emit_pod_spec(g, ki);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
}

/* One object as the text of a resource template's `manifest`. */
static int manifest_text(k8s_gen *g, const k8s_inv *ki, bool service, strbuf *out, char *err, size_t errsize)
{
    yaml_out inner;
    if (!ye_open(&inner, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    yaml_out *outer = g->em;
    g->em = &inner;
    g->argo = true;
    ye_doc_start(&inner, false);
    if (service)
        emit_service(g, ki);
    else
        emit_job(g, ki);
    ye_doc_end(&inner);
    g->em = outer;
    g->argo = false;
    return ye_close(&inner, "a Workflow manifest", err, errsize);
}


static void emit_dag(k8s_gen *g)
{
    yaml_out *em = g->em;
    ye_map_start(em, false);
    kv_str(g, "name", g->dag_name);
    ye_scalar(em, "dag");
    ye_map_start(em, false);
    ye_scalar(em, "tasks");
    ye_seq_start(em, false);
    for (size_t i = 0; i < g->ninvs; i++) {
        const k8s_inv *ki = &g->invs[i];
        if (ki->service_task) {
            ye_map_start(em, false);
            kv_str(g, "name", ki->service_task);
            kv_str(g, "template", ki->service_task);
            ye_map_end(em);
        }
        ye_map_start(em, false);
        kv_str(g, "name", ki->name);
        kv_str(g, "template", ki->name);
        if (ki->inv->nneeds || ki->service_task) {
            ye_scalar(em, "dependencies");
            ye_seq_start(em, true);
            for (size_t k = 0; k < ki->inv->nneeds; k++)
                str(g, g->invs[ki->inv->needs[k]].name);
            if (ki->service_task)
                str(g, ki->service_task);
            ye_seq_end(em);
        }
        ye_map_end(em);
    }
    ye_seq_end(em);
    ye_map_end(em);
    ye_map_end(em);
}

static void literal(yaml_out *em, const char *text) { scalar(em, text, YAML_LITERAL_SCALAR_STYLE); }

static int emit_resource_template(k8s_gen *g, const k8s_inv *ki, bool service, const char *wf_ns, char *err,
                                  size_t errsize)
{
    yaml_out *em = g->em;
    const pipe_minvocation *inv = ki->inv;
    strbuf manifest = STRBUF_INIT;
    if (manifest_text(g, ki, service, &manifest, err, errsize) != 0) {
        sb_free(&manifest);
        return -1;
    }
    ye_map_start(em, false);
    kv_str(g, "name", service ? ki->service_task : ki->name);
    ye_scalar(em, "resource");
    ye_map_start(em, false);
    if (service) {
        /* Shared by every run of the pipeline: applied, never owned. */
        ye_kv(em, "action", "apply");
    } else {
        ye_kv(em, "action", "create");
        /* The Workflow owns its Jobs, unless they live in another namespace
           (an owner in another namespace would get them deleted at once). */
        const char *ns = inv->kubernetes.namespace_;
        ye_kv_bool(em, "setOwnerReference", !ns || (wf_ns && strcmp(ns, wf_ns) == 0));
        char cond[64];
        snprintf(cond, sizeof cond, "status.succeeded > %lld", (long long)(ki->machines - 1));
        kv_str(g, "successCondition", cond);
        snprintf(cond, sizeof cond, "status.failed > %lld", retry_limit(inv));
        kv_str(g, "failureCondition", cond);
    }
    ye_scalar(em, "manifest");
    literal(em, sb_cstr(&manifest));
    ye_map_end(em);
    ye_map_end(em);
    sb_free(&manifest);
    return 0;
}

static int emit_workflow(k8s_gen *g, char *err, size_t errsize)
{
    yaml_out *em = g->em;
    const char *ns = g->b->model->workflow_namespace;
    strbuf prefix = STRBUF_INIT;
    k8s_sanitize(&prefix, g->b->mf->pipeline, K8S_LABEL_MAX - 6);
    sb_putc(&prefix, '-');

    ye_map_start(em, false);
    ye_kv(em, "apiVersion", "argoproj.io/v1alpha1");
    ye_kv(em, "kind", "Workflow");
    ye_scalar(em, "metadata");
    ye_map_start(em, false);
    kv_str(g, "generateName", sb_cstr(&prefix));
    if (ns)
        kv_str(g, "namespace", ns);
    labels(g, NULL, LABELS);
    ye_map_end(em);
    ye_scalar(em, "spec");
    ye_map_start(em, false);
    kv_str(g, "entrypoint", g->dag_name);
    ye_scalar(em, "arguments");
    ye_map_start(em, false);
    ye_scalar(em, "parameters");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "name", "store-claim");
    kv_str(g, "value", STORE_CLAIM);
    ye_map_end(em);
    ye_map_start(em, false);
    ye_kv(em, "name", "image-prefix");
    kv_str(g, "value", "");
    ye_map_end(em);
    ye_seq_end(em);
    ye_map_end(em);
    ye_scalar(em, "templates");
    ye_seq_start(em, false);
    emit_dag(g);
    int rc = 0;
    for (size_t i = 0; i < g->ninvs && rc == 0; i++) {
        if (g->invs[i].service_task)
            rc = emit_resource_template(g, &g->invs[i], true, ns, err, errsize);
        if (rc == 0)
            rc = emit_resource_template(g, &g->invs[i], false, ns, err, errsize);
    }
    ye_seq_end(em);
    ye_map_end(em);
    ye_map_end(em);
    sb_free(&prefix);
    return rc;
}

/* Names: Argo tasks (the DAG template's name first, so no invocation takes
   it), Jobs and Services, labels. */
static void name_invocations(k8s_gen *g)
{
    arena *a = g->b->arena;
    const pipe_manifest *m = g->b->mf;
    k8s_names tasks, jobs;
    k8s_names_init(&tasks, a);
    k8s_names_init(&jobs, a);
    g->dag_name = k8s_name(&tasks, "pipeline", K8S_LABEL_MAX);
    g->ninvs = m->ninvocations;
    g->invs = arena_alloc(a, sizeof *g->invs * (g->ninvs ? g->ninvs : 1));
    for (size_t i = 0; i < g->ninvs; i++) {
        k8s_inv *ki = &g->invs[i];
        ki->inv = &m->invocations[i];
        ki->name = k8s_name(&tasks, ki->inv->id, K8S_LABEL_MAX);
        ki->job = k8s_name(&jobs, arena_printf(a, "%s-%s", m->pipeline, ki->inv->id), K8S_JOB_NAME_MAX);
        ki->machines = invocation_machines(ki->inv);
    }
    for (size_t i = 0; i < g->ninvs; i++) {
        k8s_inv *ki = &g->invs[i];
        if (ki->machines > 1)
            ki->service_task = k8s_name(&tasks, arena_printf(a, "%s-service", ki->inv->id), K8S_LABEL_MAX);
    }
    k8s_names_free(&tasks);
    k8s_names_free(&jobs);
    strbuf sb = STRBUF_INIT;
    k8s_sanitize(&sb, m->pipeline, K8S_LABEL_MAX);
    g->pl_label = arena_strdup(a, sb_cstr(&sb));
    sb_reset(&sb);
    k8s_sanitize(&sb, m->pipeline, K8S_LABEL_MAX - 4);
    sb_puts(&sb, "-run");
    g->configmap = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
}

static int gen_kubernetes(bundle *b, char *err, size_t errsize)
{
    k8s_gen g = {0};
    g.b = b;
    name_invocations(&g);
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "kubernetes/%s.yaml", b->mf->pipeline), false);
    bundle_banner(b, out, "#");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    g.em = &em;
    for (size_t i = 0; i < g.ninvs; i++) {
        if (g.invs[i].service_task) {
            ye_doc_start(&em, true);
            emit_service(&g, &g.invs[i]);
            ye_doc_end(&em);
        }
    }
    for (size_t i = 0; i < g.ninvs; i++) {
        ye_doc_start(&em, true);
        emit_job(&g, &g.invs[i]);
        ye_doc_end(&em);
    }
    ye_doc_start(&em, true);
    int rc = emit_workflow(&g, err, errsize);
    ye_doc_end(&em);
    /* After a failure the stream is unbalanced: keep the first message. */
    char scratch[8];
    int closed = ye_close(&em, "the Kubernetes manifest", rc ? scratch : err, rc ? sizeof scratch : errsize);
    return rc != 0 ? rc : closed;
}

const deploy_target target_kubernetes = {
    .name = "kubernetes",
    .summary = "kubernetes/<pipeline>.yaml: a Job per invocation and an Argo Workflow that runs them",
    .runs_containers = true,
    .pulls_images = true,
    .generate = gen_kubernetes,
};
