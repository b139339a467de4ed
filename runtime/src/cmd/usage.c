/* What is printed of the table of commands (commands.h): the rows'
   names, arguments and summaries, and the usage lines, help and lists
   made of them. */
#include <string.h>

#include "commands.h"

#define PIPE_COMMAND_ROW(name, usage, summary) {#name, usage, summary},
const pipe_command pipe_commands[] = {PIPE_COMMANDS(PIPE_COMMAND_ROW)};
#undef PIPE_COMMAND_ROW
const size_t pipe_ncommands = sizeof pipe_commands / sizeof pipe_commands[0];

/* Usage lines break before an option, at this width. */
#define USAGE_WIDTH 100

const pipe_command *pipe_commands_find(const char *name)
{
    for (size_t i = 0; i < pipe_ncommands; i++)
        if (strcmp(pipe_commands[i].name, name) == 0)
            return &pipe_commands[i];
    return NULL;
}

/* prefix, then the arguments; a line that would pass USAGE_WIDTH breaks
   before the next " [", the rest under the first argument. */
static void wrapped(FILE *out, const char *prefix, const char *args)
{
    int col = fprintf(out, "%s", prefix), indent = col;
    for (const char *p = args; *p;) {
        const char *next = strstr(p + 1, " [");
        size_t n = next ? (size_t)(next - p) : strlen(p);
        if (p != args && col + (int)n > USAGE_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
            p++; /* the space before the bracket */
            n--;
        }
        col += fprintf(out, "%.*s", (int)n, p);
        p += n;
    }
    fputc('\n', out);
}

static void synopsis(FILE *out, const char *lead, const pipe_command *c, int width)
{
    char prefix[128];
    if (!*c->usage) {
        fprintf(out, "%s%s\n", lead, c->name);
        return;
    }
    snprintf(prefix, sizeof prefix, "%s%-*s ", lead, width, c->name);
    wrapped(out, prefix, c->usage);
}

void pipe_commands_usage(FILE *out, const char *name)
{
    const pipe_command *c = pipe_commands_find(name);
    if (c)
        synopsis(out, "usage: EXE ", c, 0);
}

void pipe_commands_usage_text(const char *name, char *buf, size_t size)
{
    FILE *f = size ? fmemopen(buf, size, "w") : NULL;
    if (!f) {
        if (size)
            buf[0] = '\0';
        return;
    }
    pipe_commands_usage(f, name);
    fclose(f);
    buf[size - 1] = '\0';
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
}

void pipe_commands_help(const char *name, const char *details)
{
    pipe_commands_usage(stdout, name);
    if (details)
        printf("\n%s\n", details);
}

void pipe_commands_list(FILE *out)
{
    for (size_t i = 0; i < pipe_ncommands; i++) {
        synopsis(out, "  ", &pipe_commands[i], 0);
        fprintf(out, "      %s\n", pipe_commands[i].summary);
    }
}

void pipe_commands_synopsis(FILE *out)
{
    int width = 0;
    for (size_t i = 0; i < pipe_ncommands; i++)
        if ((int)strlen(pipe_commands[i].name) > width)
            width = (int)strlen(pipe_commands[i].name);
    for (size_t i = 0; i < pipe_ncommands; i++)
        synopsis(out, "EXE ", &pipe_commands[i], width);
}
