#include "cliopt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"

int pipe_opt_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        pipe_cli_error("option %s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int pipe_opt_parse_int(const char *option, const char *text, long min, long max, long *out)
{
    const char *p = text;
    if (*p == '-' || *p == '+')
        p++;
    bool digits = isdigit((unsigned char)*p);
    for (; *p && digits; p++)
        digits = isdigit((unsigned char)*p);
    errno = 0;
    long v = digits ? strtol(text, NULL, 10) : 0;
    if (!digits || errno == ERANGE || v < min || v > max) {
        pipe_cli_error("%s: `%s` is not an integer from %ld to %ld", option, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

bool pipe_opt_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }
