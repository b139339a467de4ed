#include "cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/images.h"
#include "build/build.h"
#include "targets/targets.h"
#include "util/diag.h"
#include "session/decorator_doc.h"
#include "explain.h"
#include "session/fmt.h"
#include "graph.h"
#include "lsp/lsp.h"
#include "session/session.h"
#include "model/model_build.h"
#include "front/parse.h"
#include "check/program.h"
#include "util/strbuf.h"
#include "version.h"
#include "util/write_file.h"

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2 };

/* The help, in two parts around the list of targets (targets/targets.c). */
static const char usage_head[] =
    "usage: pipec <command> [options]\n"
    "\n"
    "commands:\n"
    "  check FILE.pipe [-Werror] [--diagnostics-format=text|json|sarif]\n"
    "                       check a pipeline file and report every mistake\n"
    "  build FILE.pipe [-o DIR] [--pipeline NAME] [--target LIST] [--registry REGISTRY]\n"
    "        [-MD -MF DEPFILE [-MT TARGET]] [--force] [-v]\n"
    "                       check, then write the deployable bundle (default DIR: PIPELINE-bundle);\n"
    "                       it writes over only its own files (DIR/pipec-files.txt lists them) and\n"
    "                       stops, writing nothing, before a file of yours: --force overwrites it;\n"
    "                       --registry names where the images are pushed and pulled from (over\n"
    "                       @docker(registry)); LIST is a comma list of ";
static const char usage_tail[] =
    ";\n"
    "                       -v (--verbose) names each file written; --list-sources prints what a\n"
    "                       build system compiles and writes nothing\n"
    "  graph FILE.pipe [--pipeline NAME] [--format text|dot|mermaid]\n"
    "                       print a pipeline's invocations and data flow\n"
    "  fmt FILE.pipe [--check]\n"
    "                       rewrite a file in the canonical layout (comments kept);\n"
    "                       --check only reports whether it already is\n"
    "  explain CODE         explain a diagnostic code, with a wrong and a right example\n"
    "  explain @DECORATOR   a decorator's options: values, ranges, defaults\n"
    "  lsp                  a language server (LSP) on stdin and stdout, for editors\n"
    "                       (docs/lsp.md)\n"
    "\n"
    "options:\n"
    "  --version            print the version\n"
    "  --help               print this help\n"
    "\n"
    "exit status: 0 success, 1 errors were reported, 2 usage or I/O error\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "pipec: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run `pipec --help` for usage)\n");
    return EXIT_USAGE;
}

static void print_usage(FILE *out)
{
    strbuf targets = STRBUF_INIT;
    targets_choices(&targets, ",");
    fprintf(out, "%s%s%s", usage_head, sb_cstr(&targets), usage_tail);
    sb_free(&targets);
}

/* A usage error about --target: fmt with arg, what --target takes (names
   apart by sep), then end. */
static int target_usage_error(const char *fmt, const char *arg, const char *sep, const char *end)
{
    strbuf msg = STRBUF_INIT;
    sb_printf(&msg, fmt, arg);
    targets_choices(&msg, sep);
    sb_puts(&msg, end);
    int rc = usage_error("%s", sb_cstr(&msg));
    sb_free(&msg);
    return rc;
}

static void write_stream(void *user, const char *text, size_t len) { fwrite(text, 1, len, (FILE *)user); }

/* Options shared by the commands that read a .pipe file. */
typedef struct common_opts {
    const char *file;
    const char *pipeline;
    diag_format diag_format;
    bool werror;
    bool check_only;
    graph_format graph_format;
    const char *out_dir;
    unsigned targets;
    bool make_deps;
    const char *depfile;
    const char *dep_target;
    bool list_sources;
    const char *manifest_json;
    bool verbose;
    bool force;
    const char *registry;
} common_opts;

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

/* Parses the options a command accepts (allowed: a string of letters, one
   per option kind: d=diagnostics-format W=-Werror p=--pipeline f=--format
   c=--check b=build's -o/--target/-MD/-MF/-MT/--force). */
static int parse_common(int argc, char **argv, const char *allowed, common_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strchr(allowed, 'd') && take_value(argc, argv, &i, "--diagnostics-format", &v)) {
            if (!v)
                return usage_error("%s needs a value: text, json or sarif", a);
            if (strcmp(v, "text") == 0)
                o->diag_format = DIAG_FORMAT_TEXT;
            else if (strcmp(v, "json") == 0)
                o->diag_format = DIAG_FORMAT_JSON;
            else if (strcmp(v, "sarif") == 0)
                o->diag_format = DIAG_FORMAT_SARIF;
            else
                return usage_error("unknown diagnostics format `%s` (use text, json or sarif)", v);
        } else if (strchr(allowed, 'W') && strcmp(a, "-Werror") == 0) {
            o->werror = true;
        } else if (strchr(allowed, 'p') && take_value(argc, argv, &i, "--pipeline", &v)) {
            if (!v)
                return usage_error("%s needs a pipeline name", a);
            o->pipeline = v;
        } else if (strchr(allowed, 'f') && take_value(argc, argv, &i, "--format", &v)) {
            if (!v)
                return usage_error("%s needs a value: text, dot or mermaid", a);
            if (strcmp(v, "text") == 0)
                o->graph_format = GRAPH_TEXT;
            else if (strcmp(v, "dot") == 0)
                o->graph_format = GRAPH_DOT;
            else if (strcmp(v, "mermaid") == 0)
                o->graph_format = GRAPH_MERMAID;
            else
                return usage_error("unknown graph format `%s` (use text, dot or mermaid)", v);
        } else if (strchr(allowed, 'b') && (take_value(argc, argv, &i, "-o", &v) ||
                                            take_value(argc, argv, &i, "--output", &v))) {
            if (!v)
                return usage_error("%s needs a directory", a);
            o->out_dir = v;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "--target", &v)) {
            const char *bad = NULL;
            if (!v)
                return target_usage_error("%s needs a list: ", a, ",", "");
            if (!parse_targets(v, &o->targets, &bad))
                return target_usage_error("unknown target in `%s` (use ", v, ", ", ")");
        } else if (strchr(allowed, 'b') && strcmp(a, "-MD") == 0) {
            o->make_deps = true;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "-MF", &v)) {
            if (!v)
                return usage_error("%s needs a file name", a);
            o->depfile = v;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "-MT", &v)) {
            if (!v)
                return usage_error("%s needs a target name", a);
            o->dep_target = v;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "--registry", &v)) {
            if (!v)
                return usage_error("%s needs a registry, e.g. ghcr.io/team or localhost:5000", a);
            if (!image_registry_valid(v))
                return usage_error("`%s` is not a registry (images are named REGISTRY/NAME:TAG: write the host and "
                                   "path, e.g. ghcr.io/team or localhost:5000, lower case after the host, no tag, "
                                   "no final `/`)",
                                   v);
            o->registry = v;
        } else if (strchr(allowed, 'b') && strcmp(a, "--list-sources") == 0) {
            o->list_sources = true;
        } else if (strchr(allowed, 'b') && take_value(argc, argv, &i, "--manifest-json", &v)) {
            /* Hidden: the model bundle.yaml was written from, as JSON, into
               a file (tests/golden/manifest_data.py). */
            if (!v)
                return usage_error("%s needs a file", "--manifest-json");
            o->manifest_json = v;
        } else if (strchr(allowed, 'b') && (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)) {
            o->verbose = true;
        } else if (strchr(allowed, 'b') && strcmp(a, "--force") == 0) {
            o->force = true;
        } else if (strchr(allowed, 'c') && strcmp(a, "--check") == 0) {
            o->check_only = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option `%s`", a);
        } else if (o->file) {
            return usage_error("more than one input file (`%s`)", a);
        } else {
            o->file = a;
        }
    }
    if (!o->file)
        return usage_error("%s needs a .pipe file", argv[1]);
    return -1;
}

typedef check_session session;

static bool session_load(session *s, const common_opts *o, bool container_targets)
{
    check_session_init(s, o->werror);
    char err[512];
    if (!check_session_file(s, o->file, container_targets, err, sizeof err)) {
        fprintf(stderr, "pipec: error: cannot read `%s`: %s\n", o->file, err);
        return false;
    }
    return true;
}

static void session_free(session *s) { check_session_free(s); }

static void flush_diags(session *s, diag_format fmt)
{
    diag_flush(&s->diag, fmt, write_stream, fmt == DIAG_FORMAT_TEXT ? stderr : stdout);
}

static int cmd_check(int argc, char **argv)
{
    common_opts o;
    int rc = parse_common(argc, argv, "dW", &o);
    if (rc >= 0)
        return rc;
    session s;
    if (!session_load(&s, &o, false)) {
        session_free(&s);
        return EXIT_USAGE;
    }
    flush_diags(&s, o.diag_format);
    rc = diag_error_count(&s.diag) ? EXIT_ERRORS : EXIT_OK;
    session_free(&s);
    return rc;
}

static bool listed(const ptr_vec *seen, const char *path)
{
    for (size_t i = 0; i < seen->len; i++)
        if (strcmp(seen->items[i], path) == 0)
            return true;
    return false;
}

/* `build --list-sources`: what a build system needs at configure time, one
   "KIND PATH" per line (paths as pipec resolved them, generated ones
   relative to the bundle root). See docs/build-integration.md. */
static void list_sources(session *s, const model *m)
{
    const pipe_manifest *mf = &m->manifest;
    ptr_vec seen = {0};
    bool gpu = false;
    printf("pipeline %s\n", mf->pipeline);
    for (size_t i = 0; i < m->npipe_files; i++)
        printf("pipe %s\n", m->pipe_files[i]);
    for (size_t i = 0; i < mf->ninvocations; i++)
        gpu = gpu || pipe_invocation_needs_gpu(&mf->invocations[i]);
    for (size_t i = 0; i < mf->nsteps; i++) {
        for (size_t k = 0; k < m->steps[i].nsources; k++) {
            const model_source *ref = &m->steps[i].sources[k];
            if (listed(&seen, ref->resolved))
                continue;
            vec_push(&s->arena, &seen, (void *)ref->resolved);
            static const char *const kinds[] = {"c", "cpp", "cu", "header", "file", "folder"};
            printf("%s %s\n", kinds[ref->kind], ref->resolved);
        }
        for (size_t k = 0; k < mf->steps[i].nlibraries; k++)
            printf("library %s %s\n", mf->steps[i].name, mf->steps[i].libraries[k]);
    }
    printf("generated-h src/%s.h\n", mf->pipeline);
    printf("generated-c src/%s_main.c\n", mf->pipeline);
    if (gpu)
        printf("generated-cu src/%s_cuda.cu\n", mf->pipeline);
}

/* build --manifest-json FILE: the model after the build (digests and
   sources filled in) as gen_manifest_json writes it. */
static int write_manifest_json(const model *m, const char *path)
{
    strbuf json = STRBUF_INIT;
    char err[512];
    int rc = gen_manifest_json(&m->manifest, &json, err, sizeof err);
    if (rc == 0) {
        FILE *f = fopen(path, "w");
        bool ok = f && fwrite(sb_cstr(&json), 1, json.len, f) == json.len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok) {
            snprintf(err, sizeof err, "cannot write `%s`", path);
            rc = -1;
        }
    }
    if (rc != 0)
        fprintf(stderr, "pipec: error: %s\n", err);
    sb_free(&json);
    return rc;
}

static int cmd_build(int argc, char **argv)
{
    common_opts o;
    int rc = parse_common(argc, argv, "dWpb", &o);
    if (rc >= 0)
        return rc;
    if (!o.targets)
        o.targets = TARGET_ALL;
    if (o.depfile && !o.make_deps)
        return usage_error("%s: -MF needs -MD", "build");
    if (o.make_deps && !o.depfile)
        return usage_error("%s: -MD needs -MF DEPFILE", "build");
    session s;
    if (!session_load(&s, &o, targets_run_containers(o.targets))) {
        session_free(&s);
        return EXIT_USAGE;
    }
    pipeline_info *pl = NULL;
    if (!diag_error_count(&s.diag))
        pl = program_select_pipeline(&s.pg, o.pipeline);
    if (pl && !diag_error_count(&s.diag))
        targets_check_build(&s.diag, pl, o.targets);
    flush_diags(&s, o.diag_format);
    rc = EXIT_ERRORS;
    model m;
    if (pl && !diag_error_count(&s.diag))
        model_build(&m, &s.arena, &s.pg, pl);
    if (pl && !diag_error_count(&s.diag) && o.list_sources) {
        list_sources(&s, &m);
        rc = EXIT_OK;
    } else if (pl && !diag_error_count(&s.diag)) {
        build_options bo = {
            .out_dir = o.out_dir ? o.out_dir : arena_printf(&s.arena, "%s-bundle", pl->name),
            .pipeline = o.pipeline,
            .targets = o.targets,
            .depfile = o.depfile,
            .dep_target = o.dep_target,
            .verbose = o.verbose,
            .registry = o.registry,
            .force = o.force,
        };
        /* How to build the bundle again (pipec-rebuild.cmake): this pipec and
           the .pipe file, by absolute paths. */
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0) {
            self[n] = '\0';
            bo.pipec_path = arena_strdup(&s.arena, self);
        }
        char *pipe_abs = realpath(o.file, NULL);
        if (pipe_abs) {
            bo.pipe_path = arena_strdup(&s.arena, pipe_abs);
            free(pipe_abs);
        }
        bo.pipeline_name = pl->name;
        char err[4096];
        int built = bundle_build(&m, &bo, &s.arena, err, sizeof err);
        if (built != 0)
            fprintf(stderr, "pipec: error: %s\n", err);
        /* A file of the user's in the way is an error of the build (1), as
           the spec has it; I/O is 2. */
        rc = built == 0 ? EXIT_OK : built > 0 ? EXIT_ERRORS : EXIT_USAGE;
        if (built == 0 && o.manifest_json && write_manifest_json(&m, o.manifest_json) != 0)
            rc = EXIT_USAGE;
    }
    session_free(&s);
    return rc;
}

static int cmd_graph(int argc, char **argv)
{
    common_opts o;
    int rc = parse_common(argc, argv, "pfdW", &o);
    if (rc >= 0)
        return rc;
    session s;
    if (!session_load(&s, &o, false)) {
        session_free(&s);
        return EXIT_USAGE;
    }
    pipeline_info *pl = NULL;
    if (!diag_error_count(&s.diag))
        pl = program_select_pipeline(&s.pg, o.pipeline);
    /* `graph` shows the graph: the warnings `check` prints in full are one
       line here (unless -Werror makes them errors); json and sarif get all. */
    if (o.diag_format == DIAG_FORMAT_TEXT) {
        char hint[600];
        snprintf(hint, sizeof hint, "pipec check %s", o.file);
        diag_flush_errors_only(&s.diag, hint, write_stream, stderr);
    } else {
        flush_diags(&s, o.diag_format);
    }
    rc = EXIT_ERRORS;
    if (pl && !diag_error_count(&s.diag)) {
        strbuf out = STRBUF_INIT;
        graph_render(pl, o.graph_format, &out);
        fwrite(sb_cstr(&out), 1, out.len, stdout);
        sb_free(&out);
        rc = EXIT_OK;
    }
    session_free(&s);
    return rc;
}

static int cmd_fmt(int argc, char **argv)
{
    common_opts o;
    int rc = parse_common(argc, argv, "c", &o);
    if (rc >= 0)
        return rc;
    session s;
    check_session_init(&s, false);
    char err[512];
    int idx = source_load(&s.sources, o.file, err, sizeof err);
    if (idx < 0) {
        fprintf(stderr, "pipec: error: cannot read `%s`: %s\n", o.file, err);
        session_free(&s);
        return EXIT_USAGE;
    }
    strbuf out = STRBUF_INIT;
    if (!format_source(&s.arena, &s.diag, &s.sources, (uint32_t)idx, &out)) {
        flush_diags(&s, DIAG_FORMAT_TEXT);
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
    session_free(&s);
    return rc;
}

static int cmd_explain(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--markdown") == 0) {
        /* Regenerates docs/diagnostics.md (a unit test keeps the two in step). */
        explain_write_markdown(stdout);
        return EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[2], "--decorators-markdown") == 0) {
        /* Regenerates the decorator reference of docs/language.md. */
        decorator_doc_markdown(stdout);
        return EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[2], "--cache-key-markdown") == 0) {
        /* Regenerates the table of docs/runtime.md, "Caching". */
        decorator_doc_cache_markdown(stdout);
        return EXIT_OK;
    }
    if (argc != 3)
        return usage_error("%s needs one diagnostic code or decorator, e.g. `pipec explain E0303` or `pipec explain "
                           "@resources`",
                           argv[1]);
    if (argv[2][0] == '@') {
        if (decorator_doc_print(argv[2], stdout))
            return EXIT_OK;
        fprintf(stderr, "pipec: error: no decorator `%s` (see docs/language.md, \"Decorators\")\n", argv[2]);
        return EXIT_USAGE;
    }
    const explain_entry *e = explain_lookup(argv[2]);
    if (!e) {
        fprintf(stderr, "pipec: error: no diagnostic code `%s` (codes look like E0303 or W0401; see "
                        "docs/diagnostics.md)\n",
                argv[2]);
        return EXIT_USAGE;
    }
    explain_print(e, stdout);
    return EXIT_OK;
}

int pipec_main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pipec %s\n", PIPEC_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc, argv);
    if (strcmp(cmd, "build") == 0)
        return cmd_build(argc, argv);
    if (strcmp(cmd, "graph") == 0)
        return cmd_graph(argc, argv);
    if (strcmp(cmd, "fmt") == 0)
        return cmd_fmt(argc, argv);
    if (strcmp(cmd, "explain") == 0)
        return cmd_explain(argc, argv);
    if (strcmp(cmd, "lsp") == 0) {
        /* Editors start it as `pipec lsp --stdio`; stdio is all it speaks. */
        if (argc > 3 || (argc == 3 && strcmp(argv[2], "--stdio") != 0))
            return usage_error("%s takes no arguments (it speaks LSP on stdin and stdout)", "lsp");
        return lsp_serve(0, 1);
    }
    return usage_error("unknown command `%s`", cmd);
}
