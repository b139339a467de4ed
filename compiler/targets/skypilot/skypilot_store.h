/* @skypilot(store): the bucket that every SkyPilot task and node mounts as
   the artifact store (docs/deploy-skypilot.md, "The shared store"). The
   checker refuses what SkyPilot could not mount that way (E0204); the
   generator splits what it accepts into what SkyPilot mounts and the
   folder in it that the runtime uses. */
#ifndef PIPEC_SKYPILOT_STORE_H
#define PIPEC_SKYPILOT_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

typedef struct sky_store {
    size_t source_len; /* uri[0, source_len): the bucket (or Azure container) SkyPilot mounts */
    const char *path;  /* the folder in it, inside uri: "" for its root, no '/' at either end */
    size_t path_len;
} sky_store;

/* Parses uri. On failure returns false, with what is wrong in why (one
   phrase, for a diagnostic's label). */
bool sky_store_parse(const char *uri, sky_store *out, strbuf *why);

/* "`s3://BUCKET/PATH`, `gs://...`, ...": the forms accepted, for help. */
void sky_store_forms(strbuf *out);

#endif
