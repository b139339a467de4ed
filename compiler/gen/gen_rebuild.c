/* pipec-rebuild.cmake: how this bundle was built (this pipec, the .pipe
   file, the pipeline and targets, where the bundle went, what it read and
   what it wrote), so that the bundle's CMakeLists.txt builds it again when
   the .pipe file, an import or a step's source changes. The paths are this
   machine's, so the file is not part of the golden outputs; a bundle copied
   elsewhere finds them gone and builds from its copies. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle.h"
#include "template.h"

const char *bundle_absolute(bundle *b, const char *cwd, const char *path)
{
    if (path[0] == '/')
        return path;
    if (!cwd)
        return NULL;
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    return arena_printf(b->arena, "%s/%s", cwd, path);
}

/* A CMake quoted argument; false for text it cannot carry safely in a list
   (a `;` splits lists, a newline the file). */
static bool cmake_quoted(strbuf *sb, const char *text)
{
    if (strpbrk(text, ";\n\r"))
        return false;
    sb_putc(sb, '"');
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '$')
            sb_putc(sb, '\\');
        sb_putc(sb, *p);
    }
    sb_putc(sb, '"');
    return true;
}

static bool list_item(strbuf *sb, const char *text)
{
    sb_puts(sb, "  ");
    bool ok = cmake_quoted(sb, text);
    sb_putc(sb, '\n');
    return ok;
}

int gen_rebuild(bundle *b, char *err, size_t errsize)
{
    const build_options *o = b->opts;
    if (!o->pipec_path || !o->pipe_path || !o->pipeline_name)
        return 0; /* nothing to build it again with: the copies are all there is */
    char cwd_buf[PATH_MAX];
    const char *cwd = getcwd(cwd_buf, sizeof cwd_buf);
    const char *out = bundle_absolute(b, cwd, o->out_dir);
    if (!out)
        return 0;
    strbuf pipec = STRBUF_INIT, pipe = STRBUF_INIT, dir = STRBUF_INIT, args = STRBUF_INIT, inputs = STRBUF_INIT,
           outputs = STRBUF_INIT;
    bool ok = cmake_quoted(&pipec, o->pipec_path) && cmake_quoted(&pipe, o->pipe_path) && cmake_quoted(&dir, out);
    ok = ok && list_item(&args, "--pipeline") && list_item(&args, o->pipeline_name) && list_item(&args, "--target") &&
         list_item(&args, b->targets_text);
    if (o->registry) /* the images keep their names */
        ok = ok && list_item(&args, "--registry") && list_item(&args, o->registry);
    for (size_t i = 0; ok && i < b->inputs.len; i++) {
        const char *path = bundle_absolute(b, cwd, b->inputs.items[i]);
        ok = path && list_item(&inputs, path);
    }
    const char *self = "pipec-rebuild.cmake";
    for (size_t i = 0; ok && i < b->files.len; i++)
        ok = list_item(&outputs, ((const bundle_file *)b->files.items[i])->path);
    ok = ok && list_item(&outputs, self);
    int rc = 0;
    if (ok) {
        tmpl_var vars[] = {{"source", b->source_name},  {"pipec", sb_cstr(&pipec)},     {"pipe", sb_cstr(&pipe)},
                           {"out", sb_cstr(&dir)},       {"args", sb_cstr(&args)},       {"inputs", sb_cstr(&inputs)},
                           {"outputs", sb_cstr(&outputs)}};
        strbuf *text = bundle_add_file(b, self, false);
        const char *missing = NULL;
        rc = tmpl_render("pipec-rebuild.cmake.tmpl", vars, sizeof vars / sizeof vars[0], text, &missing);
        if (rc != 0)
            snprintf(err, errsize, "internal error: template pipec-rebuild.cmake.tmpl needs `%.40s`", missing);
    }
    sb_free(&pipec);
    sb_free(&pipe);
    sb_free(&dir);
    sb_free(&args);
    sb_free(&inputs);
    sb_free(&outputs);
    return rc;
}
