/* The launch manifest (bundle.yaml), and the typed model of a checked
   pipeline. pipec's checker builds these structs with every default and
   rule applied (compiler/model/model_build.c), its generators read only them, and
   gen_manifest writes them to bundle.yaml; the runtime parses bundle.yaml
   back into the same structs (pipe_manifest_parse), so what the compiler
   decided is what the runtime runs. tests/unit/test_model_roundtrip.c
   checks model -> bundle.yaml -> model for every example. */
#ifndef PIPE_MANIFEST_H
#define PIPE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/error.h"   /* the PIPE_E* codes pipe_manifest_parse returns */
#include "pipe/version.h" /* PIPE_MANIFEST_VERSION */

#ifdef __cplusplus
extern "C" {
#endif

/* The types of parameters: a step's argument struct holds int64_t, double,
   bool and const char * (a string, or an input's path). */
typedef enum { PIPE_TYPE_INT, PIPE_TYPE_FLOAT, PIPE_TYPE_BOOL, PIPE_TYPE_STRING, PIPE_TYPE_ARTIFACT } pipe_type;

typedef struct pipe_kv {
    char *key, *value;
} pipe_kv;

/* An option value passed through as written (tolerations): a scalar keeps
   its canonical text and whether it is a string (quoted where YAML needs
   it) or a number or bool (plain); lists and maps nest. */
typedef enum { PIPE_MV_STRING, PIPE_MV_SCALAR, PIPE_MV_LIST, PIPE_MV_MAP } pipe_mvalue_kind;

typedef struct pipe_mvalue {
    pipe_mvalue_kind kind;
    char *text;                /* STRING and SCALAR */
    char **keys;               /* MAP: n keys */
    struct pipe_mvalue *items; /* LIST: n items; MAP: n values */
    size_t n;
} pipe_mvalue;

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
    char *entry;       /* the C function of a native step; NULL for a command step */
    char *code_digest; /* SHA-256 (hex) of the step's sources (and command), for caching */
    char *description; /* NULL when none */
    bool cache;
    bool needs_cuda;   /* some source is .cu */
    char **sources;    /* bundle paths: a native step's compiled sources (headers not
                          listed), a command step's shipped files and folders */
    size_t nsources;
    char **libraries;  /* a native step's `libraries`, as written */
    size_t nlibraries;
    char **command;    /* a command step's program and arguments, `{NAME}` placeholders
                          unexpanded (pipe_command_expand); NULL for a native step */
    size_t ncommand;
    char *workdir;     /* a command step's folder, relative to the bundle's root: the copy
                          of the folder of the .pipe file that declares it */
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
    int64_t trainium;   /* AWS Neuron devices per machine (with @batch's: the same count) */
    int64_t inferentia;
} pipe_resources;

/* A file an option names (PIPE_KIND_FILE): its path as written, relative to
   the .pipe file that names it, and the SHA-256 of its content, which pipec
   fills when it reads it and which the cache key takes. */
typedef struct pipe_mfile {
    char *path;   /* NULL when not given */
    char *sha256; /* 64 hex digits */
} pipe_mfile;

/* @docker. Without parent_image the deploy targets choose a default image
   (pipec's bundle_images.c); build is then NULL unless given. */
typedef struct pipe_mimage {
    char *parent;         /* NULL when not given */
    char *build;          /* given, else derived from parent (-runtime -> -devel), else NULL */
    char **apt_packages;
    size_t napt_packages;
    char **requirements;  /* pip requirements */
    size_t nrequirements;
    pipe_kv *environment;
    size_t nenvironment;
    char *index_url;      /* pip's --index-url; NULL: PyPI */
    pipe_mfile requirements_file; /* pip's -r */
    char **extra_index_urls;      /* pip's --extra-index-url, each */
    size_t nextra_index_urls;
    char *registry;       /* where the images are pushed and pulled from; NULL: none given */
} pipe_mimage;

/* Orchestrator options. `given` has bit (1 << PIPE_<OPTION>) (the option's
   index in its decorator, pipe/settings.h) for each option written in the
   .pipe file: bundle.yaml lists those only. */
typedef struct pipe_mslurm {
    unsigned given;
    char *partition, *account, *qos, *constraint; /* NULL when not given */
    char **extra;                                 /* more #SBATCH flags, "--name[=value]" */
    size_t nextra;
    char *gpu_type;  /* the cluster's GRES type; NULL: GPUs untyped */
    char *container; /* "none" (the default), "pyxis" or "apptainer" */
    bool tmp;        /* @resources(disk) as --tmp */
    char *neuron_constraint; /* the node feature of Neuron nodes (--constraint); NULL when not given */
} pipe_mslurm;

/* @batch (AWS Batch). */
typedef struct pipe_mbatch {
    unsigned given;
    char *queue, *job_role; /* NULL when not given */
    char *platform;         /* "EC2" (the default), "SPOT" or "FARGATE" */
    int64_t trainium, inferentia, efa;
    pipe_mvalue tmpfs;      /* a list (of maps); n = 0 when none */
} pipe_mbatch;

typedef struct pipe_mkubernetes {
    unsigned given;
    char *namespace_;      /* NULL when not given */
    char *service_account; /* NULL when not given */
    char *gpu_vendor;      /* "nvidia" (the default) or "amd" */
    pipe_kv *node_selector;
    size_t nnode_selector;
    pipe_mvalue tolerations; /* a list (of maps); n = 0 when none */
    char **secrets;          /* Secret names, as environment (envFrom) */
    size_t nsecrets;
    pipe_mvalue volumes;     /* a list of maps: name, claim or host_path, path, read_only (checked by pipec) */
    char **image_pull_secrets;
    size_t nimage_pull_secrets;
} pipe_mkubernetes;

typedef struct pipe_mskypilot {
    unsigned given;
    char *cloud, *region; /* NULL when not given */
    bool use_spot;
    char *accelerators;   /* "NAME" or "NAME:COUNT"; NULL when not given */
    char *store;          /* the bucket URI mounted as the store (pipec checks it); NULL when not given */
} pipe_mskypilot;

/* The most processes one accelerated step may have (the launcher's
   rendezvous and shared-memory tables are sized for it). */
#define PIPE_MAX_PROCESSES 4096
/* @run_with_accelerate(collective_timeout): "1s" at least (the default is
   the settings table's, pipe/settings.def). */
#define PIPE_COLLECTIVE_TIMEOUT_MIN_MS 1000u
/* The port of the step's framework across machines when none is given. */
#define PIPE_DEFAULT_MAIN_PROCESS_PORT 29500

typedef struct pipe_accelerate {
    bool enabled;
    int64_t num_processes, num_machines;
    bool multi_gpu, cpu;
    char *mixed_precision; /* "no", "fp16", "bf16", "fp8" */
    int64_t main_process_port; /* 0: free ports on one machine; else this port for the
                                  step's framework (MASTER_PORT) and the one above it for
                                  pipe's rendezvous (PIPE_RDZV_PORT) */
    char *gpu_ids;         /* "all" or "0,1" */
    int64_t max_restarts;
    uint64_t rdzv_timeout_ms;
    uint64_t collective_timeout_ms; /* a pipe collective waits this long for a rank (>= 1000) */
} pipe_accelerate;

/* @checkpoint: a checkpoint folder shared by the invocation's ranks, kept
   across attempts, interruptions and runs with the same cache key. */
typedef struct pipe_mcheckpoint {
    bool enabled;
    bool keep;         /* keep the folder after success */
    uint64_t grace_ms; /* SIGTERM to SIGKILL when stopped or preempted */
} pipe_mcheckpoint;

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
    int64_t retry_max;            /* extra attempts after the first (0 without @retry) */
    uint64_t retry_delay_ms;
    pipe_mimage image;
    pipe_mslurm slurm;
    pipe_mkubernetes kubernetes;
    pipe_mskypilot skypilot;
    pipe_mcheckpoint checkpoint;
    pipe_mbatch batch;
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
/* Compares two manifests field by field. 0 when equal, else 1 with the
   path of the first difference in diff ("invocations[2].resources.gpu: 1 != 2"). */
int pipe_manifest_compare(const pipe_manifest *a, const pipe_manifest *b, char *diff, size_t diffsize);

static inline bool pipe_step_is_command(const pipe_mstep *s) { return s->ncommand > 0; }

/* Its ranks run on the CPU whatever its gpu count: `cpu = true` wins. */
static inline bool pipe_invocation_cpu_only(const pipe_minvocation *inv)
{
    return inv->accelerate.enabled && inv->accelerate.cpu;
}
/* An invocation needs a GPU when its gpu count is above 0 and it is not
   accelerated with cpu = true, or it is accelerated with multi_gpu. A
   cpu = true invocation still asks schedulers for its gpu count. */
static inline bool pipe_invocation_needs_gpu(const pipe_minvocation *inv)
{
    return (inv->resources.gpu > 0 && !pipe_invocation_cpu_only(inv)) ||
           (inv->accelerate.enabled && inv->accelerate.multi_gpu);
}
int pipe_manifest_find_invocation(const pipe_manifest *m, const char *id);
/* "int", "float", "bool", "string", "artifact". */
const char *pipe_type_name(pipe_type t);
/* The size of a field of that type in an argument struct. */
size_t pipe_type_size(pipe_type t);

#ifdef __cplusplus
}
#endif

#endif
