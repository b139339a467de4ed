/* `pipec`: the table of commands, the dispatch, the help. A command is a
   row here and a file of cli/ (cmd_NAME.c) with its function. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "command.h"
#include "targets/targets.h"
#include "util/strbuf.h"
#include "version.h"

command_fn cmd_check, cmd_build, cmd_graph, cmd_fmt, cmd_explain, cmd_lsp;

const pipec_command pipec_commands[] = {
    {"check", cmd_check, "FILE.pipe [-Werror] [--diagnostics-format=text|json|sarif]",
     "check a pipeline file and report every mistake", NULL},
    {"build", cmd_build,
     "FILE.pipe [-o DIR] [--pipeline NAME] [--target LIST] [--registry REGISTRY] [-MD -MF DEPFILE [-MT TARGET]] "
     "[--force] [-v] [--list-sources]",
     "check, then write the deployable bundle (default DIR: PIPELINE-bundle)",
     "it writes over only its own files (DIR/pipec-files.txt lists them) and\n"
     "stops, writing nothing, before a file of yours: --force overwrites it;\n"
     "--registry names where the images are pushed and pulled from (over\n"
     "@docker(registry)); LIST is a comma list of the targets below;\n"
     "-v (--verbose) names each file written; --list-sources prints what a\n"
     "build system compiles and writes nothing"},
    {"graph", cmd_graph, "FILE.pipe [--pipeline NAME] [--format text|dot|mermaid]",
     "print a pipeline's invocations and data flow", NULL},
    {"fmt", cmd_fmt, "FILE.pipe [--check]", "rewrite a file in the canonical layout (comments kept)",
     "--check only reports whether it already is"},
    {"explain", cmd_explain, "CODE | @DECORATOR",
     "explain a diagnostic code with a wrong and a right example, or a decorator's options", NULL},
    {"lsp", cmd_lsp, "", "a language server (LSP) on stdin and stdout, for editors (docs/lsp.md)", NULL},
};
const size_t pipec_command_count = sizeof pipec_commands / sizeof pipec_commands[0];

const pipec_command *pipec_command_named(const char *name)
{
    for (size_t i = 0; i < pipec_command_count; i++)
        if (strcmp(pipec_commands[i].name, name) == 0)
            return &pipec_commands[i];
    return NULL;
}

/* The column the descriptions of --help start at, and the width of its lines. */
#define HELP_COLUMN 23
#define HELP_WIDTH 96

/* Lines of text, each indented to the description column. */
static void print_indented(FILE *out, const char *text)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        fprintf(out, "%*s%.*s\n", HELP_COLUMN, "", (int)n, text);
        text += n + (text[n] == '\n');
    }
}

/* The command and its usage, broken before an option that would pass the
   help's width (between brackets, never inside); returns the width of the
   last line. */
static int print_synopsis(FILE *out, const pipec_command *c)
{
    int width = fprintf(out, "  %s", c->name);
    const char *p = c->usage;
    while (*p) {
        size_t n = 0;
        for (int depth = 0; p[n] && (depth > 0 || p[n] != ' '); n++)
            depth += (p[n] == '[') - (p[n] == ']');
        if (width + 1 + (int)n > HELP_WIDTH)
            width = fprintf(out, "\n%*s", (int)strlen(c->name) + 2, "") - 1;
        width += fprintf(out, " %.*s", (int)n, p);
        p += n + (p[n] == ' ');
    }
    return width;
}

static void print_usage(FILE *out)
{
    fputs("usage: pipec <command> [options]\n\ncommands:\n", out);
    for (size_t i = 0; i < pipec_command_count; i++) {
        const pipec_command *c = &pipec_commands[i];
        int width = print_synopsis(out, c);
        if (width < HELP_COLUMN - 1)
            fprintf(out, "%*s%s\n", HELP_COLUMN - width, "", c->summary);
        else
            fprintf(out, "\n%*s%s\n", HELP_COLUMN, "", c->summary);
        if (c->details)
            print_indented(out, c->details);
    }
    strbuf targets = STRBUF_INIT;
    targets_choices(&targets, ",");
    fprintf(out,
            "\n"
            "targets: build's --target LIST is a comma list of %s\n"
            "\n"
            "options:\n"
            "  --version            print the version\n"
            "  --help               print this help\n"
            "\n"
            "exit status: 0 success, 1 errors were reported, 2 usage or I/O error\n",
            sb_cstr(&targets));
    sb_free(&targets);
}

void pipec_commands_markdown(FILE *out)
{
    fputs(COMMANDS_DOC_BEGIN "```\n", out);
    for (size_t i = 0; i < pipec_command_count; i++) {
        const pipec_command *c = &pipec_commands[i];
        fprintf(out, "pipec %s%s%s\n", c->name, c->usage[0] ? " " : "", c->usage);
    }
    fputs("pipec --version | --help\n```\n" COMMANDS_DOC_END, out);
}

int pipec_main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("pipec %s\n", PIPEC_VERSION);
        return EXIT_OK;
    }
    if (strcmp(name, "--commands-markdown") == 0) {
        /* Regenerates the command list of README.md. */
        pipec_commands_markdown(stdout);
        return EXIT_OK;
    }
    const pipec_command *c = pipec_command_named(name);
    if (c)
        return c->run(c, argc, argv);
    strbuf names = STRBUF_INIT;
    for (size_t i = 0; i < pipec_command_count; i++)
        sb_printf(&names, "%s%s", i ? ", " : "", pipec_commands[i].name);
    int rc = command_usage_error(NULL, "unknown command `%s` (the commands are %s)", name, sb_cstr(&names));
    sb_free(&names);
    return rc;
}
