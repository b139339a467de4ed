/* Pipeline parameter values: defaults from the manifest, overridden by
   --param NAME=VALUE and config files, validated against the declared type
   and kept as canonical text (what step.yaml and cache keys use). */
#ifndef PIPE_PARAMS_H
#define PIPE_PARAMS_H

#include <stddef.h>

#include "pipe/manifest.h"

/* The longest parameter value, in bytes (docs/reliability.md, "Limits"):
   values travel in run.yaml, every step.yaml, cache keys and the
   environment of command steps (where Linux allows 128 KiB a variable).
   Larger data belongs in a file, passed by its path. */
#define PIPE_PARAM_VALUE_MAX 65536u

typedef struct pipe_param_values {
    char **values; /* one per manifest param, canonical text; NULL: required and not given */
    size_t n;
} pipe_param_values;

int pipe_params_init(const pipe_manifest *m, pipe_param_values *out);
/* "NAME=VALUE". PIPE_EUSAGE with a message naming the parameter when the name
   is unknown (with the valid names) or the value does not parse as its type. */
int pipe_params_assign(const pipe_manifest *m, pipe_param_values *v, const char *assignment, char *err,
                       size_t errsize);
/* Every "NAME=VALUE" of a command line in order; a name given twice is
   PIPE_EUSAGE naming both (a config file's value is overridden, not this). */
int pipe_params_assign_all(const pipe_manifest *m, pipe_param_values *v, const char *const *assignments, size_t n,
                           char *err, size_t errsize);
int pipe_params_set(const pipe_manifest *m, pipe_param_values *v, const char *name, const char *value, char *err,
                    size_t errsize);
/* PIPE_EUSAGE naming the first required parameter without a value. */
int pipe_params_check_complete(const pipe_manifest *m, const pipe_param_values *v, char *err, size_t errsize);
/* Canonical text of value for type t ("1e3" as float -> "1000"); NULL if invalid. malloc'ed. */
char *pipe_value_canonical(pipe_type t, const char *value);
void pipe_params_free(pipe_param_values *v);

#endif
