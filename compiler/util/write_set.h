/* A set of files replaced together (a bundle): all of them or none.

   Staging writes each file whose bytes change to a temporary name beside
   it and checks that its final name can be used (not too long, not a
   directory); nothing visible changes yet. Committing renames them into
   place, keeping a hard link to each old file until all are in, so that a
   rename failing half-way puts the old ones back. A failed build therefore
   leaves the previous bundle as it was: never a new bundle.yaml beside an
   old driver. Unchanged files are left alone (Make and Ninja see them up to
   date). */
#ifndef PIPEC_WRITE_SET_H
#define PIPEC_WRITE_SET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct write_set write_set;

write_set *write_set_new(void);
/* Stages path (creating its directories). 0, or -1 with a message naming
   the file. */
int write_set_stage(write_set *ws, const char *path, const void *data, size_t len, bool executable, char *err,
                    size_t errsize);
/* Renames everything staged into place. 0, or -1 with a message after
   putting back what it had replaced. */
int write_set_commit(write_set *ws, char *err, size_t errsize);
/* The files staged (those whose bytes change), in staging order. */
size_t write_set_count(const write_set *ws);
const char *write_set_path(const write_set *ws, size_t i);
/* Removes what was staged and the directories staging made (when nothing
   else came into them), then frees; after a commit, only frees. */
void write_set_free(write_set *ws);

#endif
