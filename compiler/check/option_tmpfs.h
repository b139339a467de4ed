/* The shape of @batch(tmpfs) (docs/deploy-batch.md): a list of maps, each
   with `path` (absolute), `size` (a size, "1GB") and optionally `options`
   (a list of the mount options AWS Batch takes, "noexec" or "mode=1777").
   The settings table keeps the option as a list of maps passed through
   (MAP_LIST); this checks what the Batch target reads from it. */
#ifndef PIPEC_OPTION_TMPFS_H
#define PIPEC_OPTION_TMPFS_H

#include <stdbool.h>

#include "option_values.h"

/* list is a list of maps (option_values has checked that much). Reports an
   unknown key (E0204), a key or a path given twice (E0105), a value of the
   wrong type, a missing key, a path that is not absolute, a size that is
   no size or an unknown mount option (E0201). Returns whether all is well. */
bool option_check_tmpfs(diag_engine *d, const opt_value *v);

#endif
