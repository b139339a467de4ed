/* What the files of the Kubernetes target share (docs/deploy-kubernetes.md):
   kubernetes.c writes kubernetes/<pipeline>.yaml (the Jobs and the Argo
   Workflow), k8s_prerequisites.c kubernetes/prerequisites/<pipeline>.yaml
   (what is applied first), k8s_submit.c kubernetes/submit.sh. They agree on
   the names and namespaces below, computed once (kubernetes.c). */
#ifndef PIPEC_K8S_TARGET_H
#define PIPEC_K8S_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "check/program.h"
#include "gen/bundle.h"

/* The PersistentVolumeClaim of the artifact store, mounted at /pipe-store
   (check/option_volumes.h keeps users' volumes off both). */
#define K8S_STORE_CLAIM "pipe-store"
/* The run's ConfigMap keys: the run id, and `param-NAME` per parameter. */
#define K8S_RUN_ID_KEY "run-id"
#define K8S_PARAM_KEY_PREFIX "param-"
/* The variable a parameter's value reaches a step's command line through
   (not PIPE_PARAM_, which the runtime gives a command step's own
   parameters). */
#define K8S_PARAM_ENV_PREFIX "PIPE_RUN_PARAM_"
/* The run id the prerequisites' ConfigMap holds until submit.sh sets one. */
#define K8S_MANUAL_RUN_ID "manual"


typedef struct k8s_inv {
    const pipe_minvocation *inv;
    const char *name;         /* Argo task and template name, invocation label value */
    const char *job;          /* Job name; also the headless Service's */
    const char *service_task; /* Argo task applying the Service; NULL on one machine */
    int64_t machines;
} k8s_inv;

typedef struct k8s_plan {
    bundle *b;
    k8s_inv *invs; /* one per invocation, in pipeline order */
    size_t ninvs;
    size_t nservices;            /* invocations on several machines */
    const char *dag_name;        /* the Workflow's entrypoint template */
    const char *pl_label;        /* the pipeline label's value */
    const char *configmap;       /* <pipeline>-run */
    const char *service_account; /* <pipeline>-workflow: the Workflow's pods (Argo's executor) */
    /* Where the claim, the ConfigMap, the service account and the Workflow
       are: the namespace every invocation shares, else the pipeline's
       @kubernetes(namespace) (W0409 warned); NULL: the one they are applied
       in. */
    const char *store_ns;
} k8s_plan;

/* Writes kubernetes/prerequisites/<pipeline>.yaml. */
int k8s_gen_prerequisites(const k8s_plan *p, char *err, size_t errsize);
/* Writes kubernetes/submit.sh. */
int k8s_gen_submit(const k8s_plan *p, char *err, size_t errsize);

/* W0409 (k8s_namespaces.c), the target's rule over a pipeline: its
   invocations run in different @kubernetes namespaces, yet share one
   store. */
void k8s_check_namespaces(diag_engine *d, const pipeline_info *pl);

#endif
