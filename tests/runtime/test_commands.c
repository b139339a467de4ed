/* The bundle executable's table of commands (PIPE_COMMANDS in runtime/src/cmd/commands.h):
   every row complete and found by its name, and the docs listing exactly
   the table: docs/runtime.md's synopsis of the commands (the block under
   "## Commands") and the README's list of their names. When a row changes,
   this test prints the block the docs should hold. */
#define _GNU_SOURCE /* open_memstream */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd/commands.h"
#include "pipe/base.h"

#ifndef PIPEC_SOURCE_DIR
#error "PIPEC_SOURCE_DIR must name the repository root"
#endif

static char *read_doc(const char *rel)
{
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/%s", PIPEC_SOURCE_DIR, rel);
    char *text = NULL;
    size_t len = 0;
    if (pipe_read_file(path, &text, &len, err, sizeof err) != 0)
        fprintf(stderr, "%s\n", err);
    return text;
}

static void test_rows(void)
{
    CHECK(pipe_ncommands > 0);
    for (size_t i = 0; i < pipe_ncommands; i++) {
        const pipe_command *c = &pipe_commands[i];
        CHECK(c->name && *c->name && pipe_command_fns[i] && c->usage && c->summary && *c->summary);
        CHECK(!strchr(c->usage, '\n') && !strchr(c->summary, '\n'));
        CHECK(pipe_commands_find(c->name) == c); /* and so no name twice */
    }
    CHECK(pipe_commands_find("frobnicate") == NULL);
    CHECK(pipe_commands_find("") == NULL);
}

/* `EXE --help`'s list and a command's usage line come from the rows. */
static void test_help(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pipe_commands_list(f);
    fclose(f);
    for (size_t i = 0; i < pipe_ncommands; i++) {
        char line[256];
        snprintf(line, sizeof line, "\n  %s", pipe_commands[i].name);
        CHECK(strstr(text, line) || strncmp(text, line + 1, strlen(line + 1)) == 0);
        CHECK(strstr(text, pipe_commands[i].summary) != NULL);
    }
    free(text);
    char usage[512];
    pipe_commands_usage_text("logs", usage, sizeof usage);
    CHECK_STREQ(usage, "usage: EXE logs [RUN] [INVOCATION] [--rank N] [--follow] [--store DIR]");
}

/* docs/runtime.md: the code block under "## Commands" is the synopsis. */
static void test_runtime_md(void)
{
    char *doc = read_doc("docs/runtime.md"), *want = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&want, &len);
    pipe_commands_synopsis(f);
    fclose(f);
    const char *open = "## Commands\n\n```\n";
    char *start = doc ? strstr(doc, open) : NULL;
    char *end = start ? strstr(start + strlen(open), "```\n") : NULL;
    CHECK(start && end);
    if (start && end) {
        start += strlen(open);
        bool same = (size_t)(end - start) == len && memcmp(start, want, len) == 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "docs/runtime.md's list of commands is not the table's (PIPE_COMMANDS, cmd/commands.h); "
                            "it should be:\n%s",
                    want);
    }
    free(want);
    free(doc);
}

/* README.md: "its executable (`run`, `step`, ...)" names every command, in order. */
static void test_readme(void)
{
    char *doc = read_doc("README.md"), want[1024] = "its executable (";
    for (size_t i = 0; i < pipe_ncommands; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s`%s`", i ? ", " : "", pipe_commands[i].name);
    strcat(want, ")");
    CHECK(doc && strstr(doc, want));
    if (doc && !strstr(doc, want))
        fprintf(stderr, "README.md should name the executable's commands as the table does: %s\n", want);
    free(doc);
}

int main(void)
{
    test_rows();
    test_help();
    test_runtime_md();
    test_readme();
    return check_summary();
}
