#include "command.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "targets/targets.h"
#include "util/images.h"
#include "util/strbuf.h"

int command_usage_error(const pipec_command *c, const char *fmt, ...)
{
    fprintf(stderr, "pipec: error: ");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (c)
        fprintf(stderr, "\nusage: pipec %s%s%s", c->name, c->usage[0] ? " " : "", c->usage);
    fprintf(stderr, "\n(run `pipec --help` for usage)\n");
    return EXIT_USAGE;
}

/* A usage error about --target: fmt with arg, what --target takes (names
   apart by sep), then end. */
static int target_usage_error(const pipec_command *command, const char *fmt, const char *arg, const char *sep,
                              const char *end)
{
    strbuf msg = STRBUF_INIT;
    sb_printf(&msg, fmt, arg);
    targets_choices(&msg, sep);
    sb_puts(&msg, end);
    int rc = command_usage_error(command, "%s", sb_cstr(&msg));
    sb_free(&msg);
    return rc;
}

static bool take_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return true;
    }
    if (strcmp(argv[*i], name) == 0) {
        if (*i + 1 >= argc) {
            *value = NULL;
            return true;
        }
        *value = argv[++*i];
        return true;
    }
    return false;
}

/* The words of --diagnostics-format and --format, in their enums' order. */
static const char *const diag_formats[] = {"text", "json", "sarif", NULL};
static const char *const graph_formats[] = {"text", "dot", "mermaid", NULL};
_Static_assert(DIAG_FORMAT_SARIF == 2 && GRAPH_MERMAID == 2, "the words are in the enums' order");

/* The index of v in words (NULL-ended), or -1. */
static int word_index(const char *v, const char *const *words)
{
    for (int k = 0; words[k]; k++)
        if (strcmp(v, words[k]) == 0)
            return k;
    return -1;
}

int command_parse(const pipec_command *cmd, int argc, char **argv, const char *allowed, command_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strchr(allowed, 'd') && take_value(argc, argv, &i, "--diagnostics-format", &v)) {
            if (!v)
                return command_usage_error(cmd, "%s needs a value: text, json or sarif", a);
            int k = word_index(v, diag_formats);
            if (k < 0)
                return command_usage_error(cmd, "unknown diagnostics format `%s` (use text, json or sarif)", v);
            o->diag_format = (diag_format)k;
        } else if (strchr(allowed, 'W') && strcmp(a, "-Werror") == 0) {
            o->werror = true;
        } else if (strchr(allowed, 'p') && take_value(argc, argv, &i, "--pipeline", &v)) {
            if (!v)
                return command_usage_error(cmd, "%s needs a pipeline name", a);
            o->pipeline = v;
        } else if (strchr(allowed, 'f') && take_value(argc, argv, &i, "--format", &v)) {
            if (!v)
                return command_usage_error(cmd, "%s needs a value: text, dot or mermaid", a);
            int k = word_index(v, graph_formats);
            if (k < 0)
                return command_usage_error(cmd, "unknown graph format `%s` (use text, dot or mermaid)", v);
            o->graph_format = (graph_format)k;
        } else if (strchr(allowed, 'b') && (take_value(argc, argv, &i, "-o", &v) ||
                                            take_value(argc, argv, &i, "--output", &v))) {
            if (!v)
                return command_usage_error(cmd, "%s needs a directory", a);
            o->out_dir = v;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "--target", &v)) {
            const char *bad = NULL;
            if (!v)
                return target_usage_error(cmd, "%s needs a list: ", a, ",", "");
            if (!parse_targets(v, &o->targets, &bad))
                return target_usage_error(cmd, "unknown target in `%s` (use ", v, ", ", ")");
        } else if (strchr(allowed, 'b') && strcmp(a, "-MD") == 0) {
            o->make_deps = true;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "-MF", &v)) {
            if (!v)
                return command_usage_error(cmd, "%s needs a file name", a);
            o->depfile = v;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "-MT", &v)) {
            if (!v)
                return command_usage_error(cmd, "%s needs a target name", a);
            o->dep_target = v;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "--registry", &v)) {
            if (!v)
                return command_usage_error(cmd, "%s needs a registry, e.g. ghcr.io/team or localhost:5000", a);
            if (!image_registry_valid(v))
                return command_usage_error(cmd, "`%s` is not a registry (images are named REGISTRY/NAME:TAG: write "
                                                "the host and path, e.g. ghcr.io/team or localhost:5000, lower case "
                                                "after the host, no tag, no final `/`)",
                                           v);
            o->registry = v;
        } else if (strchr(allowed, 'b') && strcmp(a, "--list-sources") == 0) {
            o->list_sources = true;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "--manifest-json", &v)) {
            /* Hidden: the model bundle.yaml was written from, as JSON, into
               a file (tests/golden/manifest_data.py). */
            if (!v)
                return command_usage_error(cmd, "%s needs a file", "--manifest-json");
            o->manifest_json = v;
        } else if (strchr(allowed, 'b') && (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)) {
            o->verbose = true;
        } else if (strchr(allowed, 'b') && strcmp(a, "--force") == 0) {
            o->force = true;
        } else if (strchr(allowed, 'c') && strcmp(a, "--check") == 0) {
            o->check_only = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return command_usage_error(cmd, "unknown option `%s`", a);
        } else if (o->file) {
            return command_usage_error(cmd, "more than one input file (`%s`)", a);
        } else {
            o->file = a;
        }
    }
    if (!o->file)
        return command_usage_error(cmd, "%s needs a .pipe file", argv[1]);
    return -1;
}

int command_load(check_session *s, const command_opts *o, bool container_targets)
{
    check_session_init(s, o->werror);
    char err[512];
    if (check_session_file(s, o->file, container_targets, err, sizeof err))
        return -1;
    fprintf(stderr, "pipec: error: cannot read `%s`: %s\n", o->file, err);
    check_session_free(s);
    return EXIT_USAGE;
}

void command_write_stream(void *user, const char *text, size_t len) { fwrite(text, 1, len, (FILE *)user); }

void command_flush(check_session *s, diag_format fmt)
{
    diag_flush(&s->diag, fmt, command_write_stream, fmt == DIAG_FORMAT_TEXT ? stderr : stdout);
}
