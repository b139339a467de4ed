/* The launch manifest (bundle.yaml) as the runtime sees it. pipec writes it
   with libyaml; the bundle embeds the same text; pipe_manifest_parse reads
   it. Options the local runtime does not use (slurm, kubernetes, skypilot,
   image) are parsed as far as `describe` needs them. */
#ifndef PIPE_MANIFEST_H
#define PIPE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/driver.h"
#include "pipe/version.h" /* PIPE_MANIFEST_VERSION */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pipe_kv {
    char *key, *value;
} pipe_kv;

typedef struct pipe_mparam {
    char *name;
    pipe_type type;
    char *type_name;     /* "int", ..., or the artifact type */
    char *default_value; /* canonical text; NULL when required */
} pipe_mparam;

typedef struct pipe_moutput {
    char *name;
    char *type_name;
} pipe_moutput;

typedef struct pipe_mstep {
    char *name;
    char *entry;
    char *code_digest; /* SHA-256 (hex) of the step's sources, for caching */
    char *description; /* NULL when none */
    bool cache;
    bool needs_cuda;   /* some source is .cu */
    pipe_mparam *params;
    size_t nparams;
    pipe_moutput *outputs;
    size_t noutputs;
    pipe_kv *environment;
    size_t nenvironment;
} pipe_mstep;

typedef enum { PIPE_ARG_DEFAULT, PIPE_ARG_VALUE, PIPE_ARG_PARAM, PIPE_ARG_ARTIFACT } pipe_arg_kind;

/* One argument of an invocation, in the order of the step's parameters. */
typedef struct pipe_marg {
    char *name;
    pipe_arg_kind kind;
    char *value;   /* VALUE and DEFAULT: canonical text; PARAM: the pipeline parameter */
    int producer;  /* ARTIFACT: index of the producing invocation */
    int output;    /* ARTIFACT: index of the output in the producer's step */
} pipe_marg;

typedef struct pipe_resources {
    double cpu;      /* 0 when not given */
    int64_t gpu;
    uint64_t memory; /* bytes; 0 when not given */
    uint64_t disk;
    uint64_t shm;
    char *gpu_type;  /* NULL when not given */
} pipe_resources;

typedef struct pipe_accelerate {
    bool enabled;
    int64_t num_processes, num_machines;
    bool multi_gpu, cpu;
    char *mixed_precision; /* "no", "fp16", "bf16", "fp8" */
    int64_t main_process_port;
    char *gpu_ids;         /* "all" or "0,1" */
    int64_t max_restarts;
    uint64_t rdzv_timeout_ms;
} pipe_accelerate;

typedef struct pipe_minvocation {
    char *id;
    int step;        /* index into pipe_manifest.steps */
    pipe_marg *args; /* nargs == the step's nparams */
    size_t nargs;
    int *needs;      /* invocation indices this one waits for */
    size_t nneeds;
    pipe_resources resources;
    pipe_accelerate accelerate;
    bool cleanup_memory;
    uint64_t profile_interval_ms; /* 0: no @gpu_profile */
    uint64_t timeout_ms;          /* 0: no @timeout */
    int64_t retry_max;            /* extra attempts after the first */
    uint64_t retry_delay_ms;
    char *image;                  /* parent image, NULL when none */
} pipe_minvocation;

typedef struct pipe_manifest {
    int version;
    char *pipeline;
    char *source; /* the .pipe file it was built from */
    pipe_mparam *params;
    size_t nparams;
    pipe_mstep *steps;
    size_t nsteps;
    pipe_minvocation *invocations; /* in a topological order */
    size_t ninvocations;
} pipe_manifest;

/* Parses manifest text. Returns 0, or a PIPE_E* code with a message naming
   the line and the key at fault in err. */
int pipe_manifest_parse(const char *text, size_t len, pipe_manifest **out, char *err, size_t errsize);
void pipe_manifest_free(pipe_manifest *m);
int pipe_manifest_find_invocation(const pipe_manifest *m, const char *id);
/* "int", "float", "bool", "string", "artifact". */
const char *pipe_type_name(pipe_type t);
/* The size of a field of that type in an argument struct. */
size_t pipe_type_size(pipe_type t);

#ifdef __cplusplus
}
#endif

#endif
