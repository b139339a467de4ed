/* Error and warning lines (cli.h). */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

static void say(const char *what, const char *fmt, va_list ap)
{
    fputs(what, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void pipe_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("error: ", fmt, ap);
    va_end(ap);
}

void pipe_cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("warning: ", fmt, ap);
    va_end(ap);
}
