/* `describe`: the pipeline (format/describe.h). */
#include <stdio.h>

#include "cliopt.h"
#include "commands.h"
#include "format/describe.h"
#include "util/cli.h"

int pipe_cmd_describe(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)prog;
    for (int i = 1; i < argc; i++) {
        if (pipe_opt_is_help(argv[i])) {
            pipe_commands_help("describe", "The pipeline: parameters, invocations, resources, images.");
            return PIPE_EXIT_OK;
        }
        pipe_cli_error("describe takes no %s `%s`", argv[i][0] == '-' ? "option" : "argument", argv[i]);
        return PIPE_EXIT_USAGE;
    }
    pipe_describe_print(m);
    return PIPE_EXIT_OK;
}
