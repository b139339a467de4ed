/* The decorator table (docs/language.md, "Decorators"): names, where they may appear, their
   options with types and defaults; option values parsed and merged. */
#ifndef PIPEC_DECORATORS_H
#define PIPEC_DECORATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "front/ast.h"
#include "util/diag.h"

typedef enum {
    DEC_RESOURCES,
    DEC_DOCKER,
    DEC_ACCELERATE,
    DEC_CLEANUP_MEMORY,
    DEC_GPU_PROFILE,
    DEC_TIMEOUT,
    DEC_RETRY,
    DEC_SLURM,
    DEC_KUBERNETES,
    DEC_SKYPILOT,
    DEC_COUNT
} decorator_id;

/* Option indices, one enum per decorator (they index opt_value arrays). */
enum { RES_CPU, RES_GPU, RES_MEMORY, RES_DISK, RES_SHM, RES_GPU_TYPE };
enum { DOCKER_PARENT_IMAGE, DOCKER_BUILD_IMAGE, DOCKER_APT_PACKAGES, DOCKER_REQUIREMENTS, DOCKER_ENVIRONMENT };
enum {
    ACC_NUM_PROCESSES,
    ACC_NUM_MACHINES,
    ACC_MULTI_GPU,
    ACC_CPU,
    ACC_MIXED_PRECISION,
    ACC_MAIN_PROCESS_PORT,
    ACC_GPU_IDS,
    ACC_MAX_RESTARTS,
    ACC_RDZV_TIMEOUT,
    ACC_COLLECTIVE_TIMEOUT
};
enum { PROFILE_INTERVAL };
enum { TIMEOUT_LIMIT };
enum { RETRY_MAX, RETRY_DELAY };
enum { SLURM_PARTITION, SLURM_ACCOUNT, SLURM_QOS, SLURM_CONSTRAINT, SLURM_EXTRA };
enum { K8S_NAMESPACE, K8S_SERVICE_ACCOUNT, K8S_GPU_VENDOR, K8S_NODE_SELECTOR, K8S_TOLERATIONS };
enum { SKY_CLOUD, SKY_REGION, SKY_USE_SPOT, SKY_ACCELERATORS };

#define DECORATOR_MAX_OPTIONS 10

typedef enum {
    OPT_NUMBER_POSITIVE, /* int or float > 0 */
    OPT_INT_MIN0,
    OPT_INT_MIN1,
    OPT_PORT,            /* 0..65535 */
    OPT_SIZE,            /* "16GB" -> bytes */
    OPT_DURATION,        /* "2h" -> ms */
    OPT_STRING,
    OPT_BOOL,
    OPT_ENUM,            /* string from enum_values */
    OPT_STRING_LIST,
    OPT_STRING_MAP,      /* map of string values */
    OPT_MAP_LIST,        /* list of maps */
    OPT_GPU_IDS,         /* "all" or "0,1,3" */
    OPT_ACCELERATORS,    /* "NAME" or "NAME:COUNT" */
    OPT_PACKAGE_LIST,    /* apt package names */
    OPT_SBATCH_FLAGS,    /* list of "--flag[=value]" */
} option_kind;

typedef struct option_schema {
    const char *name;
    option_kind kind;
    const char *const *enum_values; /* NULL-terminated, OPT_ENUM only */
    const char *default_text;       /* as written in the spec, or NULL */
} option_schema;

typedef struct decorator_schema {
    decorator_id id;
    const char *name;
    bool on_step, on_pipeline;
    bool positional; /* @timeout takes one positional value for its first option */
    const option_schema *options;
    int noptions;
} decorator_schema;

/* A parsed option value. Numbers are kept in the field their kind uses:
   num (OPT_NUMBER_POSITIVE), i (ints, port, bool as 0/1 in b), u (bytes, ms). */
typedef struct opt_value {
    bool set;          /* given explicitly (else: default) */
    bool valid;        /* parsed without error */
    span name_sp;      /* the option name (or the positional value) */
    span arg_sp;       /* name = value */
    ast_expr *expr;    /* the value as written */
    double num;
    int64_t i;
    uint64_t u;
    bool b;
    const char *s;     /* strings, enums, gpu_ids, accelerators name */
} opt_value;

typedef struct decorator_inst {
    const decorator_schema *schema;
    ast_decorator *decl;
    bool on_pipeline; /* declared on a pipeline (a default), not on the step */
    opt_value opts[DECORATOR_MAX_OPTIONS];
    /* An unknown option or a positional argument was reported: any option
       left at its default may have been meant to be set, so the checks that
       combine options stay silent about those. */
    bool uncertain;
} decorator_inst;

/* The decorators on one step or pipeline, by id (NULL when absent). */
typedef struct decorator_set {
    decorator_inst *by_id[DEC_COUNT];
    /* An unknown decorator (E0108) that looks like this one: what it sets is
       not known, so its options count as uncertain (effective_uncertain). */
    bool misspelled[DEC_COUNT];
} decorator_set;

const decorator_schema *decorator_lookup(const char *name);
const decorator_schema *decorator_by_id(decorator_id id);
int option_index(const decorator_schema *s, const char *name);

/* Checks and parses the decorators of a step (on_pipeline false) or a
   pipeline, reporting E0105 E0108 E0109 E0115 E0117 E0118 E0201 E0204-E0207 E0302. */
void decorators_check(arena *a, diag_engine *d, const ptr_vec *decorators, bool on_pipeline, decorator_set *out);

/* The value in force: the step's own, else the pipeline's, else the default.
   Returns a value with set=false and the default filled in when neither sets it. */
typedef struct effective_options {
    const decorator_set *step, *pipeline;
} effective_options;

opt_value effective_opt(const effective_options *e, decorator_id dec, int opt);
/* The instance providing `dec` (step's, else pipeline's), or NULL. */
const decorator_inst *effective_decorator(const effective_options *e, decorator_id dec);
/* The default of an option as a parsed value (set = false). */
opt_value option_default(decorator_id dec, int opt);
/* True when the value of an option in force is not known for sure: it was
   given but invalid (reported), or it is a default where the decorator that
   would set it had an unknown option (reported). Rules that combine options
   stay silent about uncertain ones. */
bool effective_uncertain(const effective_options *e, decorator_id dec, int opt);
bool option_uncertain(const decorator_inst *inst, int opt);

#endif
