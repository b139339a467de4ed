/* The build driver of `pipec build`, above the deploy targets: it runs the
   generator of each target the build selects (the table of
   targets/targets.c), then writes the bundle all or nothing and keeps its
   list of files (bundle_list.h). */
#ifndef PIPEC_BUILD_H
#define PIPEC_BUILD_H

#include "gen/bundle.h"
#include "targets/targets.h"

/* Writes the bundle of a model (model_build) for the targets in
   opts->targets (bundle_build.c). Returns 0; -1 with a message in err
   (I/O); or 1, having written nothing, when a file it would write over is
   not its own (bundle_list.h), with the message naming them. Fills each
   step's code_digest and sources in m. */
int bundle_build(model *m, const build_options *opts, arena *a, char *err, size_t errsize);

#endif
