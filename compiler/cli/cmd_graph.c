/* `pipec graph FILE.pipe`: a pipeline's invocations and data flow (graph.c). */
#include <stdio.h>

#include "command.h"

int cmd_graph(const pipec_command *self, int argc, char **argv)
{
    command_opts o;
    int rc = command_parse(self, argc, argv, "pfdW", &o);
    if (rc >= 0)
        return rc;
    check_session s;
    if ((rc = command_load(&s, &o, false)) >= 0)
        return rc;
    pipeline_info *pl = NULL;
    if (!diag_error_count(&s.diag))
        pl = program_select_pipeline(&s.pg, o.pipeline);
    /* `graph` shows the graph: the warnings `check` prints in full are one
       line here (unless -Werror makes them errors); json and sarif get all. */
    if (o.diag_format == DIAG_FORMAT_TEXT) {
        char hint[600];
        snprintf(hint, sizeof hint, "pipec check %s", o.file);
        diag_flush_errors_only(&s.diag, hint, command_write_stream, stderr);
    } else {
        command_flush(&s, o.diag_format);
    }
    rc = EXIT_ERRORS;
    if (pl && !diag_error_count(&s.diag)) {
        strbuf out = STRBUF_INIT;
        graph_render(pl, o.graph_format, &out);
        fwrite(sb_cstr(&out), 1, out.len, stdout);
        sb_free(&out);
        rc = EXIT_OK;
    }
    check_session_free(&s);
    return rc;
}
