/* The checker's driver: runs the passes in order and answers look-ups. */
#include <stdint.h>
#include <string.h>

#include "sema.h"
#include "util/suggest.h"

void program_free(program *pg) { symtab_free(&pg->step_index); }

static void run_passes(program *pg, uint32_t root, const check_options *opts)
{
    static const check_options no_opts = {0};
    sema s = {0};
    s.pg = pg;
    s.opts = opts ? opts : &no_opts;
    sema_load_imports(&s, root);
    sema_declare_steps(&s);
    sema_check_pipelines(&s);
    sema_free_entry_scans(&s);
    symtab_free(&s.source_modes);
}

static void init_program(program *pg, arena *a, diag_engine *d, source_set *sources)
{
    memset(pg, 0, sizeof *pg);
    pg->arena = a;
    pg->diag = d;
    pg->sources = sources;
}

bool program_load(program *pg, arena *a, diag_engine *d, source_set *sources, const char *path,
                  const check_options *opts, char *err, size_t errsize)
{
    init_program(pg, a, d, sources);
    int idx = source_load(sources, path, err, errsize);
    if (idx < 0)
        return false;
    run_passes(pg, (uint32_t)idx, opts);
    return true;
}

void program_check_loaded(program *pg, arena *a, diag_engine *d, source_set *sources, uint32_t file,
                          const check_options *opts)
{
    init_program(pg, a, d, sources);
    run_passes(pg, file, opts);
}

pipeline_info *program_select_pipeline(program *pg, const char *name)
{
    uint32_t file = pg->root ? pg->root->file : 0;
    if (name) {
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < pg->pipelines.len; i++) {
            pipeline_info *pl = pg->pipelines.items[i];
            if (strcmp(pl->name, name) == 0)
                return pl;
            if (n < 64)
                names[n++] = pl->name;
        }
        diagnostic *dg = diag_report_file(pg->diag, file, DIAG_E0114, "no pipeline named `%s` in this file", name);
        const char *close = suggest_closest(name, names, n);
        char list[1024];
        format_name_list(list, sizeof list, names, n);
        if (close)
            diag_help(pg->diag, dg, "did you mean `--pipeline %s`?", close);
        else if (n)
            diag_help(pg->diag, dg, "the pipelines are %s", list);
        return NULL;
    }
    if (pg->pipelines.len == 1)
        return pg->pipelines.items[0];
    if (pg->pipelines.len == 0) {
        diagnostic *dg = diag_report_file(pg->diag, file, DIAG_E0114, "this file declares no pipeline");
        diag_help(pg->diag, dg, "add `pipeline NAME() { ... }` invoking its steps, or build the file that imports "
                                "this one");
        return NULL;
    }
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < pg->pipelines.len && n < 64; i++)
        names[n++] = ((pipeline_info *)pg->pipelines.items[i])->name;
    char list[1024];
    format_name_list(list, sizeof list, names, n);
    diagnostic *dg = diag_report_file(pg->diag, file, DIAG_E0114, "this file declares %zu pipelines; choose one",
                                      pg->pipelines.len);
    diag_help(pg->diag, dg, "pass `--pipeline NAME`; the pipelines are %s", list);
    return NULL;
}
