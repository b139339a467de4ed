/* What the files of the AWS Batch target (batch.c: the job definitions,
   batch_submit.c: batch/submit.sh) share. docs/deploy-batch.md. */
#ifndef PIPEC_BATCH_TARGET_H
#define PIPEC_BATCH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/bundle.h"

/* Where the job's container finds the artifact store, and the host folder
   (shared storage the compute environment mounts on every instance) that
   an EC2 job mounts there. */
#define BATCH_STORE_PATH "/pipe-store"
#define BATCH_STORE_HOST "/mnt/pipe-store"
/* Fargate jobs need a role to pull the image and write logs: submit.sh
   puts $PIPE_BATCH_EXECUTION_ROLE in place of this. */
#define BATCH_EXECUTION_ROLE_PLACEHOLDER "PIPE_BATCH_EXECUTION_ROLE"
/* The Ref:: parameters of every definition's command, which submit-job's
   `parameters` fill in (one more per pipeline parameter: BATCH_PARAM_PREFIX
   and its name, whose value is NAME=VALUE). */
#define BATCH_REF_INVOCATION "invocation"
#define BATCH_REF_RUN_ID "run_id"
#define BATCH_PARAM_PREFIX "param_"

/* One invocation as a Batch job. */
typedef struct batch_job {
    const pipe_minvocation *inv;
    const char *job_name;   /* submit-job's jobName */
    const char *definition; /* its job definition's name: batch/<definition>.json */
} batch_job;

/* batch/submit.sh (templates/batch-submit.sh.tmpl). */
int batch_gen_submit(bundle *b, const batch_job *jobs, char *err, size_t errsize);

#endif
