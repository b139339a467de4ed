/* The step cache (docs/runtime.md, "Caching"). STORE/cache/KEY holds the text
   "RUN_ID/INVOCATION" of a successful invocation whose code, parameters,
   inputs and other key parts (cache_key.h) hash to KEY, and
   STORE/cache/last/PIPELINE/INVOCATION that of the invocation's last
   success, whatever its key. Private to the runtime. */
#ifndef PIPE_CACHE_H
#define PIPE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/base.h"
#include "pipe/manifest.h"
#include "stepfile.h"

/* What goes into a key: the step's identity, its non-artifact arguments in
   parameter order, the digests of its artifact inputs in parameter order,
   and the other parts (launch settings, image, environment, device:
   cache_key.h). */
typedef struct pipe_cache_key_input {
    const char *code_digest;
    const char *step;
    const char *entry;
    const pipe_kv *params; /* name -> canonical value */
    size_t nparams;
    const pipe_step_artifact *inputs; /* name, sha256 used */
    size_t ninputs;
    const pipe_kv *parts; /* name -> canonical text */
    size_t nparts;
} pipe_cache_key_input;

/* The key as 64 hex digits: SHA-256 over NUL-terminated fields
   "pipe-cache-2", code_digest, step, entry, then "param:NAME=VALUE" per
   parameter, then "input:NAME=SHA256" per input, then "part:NAME=TEXT"
   per part (a value as a field of its own). */
void pipe_cache_key(const pipe_cache_key_input *in, char key[PIPE_SHA256_HEX_SIZE]);

/* A verified earlier result. */
typedef struct pipe_cache_hit {
    char *from;               /* "RUN_ID/INVOCATION" */
    pipe_step_record *record; /* its step.yaml */
} pipe_cache_hit;

/* Looks KEY up. *hit is NULL on a miss: no entry, an entry whose step.yaml is
   gone or not `done`, or an output that is missing or whose SHA-256 no longer
   matches the record (why goes into why, when given, for the log). Each
   output named in outputs[] must be in the record. An output file whose
   size and modification time are still those recorded is not read again
   unless verify. Errors only for I/O failures. */
int pipe_cache_lookup(const char *store, const char *key, const char *const *outputs, size_t noutputs, bool verify,
                      pipe_cache_hit **hit, char *why, size_t whysize, char *err, size_t errsize);
void pipe_cache_hit_free(pipe_cache_hit *hit);

/* Puts src at dst: a read-only hard link when the file system allows it,
   else a read-only copy (pipe_artifact_link; a folder as a tree of them);
   either way through a temporary name in dst's directory, fsynced and
   renamed (a folder's syncs left to the group commit when deferred,
   commit.h), so dst is always complete. Replaces an existing dst. */
int pipe_link_or_copy(const char *src, const char *dst, bool deferred, char *err, size_t errsize);

/* Records STORE/cache/KEY -> "RUN_ID/INVOCATION" (atomically; replaces an
   older entry). */
int pipe_cache_record(const char *store, const char *key, const char *run_id, const char *invocation, char *err,
                      size_t errsize);

/* What STORE/cache/KEY names ("RUN_ID/INVOCATION", malloc'ed), whether or
   not it can be reused; NULL when there is no such entry. */
char *pipe_cache_entry(const char *store, const char *key);

/* Records run_id's invocation as the last success of that invocation of
   pipeline (STORE/cache/last/PIPELINE/INVOCATION), the one a later
   execution that cannot reuse it compares itself with. */
int pipe_cache_record_last(const char *store, const char *pipeline, const char *run_id, const char *invocation,
                           char *err, size_t errsize);
/* The record of the last success of pipeline's invocation and its
   "RUN_ID/INVOCATION" (malloc'ed), if it is still there and done; both
   NULL otherwise. Errors only when memory runs out. */
int pipe_cache_last(const char *store, const char *pipeline, const char *invocation, pipe_step_record **rec,
                    char **from);

#endif
