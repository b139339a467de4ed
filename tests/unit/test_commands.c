/* pipec's table of commands (compiler/cli/cli.c) and what comes from it:
 * the dispatch, `pipec --help`, the usage errors, and the command list of
 * README.md (`pipec explain --commands-markdown`; `bash
 * scripts/update-docs.sh` rewrites it). Walks the table, so that a new row
 * is tested without a new line here. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/cli.h"
#include "doc_block.h"
#include "run_pipec.h"

#ifndef PIPEC_SOURCE_DIR
#error "PIPEC_SOURCE_DIR must name the repository root"
#endif

static void test_rows(void)
{
    CHECK(pipec_command_count > 0);
    for (size_t i = 0; i < pipec_command_count; i++) {
        const pipec_command *c = &pipec_commands[i];
        CHECK(c->name && c->name[0] && c->name[0] != '-');
        CHECK_NOT_NULL(c->run);
        CHECK(c->usage && !strchr(c->usage, '\n'));
        CHECK(c->summary && c->summary[0] && !strchr(c->summary, '\n'));
        CHECK(pipec_command_named(c->name) == c);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(pipec_commands[k].name, c->name) != 0);
    }
    CHECK(pipec_command_named("frobnicate") == NULL);
}

/* --help names every command, in table order, each with what it does. */
static void test_help(void)
{
    int status;
    char *help = run_pipec(2, (char *[]){"pipec", "--help", NULL}, &status);
    CHECK_EQ_INT(status, 0);
    const char *at = help;
    for (size_t i = 0; i < pipec_command_count && at; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %s", pipec_commands[i].name);
        at = strstr(at, line);
        CHECK_NOT_NULL(at);
        CHECK(at && strstr(at, pipec_commands[i].summary) != NULL);
    }
    free(help);
}

/* An unknown command lists the commands; a command's usage error shows
   its usage line from the table. */
static void test_usage_errors(void)
{
    int status;
    char *msg = run_pipec(2, (char *[]){"pipec", "frobnicate", NULL}, &status);
    CHECK_EQ_INT(status, 2);
    CHECK(strstr(msg, "unknown command `frobnicate`") != NULL);
    for (size_t i = 0; i < pipec_command_count; i++)
        CHECK(strstr(msg, pipec_commands[i].name) != NULL);
    free(msg);
    for (size_t i = 0; i < pipec_command_count; i++) {
        const pipec_command *c = &pipec_commands[i];
        msg = run_pipec(4, (char *[]){"pipec", (char *)c->name, "--no-such-option", "x", NULL}, &status);
        CHECK_EQ_INT(status, 2);
        char usage[512];
        snprintf(usage, sizeof usage, "usage: pipec %s%s%s\n", c->name, c->usage[0] ? " " : "", c->usage);
        if (!strstr(msg, usage))
            fprintf(stderr, "`pipec %s --no-such-option x` printed:\n%s", c->name, msg);
        CHECK(strstr(msg, usage) != NULL);
        free(msg);
    }
}

/* README.md's command list is the table's. */
static void test_readme(void)
{
    check_doc_block(PIPEC_SOURCE_DIR "/README.md", COMMANDS_DOC_BEGIN, pipec_commands_markdown,
                    "README.md's command list is out of date with compiler/cli/cli.c");
}

int main(void)
{
    test_rows();
    test_help();
    test_usage_errors();
    test_readme();
    return check_summary();
}
