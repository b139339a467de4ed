/* Loading the root file and its imports, transitively, with cycle detection. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/parse.h"
#include "sema.h"
#include "sema_util.h"
#include "util/strbuf.h"

enum { MAX_IMPORT_DEPTH = 200 };

typedef struct loaded_file {
    char *real; /* realpath: the identity of a file */
    uint32_t file;
    bool visiting; /* on the current import chain */
} loaded_file;

typedef struct loader {
    sema *s;
    ptr_vec loaded; /* loaded_file* */
    ptr_vec chain;  /* loaded_file* currently being visited */
} loader;

static loaded_file *find_loaded(loader *l, const char *real)
{
    for (size_t i = 0; i < l->loaded.len; i++) {
        loaded_file *f = l->loaded.items[i];
        if (strcmp(f->real, real) == 0)
            return f;
    }
    return NULL;
}

static void report_cycle(loader *l, ast_import *im, loaded_file *target)
{
    program *pg = l->s->pg;
    strbuf chain = STRBUF_INIT;
    bool in_cycle = false;
    for (size_t i = 0; i < l->chain.len; i++) {
        loaded_file *f = l->chain.items[i];
        in_cycle = in_cycle || f == target;
        if (in_cycle)
            sb_printf(&chain, "%s -> ", pg->sources->files[f->file]->path);
    }
    sb_puts(&chain, pg->sources->files[target->file]->path);
    diagnostic *dg = diag_report(pg->diag, im->keyword, DIAG_E0112, "import cycle: %s", sb_cstr(&chain));
    diag_label(pg->diag, dg, "this import closes the cycle");
    diag_help(pg->diag, dg, "move the shared steps into a file that both can import, and remove this import");
    sb_free(&chain);
}

static void visit(loader *l, loaded_file *lf);

static void link_import(loader *l, const ast_import *im, uint32_t file)
{
    program *pg = l->s->pg;
    import_link *link = arena_alloc(pg->arena, sizeof *link);
    link->import = im;
    link->file = file;
    vec_push(pg->arena, &l->s->import_links, link);
}

/* "no such file", not "No such file or directory" in the middle of a sentence. */
static const char *reason(int err)
{
    switch (err) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case ENOTDIR: return "a folder on the path is a file";
    case ELOOP: return "too many symbolic links";
    default: return strerror(err);
    }
}

static void load_import(loader *l, loaded_file *from, ast_import *im)
{
    program *pg = l->s->pg;
    const char *from_path = pg->sources->files[from->file]->path;
    const char *dir = sema_dirname(pg->arena, from_path);
    const char *path = sema_join_path(pg->arena, dir, im->path.text);
    char real[PATH_MAX];
    if (im->path.text[0] == '\0') {
        l->s->import_failed = true;
        diagnostic *dg = diag_report(pg->diag, im->keyword, DIAG_E0111, "cannot import \"\": the path is empty");
        diag_label(pg->diag, dg, "imported here");
        diag_help(pg->diag, dg, "name a .pipe file, relative to this one: `import \"steps/data.pipe\"`");
        return;
    }
    if (!realpath(path, real)) {
        int err = errno;
        l->s->import_failed = true;
        diagnostic *dg = diag_report(pg->diag, im->keyword, DIAG_E0111, "cannot import \"%s\": %s", im->path.text,
                                     reason(err));
        diag_label(pg->diag, dg, "imported here");
        if (strcmp(path, im->path.text) != 0)
            diag_help(pg->diag, dg, "import paths are relative to the importing file; this one resolves to %s",
                      path);
        else
            diag_help(pg->diag, dg, "import paths are relative to the importing file");
        return;
    }
    loaded_file *known = find_loaded(l, real);
    if (known) {
        if (known->visiting)
            report_cycle(l, im, known);
        else
            link_import(l, im, known->file);
        return;
    }
    if (l->chain.len >= MAX_IMPORT_DEPTH) {
        l->s->import_failed = true;
        diagnostic *dg = diag_report(pg->diag, im->keyword, DIAG_E0111,
                                     "cannot import \"%s\": imports nested more than %d deep", im->path.text,
                                     MAX_IMPORT_DEPTH);
        diag_label(pg->diag, dg, "imported here");
        return;
    }
    char err[256];
    int idx = source_load(pg->sources, path, err, sizeof err);
    if (idx < 0) {
        l->s->import_failed = true;
        diagnostic *dg = diag_report(pg->diag, im->keyword, DIAG_E0111, "cannot import \"%s\": %s", im->path.text, err);
        diag_label(pg->diag, dg, "imported here");
        return;
    }
    loaded_file *nf = arena_alloc(pg->arena, sizeof *nf);
    nf->real = arena_strdup(pg->arena, real);
    nf->file = (uint32_t)idx;
    vec_push(pg->arena, &l->loaded, nf);
    link_import(l, im, nf->file);
    visit(l, nf);
}

static void visit(loader *l, loaded_file *lf)
{
    program *pg = l->s->pg;
    ast_file *ast = parse_file(pg->arena, pg->diag, pg->sources, lf->file);
    if (ast->syntax_errors)
        l->s->lost_names = true;
    vec_push(pg->arena, &pg->files, ast);
    if (!pg->root)
        pg->root = ast;
    lf->visiting = true;
    vec_push(pg->arena, &l->chain, lf);
    for (size_t i = 0; i < ast->items.len; i++) {
        ast_item *it = ast->items.items[i];
        if (it->kind == ITEM_IMPORT)
            load_import(l, lf, it->u.import);
    }
    l->chain.len--;
    lf->visiting = false;
}

void sema_load_imports(sema *s, uint32_t root)
{
    program *pg = s->pg;
    loader l = {s, {0}, {0}};
    loaded_file *lf = arena_alloc(pg->arena, sizeof *lf);
    char real[PATH_MAX];
    const char *path = pg->sources->files[root]->path;
    lf->real = arena_strdup(pg->arena, realpath(path, real) ? real : path);
    lf->file = root;
    vec_push(pg->arena, &l.loaded, lf);
    visit(&l, lf);
}
