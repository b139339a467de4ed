/* TensorBoard event files (tfevents.h). A TFRecord is
     uint64 length, uint32 masked CRC-32C of length, length bytes, uint32 masked CRC-32C of them
   (little-endian), each holding an Event:
     Event   { double wall_time = 1; int64 step = 2; Summary summary = 5; ... }
     Summary { repeated Value value = 1; }
     Value   { string tag = 1; float simple_value = 2; TensorProto tensor = 8; SummaryMetadata metadata = 9; ... }
     TensorProto { DataType dtype = 1; TensorShapeProto tensor_shape = 2; bytes tensor_content = 4;
                   repeated float float_val = 5; repeated double double_val = 6; ... }
   A value is a scalar when it has simple_value (torch's add_scalar), or a
   tensor of one float or double element whose metadata, if any, names the
   `scalars` plugin (TF2's tf.summary.scalar, torch's new_style). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tfevents.h"

/* TFRecord lengths above this are taken as corrupt. */
#define MAX_RECORD (64u << 20)

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };
enum { DT_FLOAT = 1, DT_DOUBLE = 2 };
enum { DATA_CLASS_SCALAR = 1 };

uint32_t pipe_crc32c(const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    static bool ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

static uint32_t masked(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u; }

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* ---- protobuf, just enough ---- */

typedef struct reader {
    const unsigned char *p, *end;
    bool bad;
} reader;

static uint64_t varint(reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = true;
            return 0;
        }
        unsigned char b = *r->p++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

/* One field: its number and wire type; for WIRE_LEN its bytes in *sub, for
   the others its value in *num (the raw bits of a fixed-width one). false
   at the end or on bad input (r->bad says which). */
static bool field(reader *r, uint32_t *number, int *wire, reader *sub, uint64_t *num)
{
    if (r->bad || r->p >= r->end)
        return false;
    uint64_t key = varint(r);
    *number = (uint32_t)(key >> 3);
    *wire = (int)(key & 7);
    switch (*wire) {
    case WIRE_VARINT:
        *num = varint(r);
        break;
    case WIRE_I64:
        if (r->end - r->p < 8)
            r->bad = true;
        else
            *num = le64(r->p), r->p += 8;
        break;
    case WIRE_I32:
        if (r->end - r->p < 4)
            r->bad = true;
        else
            *num = le32(r->p), r->p += 4;
        break;
    case WIRE_LEN: {
        uint64_t n = varint(r);
        if (r->bad || n > (uint64_t)(r->end - r->p)) {
            r->bad = true;
            break;
        }
        *sub = (reader){r->p, r->p + n, false};
        r->p += n;
        break;
    }
    default:
        r->bad = true; /* groups (3, 4) are not used by these messages */
    }
    return !r->bad && *number != 0;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The number of elements a TensorShapeProto holds (1 for a scalar); -1 when unknown. */
static int64_t shape_elements(reader shape)
{
    int64_t count = 1;
    uint32_t n;
    int wire;
    reader sub;
    uint64_t v;
    while (field(&shape, &n, &wire, &sub, &v)) {
        if (n == 3 && wire == WIRE_VARINT && v)
            return -1; /* unknown_rank */
        if (n != 2 || wire != WIRE_LEN)
            continue;
        uint32_t dn;
        int dw;
        reader dsub;
        uint64_t size = 1;
        while (field(&sub, &dn, &dw, &dsub, &v))
            if (dn == 1 && dw == WIRE_VARINT)
                size = v;
        if (sub.bad || size > 1000000)
            return -1;
        count *= (int64_t)size;
        if (count > 1000000)
            return -1;
    }
    return shape.bad ? -1 : count;
}

/* The one number of a TensorProto of one float or double element. */
static bool tensor_scalar(reader t, double *out)
{
    uint64_t dtype = 0, v;
    int64_t elements = 1;
    size_t nvals = 0;
    double val = 0;
    const unsigned char *content = NULL;
    size_t content_len = 0;
    uint32_t n;
    int wire;
    reader sub;
    while (field(&t, &n, &wire, &sub, &v)) {
        if (n == 1 && wire == WIRE_VARINT) {
            dtype = v;
        } else if (n == 2 && wire == WIRE_LEN) {
            elements = shape_elements(sub);
        } else if (n == 4 && wire == WIRE_LEN) {
            content = sub.p;
            content_len = (size_t)(sub.end - sub.p);
        } else if (n == 5 && wire == WIRE_I32) {
            val = bits_float((uint32_t)v), nvals++;
        } else if (n == 5 && wire == WIRE_LEN) { /* packed */
            for (; sub.end - sub.p >= 4; sub.p += 4)
                val = bits_float(le32(sub.p)), nvals++;
        } else if (n == 6 && wire == WIRE_I64) {
            val = bits_double(v), nvals++;
        } else if (n == 6 && wire == WIRE_LEN) {
            for (; sub.end - sub.p >= 8; sub.p += 8)
                val = bits_double(le64(sub.p)), nvals++;
        }
    }
    if (t.bad || elements != 1 || (dtype != DT_FLOAT && dtype != DT_DOUBLE))
        return false;
    if (content) {
        if (dtype == DT_FLOAT && content_len == 4)
            *out = bits_float(le32(content));
        else if (dtype == DT_DOUBLE && content_len == 8)
            *out = bits_double(le64(content));
        else
            return false;
        return true;
    }
    if (nvals != 1)
        return false;
    *out = val;
    return true;
}

/* Whether SummaryMetadata allows a scalar: no plugin, the `scalars` plugin, or DATA_CLASS_SCALAR. */
static bool metadata_scalar(reader m)
{
    bool plugin = false, scalars = false, data_class = false;
    uint32_t n;
    int wire;
    reader sub;
    uint64_t v;
    while (field(&m, &n, &wire, &sub, &v)) {
        if (n == 4 && wire == WIRE_VARINT)
            data_class = v == DATA_CLASS_SCALAR;
        if (n != 1 || wire != WIRE_LEN)
            continue;
        uint32_t pn;
        int pw;
        reader name;
        while (field(&sub, &pn, &pw, &name, &v)) {
            if (pn == 1 && pw == WIRE_LEN) {
                plugin = true;
                scalars = (size_t)(name.end - name.p) == 7 && memcmp(name.p, "scalars", 7) == 0;
            }
        }
    }
    return data_class || scalars || !plugin;
}

/* One Summary.Value: fn when it is a scalar. false when it does not parse. */
static bool summary_value(reader val, int64_t step, double wall, pipe_tfevents_fn fn, void *arg, size_t *scalars)
{
    const char *tag = NULL;
    size_t tag_len = 0;
    bool have = false, tensor_ok = false, meta_ok = true;
    double value = 0, tvalue = 0;
    uint32_t n;
    int wire;
    reader sub;
    uint64_t v;
    while (field(&val, &n, &wire, &sub, &v)) {
        if (n == 1 && wire == WIRE_LEN) {
            tag = (const char *)sub.p;
            tag_len = (size_t)(sub.end - sub.p);
        } else if (n == 2 && wire == WIRE_I32) {
            value = bits_float((uint32_t)v);
            have = true;
        } else if (n == 8 && wire == WIRE_LEN) {
            tensor_ok = tensor_scalar(sub, &tvalue);
        } else if (n == 9 && wire == WIRE_LEN) {
            meta_ok = metadata_scalar(sub);
        }
    }
    if (val.bad)
        return false;
    if (!have && tensor_ok && meta_ok) {
        value = tvalue;
        have = true;
    }
    if (have && tag && tag_len > 0) {
        fn(arg, tag, tag_len, step, wall, value);
        (*scalars)++;
    }
    return true;
}

/* One Event. false when it does not parse (nothing is reported then). */
static bool event(reader ev, pipe_tfevents_fn fn, void *arg, size_t *scalars)
{
    double wall = 0;
    int64_t step = 0;
    reader summary = {NULL, NULL, false};
    uint32_t n;
    int wire;
    reader sub;
    uint64_t v;
    while (field(&ev, &n, &wire, &sub, &v)) {
        if (n == 1 && wire == WIRE_I64)
            wall = bits_double(v);
        else if (n == 2 && wire == WIRE_VARINT)
            step = (int64_t)v;
        else if (n == 5 && wire == WIRE_LEN)
            summary = sub;
    }
    if (ev.bad)
        return false;
    if (!summary.p)
        return true;
    /* The summary's framing first: a summary cut short reports nothing. */
    reader check = summary;
    while (field(&check, &n, &wire, &sub, &v)) {
    }
    if (check.bad)
        return false;
    while (field(&summary, &n, &wire, &sub, &v))
        if (n == 1 && wire == WIRE_LEN && !summary_value(sub, step, wall, fn, arg, scalars))
            return false;
    return true;
}

static void problem(pipe_tfevents_stats *st, size_t offset, const char *what)
{
    if (!st->why[0])
        snprintf(st->why, sizeof st->why, "%s at byte %zu", what, offset);
}

void pipe_tfevents_parse(const unsigned char *data, size_t len, pipe_tfevents_fn fn, void *arg,
                         pipe_tfevents_stats *st)
{
    memset(st, 0, sizeof *st);
    size_t at = 0;
    while (at < len) {
        if (len - at < 12) {
            st->truncated = 1;
            problem(st, at, "the file ends inside a record's header");
            return;
        }
        uint64_t n = le64(data + at);
        if (masked(pipe_crc32c(data + at, 8)) != le32(data + at + 8) || n > MAX_RECORD) {
            st->corrupt++;
            problem(st, at, "a record's length is corrupt (the rest of the file is skipped)");
            return;
        }
        if (len - at - 12 < n + 4) {
            st->truncated = 1;
            problem(st, at, "the file ends inside a record");
            return;
        }
        const unsigned char *body = data + at + 12;
        size_t start = at;
        at += 12 + (size_t)n + 4;
        if (masked(pipe_crc32c(body, (size_t)n)) != le32(body + n)) {
            st->corrupt++;
            problem(st, start, "a record's checksum does not match");
            continue;
        }
        reader ev = {body, body + n, false};
        if (!event(ev, fn, arg, &st->scalars)) {
            st->corrupt++;
            problem(st, start, "a record is not an Event message");
            continue;
        }
        st->records++;
    }
}
