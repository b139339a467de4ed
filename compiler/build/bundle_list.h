/* The list of the files a build wrote, kept in the bundle, and the removal
   of those a later build no longer writes (bundle_list.c). */
#ifndef PIPEC_BUNDLE_LIST_H
#define PIPEC_BUNDLE_LIST_H

#include "build.h"

/* Its name in the bundle's root. */
#define BUNDLE_LIST "pipec-files.txt"

/* Reads the previous build's list and adds the new one to b's files (every
   file b writes, then the previous files of targets not built now that are
   still there), and puts in stale the previous files (paths relative to
   the bundle) of the targets built now that b does not write. Without
   opts->force, first checks every path b is about to write: one that
   exists, is not on the previous list and holds other bytes is the user's;
   then it returns 1 with a message naming them all in err and b is not to
   be written. 0 otherwise. */
int bundle_list_update(bundle *b, ptr_vec *stale, char *err, size_t errsize);
/* After the bundle is written: removes the stale files and the folders
   that leaves empty; one it cannot remove is named on stderr. */
void bundle_list_remove(bundle *b, const ptr_vec *stale);

#endif
