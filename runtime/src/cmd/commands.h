/* The bundle executable's commands (docs/runtime.md): one table,
   PIPE_COMMANDS below, dispatched by pipe_main (main.c). Each gets the
   program tables, the parsed manifest and the arguments after the command
   name (argv[0] is the command itself, so option loops start at 1; argv[-1]
   is the executable as it was started), and returns the process exit
   status (util/cli.h): 0 success, 1 a step failed, 2 usage or
   configuration error. Each parses its arguments and calls the library
   (exec/, step/, report/, format/); commands print their own messages and
   never call exit(). */
#ifndef PIPE_COMMANDS_H
#define PIPE_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "util/cli.h"

/* The table: one row per command, in the order `--help` lists them.

   X(NAME, USAGE, SUMMARY)
     NAME     as typed after the executable; its function is pipe_cmd_NAME,
              in cmd/NAME.c
     USAGE    its arguments, on one line
     SUMMARY  what it does, on one line

   `EXE --help`, the message for an unknown command, each command's usage
   line (`EXE NAME --help`, its usage errors) and the list in
   docs/runtime.md come from these rows (runtime.test_commands checks the
   docs). A new command is a row here and its file in cmd/. */
#define PIPE_COMMANDS(X)                                                                                            \
    X(run,                                                                                                          \
      "[--param NAME=VALUE ...] [--config FILE] [--store DIR] [--no-cache] [--verify] [--strict-resources] "        \
      "[--jobs N] [--run-id ID]",                                                                                   \
      "run the pipeline on this machine")                                                                           \
    X(step,                                                                                                         \
      "INVOCATION --run-id ID [--store DIR] [--param NAME=VALUE ...] [--no-cache] [--verify] [--echo] "             \
      "[--machine-rank N] [--main-process-ip ADDR]",                                                                \
      "run one invocation (what Slurm, Kubernetes, SkyPilot and AWS Batch call)")                                   \
    X(describe, "", "the pipeline: parameters, invocations, resources, images")                                     \
    X(runs, "[--json] [--metric NAME ...] [--store DIR]",                                                           \
      "the runs in the artifact store, newest first (a column per metric)")                                         \
    X(show, "[RUN] [--json] [--store DIR]",                                                                         \
      "one run: parameters, each invocation's status, inputs, outputs, metrics")                                    \
    X(logs, "[RUN] [INVOCATION] [--rank N] [--follow] [--store DIR]",                                               \
      "the logs of a run, or of one invocation (one rank)")                                                         \
    X(report, "[RUN ...] [-o FILE] [--store DIR]",                                                                  \
      "the run as one self-contained HTML file; several runs: one page comparing them")

typedef int pipe_command_fn(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);

#define PIPE_COMMAND_DECLARE(name, usage, summary) pipe_command_fn pipe_cmd_##name;
PIPE_COMMANDS(PIPE_COMMAND_DECLARE)
#undef PIPE_COMMAND_DECLARE

/* The rows of PIPE_COMMANDS, in order, as two arrays: what is printed of
   each (usage.c, which the commands call for their usage lines) and the
   functions (commands.c), so that no command calls back into the file
   that points at it. */
typedef struct pipe_command {
    const char *name;
    const char *usage;   /* its arguments, one line */
    const char *summary; /* what it does, one line */
} pipe_command;
extern const pipe_command pipe_commands[];
extern const size_t pipe_ncommands;
extern pipe_command_fn *const pipe_command_fns[];

/* Runs command c (a row of pipe_commands) with the arguments after its
   name; the exit status. */
int pipe_commands_run(const pipe_command *c, const pipe_program *prog, const pipe_manifest *m, int argc,
                      char **argv);

/* The row of a command, NULL when there is none. */
const pipe_command *pipe_commands_find(const char *name);
/* "usage: EXE NAME USAGE" (its arguments wrapped) and a newline. */
void pipe_commands_usage(FILE *out, const char *name);
/* The same into buf, without the newline (for a message). */
void pipe_commands_usage_text(const char *name, char *buf, size_t size);
/* `NAME --help`: the usage line, then details (a paragraph or a list of
   options, NULL: none). */
void pipe_commands_help(const char *name, const char *details);
/* Every command, each as "  NAME USAGE" (wrapped) and its summary below,
   for `EXE --help`. */
void pipe_commands_list(FILE *out);
/* The synopsis of every command as docs/runtime.md lists them: "EXE NAME
   USAGE" a line each (wrapped, continuations under the arguments). */
void pipe_commands_synopsis(FILE *out);

#endif
