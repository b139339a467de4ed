/* TensorBoard event files (observe/tfevents.c): scalars in both forms
   (simple_value; a one-element float or double tensor, from tensor_content
   or float_val/double_val), what is not a scalar left out (text, a
   histogram, two values, another plugin's tensor), the CRC-32C of the
   framing, and bad input: a bad record skipped, a bad length ending the
   file, every truncation and thousands of garbled files read without a
   crash or a read outside the buffer (ASan in CI). Files written by torch's
   real SummaryWriter are read in tests/python. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "observe/tfevents.h"

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *data, size_t n)
{
    if (n == 0)
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_varint(buf *b, uint64_t v)
{
    do {
        unsigned char c = (unsigned char)(v & 0x7F);
        v >>= 7;
        if (v)
            c |= 0x80;
        put(b, &c, 1);
    } while (v);
}

static void put_key(buf *b, unsigned field, unsigned wire) { put_varint(b, (uint64_t)field << 3 | wire); }

static void put_bytes(buf *b, unsigned field, const void *data, size_t n)
{
    put_key(b, field, 2);
    put_varint(b, n);
    put(b, data, n);
}

static void put_sub(buf *b, unsigned field, buf *sub)
{
    put_bytes(b, field, sub->p, sub->n);
    free(sub->p);
    *sub = (buf){0};
}

static void put_le(buf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        put(b, &c, 1);
    }
}

static void put_float(buf *b, unsigned field, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_key(b, field, 5);
    put_le(b, u, 4);
}

static void put_double(buf *b, unsigned field, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_key(b, field, 1);
    put_le(b, u, 8);
}

static uint32_t masked(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u; }

/* One TFRecord holding an Event of wall time 100 + step, its step and the
   summary values (each a Summary.Value's bytes). */
static void record(buf *file, int64_t step, buf *values, size_t nvalues)
{
    buf ev = {0}, summary = {0};
    put_double(&ev, 1, 100.0 + (double)step);
    put_key(&ev, 2, 0);
    put_varint(&ev, (uint64_t)step);
    for (size_t i = 0; i < nvalues; i++)
        put_sub(&summary, 1, &values[i]);
    if (nvalues)
        put_sub(&ev, 5, &summary);
    unsigned char len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)(ev.n >> (8 * i));
    put(file, len, 8);
    put_le(file, masked(pipe_crc32c(len, 8)), 4);
    put(file, ev.p, ev.n);
    put_le(file, masked(pipe_crc32c(ev.p, ev.n)), 4);
    free(ev.p);
}

static buf simple(const char *tag, float v)
{
    buf b = {0};
    put_bytes(&b, 1, tag, strlen(tag));
    put_float(&b, 2, v);
    return b;
}

/* A Summary.Value with a tensor: dtype, dims (ndims of size `size`), the
   tensor's own fields (body), and metadata naming plugin (or none). */
static buf tensor(const char *tag, int dtype, int ndims, int size, buf body, const char *plugin)
{
    buf b = {0}, t = {0}, shape = {0}, dim = {0}, meta = {0}, pd = {0};
    put_bytes(&b, 1, tag, strlen(tag));
    put_key(&t, 1, 0);
    put_varint(&t, (uint64_t)dtype);
    for (int i = 0; i < ndims; i++) {
        put_key(&dim, 1, 0);
        put_varint(&dim, (uint64_t)size);
        put_sub(&shape, 2, &dim);
    }
    put_sub(&t, 2, &shape);
    put(&t, body.p, body.n);
    free(body.p);
    put_sub(&b, 8, &t);
    if (plugin) {
        put_bytes(&pd, 1, plugin, strlen(plugin));
        put_sub(&meta, 1, &pd);
        put_sub(&b, 9, &meta);
    }
    return b;
}

typedef struct seen {
    char text[2048];
    size_t n;
} seen;

static void collect(void *arg, const char *tag, size_t tag_len, int64_t step, double wall, double value)
{
    seen *s = arg;
    size_t used = strlen(s->text);
    snprintf(s->text + used, sizeof s->text - used, "%.*s@%lld=%g(%g) ", (int)tag_len, tag, (long long)step, value,
             wall);
    s->n++;
}

static void count(void *arg, const char *tag, size_t tag_len, int64_t step, double wall, double value)
{
    (void)tag, (void)step, (void)wall, (void)value;
    /* Every byte of the tag is inside the buffer the parser was given (ASan). */
    volatile char sink = 0;
    for (size_t i = 0; i < tag_len; i++)
        sink ^= tag[i];
    (void)sink;
    (*(size_t *)arg)++;
}

static buf sample_file(void)
{
    buf file = {0};
    buf version = {0};
    record(&file, 0, &version, 0); /* file_version only: nothing */
    buf v[8];
    v[0] = simple("loss", 0.5f);
    v[1] = simple("acc", 0.25f);
    record(&file, 3, v, 2);
    buf c = {0};
    float f = 1.5f;
    put_bytes(&c, 4, &f, 4); /* tensor_content */
    v[0] = tensor("eval/f", 1, 0, 0, c, "scalars");
    buf d = {0};
    put_key(&d, 6, 2); /* packed double_val */
    put_varint(&d, 8);
    double x = 0.125;
    put(&d, &x, 8);
    v[1] = tensor("eval/d", 2, 1, 1, d, NULL);
    buf s = {0};
    put_bytes(&s, 8, "hello", 5); /* string_val: text */
    v[2] = tensor("notes", 7, 0, 0, s, "text");
    buf h = {0};
    put_key(&h, 6, 2);
    put_varint(&h, 24);
    double three[3] = {1, 2, 3};
    put(&h, three, 24);
    v[3] = tensor("histogram", 2, 1, 3, h, "histograms");
    buf two = {0};
    put_float(&two, 5, 1.0f);
    put_float(&two, 5, 2.0f);
    v[4] = tensor("two", 1, 0, 0, two, NULL);
    buf other = {0};
    put_float(&other, 5, 9.0f);
    v[5] = tensor("other", 1, 0, 0, other, "custom");
    buf fv = {0};
    put_float(&fv, 5, 4.0f);
    v[6] = tensor("eval/fv", 1, 0, 0, fv, NULL);
    record(&file, 7, v, 7);
    v[0] = simple("loss", 0.375f);
    record(&file, 8, v, 1);
    return file;
}

static void test_scalars(void)
{
    CHECK_EQ_U64(pipe_crc32c((const unsigned char *)"123456789", 9), 0xE3069283u); /* the check value */
    buf file = sample_file();
    seen s = {0};
    pipe_tfevents_stats st;
    pipe_tfevents_parse(file.p, file.n, collect, &s, &st);
    CHECK_STREQ(s.text, "loss@3=0.5(103) acc@3=0.25(103) eval/f@7=1.5(107) eval/d@7=0.125(107) eval/fv@7=4(107) "
                        "loss@8=0.375(108) ");
    CHECK_EQ_U64(st.records, 4);
    CHECK_EQ_U64(st.scalars, 6);
    CHECK_EQ_U64(st.corrupt, 0);
    CHECK(!st.truncated && st.why[0] == '\0');

    /* A byte of the third record's body changed: that record is skipped. */
    size_t first = 12 + (size_t)file.p[0] + 4, second = first + 12 + (size_t)file.p[first] + 4;
    unsigned char *copy = malloc(file.n);
    memcpy(copy, file.p, file.n);
    copy[second + 20] ^= 0x40;
    memset(&s, 0, sizeof s);
    pipe_tfevents_parse(copy, file.n, collect, &s, &st);
    CHECK_STREQ(s.text, "loss@3=0.5(103) acc@3=0.25(103) loss@8=0.375(108) ");
    CHECK_EQ_U64(st.corrupt, 1);
    CHECK(strstr(st.why, "checksum") != NULL);

    /* A length's checksum wrong: the rest of the file cannot be framed. */
    memcpy(copy, file.p, file.n);
    copy[first + 9] ^= 1;
    memset(&s, 0, sizeof s);
    pipe_tfevents_parse(copy, file.n, collect, &s, &st);
    CHECK_EQ_U64(s.n, 0);
    CHECK_EQ_U64(st.corrupt, 1);
    CHECK(strstr(st.why, "length") != NULL);
    free(copy);

    /* Cut anywhere: the whole records before the cut, never more. */
    for (size_t cut = 0; cut < file.n; cut++) {
        unsigned char *part = malloc(cut ? cut : 1);
        memcpy(part, file.p, cut);
        size_t n = 0;
        pipe_tfevents_parse(part, cut, count, &n, &st);
        CHECK(n <= 6 && st.truncated == (cut != 0 && cut != first && cut != second &&
                                         cut != second + 12 + (size_t)file.p[second] + 4));
        free(part);
    }
    free(file.p);
}

/* Garbled files: random bytes flipped in a real one, and records of random
   bytes with valid checksums, so that the protobuf reader sees junk. */
static void test_garbled(void)
{
    buf file = sample_file();
    unsigned char *copy = malloc(file.n);
    srand(21);
    pipe_tfevents_stats st;
    for (int round = 0; round < 20000; round++) {
        memcpy(copy, file.p, file.n);
        for (int k = 0; k <= round % 4; k++)
            copy[(size_t)rand() % file.n] ^= (unsigned char)(1 + rand() % 255);
        size_t n = 0;
        unsigned char *exact = malloc(file.n); /* no slack after it */
        memcpy(exact, copy, file.n);
        pipe_tfevents_parse(exact, file.n, count, &n, &st);
        free(exact);
    }
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)rand() % 64;
        unsigned char *body = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            body[i] = (unsigned char)(round % 3 == 0 ? rand() : (rand() % 4 == 0 ? 0x80 | rand() : rand() % 0x30));
        buf rec = {0};
        unsigned char lenb[8];
        for (int i = 0; i < 8; i++)
            lenb[i] = (unsigned char)((uint64_t)len >> (8 * i));
        put(&rec, lenb, 8);
        put_le(&rec, masked(pipe_crc32c(lenb, 8)), 4);
        put(&rec, body, len);
        put_le(&rec, masked(pipe_crc32c(body, len)), 4);
        unsigned char *exact = malloc(rec.n);
        memcpy(exact, rec.p, rec.n);
        size_t n = 0;
        pipe_tfevents_parse(exact, rec.n, count, &n, &st);
        CHECK(st.records + st.corrupt == 1);
        free(exact);
        free(rec.p);
        free(body);
    }
    free(copy);
    free(file.p);
}

int main(void)
{
    test_scalars();
    test_garbled();
    return check_summary();
}
