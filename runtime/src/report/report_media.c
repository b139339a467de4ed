/* Logged images and tables in the report (report_media.h). */
#include "report_media.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/json_walk.h"
#include "util/util.h"

/* Bounds: what one invocation shows, and the largest file read. Beyond
   them the report says how many more there are and where. */
#define MAX_IMAGES 48
#define MAX_IMAGE_BYTES (8u << 20)
#define MAX_TABLES 16
#define MAX_TABLE_BYTES (4u << 20)
#define MAX_INDEX_BYTES (4u << 20)
#define MAX_ROWS 200
#define MAX_COLUMNS 64
/* An image narrower than this is scaled up with its pixels kept square. */
#define SMALL_IMAGE 160

char *pipe_report_media_dir(const pipe_run_view *v, const pipe_view_invocation *inv)
{
    const pipe_step_record *r = inv->rec;
    const char *from = r && r->status == PIPE_STEP_CACHED ? r->cached_from : NULL;
    /* A cached invocation did not run: what it shows is its original's. */
    if (from && !strstr(from, "..") && from[0] != '/')
        return pipe_asprintf("%s/%s/media", v->store, from);
    return pipe_asprintf("%s/media", inv->dir);
}

/* The whole of a regular file of at most max bytes (not through a
   symbolic link), NUL-terminated; NULL with errno (EFBIG: too big). */
static char *read_bounded(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *data = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        errno = EINVAL;
        goto out;
    }
    if ((uint64_t)st.st_size > max) {
        errno = EFBIG;
        goto out;
    }
    if (!(data = malloc((size_t)st.st_size + 1)))
        goto out;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t k = read(fd, data + got, (size_t)st.st_size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    data[got] = '\0';
    *len = got;
out:
    close(fd);
    return data;
}

/* A JSON string's text as written to UTF-8 (malloc'ed): escapes decoded,
   a bad one or a lone surrogate as U+FFFD. */
static char *json_unescape(const char *s, size_t n)
{
    char *out = malloc(n * 3 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 >= n) {
            *o++ = s[i];
            continue;
        }
        char c = s[++i];
        const char *simple = strchr("\"\\/bfnrt", c);
        if (c && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            *o++ = map[simple - "\"\\/bfnrt"];
            continue;
        }
        unsigned long cp = 0xFFFD;
        if (c == 'u' && i + 4 < n) {
            char hex[5] = {s[i + 1], s[i + 2], s[i + 3], s[i + 4], 0};
            char *end;
            cp = strtoul(hex, &end, 16);
            if (*end)
                cp = 0xFFFD;
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < n && s[i + 1] == '\\' && s[i + 2] == 'u') {
                char lo_hex[5] = {s[i + 3], s[i + 4], s[i + 5], s[i + 6], 0};
                unsigned long lo = strtoul(lo_hex, &end, 16);
                if (!*end && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD;
        }
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | (cp >> 6));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | (cp >> 12));
            *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xF0 | (cp >> 18));
            *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
            *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    *o = '\0';
    return out;
}

/* ---- media/index.jsonl ---- */

typedef struct entry {
    char *kind, *name, *file;
    bool has_step;
    long long step;
} entry;

static void entry_fn(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v)
{
    entry *e = arg;
    if (depth != 1 || !path[0].key)
        return;
    char **slot = pipe_json_key_is(&path[0], "kind")   ? &e->kind
                  : pipe_json_key_is(&path[0], "name") ? &e->name
                  : pipe_json_key_is(&path[0], "file") ? &e->file
                                                       : NULL;
    if (slot && v->type == PIPE_JSON_STRING && !*slot)
        *slot = json_unescape(v->text, v->len);
    if (pipe_json_key_is(&path[0], "step") && v->type == PIPE_JSON_NUMBER) {
        e->has_step = true;
        e->step = (long long)v->number;
    }
}

static void entry_free(entry *e)
{
    free(e->kind);
    free(e->name);
    free(e->file);
}

/* Whether file is DIR/NAME with NAME of [A-Za-z0-9_.-], not starting
   with a dot, ending in one of the extensions (space-separated). */
static bool safe_file(const char *file, const char *dir, const char *exts)
{
    size_t d = strlen(dir);
    if (strncmp(file, dir, d) != 0 || file[d] != '/' || !file[d + 1] || file[d + 1] == '.')
        return false;
    const char *name = file + d + 1;
    if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(name))
        return false;
    const char *dot = strrchr(name, '.');
    if (!dot)
        return false;
    for (const char *x = exts; *x;) {
        size_t k = strcspn(x, " ");
        if (strlen(dot + 1) == k && strncmp(dot + 1, x, k) == 0)
            return true;
        x += k + (x[k] == ' ');
    }
    return false;
}

/* A file the report does not show, and why. */
static void refused(pipe_textbuf *b, const char *file, const char *why)
{
    pipe_tb_puts(b, "<p class=\"refused\">not shown: ");
    pipe_tb_html(b, file ? file : "(no file)");
    pipe_tb_puts(b, " \xe2\x80\x94 ");
    pipe_tb_puts(b, why);
    pipe_tb_puts(b, "</p>");
}

/* ---- images ---- */

static void base64(pipe_textbuf *b, const unsigned char *p, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char chunk[4096];
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        chunk[k++] = al[v >> 18 & 63];
        chunk[k++] = al[v >> 12 & 63];
        chunk[k++] = i + 1 < n ? al[v >> 6 & 63] : '=';
        chunk[k++] = i + 2 < n ? al[v & 63] : '=';
        if (k + 4 > sizeof chunk) {
            pipe_tb_append(b, chunk, k);
            k = 0;
        }
    }
    pipe_tb_append(b, chunk, k);
}

static void caption(pipe_textbuf *b, const entry *e)
{
    pipe_tb_puts(b, "<figcaption><b>");
    pipe_tb_html(b, e->name ? e->name : "?");
    pipe_tb_puts(b, "</b>");
    if (e->has_step)
        pipe_tb_printf(b, " \xc2\xb7 step %lld", e->step);
    pipe_tb_puts(b, "</figcaption>");
}

static void image(pipe_textbuf *b, const char *media, const entry *e)
{
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char jpeg_magic[3] = {0xff, 0xd8, 0xff};
    pipe_tb_puts(b, "<figure class=\"image\">");
    caption(b, e);
    const char *why = NULL;
    char *path = NULL, *data = NULL;
    size_t len = 0;
    bool png = e->file && safe_file(e->file, "images", "png");
    if (!e->file || (!png && !safe_file(e->file, "images", "jpg jpeg")))
        why = "its file name is not images/NAME.png or .jpg";
    else if (!(path = pipe_asprintf("%s/%s", media, e->file)))
        b->oom = true;
    else if (!(data = read_bounded(path, MAX_IMAGE_BYTES, &len)))
        why = errno == EFBIG ? "it is larger than 8 MiB" : "its file cannot be read";
    else if (png ? len < 24 || memcmp(data, png_magic, 8) != 0 : len < 3 || memcmp(data, jpeg_magic, 3) != 0)
        why = png ? "its bytes are not a PNG image" : "its bytes are not a JPEG image";
    if (why) {
        refused(b, e->file, why);
    } else if (data) {
        const unsigned char *u = (const unsigned char *)data;
        unsigned long w = png ? (unsigned long)u[16] << 24 | u[17] << 16 | u[18] << 8 | u[19] : 0;
        unsigned long hgt = png ? (unsigned long)u[20] << 24 | u[21] << 16 | u[22] << 8 | u[23] : 0;
        pipe_tb_printf(b, "<img%s alt=\"", png && w && w < SMALL_IMAGE ? " class=\"small\"" : "");
        pipe_tb_html(b, e->name ? e->name : "image");
        if (w && hgt && w < 100000 && hgt < 100000)
            pipe_tb_printf(b, "\" width=\"%lu\" height=\"%lu", w, hgt);
        pipe_tb_printf(b, "\" src=\"data:image/%s;base64,", png ? "png" : "jpeg");
        base64(b, u, len);
        pipe_tb_puts(b, "\">");
    }
    pipe_tb_puts(b, "</figure>\n");
    free(path);
    free(data);
}

/* ---- tables ---- */

typedef struct cell {
    size_t row, col;
    pipe_json_type type;
    char *text; /* decoded */
} cell;

typedef struct table {
    char *columns[MAX_COLUMNS];
    size_t ncolumns, nrows;
    cell *cells;
    size_t ncells, cap;
    bool oom;
} table;

static void table_fn(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v)
{
    table *t = arg;
    if (!path[0].key)
        return;
    if (depth == 2 && pipe_json_key_is(&path[0], "columns") && !path[1].key) {
        size_t c = path[1].index;
        if (c < MAX_COLUMNS && !t->columns[c]) {
            t->columns[c] =
                v->type == PIPE_JSON_STRING ? json_unescape(v->text, v->len) : pipe_strndup(v->text, v->len);
            if (c + 1 > t->ncolumns)
                t->ncolumns = c + 1;
        }
        return;
    }
    if (depth != 3 || !pipe_json_key_is(&path[0], "rows") || path[1].key || path[2].key)
        return;
    size_t r = path[1].index, c = path[2].index;
    if (r + 1 > t->nrows)
        t->nrows = r + 1;
    if (r >= MAX_ROWS || c >= MAX_COLUMNS)
        return;
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        cell *grown = realloc(t->cells, cap * sizeof *grown);
        if (!grown) {
            t->oom = true;
            return;
        }
        t->cells = grown;
        t->cap = cap;
    }
    cell *x = &t->cells[t->ncells++];
    x->row = r;
    x->col = c;
    x->type = v->type;
    x->text = v->type == PIPE_JSON_STRING ? json_unescape(v->text, v->len) : pipe_strndup(v->text, v->len);
    if (c + 1 > t->ncolumns)
        t->ncolumns = c + 1;
}

static void table_free(table *t)
{
    for (size_t c = 0; c < MAX_COLUMNS; c++)
        free(t->columns[c]);
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i].text);
    free(t->cells);
}

static void logged_table(pipe_textbuf *b, const char *media, const entry *e)
{
    pipe_tb_puts(b, "<figure class=\"table\">");
    caption(b, e);
    char *path = NULL, *data = NULL;
    size_t len = 0;
    table t = {0};
    const char *why = NULL;
    if (!e->file || !safe_file(e->file, "tables", "json"))
        why = "its file name is not tables/NAME.json";
    else if (!(path = pipe_asprintf("%s/%s", media, e->file)))
        b->oom = true;
    else if (!(data = read_bounded(path, MAX_TABLE_BYTES, &len)))
        why = errno == EFBIG ? "it is larger than 4 MiB" : "its file cannot be read";
    else if (pipe_json_walk(data, len, table_fn, &t) != 0)
        why = "its file is not JSON";
    if (why) {
        refused(b, e->file, why);
        pipe_tb_puts(b, "</figure>\n");
        goto out;
    }
    /* The cells as a grid of the rows shown. */
    size_t shown = t.nrows < MAX_ROWS ? t.nrows : MAX_ROWS;
    const cell **grid = calloc(shown * t.ncolumns + 1, sizeof *grid);
    if (!grid || t.oom) {
        b->oom = true;
        free(grid);
        pipe_tb_puts(b, "</figure>\n");
        goto out;
    }
    for (size_t i = 0; i < t.ncells; i++)
        grid[t.cells[i].row * t.ncolumns + t.cells[i].col] = &t.cells[i];
    pipe_tb_printf(b, "<div class=\"scroll%s\"><table class=\"logged\"><thead><tr>", shown > 20 ? " tall" : "");
    for (size_t c = 0; c < t.ncolumns; c++) {
        pipe_tb_puts(b, "<th>");
        pipe_tb_html(b, t.columns[c] ? t.columns[c] : "");
        pipe_tb_puts(b, "</th>");
    }
    pipe_tb_puts(b, "</tr></thead><tbody>\n");
    for (size_t r = 0; r < shown; r++) {
        pipe_tb_puts(b, "<tr>");
        for (size_t c = 0; c < t.ncolumns; c++) {
            const cell *x = grid[r * t.ncolumns + c];
            if (!x || !x->text) {
                pipe_tb_puts(b, "<td></td>");
                continue;
            }
            pipe_tb_puts(b, x->type == PIPE_JSON_NUMBER ? "<td class=\"num\">"
                            : x->type == PIPE_JSON_NULL ? "<td class=\"muted\">"
                                                        : "<td>");
            pipe_tb_html(b, x->text);
            pipe_tb_puts(b, "</td>");
        }
        pipe_tb_puts(b, "</tr>\n");
    }
    pipe_tb_puts(b, "</tbody></table></div>");
    pipe_tb_printf(b, "<p class=\"muted\">%zu row%s", t.nrows, t.nrows == 1 ? "" : "s");
    if (shown < t.nrows)
        pipe_tb_printf(b, ", the first %zu shown", shown);
    pipe_tb_puts(b, "</p></figure>\n");
    free(grid);
out:
    table_free(&t);
    free(path);
    free(data);
}

/* ---- an invocation ---- */

bool pipe_report_has_media(const pipe_run_view *v, const pipe_view_invocation *inv)
{
    char *dir = pipe_report_media_dir(v, inv);
    char *index = dir ? pipe_asprintf("%s/index.jsonl", dir) : NULL;
    bool has = index && pipe_file_exists(index);
    free(dir);
    free(index);
    return has;
}

void pipe_report_media(pipe_textbuf *b, const pipe_run_view *v, const pipe_view_invocation *inv)
{
    char *media = pipe_report_media_dir(v, inv), *index = media ? pipe_asprintf("%s/index.jsonl", media) : NULL;
    size_t len = 0;
    char *text = index ? read_bounded(index, MAX_INDEX_BYTES, &len) : NULL;
    if (!text) {
        free(media);
        free(index);
        return;
    }
    size_t images = 0, tables = 0, more_images = 0, more_tables = 0, bad = 0;
    /* Images first, in a grid; then the tables, each as wide as the page. */
    for (int pass = 0; pass < 2; pass++) {
        pipe_tb_puts(b, pass == 0 ? "<div class=\"media\">\n" : "");
        for (char *line = text; line < text + len;) {
            char *end = memchr(line, '\n', (size_t)(text + len - line));
            size_t n = end ? (size_t)(end - line) : (size_t)(text + len - line);
            entry e = {0};
            if (n && strspn(line, " \t\r") < n) {
                if (pipe_json_walk(line, n, entry_fn, &e) != 0 || !e.kind)
                    bad += pass == 0;
                else if (strcmp(e.kind, "image") == 0 && pass == 0) {
                    if (images < MAX_IMAGES) {
                        image(b, media, &e);
                        images++;
                    } else
                        more_images++;
                } else if (strcmp(e.kind, "table") == 0 && pass == 1) {
                    if (tables < MAX_TABLES) {
                        logged_table(b, media, &e);
                        tables++;
                    } else
                        more_tables++;
                }
            }
            entry_free(&e);
            line += n + 1;
        }
        pipe_tb_puts(b, pass == 0 ? "</div>\n" : "");
    }
    if (more_images || more_tables || bad) {
        pipe_tb_puts(b, "<p class=\"muted\">");
        if (more_images || more_tables)
            pipe_tb_printf(b, "%zu more image%s and %zu more table%s are in ", more_images,
                           more_images == 1 ? "" : "s", more_tables, more_tables == 1 ? "" : "s");
        if (more_images || more_tables) {
            pipe_tb_html(b, media);
            pipe_tb_puts(b, ". ");
        }
        if (bad)
            pipe_tb_printf(b, "%zu line%s of media/index.jsonl could not be read.", bad, bad == 1 ? "" : "s");
        pipe_tb_puts(b, "</p>\n");
    }
    free(text);
    free(media);
    free(index);
}

void pipe_report_media_section(pipe_textbuf *b, const pipe_run_view *v)
{
    bool any = false;
    for (size_t i = 0; i < v->n; i++) {
        const pipe_view_invocation *inv = &v->inv[i];
        if (!pipe_report_has_media(v, inv))
            continue;
        if (!any)
            pipe_tb_puts(b, "<h2>Images and tables</h2>\n");
        any = true;
        pipe_tb_puts(b, "<h3>");
        pipe_tb_html(b, inv->id);
        if (inv->rec && inv->rec->status == PIPE_STEP_CACHED && inv->rec->cached_from) {
            pipe_tb_puts(b, " <small>cached: logged by ");
            pipe_tb_html(b, inv->rec->cached_from);
            pipe_tb_puts(b, "</small>");
        }
        pipe_tb_puts(b, "</h3>\n");
        pipe_report_media(b, v, inv);
    }
}
