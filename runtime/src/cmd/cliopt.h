/* The options of the commands (cmd/): "--store DIR" or "--store=DIR",
   integers in a range, --help. The messages they print are util/cli.h's.
   Private to the runtime. */
#ifndef PIPE_CLIOPT_H
#define PIPE_CLIOPT_H

#include <stdbool.h>
#include <stddef.h>

/* Matches argv[*i] against the option `name` ("--store"), given as
   "--store DIR" or "--store=DIR". Returns 1 with *value set (and *i moved
   past a separate value), 0 when argv[*i] is not this option, -1 when the
   value is missing (the message is printed). */
int pipe_opt_value(int argc, char **argv, int *i, const char *name, const char **value);
/* "--jobs 4": a decimal integer in [min, max]; -1 with a message printed. */
int pipe_opt_parse_int(const char *option, const char *text, long min, long max, long *out);
/* "--help" or "-h". */
bool pipe_opt_is_help(const char *arg);

#endif
