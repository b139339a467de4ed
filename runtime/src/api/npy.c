/* NumPy .npy files (pipe/npy.h). The format, as numpy.lib.format defines
   it: the magic "\x93NUMPY", a major and a minor version byte, the header's
   length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), the header
   (a Python dict literal: descr, fortran_order, shape; spaces and a newline
   pad the preamble to a multiple of 64 bytes), then the elements. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "pipe/npy.h"
#include "util/util.h"

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6
#define PREAMBLE_ALIGN 64
/* A header longer than this is not one numpy wrote (its own limit is 10000
   bytes when reading untrusted files). */
#define HEADER_MAX (1u << 20)

typedef struct dtype_info {
    pipe_dtype dtype;
    char kind; /* 'f', 'i', 'u' */
    size_t size;
    const char *name;
} dtype_info;

static const dtype_info dtypes[] = {
    {PIPE_F32, 'f', 4, "float32"}, {PIPE_F64, 'f', 8, "float64"}, {PIPE_I32, 'i', 4, "int32"},
    {PIPE_I64, 'i', 8, "int64"},   {PIPE_U8, 'u', 1, "uint8"},    {PIPE_F16, 'f', 2, "float16"},
};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])
#define SUPPORTED "float32, float64, int32, int64, uint8 and float16"

static const dtype_info *info_of(pipe_dtype t)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].dtype == t)
            return &dtypes[i];
    return NULL;
}

const char *pipe_npy_dtype_name(pipe_dtype t)
{
    const dtype_info *d = info_of(t);
    return d ? d->name : NULL;
}

static bool little_endian_host(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* ---- writing ---- */

/* "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", padded. */
static int format_header(pipe_dtype dtype, int ndim, const size_t *shape, char **out, size_t *outlen, char *err,
                         size_t errsize)
{
    const dtype_info *d = info_of(dtype);
    if (!d) {
        pipe_errf(err, errsize, "cannot write this element type as .npy (numpy has no bfloat16; pipe_npy writes "
                                SUPPORTED ")");
        return PIPE_EINVAL;
    }
    if (ndim < 0 || ndim > PIPE_NPY_MAX_DIMS || (ndim > 0 && !shape)) {
        pipe_errf(err, errsize, "%d dimensions: a .npy array has 0 to %d", ndim, PIPE_NPY_MAX_DIMS);
        return PIPE_EINVAL;
    }
    char order = d->size == 1 ? '|' : little_endian_host() ? '<' : '>';
    /* 21 digits and ", " per dimension, the rest fixed. */
    size_t cap = 128 + (size_t)ndim * 24 + PREAMBLE_ALIGN;
    char *h = malloc(cap);
    if (!h)
        return PIPE_ENOMEM;
    int n = snprintf(h, cap, "{'descr': '%c%c%zu', 'fortran_order': False, 'shape': (", order, d->kind, d->size);
    for (int i = 0; i < ndim; i++)
        n += snprintf(h + n, cap - (size_t)n, i == 0 ? "%zu" : ", %zu", shape[i]);
    n += snprintf(h + n, cap - (size_t)n, "%s), }", ndim == 1 ? "," : "");
    /* Version 1.0: 10 bytes before the header, which ends with '\n' (with at
       most PIPE_NPY_MAX_DIMS dimensions it never needs 2.0's longer length). */
    size_t len = (size_t)n + 1;
    while ((MAGIC_LEN + 4 + len) % PREAMBLE_ALIGN != 0)
        len++;
    memset(h + n, ' ', len - 1 - (size_t)n);
    h[len - 1] = '\n';
    *out = h;
    *outlen = len;
    return 0;
}

/* Elements of shape, or PIPE_EINVAL when they overflow size_t bytes. */
static int element_count(int ndim, const size_t *shape, size_t itemsize, size_t *count, size_t *bytes)
{
    size_t c = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] != 0 && c > SIZE_MAX / shape[i])
            return PIPE_EINVAL;
        c *= shape[i];
    }
    if (itemsize != 0 && c > SIZE_MAX / itemsize)
        return PIPE_EINVAL;
    *count = c;
    *bytes = c * itemsize;
    return 0;
}

int pipe_npy_write_stream(FILE *f, pipe_dtype dtype, int ndim, const size_t *shape, const void *data, char *err,
                          size_t errsize)
{
    char *header = NULL;
    size_t hlen = 0, count = 0, bytes = 0;
    if (!f) {
        pipe_errf(err, errsize, "no stream to write the array to");
        return PIPE_EINVAL;
    }
    int rc = format_header(dtype, ndim, shape, &header, &hlen, err, errsize);
    if (rc != 0)
        return rc;
    if (element_count(ndim, shape, info_of(dtype)->size, &count, &bytes) != 0) {
        pipe_errf(err, errsize, "the shape's element count overflows");
        rc = PIPE_EINVAL;
        goto fail;
    }
    if (bytes > 0 && !data) {
        pipe_errf(err, errsize, "no data for %zu elements", count);
        rc = PIPE_EINVAL;
        goto fail;
    }
    unsigned char pre[10];
    memcpy(pre, MAGIC, MAGIC_LEN);
    pre[6] = 1, pre[7] = 0;
    pre[8] = (unsigned char)(hlen & 0xff), pre[9] = (unsigned char)(hlen >> 8);
    size_t npre = sizeof pre;
    if (fwrite(pre, 1, npre, f) != npre || fwrite(header, 1, hlen, f) != hlen ||
        (bytes > 0 && fwrite(data, 1, bytes, f) != bytes)) {
        pipe_errf(err, errsize, "cannot write the array: %s", strerror(errno ? errno : EIO));
        rc = PIPE_EIO;
    }
fail:
    free(header);
    return rc;
}

int pipe_npy_write(const char *path, pipe_dtype dtype, int ndim, const size_t *shape, const void *data, char *err,
                   size_t errsize)
{
    if (!path || !*path) {
        pipe_errf(err, errsize, "no path to write the array to");
        return PIPE_EINVAL;
    }
    char *tmp = pipe_asprintf("%s.tmp-XXXXXX", path);
    if (!tmp)
        return PIPE_ENOMEM;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        pipe_errf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return PIPE_EIO;
    }
    char why[512] = "";
    int rc = pipe_npy_write_stream(f, dtype, ndim, shape, data, why, sizeof why);
    if (rc == 0 && (fflush(f) != 0 || fsync(fileno(f)) != 0)) {
        snprintf(why, sizeof why, "cannot write the array: %s", strerror(errno));
        rc = PIPE_EIO;
    }
    if (fclose(f) != 0 && rc == 0) {
        snprintf(why, sizeof why, "cannot write the array: %s", strerror(errno));
        rc = PIPE_EIO;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(why, sizeof why, "cannot rename %s into place: %s", tmp, strerror(errno));
        rc = PIPE_EIO;
    }
    if (rc != 0) {
        unlink(tmp);
        pipe_errf(err, errsize, "%s: %s", path, why);
    }
    free(tmp);
    return rc;
}

/* ---- reading ---- */

typedef struct header {
    char descr[32];
    bool has_descr, has_order, has_shape;
    bool fortran_order;
    int ndim;
    size_t shape[PIPE_NPY_MAX_DIMS];
} header;

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A quoted Python string without escapes (numpy writes none in a header). */
static bool read_string(cursor *c, char *buf, size_t size)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return false;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= size)
            return false;
        buf[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return false;
    c->p++;
    buf[n] = '\0';
    return true;
}

static bool read_word(cursor *c, const char *word)
{
    skip_space(c);
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

/* "(2, 3)", "(5,)", "()"; Python 2's "3L" too. */
static bool read_shape(cursor *c, header *h, char *why, size_t whysize)
{
    if (!eat(c, '('))
        return false;
    h->ndim = 0;
    for (;;) {
        skip_space(c);
        if (eat(c, ')'))
            return true;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return false;
        unsigned long long v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            unsigned d = (unsigned)(*c->p++ - '0');
            if (v > (ULLONG_MAX - d) / 10) {
                snprintf(why, whysize, "a dimension in the shape is too large");
                return false;
            }
            v = v * 10 + d;
        }
        if (c->p < c->end && *c->p == 'L')
            c->p++;
        if (h->ndim == PIPE_NPY_MAX_DIMS) {
            snprintf(why, whysize, "the array has more than %d dimensions", PIPE_NPY_MAX_DIMS);
            return false;
        }
        if (v > SIZE_MAX) {
            snprintf(why, whysize, "a dimension in the shape is too large");
            return false;
        }
        h->shape[h->ndim++] = (size_t)v;
        if (!eat(c, ',')) {
            return eat(c, ')');
        }
    }
}

/* The header dict; why says what is wrong when it returns false. */
static bool parse_header(const char *text, size_t len, header *h, char *why, size_t whysize)
{
    cursor c = {text, text + len};
    memset(h, 0, sizeof *h);
    if (!eat(&c, '{')) {
        snprintf(why, whysize, "the header is not a Python dict");
        return false;
    }
    for (;;) {
        if (eat(&c, '}'))
            break;
        char key[32];
        if (!read_string(&c, key, sizeof key) || !eat(&c, ':')) {
            snprintf(why, whysize, "the header is not a Python dict of 'descr', 'fortran_order' and 'shape'");
            return false;
        }
        if (strcmp(key, "descr") == 0) {
            if (!read_string(&c, h->descr, sizeof h->descr)) {
                snprintf(why, whysize, "'descr' is not a simple element type (a structured array?)");
                return false;
            }
            h->has_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (read_word(&c, "True"))
                h->fortran_order = true;
            else if (!read_word(&c, "False")) {
                snprintf(why, whysize, "'fortran_order' is neither True nor False");
                return false;
            }
            h->has_order = true;
        } else if (strcmp(key, "shape") == 0) {
            why[0] = '\0';
            if (!read_shape(&c, h, why, whysize)) {
                if (!why[0])
                    snprintf(why, whysize, "'shape' is not a tuple of whole numbers");
                return false;
            }
            h->has_shape = true;
        } else {
            snprintf(why, whysize, "the header has an unexpected key '%s'", key);
            return false;
        }
        if (eat(&c, '}'))
            break;
        if (!eat(&c, ',')) {
            snprintf(why, whysize, "the header is not a Python dict");
            return false;
        }
    }
    skip_space(&c);
    if (c.p != c.end) {
        snprintf(why, whysize, "the header has text after its dict");
        return false;
    }
    if (!h->has_descr || !h->has_order || !h->has_shape) {
        snprintf(why, whysize, "the header lacks '%s'", !h->has_descr ? "descr" : !h->has_order ? "fortran_order" : "shape");
        return false;
    }
    return true;
}

/* descr ("<f4", ">i8", "|u1") -> the dtype and whether to swap bytes. */
static int match_descr(const char *descr, const dtype_info **out, bool *swap)
{
    char order = descr[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return PIPE_ENOTSUP;
    char kind = descr[1];
    char *end;
    long size = kind ? strtol(descr + 2, &end, 10) : 0;
    if (!kind || end == descr + 2 || *end != '\0')
        return PIPE_ENOTSUP;
    for (size_t i = 0; i < NDTYPES; i++) {
        if (dtypes[i].kind != kind || (long)dtypes[i].size != size)
            continue;
        if (size > 1 && order == '|')
            return PIPE_ENOTSUP;
        bool file_little = order == '<' || (order == '=' && little_endian_host());
        *swap = size > 1 && order != '|' && file_little != little_endian_host();
        *out = &dtypes[i];
        return 0;
    }
    return PIPE_ENOTSUP;
}

static void swap_bytes(unsigned char *p, size_t count, size_t size)
{
    for (size_t i = 0; i < count; i++, p += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

void pipe_npy_free(pipe_npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

int pipe_npy_read_stream(FILE *f, const char *name, pipe_npy_array *out, char *err, size_t errsize)
{
    if (!name)
        name = "the array";
    if (!out) {
        pipe_errf(err, errsize, "%s: nowhere to read the array into", name);
        return PIPE_EINVAL;
    }
    memset(out, 0, sizeof *out);
    if (!f) {
        pipe_errf(err, errsize, "%s: no stream to read from", name);
        return PIPE_EINVAL;
    }
    unsigned char pre[12];
    size_t got = fread(pre, 1, 10, f);
    if (got < 10 || memcmp(pre, MAGIC, MAGIC_LEN) != 0) {
        if (ferror(f))
            pipe_errf(err, errsize, "%s: cannot read: %s", name, strerror(errno ? errno : EIO));
        else
            pipe_errf(err, errsize, "%s: not a .npy file (it does not start with \\x93NUMPY)", name);
        return ferror(f) ? PIPE_EIO : PIPE_EFORMAT;
    }
    unsigned major = pre[6], minor = pre[7];
    size_t hlen;
    if (major == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (major == 2 || major == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            pipe_errf(err, errsize, "%s: truncated in the .npy preamble", name);
            return PIPE_EFORMAT;
        }
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        pipe_errf(err, errsize, "%s: .npy format version %u.%u is not supported (1.0, 2.0 and 3.0 are)", name, major,
                  minor);
        return PIPE_ENOTSUP;
    }
    if (hlen == 0 || hlen > HEADER_MAX) {
        pipe_errf(err, errsize, "%s: the .npy header length %zu is not plausible", name, hlen);
        return PIPE_EFORMAT;
    }
    char *text = malloc(hlen);
    if (!text)
        return PIPE_ENOMEM;
    if (fread(text, 1, hlen, f) != hlen) {
        free(text);
        pipe_errf(err, errsize, "%s: truncated in the .npy header", name);
        return PIPE_EFORMAT;
    }
    header h;
    char why[160] = "";
    bool parsed = parse_header(text, hlen, &h, why, sizeof why);
    free(text);
    if (!parsed) {
        pipe_errf(err, errsize, "%s: malformed .npy header: %s", name, why);
        return PIPE_EFORMAT;
    }
    const dtype_info *d = NULL;
    bool swap = false;
    if (match_descr(h.descr, &d, &swap) != 0) {
        pipe_errf(err, errsize, "%s: element type '%s' is not supported (" SUPPORTED " are)", name, h.descr);
        return PIPE_ENOTSUP;
    }
    if (h.fortran_order && h.ndim > 1) {
        pipe_errf(err, errsize,
                  "%s: the array is in Fortran order; pipe_npy reads C order (numpy.ascontiguousarray before "
                  "numpy.save)",
                  name);
        return PIPE_ENOTSUP;
    }
    size_t count, bytes;
    if (element_count(h.ndim, h.shape, d->size, &count, &bytes) != 0) {
        pipe_errf(err, errsize, "%s: the shape's element count overflows", name);
        return PIPE_EFORMAT;
    }
    void *data = malloc(bytes ? bytes : 1);
    if (!data)
        return PIPE_ENOMEM;
    got = bytes ? fread(data, 1, bytes, f) : 0;
    if (got != bytes) {
        bool io = ferror(f);
        free(data);
        if (io)
            pipe_errf(err, errsize, "%s: cannot read: %s", name, strerror(errno ? errno : EIO));
        else
            pipe_errf(err, errsize, "%s: truncated: the header says %zu %s elements (%zu bytes), the file holds %zu",
                      name, count, d->name, bytes, got);
        return io ? PIPE_EIO : PIPE_EFORMAT;
    }
    if (swap)
        swap_bytes(data, count, d->size);
    out->dtype = d->dtype;
    out->ndim = h.ndim;
    memcpy(out->shape, h.shape, (size_t)h.ndim * sizeof h.shape[0]);
    out->count = count;
    out->data = data;
    return 0;
}

int pipe_npy_read(const char *path, pipe_npy_array *out, char *err, size_t errsize)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !*path) {
        pipe_errf(err, errsize, "no path to read an array from");
        return PIPE_EINVAL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        pipe_errf(err, errsize, "cannot open %s: %s", path, strerror(e));
        return e == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    int rc = pipe_npy_read_stream(f, path, out, err, errsize);
    fclose(f);
    return rc;
}
