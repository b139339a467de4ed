/* The list of the files a build wrote, kept in the bundle (pipec-files.txt,
   one "TARGET PATH" a line), and the removal of those a later build no
   longer writes: the docker/<id>/ folder of an image whose options
   changed, the files of a renamed invocation. Only files on the list are
   removed, and only those of the targets the build writes again, so that
   `--target local` after `--target all` keeps docker/ and the user's own
   files in the folder are never touched. */
#include "bundle_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe/base.h"

typedef struct listed {
    const char *target;
    const char *path;
} listed;

/* A path that names a file inside the bundle, as pipec writes them. */
static bool inside(const char *path)
{
    if (!*path || path[0] == '/')
        return false;
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    for (const char *seg = path; seg; seg = strchr(seg, '/') ? strchr(seg, '/') + 1 : NULL) {
        size_t n = strcspn(seg, "/");
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
    }
    return true;
}

/* The previous build's list; none (a first build) is empty. */
static void read_list(bundle *b, ptr_vec *out)
{
    char *text = NULL;
    const char *path = arena_printf(b->arena, "%s/%s", b->opts->out_dir, BUNDLE_LIST);
    if (pipe_read_file_max(path, (size_t)64 << 20, &text, NULL, NULL, 0) != 0)
        return;
    for (char *line = text; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *space = strchr(line, ' ');
        if (line[0] != '#' && space && inside(space + 1)) {
            listed *e = arena_alloc(b->arena, sizeof *e);
            e->target = arena_strndup(b->arena, line, (size_t)(space - line));
            e->path = arena_strdup(b->arena, space + 1);
            vec_push(b->arena, out, e);
        }
        line = end ? end + 1 : NULL;
    }
    free(text);
}

static bool target_built(const bundle *b, const char *name)
{
    for (size_t i = 0; i < deploy_target_count; i++)
        if (strcmp(deploy_targets[i]->name, name) == 0)
            return (b->opts->targets & target_bit(i)) != 0;
    return false; /* a target this pipec does not know: keep its files */
}

static bool written(const bundle *b, const char *path)
{
    for (size_t i = 0; i < b->files.len; i++)
        if (strcmp(((const bundle_file *)b->files.items[i])->path, path) == 0)
            return true;
    return false;
}

static bool exists(const bundle *b, const char *path)
{
    struct stat st;
    char *full = arena_printf(b->arena, "%s/%s", b->opts->out_dir, path);
    return lstat(full, &st) == 0 && S_ISREG(st.st_mode);
}

void bundle_list_update(bundle *b, ptr_vec *stale)
{
    ptr_vec before = {0};
    read_list(b, &before);
    size_t nfiles = b->files.len;
    strbuf *out = bundle_add_file(b, BUNDLE_LIST, false);
    bundle_banner(b, out, "#");
    sb_puts(out, "# The files pipec wrote here, by target: a later build of the same target\n"
                 "# removes those it no longer writes.\n");
    for (size_t i = 0; i < nfiles; i++) {
        const bundle_file *f = b->files.items[i];
        sb_printf(out, "%s %s\n", f->target ? f->target : "local", f->path);
    }
    for (size_t i = 0; i < before.len; i++) {
        const listed *e = before.items[i];
        if (written(b, e->path))
            continue;
        if (target_built(b, e->target))
            vec_push(b->arena, stale, (void *)e->path);
        else if (exists(b, e->path))
            sb_printf(out, "%s %s\n", e->target, e->path);
    }
}

void bundle_list_remove(bundle *b, const ptr_vec *stale)
{
    for (size_t i = 0; i < stale->len; i++) {
        const char *rel = stale->items[i];
        char *full = arena_printf(b->arena, "%s/%s", b->opts->out_dir, rel);
        struct stat st;
        if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode))
            continue; /* gone already, or replaced by something pipec did not write */
        if (unlink(full) != 0) {
            fprintf(stderr, "pipec: warning: cannot remove %s, which this build no longer writes: %s\n", full,
                    strerror(errno));
            continue;
        }
        if (b->opts->verbose)
            printf("pipec: removed %s\n", full);
        /* Then its folders, as far up as they are empty. */
        for (char *slash = strrchr(full, '/'); slash && slash > full + strlen(b->opts->out_dir);
             slash = strrchr(full, '/')) {
            *slash = '\0';
            if (rmdir(full) != 0)
                break;
        }
    }
}
