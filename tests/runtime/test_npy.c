/* npy.c: .npy files written and read back, the exact bytes numpy expects,
   files in the other byte order and in versions 2.0 and 3.0, and every
   refusal (Fortran order, other element types, truncation, not .npy).
   Interoperation with numpy itself: npy_numpy.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pipe/npy.h"
#include "pipe/precision.h"
#include "store/store.h"
#include "util/util.h"

static char dir[] = "/tmp/pipe-npy-XXXXXX";

static char *path_of(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void write_bytes(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(path_of(name), "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite(data, 1, len, f);
    fclose(f);
}

/* A file with the given version, descr, fortran_order and shape text and
   data bytes (preamble padded to 64 bytes as numpy pads it). */
static void write_npy(const char *name, int major, const char *descr, const char *order, const char *shape,
                      const void *data, size_t len)
{
    char header[512];
    int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order,
                     shape);
    size_t pre = major == 1 ? 10 : 12;
    size_t hlen = (size_t)n + 1;
    while ((pre + hlen) % 64)
        hlen++;
    memset(header + n, ' ', hlen - 1 - (size_t)n);
    header[hlen - 1] = '\n';
    unsigned char buf[4096];
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    if (major == 1) {
        buf[8] = (unsigned char)hlen;
        buf[9] = (unsigned char)(hlen >> 8);
    } else {
        for (int i = 0; i < 4; i++)
            buf[8 + i] = (unsigned char)(hlen >> (8 * i));
    }
    memcpy(buf + pre, header, hlen);
    memcpy(buf + pre + hlen, data, len);
    write_bytes(name, buf, pre + hlen + len);
}

static void test_round_trips(void)
{
    char err[512];
    pipe_npy_array a;

    float f32[6] = {0.5f, -1.25f, 3.0f, 1e-7f, -0.0f, 65504.0f};
    size_t shape23[2] = {2, 3};
    CHECK_EQ_INT(pipe_npy_write(path_of("f32.npy"), PIPE_F32, 2, shape23, f32, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("f32.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_F32 && a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3 && a.count == 6);
    CHECK(a.data && memcmp(a.data, f32, sizeof f32) == 0);
    pipe_npy_free(&a);
    CHECK(a.data == NULL && a.ndim == 0);
    pipe_npy_free(&a); /* twice is harmless */

    double f64[4] = {1.0 / 3.0, -2.5e300, 4.9e-324, 0};
    size_t shape4[1] = {4};
    CHECK_EQ_INT(pipe_npy_write(path_of("f64.npy"), PIPE_F64, 1, shape4, f64, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("f64.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_F64 && a.ndim == 1 && a.shape[0] == 4 && memcmp(a.data, f64, sizeof f64) == 0);
    pipe_npy_free(&a);

    int32_t i32[5] = {-2147483647 - 1, -1, 0, 1, 2147483647};
    size_t shape5[1] = {5};
    CHECK_EQ_INT(pipe_npy_write(path_of("i32.npy"), PIPE_I32, 1, shape5, i32, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("i32.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_I32 && memcmp(a.data, i32, sizeof i32) == 0);
    pipe_npy_free(&a);

    int64_t i64[1] = {-9007199254740993LL};
    CHECK_EQ_INT(pipe_npy_write(path_of("i64.npy"), PIPE_I64, 0, NULL, i64, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("i64.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_I64 && a.ndim == 0 && a.count == 1 && ((int64_t *)a.data)[0] == i64[0]);
    pipe_npy_free(&a);

    uint8_t u8[2 * 2 * 2 * 1 * 3];
    for (size_t i = 0; i < sizeof u8; i++)
        u8[i] = (uint8_t)(i * 37);
    size_t shape5d[5] = {2, 2, 2, 1, 3};
    CHECK_EQ_INT(pipe_npy_write(path_of("u8.npy"), PIPE_U8, 5, shape5d, u8, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("u8.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_U8 && a.ndim == 5 && a.count == 24 && a.shape[3] == 1 &&
          memcmp(a.data, u8, sizeof u8) == 0);
    pipe_npy_free(&a);

    pipe_f16 f16[3] = {pipe_f32_to_f16(1.5f), pipe_f32_to_f16(-0.25f), pipe_f32_to_f16(1024.0f)};
    size_t shape3[1] = {3};
    CHECK_EQ_INT(pipe_npy_write(path_of("f16.npy"), PIPE_F16, 1, shape3, f16, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("f16.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_F16 && pipe_f16_to_f32(((pipe_f16 *)a.data)[1]) == -0.25f);
    pipe_npy_free(&a);

    /* A dimension of 0: no elements, and no data needed. */
    size_t empty[3] = {4, 0, 2};
    CHECK_EQ_INT(pipe_npy_write(path_of("empty.npy"), PIPE_F32, 3, empty, NULL, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("empty.npy"), &a, err, sizeof err), 0);
    CHECK(a.ndim == 3 && a.count == 0 && a.shape[0] == 4 && a.shape[1] == 0 && a.shape[2] == 2);
    pipe_npy_free(&a);

    /* The most dimensions numpy allows. */
    size_t many[PIPE_NPY_MAX_DIMS];
    for (int i = 0; i < PIPE_NPY_MAX_DIMS; i++)
        many[i] = 1;
    float one = 42.0f;
    CHECK_EQ_INT(pipe_npy_write(path_of("many.npy"), PIPE_F32, PIPE_NPY_MAX_DIMS, many, &one, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_npy_read(path_of("many.npy"), &a, err, sizeof err), 0);
    CHECK(a.ndim == PIPE_NPY_MAX_DIMS && a.count == 1 && ((float *)a.data)[0] == 42.0f);
    pipe_npy_free(&a);
}

/* The bytes numpy.save writes for np.arange(6, dtype='<f4').reshape(2, 3). */
static void test_exact_bytes(void)
{
    char err[256];
    float v[6] = {0, 1, 2, 3, 4, 5};
    size_t shape[2] = {2, 3};
    CHECK_EQ_INT(pipe_npy_write(path_of("exact.npy"), PIPE_F32, 2, shape, v, err, sizeof err), 0);
    char *text = NULL;
    size_t len = 0;
    CHECK_EQ_INT(pipe_read_file(path_of("exact.npy"), &text, &len, err, sizeof err), 0);
    const char want[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    CHECK(len == 128 + sizeof v);
    CHECK(text && memcmp(text, want, sizeof want - 1) == 0);
    CHECK(text && text[127] == '\n' && text[126] == ' ');
    CHECK(text && memcmp(text + 128, v, sizeof v) == 0);
    free(text);

    /* One dimension: "(5,)"; a scalar: "()". */
    int32_t five[5] = {0};
    size_t shape5[1] = {5};
    CHECK_EQ_INT(pipe_npy_write(path_of("one.npy"), PIPE_I32, 1, shape5, five, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_read_file(path_of("one.npy"), &text, &len, err, sizeof err), 0);
    CHECK(text && strstr(text + 10, "'descr': '<i4', 'fortran_order': False, 'shape': (5,), }") != NULL);
    free(text);
    uint8_t b = 7;
    CHECK_EQ_INT(pipe_npy_write(path_of("scalar.npy"), PIPE_U8, 0, NULL, &b, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_read_file(path_of("scalar.npy"), &text, &len, err, sizeof err), 0);
    CHECK(text && strstr(text + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }") != NULL);
    CHECK(len == 129 && text && text[128] == 7);
    free(text);
}

static void test_other_files(void)
{
    char err[512];
    pipe_npy_array a;

    /* Big-endian int32 and float64, as numpy writes '>i4' and '>f8'. */
    const unsigned char be_i32[8] = {0x00, 0x00, 0x01, 0x02, 0xff, 0xff, 0xff, 0xfe};
    write_npy("be_i32.npy", 1, ">i4", "False", "(2,)", be_i32, sizeof be_i32);
    CHECK_EQ_INT(pipe_npy_read(path_of("be_i32.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_I32 && a.count == 2 && ((int32_t *)a.data)[0] == 258 && ((int32_t *)a.data)[1] == -2);
    pipe_npy_free(&a);
    const unsigned char be_f64[8] = {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}; /* pi */
    write_npy("be_f64.npy", 1, ">f8", "False", "()", be_f64, sizeof be_f64);
    CHECK_EQ_INT(pipe_npy_read(path_of("be_f64.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_F64 && a.ndim == 0 && ((double *)a.data)[0] == 3.141592653589793);
    pipe_npy_free(&a);

    /* Versions 2.0 and 3.0 (4 length bytes); Python 2's "3L"; odd spacing. */
    const int64_t v[3] = {1, -2, 3};
    write_npy("v2.npy", 2, "<i8", "False", "(3L,)", v, sizeof v);
    CHECK_EQ_INT(pipe_npy_read(path_of("v2.npy"), &a, err, sizeof err), 0);
    CHECK(a.dtype == PIPE_I64 && a.count == 3 && ((int64_t *)a.data)[1] == -2);
    pipe_npy_free(&a);
    write_npy("v3.npy", 3, "<i8", "False", "( 1 , 3 )", v, sizeof v);
    CHECK_EQ_INT(pipe_npy_read(path_of("v3.npy"), &a, err, sizeof err), 0);
    CHECK(a.ndim == 2 && a.shape[0] == 1 && a.shape[1] == 3);
    pipe_npy_free(&a);
    /* A one-dimensional array marked Fortran order is the same bytes. */
    write_npy("f1d.npy", 1, "<i8", "True", "(3,)", v, sizeof v);
    CHECK_EQ_INT(pipe_npy_read(path_of("f1d.npy"), &a, err, sizeof err), 0);
    pipe_npy_free(&a);

    /* Two arrays in one stream, read one after the other. */
    FILE *f = fopen(path_of("two.npy"), "wb+");
    CHECK(f != NULL);
    if (f) {
        size_t s1[1] = {3}, s2[2] = {1, 1};
        float x[3] = {1, 2, 3};
        double y = 9.5;
        CHECK_EQ_INT(pipe_npy_write_stream(f, PIPE_F32, 1, s1, x, err, sizeof err), 0);
        CHECK_EQ_INT(pipe_npy_write_stream(f, PIPE_F64, 2, s2, &y, err, sizeof err), 0);
        rewind(f);
        CHECK_EQ_INT(pipe_npy_read_stream(f, "two", &a, err, sizeof err), 0);
        CHECK(a.dtype == PIPE_F32 && a.count == 3 && ((float *)a.data)[2] == 3);
        pipe_npy_free(&a);
        CHECK_EQ_INT(pipe_npy_read_stream(f, "two", &a, err, sizeof err), 0);
        CHECK(a.dtype == PIPE_F64 && a.ndim == 2 && ((double *)a.data)[0] == 9.5);
        pipe_npy_free(&a);
        fclose(f);
    }
}

/* rc and a message that names the file and holds want. */
static void expect_refusal(const char *name, int rc_want, const char *want)
{
    char err[512] = "";
    pipe_npy_array a;
    int rc = pipe_npy_read(path_of(name), &a, err, sizeof err);
    CHECK_EQ_INT(rc, rc_want);
    CHECK(a.data == NULL);
    if (!strstr(err, want) || !strstr(err, name)) {
        fprintf(stderr, "%s: message \"%s\" lacks \"%s\" or the file name\n", name, err, want);
        CHECK(false);
    }
}

static void test_refusals(void)
{
    const int32_t v[4] = {1, 2, 3, 4};
    write_npy("fortran.npy", 1, "<i4", "True", "(2, 2)", v, sizeof v);
    expect_refusal("fortran.npy", PIPE_ENOTSUP, "Fortran order");
    write_npy("bool.npy", 1, "|b1", "False", "(4,)", v, 4);
    expect_refusal("bool.npy", PIPE_ENOTSUP, "element type '|b1' is not supported (float32, float64");
    write_npy("i16.npy", 1, "<i2", "False", "(2,)", v, 4);
    expect_refusal("i16.npy", PIPE_ENOTSUP, "'<i2'");
    write_npy("c8.npy", 1, "<c8", "False", "(2,)", v, 16);
    expect_refusal("c8.npy", PIPE_ENOTSUP, "'<c8'");
    write_npy("str.npy", 1, "<U3", "False", "(1,)", v, 12);
    expect_refusal("str.npy", PIPE_ENOTSUP, "'<U3'");
    write_npy("struct.npy", 1, "<i4', 'x': ('", "False", "(1,)", v, 4); /* a key numpy never writes */
    expect_refusal("struct.npy", PIPE_EFORMAT, "malformed .npy header");
    write_npy("short.npy", 1, "<i4", "False", "(2, 3)", v, sizeof v);
    expect_refusal("short.npy", PIPE_EFORMAT, "truncated: the header says 6 int32 elements (24 bytes), the file holds 16");
    write_npy("badshape.npy", 1, "<i4", "False", "(2, -3)", v, sizeof v);
    expect_refusal("badshape.npy", PIPE_EFORMAT, "'shape' is not a tuple of whole numbers");
    write_npy("huge.npy", 1, "<f8", "False", "(4294967296, 4294967296, 4294967296)", v, sizeof v);
    expect_refusal("huge.npy", PIPE_EFORMAT, "overflows");
    write_npy("v4.npy", 1, "<i4", "False", "(4,)", v, sizeof v);
    char *text = NULL;
    size_t len = 0;
    if (pipe_read_file(path_of("v4.npy"), &text, &len, NULL, 0) == 0) {
        text[6] = 4;
        write_bytes("v4.npy", text, len);
        free(text);
    }
    expect_refusal("v4.npy", PIPE_ENOTSUP, "format version 4.0 is not supported");
    write_bytes("text.npy", "1,2,3\n", 6);
    expect_refusal("text.npy", PIPE_EFORMAT, "not a .npy file");
    write_bytes("cut.npy", "\x93NUMPY\x01\x00\x76\x00{'descr'", 17);
    expect_refusal("cut.npy", PIPE_EFORMAT, "truncated in the .npy header");
    expect_refusal("missing.npy", PIPE_ENOENT, "cannot open");

    /* Writing: bad arguments say so and leave nothing behind. */
    char err[256];
    size_t shape[1] = {2};
    CHECK_EQ_INT(pipe_npy_write(path_of("bf16.npy"), PIPE_BF16, 1, shape, v, err, sizeof err), PIPE_EINVAL);
    CHECK(strstr(err, "bfloat16") != NULL);
    CHECK_EQ_INT(pipe_npy_write(path_of("nodata.npy"), PIPE_I32, 1, shape, NULL, err, sizeof err), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_npy_write(path_of("dims.npy"), PIPE_I32, PIPE_NPY_MAX_DIMS + 1, shape, v, err, sizeof err),
                 PIPE_EINVAL);
    CHECK(!pipe_file_exists(path_of("bf16.npy")) && !pipe_file_exists(path_of("nodata.npy")));
    CHECK_EQ_INT(pipe_npy_write(path_of("no/such/dir/x.npy"), PIPE_I32, 1, shape, v, err, sizeof err), PIPE_ENOENT);
    CHECK(strstr(err, "no/such/dir/x.npy") != NULL);
    CHECK_EQ_INT(pipe_npy_write_stream(NULL, PIPE_I32, 1, shape, v, err, sizeof err), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_npy_read_stream(NULL, "x", NULL, NULL, 0), PIPE_EINVAL);
    CHECK(pipe_npy_dtype_name(PIPE_U8) && strcmp(pipe_npy_dtype_name(PIPE_U8), "uint8") == 0);
    CHECK(pipe_npy_dtype_name(PIPE_BF16) == NULL);

    /* A failed write leaves no temporary file. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls %s | grep tmp)\"", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trips();
    test_exact_bytes();
    test_other_files();
    test_refusals();
    char err[256];
    pipe_remove_tree(dir, err, sizeof err);
    return check_summary();
}
