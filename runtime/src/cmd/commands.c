/* The functions of the table of commands (commands.h), in its order. */
#include "commands.h"

#define PIPE_COMMAND_FN(name, usage, summary) pipe_cmd_##name,
pipe_command_fn *const pipe_command_fns[] = {PIPE_COMMANDS(PIPE_COMMAND_FN)};
#undef PIPE_COMMAND_FN

int pipe_commands_run(const pipe_command *c, const pipe_program *prog, const pipe_manifest *m, int argc,
                      char **argv)
{
    return pipe_command_fns[c - pipe_commands](prog, m, argc, argv);
}
