/* The list of the files a build wrote, kept in the bundle, and the removal
   of those a later build no longer writes (bundle_list.c). */
#ifndef PIPEC_BUNDLE_LIST_H
#define PIPEC_BUNDLE_LIST_H

#include "bundle.h"

/* Its name in the bundle's root. */
#define BUNDLE_LIST "pipec-files.txt"

/* Reads the previous build's list, adds the new one to b's files (every
   file b writes, then the previous files of targets not built now that are
   still there), and puts in stale the previous files (paths relative to
   the bundle) of the targets built now that b does not write. */
void bundle_list_update(bundle *b, ptr_vec *stale);
/* After the bundle is written: removes the stale files and the folders
   that leaves empty; one it cannot remove is named on stderr. */
void bundle_list_remove(bundle *b, const ptr_vec *stale);

#endif
