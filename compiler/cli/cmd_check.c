/* `pipec check FILE.pipe`: every error and warning of a file and its imports. */
#include "command.h"

int cmd_check(const pipec_command *self, int argc, char **argv)
{
    command_opts o;
    int rc = command_parse(self, argc, argv, "dW", &o);
    if (rc >= 0)
        return rc;
    check_session s;
    if ((rc = command_load(&s, &o, false)) >= 0)
        return rc;
    command_flush(&s, o.diag_format);
    rc = diag_error_count(&s.diag) ? EXIT_ERRORS : EXIT_OK;
    check_session_free(&s);
    return rc;
}
