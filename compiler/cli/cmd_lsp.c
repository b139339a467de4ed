/* `pipec lsp`: the language server (lsp/) on stdin and stdout. */
#include <string.h>

#include "command.h"
#include "lsp/lsp.h"

int cmd_lsp(const pipec_command *self, int argc, char **argv)
{
    /* Editors start it as `pipec lsp --stdio`; stdio is all it speaks. */
    if (argc > 3 || (argc == 3 && strcmp(argv[2], "--stdio") != 0))
        return command_usage_error(self, "%s takes no arguments (it speaks LSP on stdin and stdout)", "lsp");
    return lsp_serve(0, 1);
}
