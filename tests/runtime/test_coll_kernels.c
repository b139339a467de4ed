/* The reduction kernels of the CPU collectives (dist/coll_kernels.h): every
   instruction set this CPU has against the portable kernels, on every dtype
   and op, 1 to 8 sources, lengths around the vector widths (odd ones, tails
   of every size), sources and destination at every element offset from a
   vector boundary, in place, and values that include infinities, NaNs,
   subnormals and integers that overflow. Bit for bit, except that two NaNs
   count as equal. Then the portable kernels against plain arithmetic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "dist/coll_kernels.h"

static const pipe_dtype dtypes[] = {PIPE_F32, PIPE_F64, PIPE_I32, PIPE_I64, PIPE_U8, PIPE_F16, PIPE_BF16};
static const pipe_op ops[] = {PIPE_SUM, PIPE_PROD, PIPE_MAX, PIPE_MIN, PIPE_AVG};
static const size_t lengths[] = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 200, 1031};
static const int nsrcs[] = {1, 2, 3, 4, 5, 8};
enum { MAX_SRC = 8, MAX_OFFSET = 5, MAX_LEN = 1031 + MAX_OFFSET, BUF_BYTES = (MAX_LEN * 8 + 127) / 64 * 64 };

static size_t esize(pipe_dtype t)
{
    return t == PIPE_F64 || t == PIPE_I64 ? 8 : t == PIPE_F32 || t == PIPE_I32 ? 4 : t == PIPE_U8 ? 1 : 2;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One element: mostly small numbers, sometimes any bit pattern (every
   special value of the 16-bit floats; huge integers that wrap). */
static void fill(void *p, pipe_dtype t)
{
    uint64_t r = next(), small = r % 7;
    bool any = (r >> 8) % 4 == 0;
    switch (t) {
    case PIPE_F32: {
        float f = any ? (float)((double)(int64_t)next() * 1e-15) : (float)small - 3.0f;
        if ((r >> 12) % 61 == 0)
            f = (r >> 20) % 2 ? INFINITY : NAN;
        memcpy(p, &f, 4);
        break;
    }
    case PIPE_F64: {
        double d = any ? (double)(int64_t)next() * 1e-15 : (double)small - 3.0;
        if ((r >> 12) % 61 == 0)
            d = (r >> 20) % 2 ? -INFINITY : NAN;
        memcpy(p, &d, 8);
        break;
    }
    case PIPE_I32: {
        int32_t v = any ? (int32_t)(uint32_t)next() : (int32_t)small - 3;
        memcpy(p, &v, 4);
        break;
    }
    case PIPE_I64: {
        int64_t v = any ? (int64_t)next() : (int64_t)small - 3;
        memcpy(p, &v, 8);
        break;
    }
    case PIPE_U8: {
        uint8_t v = (uint8_t)(any ? next() : small);
        memcpy(p, &v, 1);
        break;
    }
    case PIPE_F16:
    case PIPE_BF16: {
        /* Small: 1..7 in either format; any: every pattern. */
        uint16_t one = t == PIPE_F16 ? 0x3c00 : 0x3f80, v = any ? (uint16_t)next() : (uint16_t)(one + small * 0x40);
        memcpy(p, &v, 2);
        break;
    }
    }
}

static bool is_nan(const unsigned char *p, pipe_dtype t)
{
    if (t == PIPE_F32) {
        float f;
        memcpy(&f, p, 4);
        return isnan(f);
    }
    if (t == PIPE_F64) {
        double d;
        memcpy(&d, p, 8);
        return isnan(d);
    }
    uint16_t h;
    memcpy(&h, p, 2);
    if (t == PIPE_F16)
        return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    if (t == PIPE_BF16)
        return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
    return false;
}

/* Index of the first element that differs, or -1. */
static long differs(const unsigned char *a, const unsigned char *b, size_t n, pipe_dtype t)
{
    size_t s = esize(t);
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i * s, b + i * s, s) != 0 && !(is_nan(a + i * s, t) && is_nan(b + i * s, t)))
            return (long)i;
    return -1;
}

/* Element-aligned buffers at an offset of whole elements from a 64-byte boundary. */
static unsigned char *src_buf[MAX_SRC], *want_buf, *got_buf;

static void vector_against_scalar(pipe_coll_isa isa)
{
    unsigned long cases = 0, failed = 0;
    for (size_t ti = 0; ti < sizeof dtypes / sizeof dtypes[0]; ti++)
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
            for (size_t ni = 0; ni < sizeof nsrcs / sizeof nsrcs[0]; ni++)
                for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                    pipe_dtype t = dtypes[ti];
                    pipe_op op = ops[oi];
                    int nsrc = nsrcs[ni];
                    size_t n = lengths[li], s = esize(t), off = (size_t)(cases % MAX_OFFSET);
                    const void *srcs[MAX_SRC];
                    for (int k = 0; k < nsrc; k++) {
                        /* Each source at its own offset, the destination at another. */
                        unsigned char *p = src_buf[k] + ((off + (size_t)k) % MAX_OFFSET) * s;
                        for (size_t i = 0; i < n; i++)
                            fill(p + i * s, t);
                        srcs[k] = p;
                    }
                    unsigned char *want = want_buf + off * s, *got = got_buf + ((off + 3) % MAX_OFFSET) * s;
                    cases++;
                    if (!pipe_coll_reduce_isa(PIPE_ISA_SCALAR, want, srcs, nsrc, n, t, op) ||
                        !pipe_coll_reduce_isa(isa, got, srcs, nsrc, n, t, op)) {
                        failed++;
                        continue;
                    }
                    long bad = differs(want, got, n, t);
                    /* In place: the first source is the destination. */
                    unsigned char *first = (unsigned char *)srcs[0];
                    if (bad < 0 && pipe_coll_reduce_isa(isa, first, srcs, nsrc, n, t, op))
                        bad = differs(want, first, n, t);
                    if (bad >= 0) {
                        if (failed < 10)
                            fprintf(stderr, "%s: dtype %d op %d, %d sources, %zu elements at offset %zu: element %ld differs\n",
                                    pipe_coll_isa_name(isa), t, op, nsrc, n, off, bad);
                        failed++;
                    }
                }
    printf("%s: %lu cases, %lu failed\n", pipe_coll_isa_name(isa), cases, failed);
    CHECK(cases > 0);
    CHECK_EQ_INT((int)failed, 0);
}

/* The portable kernels themselves, on values every type holds exactly. */
static void scalar_against_arithmetic(void)
{
    float f[3][5] = {{1, -2, 3.5f, 0, 7}, {4, 5, -6, -0.0f, 1}, {0.5f, 2, 2, 3, -1}}, fout[5];
    const void *fs[3] = {f[0], f[1], f[2]};
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, fout, fs, 3, 5, PIPE_F32, PIPE_SUM);
    CHECK(fout[0] == 5.5f && fout[1] == 5 && fout[2] == -0.5f && fout[3] == 3 && fout[4] == 7);
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, fout, fs, 3, 5, PIPE_F32, PIPE_MAX);
    CHECK(fout[0] == 4 && fout[1] == 5 && fout[2] == 3.5f && fout[3] == 3 && fout[4] == 7);
    int32_t i[2][2] = {{INT32_MAX, -7}, {1, 3}}, iout[2];
    const void *is[2] = {i[0], i[1]};
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, iout, is, 2, 2, PIPE_I32, PIPE_SUM);
    CHECK(iout[0] == INT32_MIN && iout[1] == -4); /* wraps */
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, iout, is, 2, 2, PIPE_I32, PIPE_MIN);
    CHECK(iout[0] == 1 && iout[1] == -7);
    uint8_t u[2][2] = {{200, 16}, {100, 17}}, uout[2];
    const void *us[2] = {u[0], u[1]};
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, uout, us, 2, 2, PIPE_U8, PIPE_PROD);
    CHECK(uout[0] == (uint8_t)(200 * 100) && uout[1] == (uint8_t)(16 * 17));
    /* bf16 1.0 + 2.0 + 0.5 = 3.5; f16 the same. */
    uint16_t b[3] = {0x3f80, 0x4000, 0x3f00}, h[3] = {0x3c00, 0x4000, 0x3800}, out16;
    const void *bs[3] = {&b[0], &b[1], &b[2]}, *hs[3] = {&h[0], &h[1], &h[2]};
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, &out16, bs, 3, 1, PIPE_BF16, PIPE_SUM);
    CHECK_EQ_INT(out16, 0x4060);
    pipe_coll_reduce_isa(PIPE_ISA_SCALAR, &out16, hs, 3, 1, PIPE_F16, PIPE_SUM);
    CHECK_EQ_INT(out16, 0x4300);
}

int main(void)
{
    for (int k = 0; k < MAX_SRC; k++)
        src_buf[k] = aligned_alloc(64, BUF_BYTES);
    want_buf = aligned_alloc(64, BUF_BYTES);
    got_buf = aligned_alloc(64, BUF_BYTES);
    scalar_against_arithmetic();
    printf("this CPU: %s\n", pipe_coll_isa_name(pipe_coll_best_isa()));
    CHECK(!pipe_coll_reduce_isa(PIPE_ISA_COUNT, want_buf, (const void *const *)src_buf, 1, 1, PIPE_U8, PIPE_SUM));
    for (int isa = PIPE_ISA_SCALAR + 1; isa < PIPE_ISA_COUNT; isa++) {
        if (isa > (int)pipe_coll_best_isa()) {
            printf("%s: not on this CPU\n", pipe_coll_isa_name((pipe_coll_isa)isa));
            continue;
        }
        vector_against_scalar((pipe_coll_isa)isa);
    }
    for (int k = 0; k < MAX_SRC; k++)
        free(src_buf[k]);
    free(want_buf);
    free(got_buf);
    return check_summary();
}
