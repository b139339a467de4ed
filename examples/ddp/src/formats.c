/* formats.c - reading and writing the `dataset` and `model` files
 * (formats.h, ../README.md). A file is read whole, then checked: magic,
 * version, dimensions, exact size, and values (labels below n_classes,
 * finite features and weights). Every message names the file.
 */
#include "formats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DATASET_MAGIC "DDPD"
#define MODEL_MAGIC "DDPM"
/* A larger file is refused before it is read whole. */
#define MAX_FILE_SIZE ((size_t)1 << 30)

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v & 0xFFu);
    p[1] = (unsigned char)((v >> 8) & 0xFFu);
    p[2] = (unsigned char)((v >> 16) & 0xFFu);
    p[3] = (unsigned char)((v >> 24) & 0xFFu);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_f32s(unsigned char *p, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        put_u32(p + 4 * i, bits);
    }
}

/* Decodes n floats; returns the index of the first one that is not
   finite, or n. */
static size_t get_f32s(float *v, const unsigned char *p, size_t n)
{
    size_t bad = n;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = get_u32(p + 4 * i);
        memcpy(&v[i], &bits, sizeof bits);
        if (bad == n && !isfinite(v[i]))
            bad = i;
    }
    return bad;
}

static void put_header(unsigned char *p, const char *magic, uint32_t a, uint32_t b, uint32_t c,
                       uint32_t d)
{
    memcpy(p, magic, 4);
    put_u32(p + 4, DDP_FORMAT_VERSION);
    put_u32(p + 8, a);
    put_u32(p + 12, b);
    put_u32(p + 16, c);
    put_u32(p + 20, d);
}

/* Reads a whole file of at most max bytes into a malloc'ed buffer. */
static int read_file(const char *path, size_t max, unsigned char **out, size_t *len, char *err,
                     size_t errsz)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;

    *out = NULL;
    *len = 0;
    if (!f) {
        snprintf(err, errsz, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (n == cap) {
            size_t want = cap ? cap * 2 : 65536;
            unsigned char *bigger;
            if (cap >= max) {
                snprintf(err, errsz, "%s: larger than %zu MiB: not a file of this example", path,
                         max >> 20);
                goto fail;
            }
            if (!(bigger = realloc(buf, want))) {
                snprintf(err, errsz, "%s: out of memory reading it", path);
                goto fail;
            }
            buf = bigger;
            cap = want;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errsz, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    *out = buf;
    *len = n;
    return 0;
fail:
    fclose(f);
    free(buf);
    return -1;
}

/* Checks the common header; n[0..3] get its four numbers. */
static int check_header(const char *path, const unsigned char *buf, size_t len, const char *magic,
                        const char *what, uint32_t n[4], char *err, size_t errsz)
{
    if (len < DDP_HEADER_SIZE) {
        snprintf(err, errsz, "%s: not a %s file (%zu bytes, shorter than the %u-byte header)", path,
                 what, len, DDP_HEADER_SIZE);
        return -1;
    }
    if (memcmp(buf, magic, 4) != 0) {
        snprintf(err, errsz, "%s: not a %s file (it does not start with \"%s\")", path, what,
                 magic);
        return -1;
    }
    uint32_t version = get_u32(buf + 4);
    if (version != DDP_FORMAT_VERSION) {
        snprintf(err, errsz, "%s: %s format version %u, this code reads version %u", path, what,
                 version, DDP_FORMAT_VERSION);
        return -1;
    }
    for (int i = 0; i < 4; i++)
        n[i] = get_u32(buf + 8 + 4 * i);
    return 0;
}

static int write_all(FILE *f, const unsigned char *buf, size_t len, const char *name, char *err,
                     size_t errsz)
{
    if (fwrite(buf, 1, len, f) != len || fflush(f) != 0) {
        snprintf(err, errsz, "%s: write failed (disk full?)", name);
        return -1;
    }
    return 0;
}

int ddp_dataset_alloc(ddp_dataset *ds, uint32_t n_rows, uint32_t n_features, uint32_t n_classes,
                      char *err, size_t errsz)
{
    memset(ds, 0, sizeof *ds);
    if (n_rows == 0 || n_rows > DDP_MAX_ROWS || n_features == 0 || n_features > DDP_MAX_FEATURES ||
        n_classes < 2 || n_classes > DDP_MAX_CLASSES) {
        snprintf(err, errsz, "dataset of %u rows of %u features in %u classes: outside the limits",
                 n_rows, n_features, n_classes);
        return -1;
    }
    ds->n_rows = n_rows;
    ds->n_features = n_features;
    ds->n_classes = n_classes;
    ds->labels = calloc(n_rows, 1);
    ds->x = calloc((size_t)n_rows * n_features, sizeof *ds->x);
    if (!ds->labels || !ds->x) {
        ddp_dataset_free(ds);
        snprintf(err, errsz, "out of memory for %u rows", n_rows);
        return -1;
    }
    return 0;
}

void ddp_dataset_free(ddp_dataset *ds)
{
    free(ds->labels);
    free(ds->x);
    memset(ds, 0, sizeof *ds);
}

int ddp_dataset_write(const ddp_dataset *ds, FILE *f, const char *name, char *err, size_t errsz)
{
    size_t n_values = (size_t)ds->n_rows * ds->n_features;
    size_t len = DDP_HEADER_SIZE + ds->n_rows + 4 * n_values;
    unsigned char *buf = malloc(len);
    int rc;

    if (!buf) {
        snprintf(err, errsz, "%s: out of memory", name);
        return -1;
    }
    put_header(buf, DATASET_MAGIC, ds->n_rows, ds->n_features, ds->n_classes, 0);
    memcpy(buf + DDP_HEADER_SIZE, ds->labels, ds->n_rows);
    put_f32s(buf + DDP_HEADER_SIZE + ds->n_rows, ds->x, n_values);
    rc = write_all(f, buf, len, name, err, errsz);
    free(buf);
    return rc;
}

int ddp_dataset_read(const char *path, ddp_dataset *ds, char *err, size_t errsz)
{
    unsigned char *buf;
    size_t len, want, n_values, bad;
    uint32_t h[4];

    memset(ds, 0, sizeof *ds);
    if (!path) {
        snprintf(err, errsz, "no dataset input");
        return -1;
    }
    if (read_file(path, MAX_FILE_SIZE, &buf, &len, err, errsz) != 0)
        return -1;
    if (check_header(path, buf, len, DATASET_MAGIC, "dataset", h, err, errsz) != 0)
        goto fail;
    if (h[0] == 0 || h[0] > DDP_MAX_ROWS || h[1] == 0 || h[1] > DDP_MAX_FEATURES || h[2] < 2 ||
        h[2] > DDP_MAX_CLASSES || h[3] != 0) {
        snprintf(err, errsz, "%s: corrupt dataset header (%u rows, %u features, %u classes)", path,
                 h[0], h[1], h[2]);
        goto fail;
    }
    n_values = (size_t)h[0] * h[1];
    want = DDP_HEADER_SIZE + h[0] + 4 * n_values;
    if (len != want) {
        snprintf(err, errsz, "%s: %s: %zu bytes, the header (%u rows of %u features) needs %zu",
                 path, len < want ? "truncated" : "trailing bytes", len, h[0], h[1], want);
        goto fail;
    }
    if (ddp_dataset_alloc(ds, h[0], h[1], h[2], err, errsz) != 0)
        goto fail;
    memcpy(ds->labels, buf + DDP_HEADER_SIZE, ds->n_rows);
    for (uint32_t i = 0; i < ds->n_rows; i++) {
        if (ds->labels[i] >= ds->n_classes) {
            snprintf(err, errsz, "%s: row %u has label %u, outside the %u classes", path, i,
                     ds->labels[i], ds->n_classes);
            goto fail;
        }
    }
    bad = get_f32s(ds->x, buf + DDP_HEADER_SIZE + ds->n_rows, n_values);
    if (bad != n_values) {
        snprintf(err, errsz, "%s: feature %zu of row %zu is not a finite number", path,
                 bad % ds->n_features, bad / ds->n_features);
        goto fail;
    }
    free(buf);
    return 0;
fail:
    free(buf);
    ddp_dataset_free(ds);
    return -1;
}

int ddp_model_alloc(ddp_model *m, uint32_t n_in, uint32_t n_hidden, uint32_t n_out, char *err,
                    size_t errsz)
{
    memset(m, 0, sizeof *m);
    if (n_in == 0 || n_in > DDP_MAX_FEATURES || n_hidden == 0 || n_hidden > DDP_MAX_HIDDEN ||
        n_out < 2 || n_out > DDP_MAX_CLASSES) {
        snprintf(err, errsz, "model %u-%u-%u: outside the limits (hidden 1..%u)", n_in, n_hidden,
                 n_out, DDP_MAX_HIDDEN);
        return -1;
    }
    m->n_in = n_in;
    m->n_hidden = n_hidden;
    m->n_out = n_out;
    m->ranks = 1;
    m->params = calloc(ddp_param_count(n_in, n_hidden, n_out), sizeof *m->params);
    if (!m->params) {
        snprintf(err, errsz, "out of memory for a %u-%u-%u model", n_in, n_hidden, n_out);
        return -1;
    }
    m->w1 = m->params;
    m->b1 = m->w1 + (size_t)n_hidden * n_in;
    m->w2 = m->b1 + n_hidden;
    m->b2 = m->w2 + (size_t)n_out * n_hidden;
    return 0;
}

void ddp_model_free(ddp_model *m)
{
    free(m->params);
    memset(m, 0, sizeof *m);
}

int ddp_model_write(const ddp_model *m, FILE *f, const char *name, char *err, size_t errsz)
{
    size_t n = ddp_param_count(m->n_in, m->n_hidden, m->n_out);
    size_t len = DDP_HEADER_SIZE + 4 * n;
    unsigned char *buf = malloc(len);
    int rc;

    if (!buf) {
        snprintf(err, errsz, "%s: out of memory", name);
        return -1;
    }
    put_header(buf, MODEL_MAGIC, m->n_in, m->n_hidden, m->n_out, m->ranks);
    put_f32s(buf + DDP_HEADER_SIZE, m->params, n);
    rc = write_all(f, buf, len, name, err, errsz);
    free(buf);
    return rc;
}

int ddp_model_read(const char *path, ddp_model *m, char *err, size_t errsz)
{
    unsigned char *buf;
    size_t len, want, n, bad;
    uint32_t h[4];

    memset(m, 0, sizeof *m);
    if (!path) {
        snprintf(err, errsz, "no model input");
        return -1;
    }
    if (read_file(path, MAX_FILE_SIZE, &buf, &len, err, errsz) != 0)
        return -1;
    if (check_header(path, buf, len, MODEL_MAGIC, "model", h, err, errsz) != 0)
        goto fail;
    if (h[0] == 0 || h[0] > DDP_MAX_FEATURES || h[1] == 0 || h[1] > DDP_MAX_HIDDEN || h[2] < 2 ||
        h[2] > DDP_MAX_CLASSES || h[3] == 0 || h[3] > DDP_MAX_RANKS) {
        snprintf(err, errsz, "%s: corrupt model header (%u-%u-%u, %u ranks)", path, h[0], h[1],
                 h[2], h[3]);
        goto fail;
    }
    n = ddp_param_count(h[0], h[1], h[2]);
    want = DDP_HEADER_SIZE + 4 * n;
    if (len != want) {
        snprintf(err, errsz, "%s: %s: %zu bytes, a %u-%u-%u model needs %zu", path,
                 len < want ? "truncated" : "trailing bytes", len, h[0], h[1], h[2], want);
        goto fail;
    }
    if (ddp_model_alloc(m, h[0], h[1], h[2], err, errsz) != 0)
        goto fail;
    m->ranks = h[3];
    bad = get_f32s(m->params, buf + DDP_HEADER_SIZE, n);
    if (bad != n) {
        snprintf(err, errsz, "%s: weight %zu is not a finite number", path, bad);
        goto fail;
    }
    free(buf);
    return 0;
fail:
    free(buf);
    ddp_model_free(m);
    return -1;
}
