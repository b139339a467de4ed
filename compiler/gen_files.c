/* Files copied into the bundle: the steps' sources with the local headers
   they include (so the bundle builds where the project is not), and the
   runtime's sources. Also fills in each step's code digest (for caching)
   and the bundle paths of its sources. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle.h"
#include "embedded.h"
#include "pipe/base.h"

typedef struct user_file {
    char *real;       /* absolute, resolved */
    const char *disk; /* as the checker resolved it (relative to the cwd) */
    bool is_cuda, is_header;
    char *text;
    size_t len;
    bundle_source *src;
} user_file;

static user_file *find_file(ptr_vec *files, const char *real)
{
    for (size_t i = 0; i < files->len; i++) {
        user_file *u = files->items[i];
        if (strcmp(u->real, real) == 0)
            return u;
    }
    return NULL;
}

static user_file *add_file(bundle *b, ptr_vec *files, const char *disk, bool is_cuda, bool is_header, char *err,
                           size_t errsize)
{
    char real[PATH_MAX];
    if (!realpath(disk, real)) {
        snprintf(err, errsize, "cannot read %s", disk);
        return NULL;
    }
    user_file *u = find_file(files, real);
    if (u)
        return u;
    u = arena_alloc(b->arena, sizeof *u);
    u->real = arena_strdup(b->arena, real);
    u->disk = arena_strdup(b->arena, disk);
    u->is_cuda = is_cuda;
    u->is_header = is_header;
    if (pipe_read_file(disk, &u->text, &u->len, err, errsize) != 0)
        return NULL;
    vec_push(b->arena, files, u);
    vec_push(b->arena, &b->inputs, (void *)u->disk);
    return u;
}

/* The `#include "..."` names of a file, in order. */
static void scan_includes(bundle *b, const user_file *u, ptr_vec *names)
{
    const char *p = u->text, *end = u->text + u->len;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        if (!line_end)
            line_end = end;
        const char *q = p;
        while (q < line_end && isspace((unsigned char)*q))
            q++;
        if (q < line_end && *q == '#') {
            q++;
            while (q < line_end && isspace((unsigned char)*q))
                q++;
            if ((size_t)(line_end - q) > 7 && strncmp(q, "include", 7) == 0) {
                q += 7;
                while (q < line_end && isspace((unsigned char)*q))
                    q++;
                if (q < line_end && *q == '"') {
                    const char *close = memchr(q + 1, '"', (size_t)(line_end - q - 1));
                    if (close)
                        vec_push(b->arena, names, arena_strndup(b->arena, q + 1, (size_t)(close - q - 1)));
                }
            }
        }
        p = line_end + 1;
    }
}

static const char *dir_of(bundle *b, const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? arena_strndup(b->arena, path, (size_t)(slash - path)) : ".";
}

static bool regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Follows quoted includes that resolve next to the including file;
   anything else (system headers, the generated header, the runtime headers) is not ours to copy. */
static int add_headers(bundle *b, ptr_vec *files, ptr_vec *step_files, user_file *u, char *err, size_t errsize)
{
    ptr_vec names = {0};
    scan_includes(b, u, &names);
    for (size_t i = 0; i < names.len; i++) {
        const char *name = names.items[i];
        if (name[0] == '/')
            continue;
        const char *path = arena_printf(b->arena, "%s/%s", dir_of(b, u->disk), name);
        if (!regular_file(path))
            continue;
        char real[PATH_MAX];
        if (!realpath(path, real))
            continue;
        bool known = find_file(files, real) != NULL;
        user_file *h = add_file(b, files, path, false, true, err, errsize);
        if (!h)
            return -1;
        bool in_step = false;
        for (size_t k = 0; k < step_files->len; k++)
            in_step = in_step || step_files->items[k] == h;
        if (!in_step)
            vec_push(b->arena, step_files, h);
        if (!known && add_headers(b, files, step_files, h, err, errsize) != 0)
            return -1;
    }
    return 0;
}

/* The deepest directory containing every file: bundle paths keep the
   layout below it, so relative includes still resolve. */
static char *common_root(bundle *b, ptr_vec *files)
{
    char *root = NULL;
    for (size_t i = 0; i < files->len; i++) {
        user_file *u = files->items[i];
        const char *dir = dir_of(b, u->real);
        if (!root) {
            root = arena_strdup(b->arena, dir);
            continue;
        }
        size_t n = 0;
        while (root[n] && root[n] == dir[n])
            n++;
        /* Back up to a whole path component. */
        if (!(root[n] == '\0' && (dir[n] == '/' || dir[n] == '\0')))
            while (n > 0 && root[n] != '/')
                n--;
        root[n] = '\0';
    }
    return root;
}

int gen_user_sources(bundle *b, char *err, size_t errsize)
{
    ptr_vec files = {0};
    size_t nsteps = b->mf->nsteps;
    ptr_vec *per_step = arena_alloc(b->arena, (nsteps + 1) * sizeof *per_step);
    int rc = -1;
    for (size_t i = 0; i < nsteps; i++) {
        const model_step *ms = b->steps[i].ms;
        for (size_t k = 0; k < ms->nsources; k++) {
            const model_source *ref = &ms->sources[k];
            user_file *u = add_file(b, &files, ref->resolved, ref->is_cuda, false, err, errsize);
            if (!u)
                goto done;
            vec_push(b->arena, &per_step[i], u);
        }
        for (size_t k = 0; k < ms->nsources; k++)
            if (add_headers(b, &files, &per_step[i], per_step[i].items[k], err, errsize) != 0)
                goto done;
    }
    char *root = common_root(b, &files);
    size_t root_len = root ? strlen(root) : 0;
    for (size_t i = 0; i < files.len; i++) {
        user_file *u = files.items[i];
        bundle_source *s = arena_alloc(b->arena, sizeof *s);
        s->disk_path = u->disk;
        const char *rel = u->real + root_len;
        while (*rel == '/')
            rel++;
        s->bundle_path = arena_printf(b->arena, "src/user/%s", rel);
        s->is_cuda = u->is_cuda;
        s->is_header = u->is_header;
        u->src = s;
        vec_push(b->arena, &b->sources, s);
        strbuf *out = bundle_add_file(b, s->bundle_path, false);
        sb_putn(out, u->text, u->len);
    }
    /* Code digest: each file's bundle path and bytes, in the step's order. */
    for (size_t i = 0; i < nsteps; i++) {
        bundle_step *bs = &b->steps[i];
        pipe_mstep *st = &b->model->manifest.steps[i];
        pipe_sha256 h;
        pipe_sha256_init(&h);
        pipe_sha256_update(&h, st->entry, strlen(st->entry) + 1);
        st->sources = arena_alloc(b->arena, (per_step[i].len + 1) * sizeof *st->sources);
        st->nsources = 0;
        for (size_t k = 0; k < per_step[i].len; k++) {
            user_file *u = per_step[i].items[k];
            vec_push(b->arena, &bs->files, u->src);
            if (!u->src->is_header)
                st->sources[st->nsources++] = (char *)u->src->bundle_path;
            pipe_sha256_update(&h, u->src->bundle_path, strlen(u->src->bundle_path) + 1);
            pipe_sha256_update(&h, u->text, u->len);
        }
        unsigned char digest[PIPE_SHA256_SIZE];
        pipe_sha256_final(&h, digest);
        st->code_digest = arena_alloc(b->arena, PIPE_SHA256_HEX_SIZE);
        pipe_sha256_to_hex(digest, st->code_digest);
    }
    rc = 0;
done:
    for (size_t i = 0; i < files.len; i++)
        free(((user_file *)files.items[i])->text);
    return rc;
}

int gen_runtime(bundle *b, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    for (const embedded_file *f = embedded_runtime; f->path; f++) {
        strbuf *out = bundle_add_file(b, arena_printf(b->arena, "runtime/%s", f->path), false);
        sb_putn(out, f->data, f->len);
    }
    return 0;
}
