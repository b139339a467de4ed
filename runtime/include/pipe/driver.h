/* The interface between a generated driver (<pipeline>_main.c) and the
   runtime: static tables of the steps, the embedded manifest, and main.
   The driver holds no code per step, only data (one pointer to each entry
   function and the layout of its argument struct), so that a pipeline of
   thousands of steps compiles in time linear in their number
   (docs/architecture.md, "The generated driver"). */
#ifndef PIPE_DRIVER_H
#define PIPE_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/manifest.h" /* pipe_type */
#include "pipe/pipe.h"
#include "pipe/version.h" /* PIPE_ABI_VERSION */

#ifdef __cplusplus
extern "C" {
#endif

/* One member of a step's argument struct: int64_t, double, bool or const char *. */
typedef struct pipe_field {
    const char *name;
    pipe_type type;
    size_t offset;
} pipe_field;

/* A step's entry function, `int ENTRY(pipe_ctx *, const NAME_args *)`,
   converted to take its argument struct as `const void *`: the runtime
   calls it with a pointer to a struct it filled from `fields`. */
typedef int (*pipe_step_fn)(pipe_ctx *ctx, const void *args);

/* A native step's code. Command steps have none: the manifest says what
   they run. */
typedef struct pipe_step_impl {
    const char *name;
    /* Points at a named constant holding the entry function; the constant's
       name (pipe_step_NAME_at_FILE_line_N in a generated driver) is what a
       linker names when no source defines the entry. The entry itself is
       NULL when it is a weak reference left undefined (a CUDA step in a
       bundle built without CUDA): running the step then fails, saying so. */
    const pipe_step_fn *fn;
    size_t args_size;
    const pipe_field *fields; /* nfields members, in parameter order */
    size_t nfields;
} pipe_step_impl;

/* Device glue from <pipeline>_cuda.cu; NULL members when not built with CUDA. */
typedef struct pipe_cuda_hooks {
    /* Makes the rank's GPU current (the only visible one after CUDA_VISIBLE_DEVICES). */
    int (*select_device)(int local_rank, char *err, size_t errsize);
    /* Synchronizes and trims the default memory pool; *freed gets the bytes released. */
    int (*release_caches)(size_t *freed, char *err, size_t errsize);
} pipe_cuda_hooks;

typedef struct pipe_program {
    int abi_version;
    const char *manifest; /* bundle.yaml, embedded */
    size_t manifest_len;
    const pipe_step_impl *steps;
    size_t nsteps;
    const pipe_cuda_hooks *cuda; /* NULL without CUDA */
    /* The bundle's folder where it was built (its CMakeLists.txt defines
       PIPE_BUNDLE_DIR), NULL when unknown: command steps run in their copy
       of the .pipe file's folder under it (docs/command-steps.md). */
    const char *bundle_dir;
    /* How CMake builds this executable again where it was built: its cmake,
       build folder and target (pipec-rebuild.cmake and pipec_add_pipeline
       define PIPE_REBUILD_*); NULL elsewhere. `run` rebuilds first when a
       source changed since the build (docs/runtime.md). */
    const char *rebuild_cmake, *rebuild_dir, *rebuild_target;
} pipe_program;

/* The bundle executable's main: run, step, describe, runs, show. */
int pipe_main(const pipe_program *program, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
