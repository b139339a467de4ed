/* pipec-inputs.txt read back (bundle_inputs.h). */
#include "bundle_inputs.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipe/base.h"
#include "util/util.h"

/* Splits the next line of *p at tabs into at most max fields; the count. */
static size_t fields(char **p, char **out, size_t max)
{
    char *line = *p, *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = line + strlen(line);
    }
    size_t n = 0;
    for (char *f = line; n < max;) {
        out[n++] = f;
        char *tab = strchr(f, '\t');
        if (!tab)
            break;
        *tab = '\0';
        f = tab + 1;
    }
    return n;
}

int pipe_bundle_inputs_load(const char *bundle, pipe_bundle_inputs *in)
{
    memset(in, 0, sizeof *in);
    char *path = pipe_asprintf("%s/pipec-inputs.txt", bundle), err[256];
    size_t len = 0;
    int rc = path ? pipe_read_file(path, &in->text, &len, err, sizeof err) : -1;
    free(path);
    if (rc != 0)
        return 1;
    size_t cap = 1;
    for (const char *c = in->text; *c; c++)
        cap += *c == '\n';
    in->files = calloc(cap, sizeof *in->files);
    if (!in->files) {
        pipe_bundle_inputs_free(in);
        return 1;
    }
    for (char *p = in->text; *p;) {
        char *f[6];
        size_t n = fields(&p, f, 6);
        if (n == 2 && strcmp(f[0], "pipe") == 0)
            in->pipe = f[1];
        else if (n == 2 && strcmp(f[0], "pipec") == 0)
            in->pipec = f[1];
        else if (n == 2 && strcmp(f[0], "out") == 0)
            in->out = f[1];
        else if (n == 2 && strcmp(f[0], "command") == 0 && strcmp(f[1], "-") != 0)
            in->command = f[1];
        else if (n == 6 && strcmp(f[0], "file") == 0 && strlen(f[3]) == PIPE_SHA256_HEX_SIZE - 1)
            in->files[in->nfiles++] = (pipe_bundle_input){
                .size = atoll(f[1]),
                .mtime_ns = atoll(f[2]),
                .sha256 = f[3],
                .path = f[4],
                .copy = strcmp(f[5], "-") == 0 ? NULL : f[5],
            };
    }
    return 0;
}

void pipe_bundle_inputs_free(pipe_bundle_inputs *in)
{
    free(in->text);
    free(in->files);
    memset(in, 0, sizeof *in);
}

const pipe_bundle_input *pipe_bundle_inputs_changed(const pipe_bundle_inputs *in)
{
    for (size_t i = 0; i < in->nfiles; i++) {
        const pipe_bundle_input *f = &in->files[i];
        struct stat st;
        if (stat(f->path, &st) != 0)
            continue; /* not on this machine (an image, a cluster), or deleted: nothing to compare */
        long long mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        if ((long long)st.st_size == f->size && mtime_ns == f->mtime_ns)
            continue;
        char hex[PIPE_SHA256_HEX_SIZE], err[256];
        if ((long long)st.st_size == f->size && pipe_sha256_file(f->path, hex, err, sizeof err) == 0 &&
            strcmp(hex, f->sha256) == 0)
            continue; /* touched, saved unchanged, checked out again */
        return f;
    }
    return NULL;
}

/* ---- mapping a program's lines back ---- */

/* The table of the one bundle a process runs from, read once. */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    bool loaded;
    char *bundle;           /* as given */
    char *real;             /* its real path (what getcwd shows a program) */
    pipe_bundle_inputs in;  /* nfiles 0 when there is none */
} map;

/* Whether the first n bytes of p hold needle; where, in *at. */
static bool find(const char *p, size_t n, const char *needle, size_t *at)
{
    size_t k = strlen(needle);
    for (size_t i = 0; k > 0 && i + k <= n; i++)
        if (p[i] == needle[0] && memcmp(p + i, needle, k) == 0) {
            *at = i;
            return true;
        }
    return false;
}

/* The copy whose path (dir + "/" + copy) starts line[at...] and ends as a
   traceback's or a compiler's reference to it does (`"`, `'`, `:`, `,`,
   `)`), or NULL; its length in *len. A path alone (a build tool saying
   it wrote the copy) stays as it is. */
static const pipe_bundle_input *copy_at(const char *dir, const char *line, size_t n, size_t at, size_t *len)
{
    size_t d = strlen(dir);
    if (at + d + 1 > n || memcmp(line + at, dir, d) != 0 || line[at + d] != '/')
        return NULL;
    const pipe_bundle_input *best = NULL;
    for (size_t i = 0; i < map.in.nfiles; i++) {
        const char *copy = map.in.files[i].copy;
        if (!copy)
            continue;
        size_t c = strlen(copy), end = at + d + 1 + c;
        if (end > n || memcmp(line + at + d + 1, copy, c) != 0)
            continue;
        char next = end < n ? line[end] : '\0';
        if (next != '\0' && strchr("\"':,)", next) && (!best || c > strlen(best->copy))) {
            best = &map.in.files[i];
            *len = d + 1 + c;
        }
    }
    return best;
}

static char *map_with(const char *dir, const char *line, size_t n)
{
    char *prefix = pipe_asprintf("%s/src/user/", dir);
    size_t at;
    bool hit = prefix && find(line, n, prefix, &at);
    free(prefix);
    if (!hit)
        return NULL;
    size_t cap = 2 * n + 256, o = 0, i = 0;
    char *out = malloc(cap);
    bool changed = false;
    while (out && i < n) {
        size_t len = 0;
        const pipe_bundle_input *f = line[i] == dir[0] ? copy_at(dir, line, n, i, &len) : NULL;
        const char *piece = f ? f->path : line + i;
        size_t k = f ? strlen(f->path) : 1;
        if (o + k + 1 > cap) {
            char *grown = realloc(out, cap = 2 * (o + k + 1));
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        memcpy(out + o, piece, k);
        o += k;
        i += f ? len : 1;
        changed = changed || f;
    }
    if (!out)
        return NULL;
    out[o] = '\0';
    if (!changed) {
        free(out);
        return NULL;
    }
    return out;
}

char *pipe_bundle_map_line(const char *bundle, const char *line, size_t n)
{
    if (!bundle || !*bundle)
        return NULL;
    /* Cheap refusal first: no "/src/user/" in the line, nothing to map. */
    size_t at;
    if (!find(line, n, "/src/user/", &at))
        return NULL;
    pthread_mutex_lock(&map_lock);
    if (!map.loaded || !map.bundle || strcmp(map.bundle, bundle) != 0) {
        if (map.loaded) {
            free(map.bundle);
            free(map.real);
            pipe_bundle_inputs_free(&map.in);
        }
        map.loaded = true;
        map.bundle = pipe_strdup(bundle);
        map.real = realpath(bundle, NULL);
        if (pipe_bundle_inputs_load(bundle, &map.in) != 0)
            memset(&map.in, 0, sizeof map.in);
    }
    char *out = NULL;
    if (map.bundle && map.in.nfiles > 0) {
        out = map_with(map.bundle, line, n);
        if (!out && map.real && strcmp(map.real, map.bundle) != 0)
            out = map_with(map.real, line, n);
    }
    pthread_mutex_unlock(&map_lock);
    return out;
}
