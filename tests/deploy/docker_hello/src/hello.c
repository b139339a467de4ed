#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hello.h"

int produce(pipe_ctx *ctx, const hello_produce_args *args)
{
    FILE *out = pipe_output_open(ctx, "words");
    if (!out)
        return 1;
    for (long long i = 0; i < args->n; i++)
        fprintf(out, "hello %lld\n", i);
    return 0;
}

/* The @docker environment of hello.pipe, as the image must hold it. */
static const struct {
    const char *name, *value;
} expected[] = {
    {"GREETING", "say \"hi\" 'there' $(touch /tmp/pwned) `touch /tmp/pwned` ${HOME} $HOME # */ {a: b} & *x "
                 "\xc3\xbcn\xc3\xaf \xe6\x97\xa5\xe6\x9c\xac"},
    {"BACKSLASHES", "C:\\dir\\ end\\"},
    {"EMPTY", ""},
    {"SPACES", "  two  "},
};

int check(pipe_ctx *ctx, const hello_check_args *args)
{
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const char *v = getenv(expected[i].name);
        if (!v || strcmp(v, expected[i].value) != 0)
            return pipe_fail(ctx, "%s is [%s], expected [%s]", expected[i].name, v ? v : "(unset)",
                             expected[i].value);
    }
    if (access("/tmp/pwned", F_OK) == 0)
        return pipe_fail(ctx, "/tmp/pwned exists: text from the .pipe file was run as a command");
    FILE *in = fopen(args->words, "r");
    if (!in)
        return pipe_fail(ctx, "cannot open %s", args->words);
    char line[64];
    long long lines = 0;
    while (fgets(line, sizeof line, in))
        lines++;
    fclose(in);
    if (lines != args->n)
        return pipe_fail(ctx, "%lld lines, expected %lld", lines, (long long)args->n);
    pipe_log(ctx, "environment and inputs as expected");
    return 0;
}
