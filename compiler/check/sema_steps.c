/* Step declarations: names, parameters, outputs, body fields, sources and
   decorators. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/escape.h"
#include "sema.h"
#include "sema_util.h"
#include "util/strbuf.h"
#include "util/suggest.h"

static const char *const field_names[] = {"source",      "entry", "command",    "libraries",
                                          "description", "cache", "environment"};
enum {
    FIELD_SOURCE,
    FIELD_ENTRY,
    FIELD_COMMAND,
    FIELD_LIBRARIES,
    FIELD_DESCRIPTION,
    FIELD_CACHE,
    FIELD_ENVIRONMENT,
    FIELD_COUNT
};

static bool is_c_identifier(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *c = s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return false;
    /* a keyword or main cannot name the entry function */
    return !esc_is_c_keyword(s) && strcmp(s, "main") != 0 && strncmp(s, "pipe_", 5) != 0;
}

static void field_type_error(sema *s, ast_field *f, const char *expected)
{
    if (f->value->poisoned)
        return;
    diagnostic *dg = diag_report(s->pg->diag, f->value->sp, DIAG_E0201, "field `%s` expects %s, found %s", f->name.text,
                                 expected, expr_kind_name(f->value->kind));
    diag_label(s->pg->diag, dg, "expected %s", expected);
}

/* The string items of a list field (or its one string, when allowed); a
   non-string item is reported and skipped. False when the value is neither. */
static bool string_items(sema *s, ast_field *f, bool allow_string, const char *what, ptr_vec *out)
{
    ast_expr *v = f->value;
    if (v->kind == EXPR_STRING && allow_string) {
        vec_push(s->pg->arena, out, v);
        return true;
    }
    if (v->kind != EXPR_LIST)
        return false;
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_expr *item = v->u.items.items[i];
        if (item->poisoned)
            continue;
        if (item->kind != EXPR_STRING) {
            diagnostic *dg = diag_report(s->pg->diag, item->sp, DIAG_E0201, "`%s` entries must be strings, found %s",
                                         f->name.text, expr_kind_name(item->kind));
            diag_label(s->pg->diag, dg, "expected %s", what);
            continue;
        }
        vec_push(s->pg->arena, out, item);
    }
    return true;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* A native step's file by its extension; false for anything else. */
static bool native_kind(const char *path, source_kind *kind)
{
    static const struct {
        const char *ext;
        source_kind kind;
    } exts[] = {{".c", SOURCE_C},       {".cpp", SOURCE_CXX},    {".cc", SOURCE_CXX},     {".cxx", SOURCE_CXX},
                {".cu", SOURCE_CUDA},   {".h", SOURCE_HEADER},   {".hpp", SOURCE_HEADER}, {".hh", SOURCE_HEADER},
                {".cuh", SOURCE_HEADER}, {".inc", SOURCE_HEADER}};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (has_suffix(path, exts[i].ext)) {
            *kind = exts[i].kind;
            return true;
        }
    return false;
}

static void add_source(sema *s, step_info *st, ptr_vec *out, ast_expr *e)
{
    program *pg = s->pg;
    const char *path = e->u.s.text;
    source_kind kind = SOURCE_FILE;
    bool native = native_kind(path, &kind);
    if (!native && !st->is_command) {
        diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0201,
                                     "source \"%s\" is not a C, C++ or CUDA file or header", path);
        diag_label(pg->diag, dg, "expected .c, .cpp, .cc, .cxx, .cu or a header");
        if (has_suffix(path, ".py"))
            diag_help(pg->diag, dg, "a Python script runs in a command step: `command = [\"python3\", \"%s\"]` "
                                    "runs it, and `source` ships it with the bundle",
                      path);
        else
            diag_help(pg->diag, dg, "headers are found through the includes of the sources; to run a program, make "
                                    "this a command step (`command = [...]`), whose `source` may list files of any "
                                    "kind");
        return;
    }
    for (const char *c = path; *c; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0201, "source path contains a control character");
            diag_label(pg->diag, dg, "not a usable file name");
            return;
        }
    }
    source_ref *ref = arena_alloc(pg->arena, sizeof *ref);
    ref->path = path;
    ref->resolved = sema_join_path(pg->arena, st->dir, path);
    ref->kind = kind;
    ref->sp = e->sp;
    /* A command step ships what it names: files of any kind and folders (a
       C source there is E0120, reported with the other conflicts). */
    if (st->is_command && !source_kind_compiled(kind))
        ref->kind = SOURCE_FILE;
    uintptr_t known = (uintptr_t)symtab_get(&s->source_modes, ref->resolved);
    if (!known) {
        struct stat sb;
        known = stat(ref->resolved, &sb) == 0 ? (uintptr_t)sb.st_mode + 2 : 1;
        symtab_put(&s->source_modes, ref->resolved, (void *)known);
    }
    bool exists = known != 1;
    mode_t mode = exists ? (mode_t)(known - 2) : 0;
    if (exists && st->is_command && S_ISDIR(mode))
        ref->kind = SOURCE_FOLDER;
    else if (exists && !S_ISREG(mode))
        exists = false;
    if (!exists) {
        diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0116, "source %s \"%s\" does not exist",
                                     st->is_command ? "path" : "file", path);
        diag_label(pg->diag, dg, st->is_command ? "no such file or folder" : "no such file");
        if (strcmp(ref->resolved, path) != 0)
            diag_help(pg->diag, dg, "source paths are relative to the .pipe file; this one resolves to %s",
                      ref->resolved);
        else
            diag_help(pg->diag, dg, "source paths are relative to the .pipe file");
    }
    for (size_t i = 0; i < out->len; i++) {
        source_ref *prev = out->items[i];
        if (strcmp(prev->resolved, ref->resolved) == 0) {
            diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0105, "source \"%s\" listed twice", path);
            diag_label(pg->diag, dg, "second occurrence");
            diag_note(pg->diag, dg, prev->sp, "first listed here");
            diag_help(pg->diag, dg, "remove one of them");
            return;
        }
    }
    vec_push(pg->arena, out, ref);
}

static void check_sources(sema *s, step_info *st, ast_field *f)
{
    ptr_vec items = {0}, refs = {0};
    if (!string_items(s, f, true, "a path string", &items)) {
        field_type_error(s, f, "a path string or a list of path strings");
        return;
    }
    for (size_t i = 0; i < items.len; i++)
        add_source(s, st, &refs, items.items[i]);
    st->sources = arena_alloc(s->pg->arena, (refs.len ? refs.len : 1) * sizeof *st->sources);
    for (size_t i = 0; i < refs.len; i++)
        st->sources[i] = *(source_ref *)refs.items[i];
    st->nsources = refs.len;
}

/* `libraries`: a CMake imported target (NS::name), a pkg-config module
   (pkg:name) or a library name. The characters are those such names use,
   which also keeps them plain words in the generated CMakeLists. */
static bool library_chars(const char *s, size_t n)
{
    if (n == 0 || s[0] == '-' || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.+-", s[i]))
            return false;
    return true;
}

static bool library_name_ok(const char *name)
{
    if (strncmp(name, "pkg:", 4) == 0)
        return library_chars(name + 4, strlen(name + 4));
    const char *colons = strstr(name, "::");
    if (colons)
        return library_chars(name, (size_t)(colons - name)) && library_chars(colons + 2, strlen(colons + 2)) &&
               !strstr(colons + 2, "::");
    return library_chars(name, strlen(name));
}

static void check_libraries(sema *s, step_info *st, ast_field *f)
{
    program *pg = s->pg;
    ptr_vec items = {0};
    if (!string_items(s, f, false, "a library string", &items)) {
        field_type_error(s, f, "a list of library strings");
        return;
    }
    st->libraries = arena_alloc(pg->arena, (items.len ? items.len : 1) * sizeof *st->libraries);
    for (size_t i = 0; i < items.len; i++) {
        ast_expr *e = items.items[i];
        const char *name = e->u.s.text;
        if (!library_name_ok(name)) {
            diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0201, "\"%s\" is not a library the bundle can link",
                                         name);
            diag_label(pg->diag, dg, "not a library name");
            diag_help(pg->diag, dg, "write a CMake target (`\"CUDA::cublas\"`, found with find_package), a "
                                    "pkg-config module (`\"pkg:openblas\"`) or a library name (`\"m\"`)");
            continue;
        }
        bool dup = false;
        for (size_t k = 0; k < st->nlibraries && !dup; k++) {
            if (strcmp(st->libraries[k].name, name) != 0)
                continue;
            diagnostic *dg = diag_report(pg->diag, e->sp, DIAG_E0105, "library \"%s\" listed twice", name);
            diag_label(pg->diag, dg, "second occurrence");
            diag_note(pg->diag, dg, st->libraries[k].sp, "first listed here");
            diag_help(pg->diag, dg, "remove one of them");
            dup = true;
        }
        if (!dup)
            st->libraries[st->nlibraries++] = (library_ref){name, e->sp};
    }
}

static void check_environment(sema *s, ast_field *f)
{
    program *pg = s->pg;
    for (size_t i = 0; i < f->value->u.items.len; i++) {
        ast_map_entry *e = f->value->u.items.items[i];
        if (!esc_env_name_ok(e->key.text)) {
            diagnostic *dg = diag_report(pg->diag, e->key.sp, DIAG_E0201,
                                         "\"%s\" is not a valid environment variable name", e->key.text);
            diag_label(pg->diag, dg, "not a variable name");
            diag_help(pg->diag, dg, "names use letters, digits and `_` and do not start with a digit");
        }
        if (e->value->kind != EXPR_STRING && !e->value->poisoned) {
            diagnostic *dg =
                diag_report(pg->diag, e->value->sp, DIAG_E0201, "environment values must be strings, found %s",
                            expr_kind_name(e->value->kind));
            diag_label(pg->diag, dg, "expected a string");
        }
        for (size_t k = 0; k < i; k++) {
            ast_map_entry *prev = f->value->u.items.items[k];
            if (strcmp(prev->key.text, e->key.text) == 0) {
                diag_given_twice(pg->diag, e->key.sp, prev->key.sp, NULL, "key \"%s\" given twice", e->key.text);
            }
        }
    }
}

/* Names people write for a field, from other tools. */
static const char *field_alias(const char *name)
{
    static const char *const aliases[][2] = {
        {"sources", "source"}, {"src", "source"}, {"srcs", "source"}, {"files", "source"},
        {"entrypoint", "entry"}, {"entry_point", "entry"}, {"function", "entry"}, {"main", "entry"},
        {"desc", "description"}, {"doc", "description"}, {"env", "environment"}, {"envs", "environment"},
        {"environ", "environment"}, {"caching", "cache"}, {"enable_cache", "cache"}, {"cmd", "command"},
        {"run", "command"}, {"args", "command"}, {"argv", "command"}, {"libs", "libraries"},
        {"library", "libraries"}, {"link", "libraries"}, {"link_libraries", "libraries"},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i][0], name) == 0)
            return aliases[i][1];
    return NULL;
}

/* Returns the field it suggests, if any. */
static const char *unknown_field(sema *s, ast_field *f)
{
    program *pg = s->pg;
    const char *meant = field_alias(f->name.text);
    if (!meant)
        meant = suggest_closest_or_prefix(f->name.text, field_names, FIELD_COUNT);
    /* A name on a line the parser stumbled on (`d escription = ...`) was
       reported as a syntax error already. */
    const char *text = pg->sources->files[f->name.sp.file]->text;
    uint32_t line = f->name.sp.start;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    span before = {f->name.sp.file, line, f->name.sp.end};
    if (sema_damaged(s, before))
        return meant;
    diagnostic *dg = diag_report(pg->diag, f->name.sp, DIAG_E0110, "steps have no field `%s`", f->name.text);
    diag_label(pg->diag, dg, "unknown field");
    char list[256];
    format_name_list(list, sizeof list, field_names, FIELD_COUNT);
    if (meant) {
        diag_help(pg->diag, dg, "did you mean `%s`? the fields are %s", meant, list);
        diag_fix(pg->diag, dg, "%s", meant);
        return meant;
    }
    /* An option of a decorator written as a field: say which decorator. */
    for (int d = 0; d < DEC_COUNT; d++) {
        const decorator_schema *ds = decorator_by_id((decorator_id)d);
        if (option_index(ds, f->name.text) >= 0) {
            diag_help(pg->diag, dg, "`%s` is an option of @%s: write `@%s(%s = ...)` above the step", f->name.text,
                      ds->name, ds->name, f->name.text);
            return NULL;
        }
    }
    diag_help(pg->diag, dg, "the fields are %s; options such as resources go in decorators (`@resources(...)`)",
              list);
    return NULL;
}

/* A native step names at least one file to compile (E0113 otherwise). */
static void check_native_sources(sema *s, step_info *st, ast_field *source)
{
    program *pg = s->pg;
    bool compiled = false;
    for (size_t i = 0; i < st->nsources && !compiled; i++)
        compiled = source_kind_compiled(st->sources[i].kind);
    if (compiled || sema_damaged(s, source->value->sp))
        return;
    /* Entries reported already (wrong kind, E0201) may have been the files. */
    size_t listed = source->value->kind == EXPR_LIST ? source->value->u.items.len : 1;
    if (listed != st->nsources)
        return;
    diagnostic *dg = diag_report(pg->diag, st->decl->keyword, DIAG_E0113,
                                 st->nsources ? "step `%s` lists no C, C++ or CUDA file in `source`"
                                              : "step `%s` has an empty `source` list",
                                 st->name);
    diag_label(pg->diag, dg, "this step");
    diag_help(pg->diag, dg, "list at least one .c, .cpp or .cu file: `source = [\"src/%s.c\"]`", st->name);
    diag_note(pg->diag, dg, source->value->sp, "the list is here");
}

static void check_fields(sema *s, step_info *st)
{
    program *pg = s->pg;
    ast_field *seen[FIELD_COUNT] = {0};
    bool source_misspelled = false; /* `souce = ...`, reported as E0110 */
    bool command_misspelled = false;
    bool entry_usable = true; /* a name E0201 rejects is not looked for (W0407) */
    for (size_t i = 0; i < st->decl->fields.len; i++) {
        ast_field *f = st->decl->fields.items[i];
        int idx = -1;
        for (int k = 0; k < FIELD_COUNT; k++)
            if (strcmp(field_names[k], f->name.text) == 0)
                idx = k;
        if (idx < 0) {
            const char *meant = unknown_field(s, f);
            source_misspelled |= meant && strcmp(meant, "source") == 0;
            command_misspelled |= meant && strcmp(meant, "command") == 0;
            continue;
        }
        if (seen[idx]) {
            diag_given_twice(pg->diag, f->name.sp, seen[idx]->name.sp, NULL, "field `%s` given twice", f->name.text);
            continue;
        }
        seen[idx] = f;
    }
    /* The kind first: it decides what `source` may hold. */
    st->is_command = seen[FIELD_COMMAND] != NULL;
    for (int idx = 0; idx < FIELD_COUNT; idx++) {
        ast_field *f = seen[idx];
        if (!f || f->value->poisoned)
            continue; /* absent, or a lexical error in the value, reported already */
        if (st->is_command && (idx == FIELD_ENTRY || idx == FIELD_LIBRARIES))
            continue; /* E0120: not for a command step */
        ast_expr *v = f->value;
        switch (idx) {
        case FIELD_SOURCE: check_sources(s, st, f); break;
        case FIELD_COMMAND: sema_check_command_value(s, st, f); break;
        case FIELD_LIBRARIES: check_libraries(s, st, f); break;
        case FIELD_ENTRY:
            entry_usable = v->kind == EXPR_STRING && is_c_identifier(v->u.s.text);
            if (v->kind != EXPR_STRING) {
                field_type_error(s, f, "a C function name string");
            } else if (!is_c_identifier(v->u.s.text)) {
                diagnostic *dg = diag_report(pg->diag, v->sp, DIAG_E0201,
                                             "entry \"%s\" is not a usable C function name", v->u.s.text);
                diag_label(pg->diag, dg, "not a C identifier");
                diag_help(pg->diag, dg, "use letters, digits and `_`, not a C keyword, `main` or a `pipe_` name");
            } else {
                st->entry = v->u.s.text;
            }
            break;
        case FIELD_DESCRIPTION:
            if (v->kind != EXPR_STRING)
                field_type_error(s, f, "a string");
            else
                st->description = v->u.s.text;
            break;
        case FIELD_CACHE:
            if (v->kind != EXPR_BOOL)
                field_type_error(s, f, "`true` or `false`");
            else
                st->cache = v->u.b;
            break;
        case FIELD_ENVIRONMENT:
            if (v->kind != EXPR_MAP) {
                field_type_error(s, f, "a map of strings");
            } else {
                check_environment(s, f);
                st->environment = v;
            }
            break;
        }
    }
    if (st->is_command) {
        sema_check_command_step(s, st, seen[FIELD_COMMAND], seen[FIELD_ENTRY], seen[FIELD_LIBRARIES]);
        st->entry = NULL;
        return;
    }
    if (!seen[FIELD_SOURCE]) {
        /* A field lost to a syntax error in the body may have been the source. */
        if (!source_misspelled && !command_misspelled && !sema_damaged(s, st->decl->sp)) {
            diagnostic *dg = diag_report(pg->diag, st->decl->keyword, DIAG_E0113,
                                         "step `%s` has no `source` and no `command`", st->name);
            diag_label(pg->diag, dg, "this step");
            diag_help(pg->diag, dg, "add `source = \"src/%s.c\"` (C, C++ or CUDA files, relative to this .pipe "
                                    "file), or `command = [\"python3\", \"%s.py\"]` to run a program",
                      st->name, st->name);
        }
    } else if (!seen[FIELD_SOURCE]->value->poisoned && (seen[FIELD_SOURCE]->value->kind == EXPR_LIST ||
                                                        seen[FIELD_SOURCE]->value->kind == EXPR_STRING)) {
        check_native_sources(s, st, seen[FIELD_SOURCE]);
    }
    if (!st->entry) {
        st->entry = st->name;
        /* The default entry is the step's name: it must be usable in C too. */
        if (!seen[FIELD_ENTRY] && !is_c_identifier(st->name)) {
            entry_usable = false;
            diagnostic *dg = diag_report(pg->diag, st->decl->name.sp, DIAG_E0201,
                                         "step `%s` needs an `entry`: its name is not a usable C function name",
                                         st->name);
            diag_label(pg->diag, dg, "the default entry function");
            diag_help(pg->diag, dg, "add `entry = \"%s_step\"` to the step, or rename it; the entry cannot be a C "
                                    "keyword, `main` or a `pipe_` name",
                      st->name);
        }
    }
    if (entry_usable)
        sema_check_entry_defined(s, st, seen[FIELD_ENTRY]);
}

static void check_outputs(sema *s, step_info *st)
{
    program *pg = s->pg;
    ptr_vec *outs = &st->decl->outputs;
    st->outputs = arena_alloc(pg->arena, (outs->len ? outs->len : 1) * sizeof *st->outputs);
    for (size_t i = 0; i < outs->len; i++) {
        ast_output *o = outs->items[i];
        bool dup = false;
        for (size_t k = 0; k < st->noutputs && !dup; k++) {
            if (strcmp(st->outputs[k].name, o->name.text) == 0) {
                diagnostic *dg =
                    diag_report(pg->diag, o->name.sp, DIAG_E0105, "output `%s` declared twice", o->name.text);
                diag_label(pg->diag, dg, "second declaration");
                diag_note(pg->diag, dg, st->outputs[k].decl->name.sp, "first declared here");
                diag_help(pg->diag, dg, "outputs are bound in order by name: give each its own name");
                dup = true;
            }
        }
        if (dup)
            continue;
        if (sema_type_of(o->type.text) != TYPE_ARTIFACT) {
            diagnostic *dg = diag_report(pg->diag, o->name.sp, DIAG_E0208, "output `%s` has value type `%s`",
                                         o->name.text, o->type.text);
            diag_label(pg->diag, dg, "outputs are artifacts");
            diag_help(pg->diag, dg, "give it an artifact type, e.g. `%s: metrics`; a step hands results to later "
                                    "steps as files",
                      o->name.text);
        }
        output_info *oi = &st->outputs[st->noutputs++];
        oi->name = o->name.text;
        oi->type_name = o->type.text;
        oi->decl = o;
    }
}

static void declare_step(sema *s, ast_step *decl)
{
    program *pg = s->pg;
    step_info *prev = program_find_step(pg, decl->name.text);
    if (prev) {
        diagnostic *dg = diag_report(pg->diag, decl->name.sp, DIAG_E0101, "step `%s` declared twice", decl->name.text);
        diag_label(pg->diag, dg, "second declaration");
        diag_note(pg->diag, dg, prev->decl->name.sp, "first declared here");
        diag_help(pg->diag, dg, "rename one of them; step names are unique across a file and its imports");
        return;
    }
    step_info *st = arena_alloc(pg->arena, sizeof *st);
    st->name = decl->name.text;
    st->decl = decl;
    st->file = decl->file;
    st->dir = sema_dirname(pg->arena, pg->sources->files[decl->file]->path);
    st->cache = true;
    vec_push(pg->arena, &pg->steps, st);
    symtab_put(&pg->step_index, st->name, st);

    sema_check_params(s, &decl->params, &st->params, &st->nparams, false);
    check_outputs(s, st);
    check_fields(s, st);
    decorators_check(pg->arena, pg->diag, &decl->decorators, false, &st->decorators);
    st->accelerated = st->decorators.by_id[DEC_ACCELERATE] != NULL;
    sema_check_accelerate(s, st);
}

/* Declares the steps of a file in reading order, an import standing for the
   steps of the file it brings in (so "declared twice" points at the later
   one as a reader meets them). */
static void declare_file(sema *s, ast_file *file, ptr_vec *done)
{
    program *pg = s->pg;
    for (size_t i = 0; i < done->len; i++)
        if (done->items[i] == file)
            return;
    vec_push(pg->arena, done, file);
    for (size_t i = 0; i < file->items.len; i++) {
        ast_item *it = file->items.items[i];
        if (it->kind == ITEM_STEP) {
            declare_step(s, it->u.step);
            continue;
        }
        if (it->kind != ITEM_IMPORT)
            continue;
        for (size_t k = 0; k < s->import_links.len; k++) {
            import_link *link = s->import_links.items[k];
            if (link->import != it->u.import)
                continue;
            for (size_t f = 0; f < pg->files.len; f++) {
                ast_file *imported = pg->files.items[f];
                if (imported->file == link->file)
                    declare_file(s, imported, done);
            }
        }
    }
}

void sema_declare_steps(sema *s)
{
    program *pg = s->pg;
    ptr_vec done = {0};
    if (pg->root)
        declare_file(s, pg->root, &done);
    /* Files reached only through an import cycle (reported) are declared too. */
    for (size_t f = 0; f < pg->files.len; f++)
        declare_file(s, pg->files.items[f], &done);
}
