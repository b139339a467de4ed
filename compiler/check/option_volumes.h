/* The shape of @kubernetes(volumes) (docs/deploy-kubernetes.md, "Secrets
   and volumes"): a list of maps, each with the keys `name`, `claim` or
   `host_path`, `path`, and optionally `read_only`. The settings table keeps
   the option as a list of maps passed through (MAP_LIST); this checks what
   the Kubernetes target reads from it, where it was written. */
#ifndef PIPEC_OPTION_VOLUMES_H
#define PIPEC_OPTION_VOLUMES_H

#include <stdbool.h>

#include "option_values.h"

/* The keys of one volume, in the order the docs list them. */
extern const char *const k8s_volume_keys[];
extern const size_t k8s_volume_keys_count;
/* Volume names and mount paths the Job's pods have already. */
#define K8S_VOLUME_STORE "pipe-store"
#define K8S_VOLUME_SHM "dshm"
#define K8S_STORE_PATH "/pipe-store"
#define K8S_SHM_PATH "/dev/shm"

/* list is a list of maps (option_values has checked that much). Reports an
   unknown key (E0204), a key or a volume name or path given twice (E0105),
   a value of the wrong type, a missing key, `claim` with `host_path`, a
   name that is no DNS label or a path that is not absolute (E0201).
   Returns whether all is well. */
bool option_check_volumes(diag_engine *d, const opt_value *v);

#endif
