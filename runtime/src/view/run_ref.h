/* RUN, as `runs`, `show`, `logs` and `report` take it (docs/runtime.md,
   "Commands"): a run id, a unique prefix of one, a unique part of one (its
   random part), or `latest`, the run that started last. Private to the
   runtime. */
#ifndef PIPE_RUN_REF_H
#define PIPE_RUN_REF_H

#include <stddef.h>

#include "store/store.h"

/* A run of the store with its run.yaml (NULL when unreadable). */
typedef struct pipe_run_entry {
    char *id;
    pipe_run_info *info;
} pipe_run_entry;

/* Every run in store, newest first (by run.yaml's `started`, then by id).
   A missing store is an empty list. */
int pipe_run_entries_read(const char *store, pipe_run_entry **out, size_t *n, char *err, size_t errsize);
void pipe_run_entries_free(pipe_run_entry *e, size_t n);

/* The id that ref names (malloc'ed into *run_id). ref NULL means `latest`.
   An exact id wins over a prefix, a prefix over a part elsewhere in an id.
   PIPE_ENOENT ("no run `x` in STORE", with the closest id when one is near,
   or "no runs in STORE"), PIPE_EUSAGE for a prefix or part of several runs
   (naming a few), PIPE_ENOMEM; the message in err. */
int pipe_run_ref_resolve(const char *store, const char *ref, char **run_id, char *err, size_t errsize);

#endif
