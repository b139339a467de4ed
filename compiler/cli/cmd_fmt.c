/* `pipec fmt FILE.pipe`: the file in the canonical layout (session/fmt.c). */
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "session/fmt.h"
#include "util/write_file.h"

int cmd_fmt(const pipec_command *self, int argc, char **argv)
{
    command_opts o;
    int rc = command_parse(self, argc, argv, "c", &o);
    if (rc >= 0)
        return rc;
    check_session s;
    check_session_init(&s, false);
    char err[512];
    int idx = source_load(&s.sources, o.file, err, sizeof err);
    if (idx < 0) {
        fprintf(stderr, "pipec: error: cannot read `%s`: %s\n", o.file, err);
        check_session_free(&s);
        return EXIT_USAGE;
    }
    strbuf out = STRBUF_INIT;
    if (!format_source(&s.arena, &s.diag, &s.sources, (uint32_t)idx, &out)) {
        command_flush(&s, DIAG_FORMAT_TEXT);
        fprintf(stderr, "pipec: `%s` has errors; not formatted\n", o.file);
        rc = EXIT_ERRORS;
    } else {
        const source_file *src = s.sources.files[idx];
        /* An empty file formats to nothing, and an empty strbuf has no data
           until sb_cstr gives it its "" (memcmp takes no NULL, even for 0
           bytes). */
        const char *text = sb_cstr(&out);
        /* A file with CR line breaks is rewritten with LF ones. */
        bool same = !src->lone_cr && out.len == src->len && memcmp(text, src->text, out.len) == 0;
        if (o.check_only) {
            if (!same)
                fprintf(stderr, "%s: not in canonical layout (run `pipec fmt %s`)\n", o.file, o.file);
            rc = same ? EXIT_OK : EXIT_ERRORS;
        } else if (same) {
            rc = EXIT_OK;
        } else {
            char werr[512];
            rc = write_file_atomic(o.file, text, out.len, werr, sizeof werr) == 0 ? EXIT_OK : EXIT_USAGE;
            if (rc != EXIT_OK)
                fprintf(stderr, "pipec: error: cannot write `%s`: %s\n", o.file, werr);
        }
    }
    sb_free(&out);
    check_session_free(&s);
    return rc;
}
