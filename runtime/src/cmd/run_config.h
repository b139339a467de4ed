/* `run --config FILE` (private): a YAML mapping with params, store, jobs,
   no_cache and strict_resources, checked key by key. Its own file so that
   the fuzzer (tests/fuzz/fuzz_config.c) reaches exactly what `run` does. */
#ifndef PIPE_RUN_CONFIG_H
#define PIPE_RUN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "format/params.h"
#include "pipe/manifest.h"

typedef struct pipe_run_config {
    char *store; /* NULL: not given */
    long jobs;   /* 0: not given */
    bool no_cache, strict_resources;
} pipe_run_config;

/* Parses text (named path in messages) into cfg and the parameters in v.
   0; PIPE_EUSAGE with "PATH: line N: ..." in err; PIPE_ENOMEM. */
int pipe_run_config_parse(const char *text, size_t len, const char *path, const pipe_manifest *m,
                          pipe_param_values *v, pipe_run_config *cfg, char *err, size_t errsize);
/* Reads path (at most PIPE_CONFIG_MAX_BYTES: /dev/zero or a huge file is
   refused, not read to the end of memory) and parses it. */
int pipe_run_config_load(const char *path, const pipe_manifest *m, pipe_param_values *v, pipe_run_config *cfg,
                         char *err, size_t errsize);
void pipe_run_config_free(pipe_run_config *cfg);

#endif
