/* Edit, run: `run` notices a source changed since the bundle was built and
   builds it again first, or refuses (run_rebuild.c, docs/runtime.md). */
#ifndef PIPE_RUN_REBUILD_H
#define PIPE_RUN_REBUILD_H

#include "pipe/driver.h"
#include "pipe/manifest.h"

/* -1: nothing changed (or nothing to compare), go on; else the exit status
   of `run` (a refusal or a failed rebuild). After a rebuild it runs the new
   executable with argv and does not return. */
int pipe_run_rebuild_check(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);

#endif
