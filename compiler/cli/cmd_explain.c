/* `pipec explain CODE` and `pipec explain @DECORATOR`; and the pages of
   docs/ that pipec writes from its tables (scripts/update-docs.sh). */
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "explain.h"
#include "session/decorator_doc.h"

int cmd_explain(const pipec_command *self, int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--markdown") == 0) {
        /* Regenerates docs/diagnostics.md (a unit test keeps the two in step). */
        explain_write_markdown(stdout);
        return EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[2], "--decorators-markdown") == 0) {
        /* Regenerates the decorator reference of docs/language.md. */
        decorator_doc_markdown(stdout);
        return EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[2], "--cache-key-markdown") == 0) {
        /* Regenerates the table of docs/runtime.md, "Caching". */
        decorator_doc_cache_markdown(stdout);
        return EXIT_OK;
    }
    if (argc != 3)
        return command_usage_error(self,
                                   "%s needs one diagnostic code or decorator, e.g. `pipec explain E0303` or `pipec "
                                   "explain @resources`",
                                   argv[1]);
    if (argv[2][0] == '@') {
        if (decorator_doc_print(argv[2], stdout))
            return EXIT_OK;
        fprintf(stderr, "pipec: error: no decorator `%s` (see docs/language.md, \"Decorators\")\n", argv[2]);
        return EXIT_USAGE;
    }
    const explain_entry *e = explain_lookup(argv[2]);
    if (!e) {
        fprintf(stderr, "pipec: error: no diagnostic code `%s` (codes look like E0303 or W0401; see "
                        "docs/diagnostics.md)\n",
                argv[2]);
        return EXIT_USAGE;
    }
    explain_print(e, stdout);
    return EXIT_OK;
}
