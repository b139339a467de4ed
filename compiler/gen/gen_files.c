/* Files copied into the bundle: the steps' sources with the local headers
   they include (so the bundle builds where the project is not), the files
   and folders command steps ship, and the runtime's sources. Also fills in
   each step's code digest (for caching), the bundle paths of its sources
   and a command step's folder in the bundle. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle.h"
#include "util/embedded.h"
#include "pipe/base.h"
#include "util/symtab.h"

/* Folders deeper than this below a shipped folder are not followed (a
   symbolic link may loop). */
#define MAX_FOLDER_DEPTH 32

typedef struct user_file {
    char *real;       /* absolute, resolved */
    const char *disk; /* as the checker resolved it (relative to the cwd) */
    model_source_kind kind;
    bool executable;
    long long size, mtime_ns; /* its stat when it was read */
    char *text;
    size_t len;
    unsigned char digest[PIPE_SHA256_SIZE]; /* of text: a file shared by many steps is hashed once */
    ptr_vec headers;                        /* user_file*: the local headers it includes directly */
    bool headers_known;
    bundle_source *src;
} user_file;

/* What one step brings: its files in order, and the folders it lists (their
   bundle paths are those of the folders themselves). */
typedef struct step_files {
    ptr_vec files;   /* user_file* */
    ptr_vec folders; /* char*: absolute, resolved */
    ptr_vec listed;  /* what `source` lists, in order: user_file* or a folder's index + 1 as a tagged pointer */
} step_files;

/* Every file of the bundle's steps, once each: in the order first met, and
   by resolved path (a pipeline of thousands of steps must not compare every
   file with every other). */
typedef struct file_set {
    ptr_vec list;        /* user_file* */
    symtab by_real;      /* user_file->real -> user_file* */
    symtab by_disk;      /* a path as a step lists it -> user_file* (thousands of steps may list one) */
    symtab real_dirs;    /* a folder as written -> its resolved path (thousands of sources share a few) */
    symtab header_probe; /* a quoted include's path -> HEADER_FOUND or HEADER_ABSENT */
} file_set;

#define HEADER_FOUND ((void *)1)
#define HEADER_ABSENT ((void *)2)

/* realpath(disk) for a file that is not a symbolic link: its folder's
   resolved path (asked of the system once per folder) and its name; one
   lstat instead of a getcwd and a readlink per path component. *st: the
   file's lstat. */
static bool resolve_file(bundle *b, file_set *files, const char *disk, char real[PATH_MAX], struct stat *st)
{
    if (lstat(disk, st) != 0)
        return false;
    const char *slash = strrchr(disk, '/');
    if (S_ISLNK(st->st_mode) || (slash && slash[1] == '\0'))
        return realpath(disk, real) && stat(real, st) == 0;
    const char *dir = slash ? arena_strndup(b->arena, disk, (size_t)(slash - disk)) : ".";
    const char *name = slash ? slash + 1 : disk;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return realpath(disk, real) && stat(real, st) == 0;
    if (!*dir)
        dir = "/"; /* "/name" */
    const char *real_dir = symtab_get(&files->real_dirs, dir);
    if (!real_dir) {
        char resolved[PATH_MAX];
        if (!realpath(dir, resolved))
            return false;
        real_dir = arena_strdup(b->arena, resolved);
        symtab_put(&files->real_dirs, dir, (void *)real_dir);
    }
    int n = snprintf(real, PATH_MAX, "%s/%s", strcmp(real_dir, "/") == 0 ? "" : real_dir, name);
    return n > 0 && n < PATH_MAX;
}

static user_file *find_file(const file_set *files, const char *real) { return symtab_get(&files->by_real, real); }

/* text: the file's bytes when the checker read them already, or NULL. */
static user_file *add_file(bundle *b, file_set *files, const char *disk, model_source_kind kind, const char *text,
                           size_t len, char *err, size_t errsize)
{
    char real[PATH_MAX];
    struct stat st;
    user_file *u = symtab_get(&files->by_disk, disk);
    if (!u && !resolve_file(b, files, disk, real, &st)) {
        snprintf(err, errsize, "cannot read %s", disk);
        return NULL;
    }
    if (!u && (u = find_file(files, real)) != NULL)
        symtab_put(&files->by_disk, arena_strdup(b->arena, disk), u);
    if (u) {
        /* Compiled wins over header or shipped, when one file is both. */
        if (model_source_compiled(kind))
            u->kind = kind;
        return u;
    }
    u = arena_alloc(b->arena, sizeof *u);
    u->real = arena_strdup(b->arena, real);
    u->disk = arena_strdup(b->arena, disk);
    u->kind = kind;
    u->executable = (st.st_mode & 0111) != 0;
    u->size = (long long)st.st_size;
    u->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    if (text) {
        u->text = xmalloc(len + 1);
        memcpy(u->text, text, len);
        u->text[len] = '\0';
        u->len = len;
    } else if (pipe_read_file(disk, &u->text, &u->len, err, errsize) != 0) {
        return NULL;
    }
    pipe_sha256 h;
    pipe_sha256_init(&h);
    pipe_sha256_update(&h, u->text, u->len);
    pipe_sha256_final(&h, u->digest);
    vec_push(b->arena, &files->list, u);
    symtab_put(&files->by_real, u->real, u);
    symtab_put(&files->by_disk, u->disk, u);
    vec_push(b->arena, &b->inputs, (void *)u->disk);
    return u;
}

static bool in_list(const ptr_vec *v, const void *item)
{
    for (size_t k = 0; k < v->len; k++)
        if (v->items[k] == item)
            return true;
    return false;
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

/* The quoted includes of u that resolve next to it, found once per file
   however many steps list it; anything else (system headers, the generated
   header, the runtime headers) is not ours to copy. */
static int find_headers(bundle *b, file_set *files, user_file *u, char *err, size_t errsize)
{
    if (u->headers_known)
        return 0;
    u->headers_known = true; /* before recursing: a header cycle stops here */
    ptr_vec names = {0};
    scan_includes(b, u, &names);
    for (size_t i = 0; i < names.len; i++) {
        const char *name = names.items[i];
        if (name[0] == '/')
            continue;
        const char *path = arena_printf(b->arena, "%s/%s", dir_of(b, u->disk), name);
        void *probe = symtab_get(&files->header_probe, path);
        if (!probe) {
            /* Every source of a folder includes the generated header: ask once. */
            probe = regular_file(path) ? HEADER_FOUND : HEADER_ABSENT;
            symtab_put(&files->header_probe, path, probe);
        }
        if (probe == HEADER_ABSENT)
            continue;
        user_file *h = add_file(b, files, path, MODEL_SRC_HEADER, NULL, 0, err, errsize);
        if (!h || find_headers(b, files, h, err, errsize) != 0)
            return -1;
        vec_push(b->arena, &u->headers, h);
    }
    return 0;
}

/* Adds u's headers, and theirs, to a step's files (depth first, each once). */
static int add_headers(bundle *b, file_set *files, ptr_vec *step_list, user_file *u, char *err, size_t errsize)
{
    if (find_headers(b, files, u, err, errsize) != 0)
        return -1;
    for (size_t i = 0; i < u->headers.len; i++) {
        user_file *h = u->headers.items[i];
        if (in_list(step_list, h))
            continue;
        vec_push(b->arena, step_list, h);
        if (add_headers(b, files, step_list, h, err, errsize) != 0)
            return -1;
    }
    return 0;
}

/* Byte order, not the locale's: the bundle is the same wherever it is built. */
static int compare_names(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* Python's byte-code caches and version-control folders are not the step's
   code: shipping them would make the code digest change with every run. */
static bool skipped_entry(const char *name)
{
    return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "__pycache__") == 0 ||
           strcmp(name, ".git") == 0 || strcmp(name, ".hg") == 0 || strcmp(name, ".svn") == 0;
}

/* Every regular file below a shipped folder, in name order (symbolic links
   followed, other kinds of files left out). */
static int add_folder(bundle *b, file_set *files, step_files *sf, const char *disk, int depth, char *err,
                      size_t errsize)
{
    if (depth > MAX_FOLDER_DEPTH)
        return 0;
    struct dirent **names = NULL;
    int n = scandir(disk, &names, NULL, compare_names);
    if (n < 0) {
        snprintf(err, errsize, "cannot read folder %s", disk);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const char *name = names[i]->d_name;
        if (skipped_entry(name))
            continue;
        const char *path = arena_printf(b->arena, "%s/%s", disk, name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue; /* a dangling link */
        if (S_ISDIR(st.st_mode)) {
            rc = add_folder(b, files, sf, path, depth + 1, err, errsize);
        } else if (S_ISREG(st.st_mode)) {
            user_file *u = add_file(b, files, path, MODEL_SRC_FILE, NULL, 0, err, errsize);
            if (!u)
                rc = -1;
            else if (!in_list(&sf->files, u))
                vec_push(b->arena, &sf->files, u);
        }
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* The deepest common folder of a and b (absolute paths of folders). */
static void narrow_root(bundle *b, char **root, const char *dir)
{
    if (!*root) {
        *root = arena_strdup(b->arena, dir);
        return;
    }
    char *r = *root;
    size_t n = 0;
    while (r[n] && r[n] == dir[n])
        n++;
    /* Back up to a whole path component. */
    if (!(r[n] == '\0' && (dir[n] == '/' || dir[n] == '\0')))
        while (n > 0 && r[n] != '/')
            n--;
    r[n] = '\0';
}

/* Below root, without the leading '/': "" for root itself. */
static const char *below(const char *root, const char *real)
{
    const char *rel = real + strlen(root);
    while (*rel == '/')
        rel++;
    return rel;
}

static const char *bundle_path_of(bundle *b, const char *root, const char *real)
{
    const char *rel = below(root, real);
    return *rel ? arena_printf(b->arena, "src/user/%s", rel) : "src/user";
}

/* Adds every folder above a bundle path to a set (keys in the arena). */
static void note_folders(bundle *b, symtab *folders, const char *bundle_path)
{
    for (size_t n = strlen(bundle_path); n > 0; n--) {
        if (bundle_path[n] != '/')
            continue;
        char *folder = arena_strndup(b->arena, bundle_path, n);
        if (symtab_get(folders, folder))
            return; /* and so are those above it */
        symtab_put(folders, folder, folder);
    }
}

static int collect(bundle *b, file_set *files, step_files *per_step, char **command_dirs, char *err, size_t errsize)
{
    for (size_t i = 0; i < b->mf->nsteps; i++) {
        const model_step *ms = b->steps[i].ms;
        step_files *sf = &per_step[i];
        for (size_t k = 0; k < ms->nsources; k++) {
            const model_source *ref = &ms->sources[k];
            if (ref->kind == MODEL_SRC_FOLDER) {
                char real[PATH_MAX];
                if (!realpath(ref->resolved, real)) {
                    snprintf(err, errsize, "cannot read folder %s", ref->resolved);
                    return -1;
                }
                char *folder = arena_strdup(b->arena, real);
                vec_push(b->arena, &sf->folders, folder);
                vec_push(b->arena, &sf->listed, folder);
                vec_push(b->arena, &b->inputs, (void *)ref->resolved);
                if (add_folder(b, files, sf, ref->resolved, 0, err, errsize) != 0)
                    return -1;
                continue;
            }
            user_file *u = add_file(b, files, ref->resolved, ref->kind, ref->text, ref->len, err, errsize);
            if (!u)
                return -1;
            if (!in_list(&sf->files, u))
                vec_push(b->arena, &sf->files, u);
            vec_push(b->arena, &sf->listed, u);
        }
        size_t listed = sf->files.len;
        for (size_t k = 0; k < listed; k++) {
            user_file *u = sf->files.items[k];
            if (model_source_compiled(u->kind) && add_headers(b, files, &sf->files, u, err, errsize) != 0)
                return -1;
        }
        if (pipe_step_is_command(b->steps[i].m)) {
            char real[PATH_MAX];
            if (!realpath(ms->pipe_dir, real)) {
                snprintf(err, errsize, "cannot resolve the folder %s of step `%s`", ms->pipe_dir, b->steps[i].m->name);
                return -1;
            }
            command_dirs[i] = arena_strdup(b->arena, real);
        }
    }
    return 0;
}

/* Code digest: a native step's entry, or a command step's arguments and
   folder; then each file's bundle path and bytes, in the step's order. */
static void digest_step(bundle *b, size_t i, const step_files *sf)
{
    pipe_mstep *st = &b->model->manifest.steps[i];
    pipe_sha256 h;
    pipe_sha256_init(&h);
    if (pipe_step_is_command(st)) {
        pipe_sha256_update(&h, "command", 8);
        for (size_t k = 0; k < st->ncommand; k++)
            pipe_sha256_update(&h, st->command[k], strlen(st->command[k]) + 1);
        pipe_sha256_update(&h, st->workdir, strlen(st->workdir) + 1);
    } else {
        pipe_sha256_update(&h, st->entry, strlen(st->entry) + 1);
        for (size_t k = 0; k < st->nlibraries; k++) {
            pipe_sha256_update(&h, "library", 8);
            pipe_sha256_update(&h, st->libraries[k], strlen(st->libraries[k]) + 1);
        }
    }
    for (size_t k = 0; k < sf->files.len; k++) {
        const user_file *u = sf->files.items[k];
        pipe_sha256_update(&h, u->src->bundle_path, strlen(u->src->bundle_path) + 1);
        pipe_sha256_update(&h, u->digest, sizeof u->digest);
    }
    unsigned char digest[PIPE_SHA256_SIZE];
    pipe_sha256_final(&h, digest);
    st->code_digest = arena_alloc(b->arena, PIPE_SHA256_HEX_SIZE);
    pipe_sha256_to_hex(digest, st->code_digest);
}

int gen_user_sources(bundle *b, char *err, size_t errsize)
{
    file_set files = {0};
    size_t nsteps = b->mf->nsteps;
    step_files *per_step = arena_alloc(b->arena, (nsteps + 1) * sizeof *per_step);
    char **command_dirs = arena_alloc(b->arena, (nsteps + 1) * sizeof *command_dirs);
    memset(per_step, 0, (nsteps + 1) * sizeof *per_step);
    memset(command_dirs, 0, (nsteps + 1) * sizeof *command_dirs);
    symtab occupied = {0}; /* every folder of the bundle holding a shipped file */
    int rc = -1;
    if (collect(b, &files, per_step, command_dirs, err, errsize) != 0)
        goto done;

    /* Bundle paths keep the layout below the deepest folder holding every
       file and every command step's .pipe folder, so relative includes and
       a script's relative paths still resolve. */
    char *root = NULL;
    for (size_t i = 0; i < files.list.len; i++)
        narrow_root(b, &root, dir_of(b, ((user_file *)files.list.items[i])->real));
    for (size_t i = 0; i < nsteps; i++) {
        if (command_dirs[i])
            narrow_root(b, &root, command_dirs[i]);
        for (size_t k = 0; k < per_step[i].folders.len; k++)
            narrow_root(b, &root, per_step[i].folders.items[k]);
    }
    for (size_t i = 0; i < files.list.len; i++) {
        user_file *u = files.list.items[i];
        bundle_source *s = arena_alloc(b->arena, sizeof *s);
        s->disk_path = u->disk;
        s->bundle_path = bundle_path_of(b, root, u->real);
        s->kind = u->kind;
        s->size = u->size;
        s->mtime_ns = u->mtime_ns;
        memcpy(s->digest, u->digest, sizeof s->digest);
        u->src = s;
        vec_push(b->arena, &b->sources, s);
        note_folders(b, &occupied, s->bundle_path);
        strbuf *out = bundle_add_file(b, s->bundle_path, u->executable);
        sb_putn(out, u->text, u->len);
    }

    for (size_t i = 0; i < nsteps; i++) {
        bundle_step *bs = &b->steps[i];
        pipe_mstep *st = &b->model->manifest.steps[i];
        step_files *sf = &per_step[i];
        for (size_t k = 0; k < sf->files.len; k++)
            vec_push(b->arena, &bs->files, ((user_file *)sf->files.items[k])->src);
        st->sources = arena_alloc(b->arena, (sf->listed.len + 1) * sizeof *st->sources);
        st->nsources = 0;
        if (pipe_step_is_command(st)) {
            /* What `source` lists, files and folders, as the bundle holds them. */
            for (size_t k = 0; k < sf->listed.len; k++) {
                void *item = sf->listed.items[k];
                bool folder = in_list(&sf->folders, item);
                st->sources[st->nsources++] =
                    (char *)(folder ? bundle_path_of(b, root, item) : ((user_file *)item)->src->bundle_path);
            }
            st->workdir = (char *)bundle_path_of(b, root, command_dirs[i]);
            bs->workdir = st->workdir;
            /* The folder must exist in the bundle even when nothing is shipped there. */
            if (!symtab_get(&occupied, st->workdir)) {
                strbuf *marker = bundle_add_file(b, arena_printf(b->arena, "%s/.pipe-folder", st->workdir), false);
                sb_printf(marker, "Generated by pipec from %s: the folder its command steps run in.\n",
                          b->source_name);
                bundle_source *s = arena_alloc(b->arena, sizeof *s);
                s->disk_path = NULL;
                s->bundle_path = arena_printf(b->arena, "%s/.pipe-folder", st->workdir);
                s->kind = MODEL_SRC_FILE;
                vec_push(b->arena, &b->sources, s);
                note_folders(b, &occupied, s->bundle_path);
            }
        } else {
            for (size_t k = 0; k < sf->files.len; k++) {
                const user_file *u = sf->files.items[k];
                if (model_source_compiled(u->kind))
                    st->sources[st->nsources++] = (char *)u->src->bundle_path;
            }
        }
        digest_step(b, i, sf);
    }
    rc = 0;
done:
    for (size_t i = 0; i < files.list.len; i++)
        free(((user_file *)files.list.items[i])->text);
    symtab_free(&files.by_real);
    symtab_free(&files.by_disk);
    symtab_free(&files.real_dirs);
    symtab_free(&files.header_probe);
    symtab_free(&occupied);
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
    /* The `pipe` Python module: command steps find it on PYTHONPATH. */
    for (const embedded_file *f = embedded_python; f->path; f++) {
        strbuf *out = bundle_add_file(b, arena_printf(b->arena, "python/%s", f->path), false);
        sb_putn(out, f->data, f->len);
    }
    return 0;
}
