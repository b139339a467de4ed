/* npy.c against numpy (npy_numpy.py drives it):
     npy_tool write DIR       writes c_*.npy, one per element type
     npy_tool check FILE...   reads each, checks every element against the
                              formula of its type, prints "NAME DTYPE (SHAPE)"
     npy_tool reject FILE     expects the read to fail; prints the message
   Element i of an array of each type (the same formulas in npy_numpy.py):
     float32 i*0.5-3, float64 i/3-1, int32 i*7-50, int64 i*3000000001-7,
     uint8 (i*37)%256, float16 i*0.25-0.5. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/npy.h"
#include "pipe/precision.h"

static double expected(pipe_dtype t, size_t i)
{
    switch (t) {
    case PIPE_F32: return (double)(float)((double)i * 0.5 - 3);
    case PIPE_F64: return (double)i / 3.0 - 1;
    case PIPE_I32: return (double)((int64_t)i * 7 - 50);
    case PIPE_I64: return (double)((int64_t)i * 3000000001LL - 7);
    case PIPE_U8: return (double)((i * 37) % 256);
    case PIPE_F16: return (double)i * 0.25 - 0.5;
    default: return 0;
    }
}

static int value_ok(const pipe_npy_array *a, size_t i)
{
    switch (a->dtype) {
    case PIPE_F32: return ((const float *)a->data)[i] == (float)expected(a->dtype, i);
    case PIPE_F64: return ((const double *)a->data)[i] == expected(a->dtype, i);
    case PIPE_I32: return ((const int32_t *)a->data)[i] == (int32_t)((int64_t)i * 7 - 50);
    case PIPE_I64: return ((const int64_t *)a->data)[i] == (int64_t)i * 3000000001LL - 7;
    case PIPE_U8: return ((const uint8_t *)a->data)[i] == (uint8_t)((i * 37) % 256);
    case PIPE_F16: return pipe_f16_to_f32(((const pipe_f16 *)a->data)[i]) == (float)expected(a->dtype, i);
    default: return 0;
    }
}

static int write_one(const char *dir, const char *name, pipe_dtype t, int ndim, const size_t *shape)
{
    size_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    size_t size = t == PIPE_F64 || t == PIPE_I64 ? 8 : t == PIPE_F32 || t == PIPE_I32 ? 4 : t == PIPE_F16 ? 2 : 1;
    unsigned char *buf = calloc(n ? n : 1, size);
    for (size_t i = 0; buf && i < n; i++) {
        switch (t) {
        case PIPE_F32: ((float *)buf)[i] = (float)expected(t, i); break;
        case PIPE_F64: ((double *)buf)[i] = expected(t, i); break;
        case PIPE_I32: ((int32_t *)buf)[i] = (int32_t)((int64_t)i * 7 - 50); break;
        case PIPE_I64: ((int64_t *)buf)[i] = (int64_t)i * 3000000001LL - 7; break;
        case PIPE_U8: ((uint8_t *)buf)[i] = (uint8_t)((i * 37) % 256); break;
        case PIPE_F16: ((pipe_f16 *)buf)[i] = pipe_f32_to_f16((float)expected(t, i)); break;
        default: break;
        }
    }
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = buf ? pipe_npy_write(path, t, ndim, shape, buf, err, sizeof err) : PIPE_ENOMEM;
    if (rc != 0)
        fprintf(stderr, "npy_tool: %s\n", err);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0) {
        const size_t s234[] = {2, 3, 4}, s7[] = {7}, s35[] = {3, 5}, s442[] = {4, 4, 2}, s6[] = {6}, s30[] = {3, 0};
        int rc = write_one(argv[2], "c_f32.npy", PIPE_F32, 3, s234) | write_one(argv[2], "c_f64.npy", PIPE_F64, 1, s7) |
                 write_one(argv[2], "c_i32.npy", PIPE_I32, 2, s35) | write_one(argv[2], "c_i64.npy", PIPE_I64, 0, NULL) |
                 write_one(argv[2], "c_u8.npy", PIPE_U8, 3, s442) | write_one(argv[2], "c_f16.npy", PIPE_F16, 1, s6) |
                 write_one(argv[2], "c_empty.npy", PIPE_F32, 2, s30);
        return rc ? 1 : 0;
    }
    if (argc >= 3 && strcmp(argv[1], "check") == 0) {
        int status = 0;
        for (int f = 2; f < argc; f++) {
            pipe_npy_array a;
            char err[512];
            if (pipe_npy_read(argv[f], &a, err, sizeof err) != 0) {
                printf("FAIL %s: %s\n", argv[f], err);
                status = 1;
                continue;
            }
            size_t bad = a.count;
            for (size_t i = 0; i < a.count && bad == a.count; i++)
                if (!value_ok(&a, i))
                    bad = i;
            const char *base = strrchr(argv[f], '/');
            base = base ? base + 1 : argv[f];
            if (bad != a.count) {
                printf("FAIL %s: element %zu differs\n", base, bad);
                status = 1;
            } else {
                printf("%s %s (", base, pipe_npy_dtype_name(a.dtype));
                for (int d = 0; d < a.ndim; d++)
                    printf(d ? ", %zu" : "%zu", a.shape[d]);
                printf("%s)\n", a.ndim == 1 ? "," : "");
            }
            pipe_npy_free(&a);
        }
        return status;
    }
    if (argc == 3 && strcmp(argv[1], "reject") == 0) {
        pipe_npy_array a;
        char err[512];
        if (pipe_npy_read(argv[2], &a, err, sizeof err) == 0) {
            pipe_npy_free(&a);
            printf("read %s, which should have been refused\n", argv[2]);
            return 1;
        }
        printf("%s\n", err);
        return 0;
    }
    fprintf(stderr, "usage: npy_tool write DIR | check FILE... | reject FILE\n");
    return 2;
}
