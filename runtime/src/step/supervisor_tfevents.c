/* A command step's TensorBoard logs into its metrics (supervisor_parts.h):
   when the step ends, the event files its program wrote under its output
   paths, its scratch folder or its working folder are read (observe/
   tfevents.c) and their scalars appended to metrics.csv, the tag as the
   metric's name. A script that already writes TensorBoard logs needs no
   other metric code. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "observe/metrics.h"
#include "observe/tfevents.h"
#include "pipe/base.h"
#include "supervisor_parts.h"
#include "util/util.h"

/* Folders deeper than this are not searched; at most this many files are
   read, and at most MAX_ENTRIES entries looked at (a data set of a million
   files in the working folder must not slow the end of every step). */
#define MAX_DEPTH 8
#define MAX_FILES 256
#define MAX_ENTRIES 100000
/* Event files larger than this are skipped, saying so. */
#define MAX_FILE_BYTES (512u << 20)

typedef struct found {
    char **paths;
    size_t n, cap;
    size_t entries; /* looked at so far */
} found;

static void find(const char *dir, int depth, double since, found *f)
{
    if (depth > MAX_DEPTH || f->n >= MAX_FILES)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while (f->n < MAX_FILES && f->entries < MAX_ENTRIES && (e = readdir(d))) {
        f->entries++;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = pipe_asprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (!path || lstat(path, &st) != 0) { /* symbolic links are not followed */
            free(path);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            find(path, depth + 1, since, f);
        } else if (S_ISREG(st.st_mode) && strncmp(e->d_name, "events.out.tfevents.", 20) == 0 &&
                   (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9 >= since) {
            if (f->n == f->cap) {
                size_t cap = f->cap ? 2 * f->cap : 16;
                char **more = realloc(f->paths, cap * sizeof *more);
                if (!more) {
                    free(path);
                    break;
                }
                f->paths = more;
                f->cap = cap;
            }
            f->paths[f->n++] = path;
            continue;
        }
        free(path);
    }
    closedir(d);
}

static int by_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct importing {
    pipe_metrics_writer *w;
    double since;
    size_t written, refused;
} importing;

/* A tag as a metric name: bytes the runtime refuses (controls, comma,
   quote) and blanks become `_`, and so does every byte >= 0x80 of a tag
   that is not UTF-8; at most PIPE_METRIC_NAME_MAX bytes, not cut inside a
   character. */
static void metric_name(const char *tag, size_t len, char out[PIPE_METRIC_NAME_MAX + 1])
{
    bool utf8 = pipe_utf8_valid_prefix(tag, len) == len;
    size_t n = len < PIPE_METRIC_NAME_MAX ? len : PIPE_METRIC_NAME_MAX;
    while (utf8 && n > 0 && n < len && ((unsigned char)tag[n] & 0xC0) == 0x80)
        n--;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tag[i];
        out[i] = c < 0x21 || c == 0x7f || c == ',' || c == '"' || (c >= 0x80 && !utf8) ? '_' : (char)c;
    }
    out[n] = '\0';
}

static void scalar(void *arg, const char *tag, size_t tag_len, int64_t step, double wall, double value)
{
    importing *im = arg;
    char name[PIPE_METRIC_NAME_MAX + 1], err[256];
    metric_name(tag, tag_len, name);
    double t = wall > im->since ? wall - im->since : 0;
    if (pipe_metrics_writer_record(im->w, name, step < 0 ? -1 : step, value, t, err, sizeof err) == 0)
        im->written++;
    else
        im->refused++;
}

void pipe_supervisor_import_tfevents(pipe_step_log *log, const char *const *roots, size_t nroots, double since,
                                     pipe_metrics_writer *w)
{
    found f = {0};
    for (size_t i = 0; i < nroots; i++) {
        size_t first = f.n;
        if (roots[i])
            find(roots[i], 0, since, &f);
        if (f.n > first) /* root by root, each in name order */
            qsort(f.paths + first, f.n - first, sizeof *f.paths, by_path);
    }
    if (f.n == 0)
        return;
    importing im = {w, since, 0, 0};
    for (size_t i = 0; i < f.n; i++) {
        char *data = NULL, err[512];
        size_t len = 0;
        if (pipe_read_file_max(f.paths[i], MAX_FILE_BYTES, &data, &len, err, sizeof err) != 0) {
            pipe_supervisor_note(log, "TensorBoard: %s not read: %s", f.paths[i], err);
        } else {
            pipe_tfevents_stats st;
            pipe_tfevents_parse((const unsigned char *)data, len, scalar, &im, &st);
            if (st.corrupt || st.truncated)
                pipe_supervisor_note(log, "TensorBoard: %s: %zu corrupt record%s skipped%s (%s)", f.paths[i],
                                     st.corrupt, st.corrupt == 1 ? "" : "s", st.truncated ? ", cut short" : "",
                                     st.why);
        }
        free(data);
        free(f.paths[i]);
    }
    free(f.paths);
    if (im.written || im.refused)
        pipe_supervisor_note(log, "TensorBoard: %zu scalar%s from %zu event file%s into metrics.csv%s", im.written,
                             im.written == 1 ? "" : "s", f.n, f.n == 1 ? "" : "s",
                             im.refused ? " (some could not be written)" : "");
}
