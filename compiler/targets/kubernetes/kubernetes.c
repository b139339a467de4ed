/* kubernetes/<pipeline>.yaml (docs/deploy-kubernetes.md): per invocation a
   batch/v1 Job (an Indexed Job with a headless Service when it runs on
   several machines), then an Argo Workflows Workflow whose DAG creates those
   Jobs in order. Written with libyaml's emitter; strings from the .pipe file
   are quoted unless plainly safe, object names are sanitized (k8s_names.h),
   and inside the Workflow every "{{" is kept away from Argo's templating.
   The prerequisites and the submit script (k8s_target.h) share its names. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check/option_volumes.h"
#include "gen/bundle.h"
#include "gen/yaml_emit.h"
#include "hw/gpu_models.h"
#include "targets/k8s_names.h"
#include "k8s_target.h"
#include "pipe/base.h"
#include "pipe/settings.h"
#include "targets/targets.h"

#define STORE_PATH K8S_STORE_PATH
#define CONTAINER "step"
#define LABEL_PIPELINE "pipec/pipeline"
#define LABEL_INVOCATION "pipec/invocation"
#define LABEL_RUN "pipec/run-id"
#define DEADLINE_SLACK_S 60 /* per attempt: pod start, the runtime's kill grace */
/* A step without @timeout: how long one attempt may take before the Job's
   deadline fails it, so that no Job (a pod that never starts, an image that
   is never pulled) keeps a Workflow waiting forever. */
#define DEFAULT_ATTEMPT_S (7 * 24 * 3600)
/* @checkpoint: what the runtime needs after its ranks' grace (stop them,
   write step.yaml) before the kubelet's SIGKILL. */
#define STOP_SLACK_S 15
/* The image's user and group (templates/Dockerfile.tmpl). */
#define IMAGE_UID 10001
/* Job conditions that Argo's failure condition looks for: the Job
   controller appends them in order (Suspended, FailureTarget before
   Failed), so Failed is one of the first few. */
#define FAILED_CONDITION_SLOTS 5

typedef struct k8s_gen {
    k8s_plan plan;
    bundle *b;
    yaml_out *em;
    bool argo; /* writing a manifest for the Workflow */
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
static void str_styled(k8s_gen *g, const char *s, bool always_quoted)
{
    if (g->argo && strstr(s, "{{")) {
        strbuf sb = STRBUF_INIT;
        argo_guard(&sb, s);
        scalar(g->em, sb_cstr(&sb), YAML_DOUBLE_QUOTED_SCALAR_STYLE);
        sb_free(&sb);
        return;
    }
    bool plain = !always_quoted && ye_plain_ok(s);
    scalar(g->em, s, plain ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void str(k8s_gen *g, const char *s) { str_styled(g, s, false); }

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

/* backoffLimit: an int32 field. */
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
    kv_str(g, LABEL_PIPELINE, g->plan.pl_label);
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

/* A variable from a key of the run's ConfigMap. */
static void env_from_run(k8s_gen *g, const char *name, const char *key)
{
    yaml_out *em = g->em;
    ye_map_start(em, false);
    kv_str(g, "name", name);
    ye_scalar(em, "valueFrom");
    ye_map_start(em, false);
    ye_scalar(em, "configMapKeyRef");
    ye_map_start(em, false);
    kv_str(g, "name", g->plan.configmap);
    kv_str(g, "key", key);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
}

/* Inside the Workflow, a parameter's value as an Argo expression: the value
   given to `argo submit -p` as a YAML string (toJson writes a JSON string,
   which is also a double-quoted YAML scalar, escapes and all), with every
   `$` doubled so that Kubernetes' $(VAR) expansion of env values gives it
   back as written. The manifest holds the tag unquoted (unquote_tags), so
   that Argo's substitution puts the quoted string there. */
static const char *param_tag(arena *a, const char *name)
{
    return arena_printf(a, "{{=toJson(sprig.replace('$', '$$', workflow.parameters['%s']))}}", name);
}

static void emit_env(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_manifest *m = g->b->mf;
    ye_scalar(em, "env");
    ye_seq_start(em, false);
    if (g->argo) {
        ye_map_start(em, false);
        kv_str(g, "name", "PIPE_RUN_ID");
        kv_argo(g, "value", "{{workflow.name}}");
        ye_map_end(em);
    } else {
        env_from_run(g, "PIPE_RUN_ID", K8S_RUN_ID_KEY);
    }
    env_value(g, "PIPE_STORE", STORE_PATH);
    /* The pipeline's parameters, which the args pass on as --param. */
    for (size_t i = 0; i < m->nparams; i++) {
        const char *name = m->params[i].name;
        const char *var = arena_printf(g->b->arena, K8S_PARAM_ENV_PREFIX "%s", name);
        if (g->argo) {
            ye_map_start(em, false);
            kv_str(g, "name", var);
            kv_argo(g, "value", param_tag(g->b->arena, name));
            ye_map_end(em);
        } else {
            env_from_run(g, var, arena_printf(g->b->arena, K8S_PARAM_KEY_PREFIX "%s", name));
        }
    }
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

/* The device plugin whose GPUs a pod asks for: @kubernetes(gpu_vendor) when
   written, else the vendor of the known GPU model, else NVIDIA. */
static const char *gpu_vendor(const pipe_minvocation *inv)
{
    const pipe_mkubernetes *k = &inv->kubernetes;
    if (k->given & (1u << PIPE_K8S_GPU_VENDOR))
        return k->gpu_vendor;
    const gpu_model *known = inv->resources.gpu_type ? gpu_model_find(inv->resources.gpu_type) : NULL;
    return known ? known->vendor : "nvidia";
}

static void emit_resources(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_resources *r = &ki->inv->resources;
    double cpu = r->cpu;
    uint64_t memory = r->memory, disk = r->disk, shm = r->shm;
    int64_t gpu = r->gpu;
    /* Trainium and Inferentia devices alike: the AWS Neuron device plugin's
       resource (a step has one kind, E0210). */
    int64_t neuron = r->trainium + r->inferentia;
    const char *vendor = gpu_vendor(ki->inv);
    bool any_request = cpu > 0 || memory || disk;
    if (!any_request && gpu <= 0 && neuron <= 0)
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
    if (cpu > 0 || memory || gpu > 0 || neuron > 0) {
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
        if (neuron > 0) {
            snprintf(q, sizeof q, "%lld", (long long)neuron);
            kv_str(g, "aws.amazon.com/neuron", q);
        }
        ye_map_end(em);
    }
    ye_map_end(em);
}

/* @kubernetes(node_selector), as written. */
static void emit_node_selector(k8s_gen *g, const k8s_inv *ki)
{
    const pipe_mkubernetes *k = &ki->inv->kubernetes;
    if (!k->nnode_selector)
        return;
    ye_scalar(g->em, "nodeSelector");
    ye_map_start(g->em, false);
    for (size_t i = 0; i < k->nnode_selector; i++) {
        str(g, k->node_selector[i].key);
        str(g, k->node_selector[i].value);
    }
    ye_map_end(g->em);
}

/* The node labels that name the GPU model: every spelling pipec knows
   (gpu_models.h), else the GPU Feature Discovery label (AMD's labeller's
   for AMD) with the gpu_type as written. */
static size_t gpu_labels(const pipe_minvocation *inv, gpu_label *out, size_t max)
{
    const char *type = inv->resources.gpu_type;
    const gpu_model *known = gpu_model_find(type);
    size_t n = 0;
    if (known) {
        for (const gpu_label *l = known->labels; l->key && n < max; l++)
            out[n++] = *l;
    } else {
        bool amd = strcmp(gpu_vendor(inv), "amd") == 0;
        out[n++] = (gpu_label){amd ? "amd.com/gpu.product-name" : "nvidia.com/gpu.product", type};
    }
    return n;
}

/* A GPU step with a gpu_type: a required node affinity, one
   nodeSelectorTerm per label key (the terms are ORed: a node with any of
   the spellings qualifies), each with `In` and that key's values. A
   node_selector that names one of those keys has chosen the nodes itself:
   no affinity then. */
static void emit_affinity(k8s_gen *g, const k8s_inv *ki)
{
    const pipe_minvocation *inv = ki->inv;
    const pipe_mkubernetes *k = &inv->kubernetes;
    if (!inv->resources.gpu_type || !pipe_invocation_needs_gpu(inv))
        return;
    gpu_label labels[32];
    size_t n = gpu_labels(inv, labels, sizeof labels / sizeof labels[0]);
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < k->nnode_selector; s++)
            if (strcmp(k->node_selector[s].key, labels[i].key) == 0)
                return;
    yaml_out *em = g->em;
    ye_scalar(em, "affinity");
    ye_map_start(em, false);
    ye_scalar(em, "nodeAffinity");
    ye_map_start(em, false);
    ye_scalar(em, "requiredDuringSchedulingIgnoredDuringExecution");
    ye_map_start(em, false);
    ye_scalar(em, "nodeSelectorTerms");
    ye_seq_start(em, false);
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(labels[j].key, labels[i].key) != 0;
        if (!first)
            continue; /* its key's term is written */
        ye_map_start(em, false);
        ye_scalar(em, "matchExpressions");
        ye_seq_start(em, false);
        ye_map_start(em, false);
        kv_str(g, "key", labels[i].key);
        ye_kv(em, "operator", "In");
        ye_scalar(em, "values");
        ye_seq_start(em, false);
        for (size_t j = i; j < n; j++)
            if (strcmp(labels[j].key, labels[i].key) == 0)
                str(g, labels[j].value);
        ye_seq_end(em);
        ye_map_end(em);
        ye_seq_end(em);
        ye_map_end(em);
    }
    ye_seq_end(em);
    ye_map_end(em);
    ye_map_end(em);
    ye_map_end(em);
}

/* The image runs as its unprivileged user; volumes (the store's claim, a
   fresh one root-owned) are made writable to its group, by the kubelet, once
   (OnRootMismatch: not on every start of a large volume). */
static void emit_security_context(k8s_gen *g)
{
    yaml_out *em = g->em;
    ye_scalar(em, "securityContext");
    ye_map_start(em, false);
    ye_kv_bool(em, "runAsNonRoot", true);
    ye_kv_int(em, "runAsUser", IMAGE_UID);
    ye_kv_int(em, "runAsGroup", IMAGE_UID);
    ye_kv_int(em, "fsGroup", IMAGE_UID);
    ye_kv(em, "fsGroupChangePolicy", "OnRootMismatch");
    ye_map_end(em);
}

/* A list of {name: ...} maps: imagePullSecrets. */
static void name_refs(k8s_gen *g, const char *key, char *const *names, size_t n)
{
    if (!n)
        return;
    ye_scalar(g->em, key);
    ye_seq_start(g->em, false);
    for (size_t i = 0; i < n; i++) {
        ye_map_start(g->em, false);
        kv_str(g, "name", names[i]);
        ye_map_end(g->em);
    }
    ye_seq_end(g->em);
}

/* @kubernetes(secrets): every key of each Secret as a variable. */
static void emit_env_from(k8s_gen *g, const pipe_mkubernetes *k)
{
    if (!k->nsecrets)
        return;
    yaml_out *em = g->em;
    ye_scalar(em, "envFrom");
    ye_seq_start(em, false);
    for (size_t i = 0; i < k->nsecrets; i++) {
        ye_map_start(em, false);
        ye_scalar(em, "secretRef");
        ye_map_start(em, false);
        kv_str(g, "name", k->secrets[i]);
        ye_map_end(em);
        ye_map_end(em);
    }
    ye_seq_end(em);
}

/* The value of key in one map of @kubernetes(volumes) (the checker has
   checked the shape: option_volumes.c), or NULL. */
static const pipe_mvalue *volume_field(const pipe_mvalue *map, const char *key)
{
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i], key) == 0)
            return &map->items[i];
    return NULL;
}

static const char *volume_text(const pipe_mvalue *map, const char *key)
{
    const pipe_mvalue *v = volume_field(map, key);
    return v && v->kind == PIPE_MV_STRING ? v->text : NULL;
}

static bool volume_read_only(const pipe_mvalue *map)
{
    const pipe_mvalue *v = volume_field(map, "read_only");
    return v && v->kind == PIPE_MV_SCALAR && strcmp(v->text, "true") == 0;
}

/* A volume mount: a map in flow style. The Job's own (of pipec's names and
   paths) plain, the user's through str(). */
static void mount(k8s_gen *g, const char *name, const char *path, bool read_only, bool own)
{
    ye_map_start(g->em, true);
    if (own) {
        ye_kv(g->em, "name", name);
        ye_kv(g->em, "mountPath", path);
    } else {
        kv_str(g, "name", name);
        kv_str(g, "mountPath", path);
    }
    if (read_only)
        ye_kv_bool(g->em, "readOnly", true);
    ye_map_end(g->em);
}

static void emit_volume_mounts(k8s_gen *g, const k8s_inv *ki)
{
    const pipe_mvalue *vols = &ki->inv->kubernetes.volumes;
    ye_scalar(g->em, "volumeMounts");
    ye_seq_start(g->em, false);
    mount(g, K8S_VOLUME_STORE, STORE_PATH, false, true);
    if (ki->inv->resources.shm)
        mount(g, K8S_VOLUME_SHM, K8S_SHM_PATH, false, true);
    for (size_t i = 0; i < vols->n; i++) {
        const pipe_mvalue *v = &vols->items[i];
        mount(g, volume_text(v, "name"), volume_text(v, "path"), volume_read_only(v), false);
    }
    ye_seq_end(g->em);
}

static void emit_volumes(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_mvalue *vols = &ki->inv->kubernetes.volumes;
    uint64_t shm = ki->inv->resources.shm;
    char q[64];
    ye_scalar(em, "volumes");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "name", K8S_VOLUME_STORE);
    ye_scalar(em, "persistentVolumeClaim");
    ye_map_start(em, false);
    if (g->argo)
        kv_argo(g, "claimName", "{{workflow.parameters.store-claim}}");
    else
        kv_str(g, "claimName", K8S_STORE_CLAIM);
    ye_map_end(em);
    ye_map_end(em);
    if (shm) {
        ye_map_start(em, false);
        ye_kv(em, "name", K8S_VOLUME_SHM);
        ye_scalar(em, "emptyDir");
        ye_map_start(em, false);
        ye_kv(em, "medium", "Memory");
        quantity_bytes(q, sizeof q, shm);
        kv_str(g, "sizeLimit", q);
        ye_map_end(em);
        ye_map_end(em);
    }
    for (size_t i = 0; i < vols->n; i++) {
        const pipe_mvalue *v = &vols->items[i];
        const char *claim = volume_text(v, "claim");
        ye_map_start(em, false);
        kv_str(g, "name", volume_text(v, "name"));
        ye_scalar(em, claim ? "persistentVolumeClaim" : "hostPath");
        ye_map_start(em, false);
        if (claim) {
            kv_str(g, "claimName", claim);
            if (volume_read_only(v))
                ye_kv_bool(em, "readOnly", true);
        } else {
            kv_str(g, "path", volume_text(v, "host_path"));
        }
        ye_map_end(em);
        ye_map_end(em);
    }
    ye_seq_end(em);
}

static void emit_pod_spec(k8s_gen *g, const k8s_inv *ki)
{
    yaml_out *em = g->em;
    const pipe_mkubernetes *k = &ki->inv->kubernetes;
    const char *image = bundle_image_of(g->b, ki->inv)->ref;

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
    emit_security_context(g);
    emit_node_selector(g, ki);
    emit_affinity(g, ki);
    if (k->tolerations.n) {
        ye_scalar(em, "tolerations");
        value(g, &k->tolerations);
    }
    name_refs(g, "imagePullSecrets", k->image_pull_secrets, k->nimage_pull_secrets);
    ye_scalar(em, "containers");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    kv_str(g, "name", CONTAINER);
    /* Always double-quoted: submit.sh puts the registry in place of the
       placeholder on exactly these lines. The tag digests the image's
       content, so Kubernetes' default pull policy (IfNotPresent for a tag
       other than latest) runs the code the bundle was built from. */
    ye_scalar(em, "image");
    str_styled(g, image, true);
    /* The image's ENTRYPOINT is the bundle's executable; each parameter
       comes from its variable (emit_env), which Kubernetes expands here. */
    ye_scalar(em, "args");
    ye_seq_start(em, true);
    const char *args[] = {"step", ki->inv->id, "--run-id", "$(PIPE_RUN_ID)", "--store", STORE_PATH};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        str(g, args[i]);
    const pipe_manifest *m = g->b->mf;
    for (size_t i = 0; i < m->nparams; i++) {
        str(g, "--param");
        str(g, arena_printf(g->b->arena, "%s=$(" K8S_PARAM_ENV_PREFIX "%s)", m->params[i].name, m->params[i].name));
    }
    ye_seq_end(em);
    emit_env(g, ki);
    emit_env_from(g, k);
    emit_resources(g, ki);
    emit_volume_mounts(g, ki);
    ye_map_end(em);
    ye_seq_end(em);
    emit_volumes(g, ki);
    ye_map_end(em);
}

/* The Job's deadline: a backstop for @timeout, which the runtime enforces
   per attempt: every attempt may take the limit (and a stopped one
   @checkpoint's grace), plus the delays between them. Without @timeout an
   attempt may take DEFAULT_ATTEMPT_S: past the deadline the Job fails
   (condition Failed, reason DeadlineExceeded), whatever its pods were
   doing, and the Workflow's task with it. */
static uint64_t deadline_seconds(const pipe_minvocation *inv)
{
    double timeout_ms = inv->timeout_ms ? (double)inv->timeout_ms : DEFAULT_ATTEMPT_S * 1000.0;
    double limit_ms = timeout_ms + 1000.0 * (double)invocation_grace_s(inv);
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
   (podReplacementPolicy: Failed, since Kubernetes 1.28). Such pods do not
   fail the Job either, so Argo's task keeps waiting for the replacement. */
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

/* Replaces every `"TAG"` in text with TAG (no quotes). A tag starts with
   "{{=", which no string from the .pipe file holds in a manifest (str()
   guards every "{{"), so only the emitter's quotes around pipec's own tags
   match. */
static void unquote(strbuf *text, const char *tag)
{
    strbuf quoted = STRBUF_INIT, out = STRBUF_INIT;
    sb_printf(&quoted, "\"%s\"", tag);
    const char *p = sb_cstr(text), *hit;
    while ((hit = strstr(p, sb_cstr(&quoted)))) {
        sb_putn(&out, p, (size_t)(hit - p));
        sb_puts(&out, tag);
        p = hit + quoted.len;
    }
    sb_puts(&out, p);
    sb_reset(text);
    sb_putn(text, out.data, out.len);
    sb_free(&quoted);
    sb_free(&out);
}

/* The parameters' tags stand unquoted in a Job's manifest (param_tag). */
static void unquote_param_tags(k8s_gen *g, strbuf *manifest)
{
    const pipe_manifest *m = g->b->mf;
    for (size_t i = 0; i < m->nparams; i++)
        unquote(manifest, param_tag(g->b->arena, m->params[i].name));
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
    if (ye_close(&inner, "a Workflow manifest", err, errsize) != 0)
        return -1;
    if (!service)
        unquote_param_tags(g, out);
    return 0;
}


static void emit_dag(k8s_gen *g)
{
    yaml_out *em = g->em;
    ye_map_start(em, false);
    kv_str(g, "name", g->plan.dag_name);
    ye_scalar(em, "dag");
    ye_map_start(em, false);
    ye_scalar(em, "tasks");
    ye_seq_start(em, false);
    for (size_t i = 0; i < g->plan.ninvs; i++) {
        const k8s_inv *ki = &g->plan.invs[i];
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
                str(g, g->plan.invs[ki->inv->needs[k]].name);
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

/* When Argo's task of a Job is done. Argo reads each condition as a
   Kubernetes label selector whose keys are gjson paths into the Job, and
   validates the keys as label keys: no `#(...)` queries. So:
   - success: `status.completionTime` exists, which the Job controller sets
     with the Complete condition, and only then;
   - failure: the Failed condition at any of the first slots of
     status.conditions (the requirements of a failure condition are ORed),
     whatever made the Job fail: its backoffLimit, its deadline (an Indexed
     Job with some pods succeeded and others not), its podFailurePolicy. */
static void emit_conditions(k8s_gen *g)
{
    kv_str(g, "successCondition", "status.completionTime");
    strbuf failed = STRBUF_INIT;
    for (int i = 0; i < FAILED_CONDITION_SLOTS; i++)
        sb_printf(&failed, "%sstatus.conditions.%d.type == Failed", i ? "," : "", i);
    kv_str(g, "failureCondition", sb_cstr(&failed));
    sb_free(&failed);
}

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
        emit_conditions(g);
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
    const char *ns = g->plan.store_ns;
    const pipe_manifest *m = g->b->mf;
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
    kv_str(g, "entrypoint", g->plan.dag_name);
    /* Argo's executor creates the Jobs under this account
       (kubernetes/prerequisites/<pipeline>.yaml gives it its role). */
    kv_str(g, "serviceAccountName", g->plan.service_account);
    /* `argo submit -p NAME=VALUE`: the pipeline's parameters, with their
       defaults (none: Argo refuses the Workflow without -p), and the
       store's claim (a name with `-`, which no parameter has). */
    ye_scalar(em, "arguments");
    ye_map_start(em, false);
    ye_scalar(em, "parameters");
    ye_seq_start(em, false);
    ye_map_start(em, false);
    ye_kv(em, "name", "store-claim");
    ye_scalar(em, "value");
    scalar(em, K8S_STORE_CLAIM, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    ye_map_end(em);
    for (size_t i = 0; i < m->nparams; i++) {
        ye_map_start(em, false);
        kv_str(g, "name", m->params[i].name);
        if (m->params[i].default_value) {
            /* Always a string, as Argo keeps parameter values. */
            ye_scalar(em, "value");
            scalar(em, m->params[i].default_value, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
        }
        ye_map_end(em);
    }
    ye_seq_end(em);
    ye_map_end(em);
    ye_scalar(em, "templates");
    ye_seq_start(em, false);
    emit_dag(g);
    int rc = 0;
    for (size_t i = 0; i < g->plan.ninvs && rc == 0; i++) {
        if (g->plan.invs[i].service_task)
            rc = emit_resource_template(g, &g->plan.invs[i], true, ns, err, errsize);
        if (rc == 0)
            rc = emit_resource_template(g, &g->plan.invs[i], false, ns, err, errsize);
    }
    ye_seq_end(em);
    ye_map_end(em);
    ye_map_end(em);
    sb_free(&prefix);
    return rc;
}

static bool same_ns(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* The namespace of the store (k8s_plan.store_ns). */
static const char *store_namespace(const bundle *b)
{
    const pipe_manifest *m = b->mf;
    for (size_t i = 1; i < m->ninvocations; i++)
        if (!same_ns(m->invocations[i].kubernetes.namespace_, m->invocations[0].kubernetes.namespace_))
            return b->model->workflow_namespace;
    return m->ninvocations ? m->invocations[0].kubernetes.namespace_ : b->model->workflow_namespace;
}

/* Names: Argo tasks (the DAG template's name first, so no invocation takes
   it), Jobs and Services, labels, the run's ConfigMap, the Workflow's
   service account. */
static void name_invocations(k8s_gen *g)
{
    arena *a = g->b->arena;
    const pipe_manifest *m = g->b->mf;
    k8s_names tasks, jobs;
    k8s_names_init(&tasks, a);
    k8s_names_init(&jobs, a);
    g->plan.dag_name = k8s_name(&tasks, "pipeline", K8S_LABEL_MAX);
    g->plan.ninvs = m->ninvocations;
    g->plan.invs = arena_alloc(a, sizeof *g->plan.invs * (g->plan.ninvs ? g->plan.ninvs : 1));
    for (size_t i = 0; i < g->plan.ninvs; i++) {
        k8s_inv *ki = &g->plan.invs[i];
        ki->inv = &m->invocations[i];
        ki->name = k8s_name(&tasks, ki->inv->id, K8S_LABEL_MAX);
        ki->job = k8s_name(&jobs, arena_printf(a, "%s-%s", m->pipeline, ki->inv->id), K8S_JOB_NAME_MAX);
        ki->machines = invocation_machines(ki->inv);
    }
    for (size_t i = 0; i < g->plan.ninvs; i++) {
        k8s_inv *ki = &g->plan.invs[i];
        if (ki->machines > 1) {
            ki->service_task = k8s_name(&tasks, arena_printf(a, "%s-service", ki->inv->id), K8S_LABEL_MAX);
            g->plan.nservices++;
        }
    }
    k8s_names_free(&tasks);
    k8s_names_free(&jobs);
    strbuf sb = STRBUF_INIT;
    k8s_sanitize(&sb, m->pipeline, K8S_LABEL_MAX);
    g->plan.pl_label = arena_strdup(a, sb_cstr(&sb));
    sb_reset(&sb);
    k8s_sanitize(&sb, m->pipeline, K8S_LABEL_MAX - 4);
    sb_puts(&sb, "-run");
    g->plan.configmap = arena_strdup(a, sb_cstr(&sb));
    sb_reset(&sb);
    k8s_sanitize(&sb, m->pipeline, K8S_LABEL_MAX - 9);
    sb_puts(&sb, "-workflow");
    g->plan.service_account = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    g->plan.store_ns = store_namespace(g->b);
}

static int gen_kubernetes(bundle *b, char *err, size_t errsize)
{
    k8s_gen g = {0};
    g.b = b;
    g.plan.b = b;
    name_invocations(&g);
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "kubernetes/%s.yaml", b->mf->pipeline), false);
    bundle_banner(b, out, "#");
    yaml_out em;
    if (!ye_open(&em, out)) {
        snprintf(err, errsize, "cannot initialize the YAML emitter");
        return -1;
    }
    g.em = &em;
    /* submit.sh finds a document by its place: the Services, the Jobs (in
       the invocations' order), then the Workflow. */
    for (size_t i = 0; i < g.plan.ninvs; i++) {
        if (g.plan.invs[i].service_task) {
            ye_doc_start(&em, true);
            emit_service(&g, &g.plan.invs[i]);
            ye_doc_end(&em);
        }
    }
    for (size_t i = 0; i < g.plan.ninvs; i++) {
        ye_doc_start(&em, true);
        emit_job(&g, &g.plan.invs[i]);
        ye_doc_end(&em);
    }
    ye_doc_start(&em, true);
    int rc = emit_workflow(&g, err, errsize);
    ye_doc_end(&em);
    /* After a failure the stream is unbalanced: keep the first message. */
    char scratch[8];
    int closed = ye_close(&em, "the Kubernetes manifest", rc ? scratch : err, rc ? sizeof scratch : errsize);
    if (rc != 0 || closed != 0)
        return rc != 0 ? rc : closed;
    if (k8s_gen_prerequisites(&g.plan, err, errsize) != 0)
        return -1;
    return k8s_gen_submit(&g.plan, err, errsize);
}

const deploy_target target_kubernetes = {
    .name = "kubernetes",
    .summary = "kubernetes/<pipeline>.yaml (a Job per invocation, an Argo Workflow that runs them), "
               "its prerequisites and submit.sh",
    .runs_containers = true,
    .pulls_images = true,
    .rules = {.pipeline = k8s_check_namespaces},
    .generate = gen_kubernetes,
    .templates = (const char *const[]){"kubernetes-submit.sh.tmpl", NULL},
};
