/* What `runs`, `show`, `logs` and `report` share (docs/runtime.md,
   "Commands"): their options (--store DIR, --json, -o FILE, --rank N,
   --follow and positional arguments) and the RUN they name. Private to the runtime. */
#ifndef PIPE_RUN_CMD_H
#define PIPE_RUN_CMD_H

#include <stdbool.h>

#include "pipe/manifest.h"
#include "view/run_view.h"

enum { PIPE_ARG_JSON = 1, PIPE_ARG_OUTPUT = 2, PIPE_ARG_RANK = 4, PIPE_ARG_METRIC = 8, PIPE_ARG_FOLLOW = 16 };
/* The most positional arguments (`report RUN1 RUN2 ...`) and --metric options. */
#define PIPE_RUN_ARGS_MAX 8

typedef struct pipe_run_args {
    const char *store;         /* --store DIR, NULL when not given */
    const char *positional[PIPE_RUN_ARGS_MAX]; /* RUN, INVOCATION; report: RUN ... */
    int npositional;
    bool json;          /* --json */
    const char *output; /* -o FILE, --output FILE */
    long rank;          /* --rank N; -1 when not given */
    bool follow;        /* --follow, -f */
    const char *metric[PIPE_RUN_ARGS_MAX]; /* --metric NAME, in order */
    int nmetric;
} pipe_run_args;

/* Parses argv[1..] of command: --store always, the options in allowed, at
   most max_positional other arguments. 1 for --help, 0, or -1 after
   printing the error (an unknown option names itself, and the command's
   usage line follows). */
int pipe_run_args_parse(int argc, char **argv, unsigned allowed, int max_positional, const char *command,
                        pipe_run_args *a);
/* The store (malloc'ed) and the id that ref names (an id, a unique prefix
   or part, or `latest`; NULL: latest). Returns the exit status: 0, or 2 after
   printing the error. */
int pipe_run_args_resolve(const pipe_run_args *a, const char *ref, char **store, char **run_id);
/* The start of show, logs and report: the options, then the run that the
   first positional argument names (latest without one), loaded with what
   (run_view.h). -1 when the command goes on with *v; else the exit status
   to return (after --help, with details under the usage line, or an error
   printed). */
int pipe_run_cmd_begin(int argc, char **argv, unsigned allowed, int max_positional, const char *command,
                       const char *details, const pipe_manifest *m, unsigned what, pipe_run_args *a,
                       pipe_run_view **v);

#endif
