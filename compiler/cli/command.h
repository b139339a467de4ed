/* What the commands of cli/ share: the exit statuses, the options of the
   commands that read a .pipe file, usage errors that show the command's
   usage, and a checked file loaded and its diagnostics printed. */
#ifndef PIPEC_COMMAND_H
#define PIPEC_COMMAND_H

#include <stdbool.h>

#include "cli.h"
#include "graph.h"
#include "session/session.h"
#include "util/diag.h"

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2 };

/* The options of the commands that read a .pipe file. */
typedef struct command_opts {
    const char *file;
    const char *pipeline;
    diag_format diag_format;
    bool werror;
    bool check_only;
    graph_format graph_format;
    const char *out_dir;
    unsigned targets;
    bool make_deps;
    const char *depfile;
    const char *dep_target;
    bool list_sources;
    const char *manifest_json;
    bool verbose;
    bool force;
    const char *registry;
} command_opts;

/* Parses the options argv[2..] of command self into o, those allowed
   only (a letter per kind of option: d=--diagnostics-format W=-Werror
   p=--pipeline f=--format c=--check b=build's -o/--target/-MD/-MF/-MT/
   --registry/--force/-v/--list-sources), and one .pipe file. -1 when they
   are right, else the exit status of the usage error it printed. */
int command_parse(const pipec_command *self, int argc, char **argv, const char *allowed, command_opts *o);

/* Prints "pipec: error: MESSAGE", the usage of the command (NULL: none)
   and where the help is; returns EXIT_USAGE. */
int command_usage_error(const pipec_command *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks o->file into s (container_targets: session_check_options): -1,
   or, when the file cannot be read, EXIT_USAGE with a message printed and
   s freed. */
int command_load(check_session *s, const command_opts *o, bool container_targets);
/* Prints the diagnostics: text to stderr, JSON and SARIF to stdout. */
void command_flush(check_session *s, diag_format fmt);
/* A diagnostics writer (util/diag.h) to the FILE * in user. */
void command_write_stream(void *user, const char *text, size_t len);

#endif
