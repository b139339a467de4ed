/* The typed model of a checked pipeline: what every generator reads.

   The checker resolves names, types and decorators; model_build (in
   model_build.c, the only file that reads both the checked program and the
   model) turns one pipeline into these plain structs with every default and
   rule applied once. The settings are the runtime's own manifest types
   (pipe/manifest.h), so gen_manifest writes exactly what the runtime parses
   back. No generator sees the syntax tree. */
#ifndef PIPEC_MODEL_H
#define PIPEC_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/manifest.h"

/* What a `source` entry is: compiled C, C++ or CUDA, a header (native
   steps), or a file or folder shipped with a command step. */
typedef enum {
    MODEL_SRC_C,
    MODEL_SRC_CXX,
    MODEL_SRC_CUDA,
    MODEL_SRC_HEADER,
    MODEL_SRC_FILE,
    MODEL_SRC_FOLDER
} model_source_kind;

/* A user source file of a step, as the checker resolved it. */
typedef struct model_source {
    const char *path;     /* as written, relative to the .pipe file */
    const char *resolved; /* where pipec reads it (relative to the working directory, or absolute) */
    model_source_kind kind;
    const char *text; /* the bytes the checker read, or NULL: the bundle copies these */
    size_t len;
} model_source;

static inline bool model_source_compiled(model_source_kind k)
{
    return k == MODEL_SRC_C || k == MODEL_SRC_CXX || k == MODEL_SRC_CUDA;
}

/* What only pipec needs about a step; parallel to manifest.steps. */
typedef struct model_step {
    model_source *sources;
    size_t nsources;
    const char *pipe_dir;  /* the folder of the .pipe file that declares it, as resolved (a command's folder) */
    const char *decl_file; /* that file's name, and the step's position in it (for generated comments) */
    unsigned decl_line, decl_col;
} model_step;

/* A file that a decorator option names (@docker(requirements_file)), as
   the checker read it: the bundle copies these bytes. */
typedef struct model_file {
    const char *resolved; /* where pipec read it (for the depfile) */
    const char *sha256;   /* of text: the pipe_mfile that names it has the same */
    const char *text;
    size_t len;
} model_file;

typedef struct model {
    /* The pipeline as bundle.yaml carries it. Strings live in pipec's
       arena. The bundle fills each step's code_digest and sources (bundle
       paths) when it copies the files. */
    pipe_manifest manifest;
    model_step *steps;
    const char **pipe_files; /* the .pipe file, then its imports, as read */
    size_t npipe_files;
    model_file *files; /* the files options name, each content once */
    size_t nfiles;
    /* The pipeline's own @kubernetes namespace (the Argo Workflow's), NULL
       when none; each invocation's effective one is in its settings. */
    const char *workflow_namespace;
} model;

#endif
