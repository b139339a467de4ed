/* The bundle executable's commands (docs/runtime.md), dispatched by
   pipe_main (main.c). Each gets the program tables, the parsed manifest and
   the arguments after the command name (argv[0] is the command itself, so
   getopt-style loops start at 1), and returns the process exit status:
   0 success, 1 a step failed, 2 usage or configuration error. Commands print
   their own messages; they never call exit(). */
#ifndef PIPE_COMMANDS_H
#define PIPE_COMMANDS_H

#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "util/cli.h"


/* run: the local runner and scheduler (runner.c). */
int pipe_cmd_run(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);
/* step INVOCATION --run-id ID ...: one invocation (step.c over step/step.h). */
int pipe_cmd_step(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);
/* describe: the pipeline, parameters, invocations, resources (describe.c). */
int pipe_cmd_describe(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);
/* runs: one line per run in the store (history.c). */
int pipe_cmd_runs(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);
/* show [RUN]: one run, invocation by invocation (history.c). */
int pipe_cmd_show(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);
/* logs [RUN] [INVOCATION] [--rank N]: the logs of a run (logs.c). */
int pipe_cmd_logs(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);
/* report [RUN ...] [-o FILE]: the run as one self-contained HTML file, or
   several runs compared on one (report.c, report_compare.c). */
int pipe_cmd_report(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv);

#endif
