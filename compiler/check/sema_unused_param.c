/* W0412: a parameter of a command step that nothing passes to its program:
   no `{name}` placeholder in `command`, and no `PIPE_PARAM_<NAME>`,
   `param("name")` or `param('name')` (the pipe module's pipe.param) in the
   command or in a file of `source`. A text search, not a reading of the
   program (it may build the variable's name, or a program not shipped may
   read it), hence a warning; when a source cannot be read whole it says
   nothing. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipe/base.h"
#include "pipe/placeholder.h"
#include "sema.h"
#include "util/arena.h"

/* Bounds on what is read: a source folder bigger than this is taken to use
   every parameter. */
enum { MAX_FILES = 2000, MAX_BYTES = 64 << 20, MAX_DEPTH = 16 };

typedef struct scan {
    const step_info *st;
    char **needles; /* per parameter: NULL for an artifact, else the three texts, joined by '\0' */
    bool *used;
    size_t files, bytes;
    bool gave_up;
} scan;

static bool contains(const char *text, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = text; n > 0 && (size_t)(text + len - p) >= n; p++) {
        p = memchr(p, needle[0], (size_t)(text + len - p));
        if (!p || (size_t)(text + len - p) < n)
            return false;
        if (memcmp(p, needle, n) == 0)
            return true;
    }
    return false;
}

static void search_text(scan *sc, const char *text, size_t len)
{
    for (size_t i = 0; i < sc->st->nparams; i++) {
        if (!sc->needles[i] || sc->used[i])
            continue;
        for (const char *n = sc->needles[i]; *n && !sc->used[i]; n += strlen(n) + 1)
            sc->used[i] = contains(text, len, n);
    }
}

static void search_path(scan *sc, const char *path, int depth)
{
    struct stat st;
    if (sc->gave_up || stat(path, &st) != 0) {
        sc->gave_up = true;
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = depth < MAX_DEPTH ? opendir(path) : NULL;
        if (!d) {
            sc->gave_up = true;
            return;
        }
        for (struct dirent *e; !sc->gave_up && (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            size_t n = strlen(path) + strlen(e->d_name) + 2;
            char *child = malloc(n);
            if (!child) {
                sc->gave_up = true;
                break;
            }
            snprintf(child, n, "%s/%s", path, e->d_name);
            search_path(sc, child, depth + 1);
            free(child);
        }
        closedir(d);
        return;
    }
    if (!S_ISREG(st.st_mode))
        return;
    if (++sc->files > MAX_FILES || (sc->bytes += (size_t)st.st_size) > MAX_BYTES) {
        sc->gave_up = true;
        return;
    }
    char *text = NULL;
    size_t len = 0;
    if (pipe_read_file(path, &text, &len, NULL, 0) != 0) {
        sc->gave_up = true;
        return;
    }
    search_text(sc, text, len);
    free(text);
}

void sema_check_params_used(sema *s, const step_info *st, size_t ncommand_items)
{
    program *pg = s->pg;
    if (!st->is_command || st->ncommand != ncommand_items || st->ncommand == 0)
        return;
    scan sc = {.st = st};
    sc.needles = arena_alloc(pg->arena, (st->nparams + 1) * sizeof *sc.needles);
    sc.used = arena_alloc(pg->arena, (st->nparams + 1) * sizeof *sc.used);
    size_t open = 0;
    for (size_t i = 0; i < st->nparams; i++) {
        sc.needles[i] = NULL;
        sc.used[i] = false;
        if (st->params[i].type == TYPE_ARTIFACT || st->params[i].reported)
            continue;
        const char *name = st->params[i].name;
        char *env = arena_printf(pg->arena, "PIPE_PARAM_%s", name);
        for (char *p = env; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        sc.needles[i] = arena_printf(pg->arena, "%s%cparam(\"%s\")%cparam('%s')%c", env, '\0', name, '\0', name, '\0');
        open++;
    }
    if (open == 0)
        return;
    /* The placeholders of `command`, and its text (`sh -c "... $PIPE_PARAM_N"`).
       A placeholder that names nothing (E0119) may have meant a parameter:
       that error says enough. */
    for (size_t w = 0; w < st->ncommand && !sc.gave_up; w++) {
        const char *word = st->command[w];
        pipe_placeholder ph;
        for (size_t pos = 0; pipe_placeholder_next(word, &pos, &ph);) {
            if (ph.kind == PIPE_PH_EMPTY)
                sc.gave_up = true;
            if (ph.kind != PIPE_PH_NAME)
                continue;
            size_t len = ph.end - ph.start - 2;
            bool known = false;
            for (size_t i = 0; i < st->nparams; i++)
                if (strlen(st->params[i].name) == len && strncmp(st->params[i].name, word + ph.start + 1, len) == 0)
                    sc.used[i] = known = true;
            for (size_t o = 0; o < st->noutputs; o++)
                known |= strlen(st->outputs[o].name) == len && strncmp(st->outputs[o].name, word + ph.start + 1, len) == 0;
            sc.gave_up |= !known;
        }
        search_text(&sc, word, strlen(word));
    }
    for (size_t i = 0; i < st->nsources && !sc.gave_up; i++)
        search_path(&sc, st->sources[i].resolved, 0);
    if (sc.gave_up)
        return;
    for (size_t i = 0; i < st->nparams; i++) {
        if (!sc.needles[i] || sc.used[i])
            continue;
        const param_info *p = &st->params[i];
        char *env = arena_printf(pg->arena, "PIPE_PARAM_%s", p->name);
        for (char *c = env; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        diagnostic *dg = diag_report(pg->diag, p->decl->name.sp, DIAG_W0412,
                                     "parameter `%s` of step `%s` never reaches its program", p->name, st->name);
        diag_label(pg->diag, dg,
                   st->nsources ? arena_printf(pg->arena, "no `{%s}` in `command`, and no file of `source` reads it",
                                               p->name)
                                : arena_printf(pg->arena, "no `{%s}` in `command`", p->name));
        diag_help(pg->diag, dg,
                  "pass it as an argument, `\"--%s\", \"{%s}\"` in `command`, or read it in the program: "
                  "`os.environ[\"%s\"]` or `pipe.param(\"%s\")`",
                  p->name, p->name, env, p->name);
    }
}
