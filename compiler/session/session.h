/* A checked program with everything it owns: what `check`, `build`,
   `graph` and the language server (lsp/) run, on a file read from disk or
   on text held in memory under a file name. One front end and one checker
   for all of them, with the same rules: the checker's own and every deploy
   target's (targets/<name>/), which the checker gets from here as data. */
#ifndef PIPEC_SESSION_H
#define PIPEC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/program.h"

typedef struct check_session {
    arena arena;
    source_set sources;
    diag_engine diag;
    program pg;
    uint32_t root; /* the checked file's index in sources */
} check_session;

/* The checker's options: every deploy target's rules, and whether the
   build writes a target that runs containers (W0401 for a GPU step
   without an image). */
void session_check_options(check_options *o, bool container_targets);

void check_session_init(check_session *s, bool werror);
/* Reads path and checks it with its imports (container_targets: as
   session_check_options). False when path itself cannot be read (message
   in err). */
bool check_session_file(check_session *s, const char *path, bool container_targets, char *err, size_t errsize);
/* Checks text[0..len) as the file path (imports and sources are found
   relative to it, on disk). */
void check_session_text(check_session *s, const char *path, const char *text, size_t len, bool container_targets);
void check_session_free(check_session *s);

#endif
