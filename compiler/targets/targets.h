/* The deploy targets. Each is a folder, targets/<name>/, that holds its
   descriptor (its name, what it writes, whether it runs containers, its
   rules, its generator, its templates) and the files they need, and is
   listed once, in the table of targets.c; --target, `pipec --help`, the
   checker (through session/, which hands it the rules) and the build
   driver (build/) all iterate that table. Adding a target:
   docs/architecture.md. */
#ifndef PIPEC_TARGETS_H
#define PIPEC_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "check/program.h"
#include "util/arena.h"
#include "util/strbuf.h"

/* Declared in full by gen/bundle.h; a target's file includes it. */
typedef struct bundle bundle;

typedef struct deploy_target {
    const char *name;    /* as --target takes it */
    const char *summary; /* one line: what it writes */
    /* It runs the bundle's container images (bundle_image_of): a GPU step
       with no image of its own is warned about (W0401) when it is built. */
    bool runs_containers;
    /* Its files make a cluster pull the images from their registry: built
       without one (@docker(registry), --registry), it is warned about once. */
    bool pulls_images;
    /* Its rules over the options in force for a step (.step) and over a
       pipeline's invocations (.pipeline) that this target reads; NULL:
       none. The checker runs them under `check` and `build` alike,
       whatever --target says, so that the same file gets the same errors
       from both (check/program.h). */
    check_rule rules;
    /* Checks the pipeline being built, under `build` only and only when this
       target is built: warnings about what its files cannot do (W0410);
       NULL: none. */
    void (*check_build)(diag_engine *d, const pipeline_info *pl);
    /* Adds the target's files to the bundle: 0, or -1 with a message in err. */
    int (*generate)(bundle *b, char *err, size_t errsize);
    /* The templates its files are written from (templates/), NULL-ended. */
    const char *const *templates;
} deploy_target;

/* Every target, in the order their files are generated; `local` (the
   bundle itself) is row 0. */
extern const deploy_target *const deploy_targets[];
extern const size_t deploy_target_count;

/* A set of targets (`build --target`): bit i stands for row i. */
#define TARGET_LOCAL 1u  /* row 0: driver sources, bundle.yaml, CMakeLists.txt, runtime copy */
#define TARGET_ALL (~0u) /* `all`: every row */

static inline unsigned target_bit(size_t row) { return 1u << row; }

/* Parses "local,docker" or "all" (local is always in the set); false with
   the bad word in *bad. */
bool parse_targets(const char *list, unsigned *mask, const char **bad);
/* "all", or the targets of mask as --target takes them ("local,slurm"). */
const char *targets_text(arena *a, unsigned mask);
/* Appends what --target accepts: every name, sep between them, then
   " or all" (for --help and the messages about a bad list). */
void targets_choices(strbuf *sb, const char *sep);
/* Whether some target of mask runs containers. */
bool targets_run_containers(unsigned mask);
/* Runs the check_build of each target of mask over pl. */
void targets_check_build(diag_engine *d, const pipeline_info *pl, unsigned mask);

#endif
