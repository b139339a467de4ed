/* The reduction kernels of the CPU collectives (coll_kernels.h). One macro
   writes every kernel: a loop of W elements at a time in vector registers,
   then the remaining elements one at a time with the portable operations,
   so that each kernel is its own reference on a tail. The op is fixed per
   kernel, outside the loop. Unaligned loads and stores throughout: slices
   start wherever an element may. */
#include "coll_kernels.h"

#include <stdint.h>
#include <string.h>

#include "pipe/precision.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define PIPE_COLL_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define PIPE_COLL_X86 0
#endif

typedef void (*kernel_fn)(void *dst, const void *const *srcs, int nsrc, size_t n);

/* ---- the portable operations (also every vector kernel's tail) ---- */

#define S_MAX(a, b) ((a) > (b) ? (a) : (b))
#define S_MIN(a, b) ((a) < (b) ? (a) : (b))
#define S_ADD(a, b) ((a) + (b))
#define S_MUL(a, b) ((a) * (b))
/* Integers wrap, as the vector instructions do, instead of overflowing. */
#define S_ADD32(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define S_MUL32(a, b) ((int32_t)((uint32_t)(a) * (uint32_t)(b)))
#define S_ADD64(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define S_MUL64(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
#define S_ADD8(a, b) ((uint8_t)((unsigned)(a) + (unsigned)(b)))
#define S_MUL8(a, b) ((uint8_t)((unsigned)(a) * (unsigned)(b)))

#define S_LOAD(p) (*(p))
#define S_STORE(p, v) (*(p) = (v))
#define F16_LOAD(p) pipe_f16_to_f32(*(p))
#define F16_STORE(p, v) (*(p) = pipe_f32_to_f16(v))
#define BF16_LOAD(p) pipe_bf16_to_f32(*(p))
#define BF16_STORE(p, v) (*(p) = pipe_f32_to_bf16(v))

/* The loop over the elements one at a time from i: T in memory, A to combine in. */
#define TAIL(T, A, SLOAD, SSTORE, SOP)                                                 \
    for (; i < n; i++) {                                                               \
        A acc = SLOAD((const T *)srcs[0] + i);                                         \
        for (int k = 1; k < nsrc; k++)                                                 \
            acc = SOP(acc, SLOAD((const T *)srcs[k] + i));                             \
        SSTORE(out + i, acc);                                                          \
    }

#define SCALAR_KERNEL(name, T, A, SLOAD, SSTORE, SOP)                                  \
    static void name(void *dst, const void *const *srcs, int nsrc, size_t n)           \
    {                                                                                  \
        T *out = dst;                                                                  \
        size_t i = 0;                                                                  \
        TAIL(T, A, SLOAD, SSTORE, SOP)                                                 \
    }

/* Two vectors a step: the reads of the sources stay in flight together. */
#define VECTOR_KERNEL(name, attr, T, A, V, W, VLOAD, VSTORE, VOP, SLOAD, SSTORE, SOP)   \
    static attr void name(void *dst, const void *const *srcs, int nsrc, size_t n)      \
    {                                                                                  \
        T *out = dst;                                                                  \
        size_t i = 0;                                                                  \
        for (; i + 2 * (W) <= n; i += 2 * (W)) {                                       \
            const T *s0 = (const T *)srcs[0] + i;                                      \
            V a0 = VLOAD(s0), a1 = VLOAD(s0 + (W));                                    \
            for (int k = 1; k < nsrc; k++) {                                           \
                const T *sk = (const T *)srcs[k] + i;                                  \
                a0 = VOP(a0, VLOAD(sk));                                               \
                a1 = VOP(a1, VLOAD(sk + (W)));                                         \
            }                                                                          \
            VSTORE(out + i, a0);                                                       \
            VSTORE(out + i + (W), a1);                                                 \
        }                                                                              \
        TAIL(T, A, SLOAD, SSTORE, SOP)                                                 \
    }

/* The four ops of one dtype, portable. */
#define SCALAR_OPS(pre, T, A, SLOAD, SSTORE, ADD, MUL)                                 \
    SCALAR_KERNEL(pre##_sum, T, A, SLOAD, SSTORE, ADD)                                 \
    SCALAR_KERNEL(pre##_prod, T, A, SLOAD, SSTORE, MUL)                                \
    SCALAR_KERNEL(pre##_max, T, A, SLOAD, SSTORE, S_MAX)                               \
    SCALAR_KERNEL(pre##_min, T, A, SLOAD, SSTORE, S_MIN)

SCALAR_OPS(sc_f32, float, float, S_LOAD, S_STORE, S_ADD, S_MUL)
SCALAR_OPS(sc_f64, double, double, S_LOAD, S_STORE, S_ADD, S_MUL)
SCALAR_OPS(sc_i32, int32_t, int32_t, S_LOAD, S_STORE, S_ADD32, S_MUL32)
SCALAR_OPS(sc_i64, int64_t, int64_t, S_LOAD, S_STORE, S_ADD64, S_MUL64)
SCALAR_OPS(sc_u8, uint8_t, uint8_t, S_LOAD, S_STORE, S_ADD8, S_MUL8)
SCALAR_OPS(sc_f16, uint16_t, float, F16_LOAD, F16_STORE, S_ADD, S_MUL)
SCALAR_OPS(sc_bf16, uint16_t, float, BF16_LOAD, BF16_STORE, S_ADD, S_MUL)

/* A table's row: sum, prod, max, min (pipe_op's order; AVG uses sum). */
#define ROW(pre) {pre##_sum, pre##_prod, pre##_max, pre##_min}

static const kernel_fn scalar_kernels[7][4] = {
    [PIPE_F32] = ROW(sc_f32), [PIPE_F64] = ROW(sc_f64), [PIPE_I32] = ROW(sc_i32),   [PIPE_I64] = ROW(sc_i64),
    [PIPE_U8] = ROW(sc_u8),   [PIPE_F16] = ROW(sc_f16), [PIPE_BF16] = ROW(sc_bf16),
};

/* The four ops of one dtype with vector operations VADD..VMIN. */
#define VECTOR_OPS(pre, attr, T, A, V, W, VLOAD, VSTORE, VADD, VMUL, VMAX, VMIN, SLOAD, SSTORE, ADD, MUL) \
    VECTOR_KERNEL(pre##_sum, attr, T, A, V, W, VLOAD, VSTORE, VADD, SLOAD, SSTORE, ADD)                    \
    VECTOR_KERNEL(pre##_prod, attr, T, A, V, W, VLOAD, VSTORE, VMUL, SLOAD, SSTORE, MUL)                   \
    VECTOR_KERNEL(pre##_max, attr, T, A, V, W, VLOAD, VSTORE, VMAX, SLOAD, SSTORE, S_MAX)                  \
    VECTOR_KERNEL(pre##_min, attr, T, A, V, W, VLOAD, VSTORE, VMIN, SLOAD, SSTORE, S_MIN)

#if PIPE_COLL_X86

/* ---- AVX2 (and F16C, which every AVX2 CPU has) ---- */

#define AVX2 __attribute__((target("avx2,f16c")))

/* max_ps(a, b) is a > b ? a : b, NaN and signed zeros included; min_ps likewise. */
static AVX2 inline __m256 a2_ldf32(const float *p) { return _mm256_loadu_ps(p); }
static AVX2 inline void a2_stf32(float *p, __m256 v) { _mm256_storeu_ps(p, v); }
static AVX2 inline __m256d a2_ldf64(const double *p) { return _mm256_loadu_pd(p); }
static AVX2 inline void a2_stf64(double *p, __m256d v) { _mm256_storeu_pd(p, v); }
static AVX2 inline __m256i a2_ldi(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static AVX2 inline void a2_sti(void *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }

/* 64-bit products and comparisons, which AVX2 lacks: low halves multiplied
   whole, the cross terms shifted up. */
static AVX2 inline __m256i a2_mul64(__m256i a, __m256i b)
{
    __m256i lo = _mm256_mul_epu32(a, b);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                     _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}
static AVX2 inline __m256i a2_max64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
}
static AVX2 inline __m256i a2_min64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(b, a));
}
/* Byte products: even and odd bytes through 16-bit products. */
static AVX2 inline __m256i a2_mul8(__m256i a, __m256i b)
{
    __m256i lo_mask = _mm256_set1_epi16(0xff);
    __m256i even = _mm256_and_si256(_mm256_mullo_epi16(a, b), lo_mask);
    __m256i odd = _mm256_slli_epi16(_mm256_mullo_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8)), 8);
    return _mm256_or_si256(even, odd);
}

/* 16-bit floats: 8 at a time to float and back. Rounding back is to
   nearest even as in precision.c; a NaN becomes the quiet NaN of its sign
   there, so NaN lanes are made that before converting. */
static AVX2 inline __m256 a2_ldf16(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }
static AVX2 inline void a2_stf16(uint16_t *p, __m256 v)
{
    __m256 qnan = _mm256_or_ps(_mm256_and_ps(v, _mm256_set1_ps(-0.0f)),
                               _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
    v = _mm256_blendv_ps(v, qnan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static AVX2 inline __m256 a2_ldbf16(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
/* precision.c's pipe_f32_to_bf16, 8 lanes: round to nearest even, NaN kept a NaN. */
static AVX2 inline __m256i bf16_round_avx2(__m256 v)
{
    __m256i bits = _mm256_castps_si256(v);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff)),
                                     _mm256_set1_epi32(0x7f800000));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd)), 16);
    __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
    return _mm256_blendv_epi8(rounded, quiet, nan);
}
static AVX2 inline void a2_stbf16(uint16_t *p, __m256 v)
{
    __m256i w = bf16_round_avx2(v); /* each lane < 2^16: the unsigned pack keeps it */
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(w, w), 0x08);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(packed));
}

#define A2_INT_OPS(pre, T, W, ADD, MUL, MAX, MIN, SADD, SMUL)                                              \
    VECTOR_OPS(pre, AVX2, T, T, __m256i, W, a2_ldi, a2_sti, ADD, MUL, MAX, MIN, S_LOAD, S_STORE, SADD, SMUL)

VECTOR_OPS(a2_f32, AVX2, float, float, __m256, 8, a2_ldf32, a2_stf32, _mm256_add_ps, _mm256_mul_ps, _mm256_max_ps,
           _mm256_min_ps, S_LOAD, S_STORE, S_ADD, S_MUL)
VECTOR_OPS(a2_f64, AVX2, double, double, __m256d, 4, a2_ldf64, a2_stf64, _mm256_add_pd, _mm256_mul_pd,
           _mm256_max_pd, _mm256_min_pd, S_LOAD, S_STORE, S_ADD, S_MUL)
A2_INT_OPS(a2_i32, int32_t, 8, _mm256_add_epi32, _mm256_mullo_epi32, _mm256_max_epi32, _mm256_min_epi32, S_ADD32,
           S_MUL32)
A2_INT_OPS(a2_i64, int64_t, 4, _mm256_add_epi64, a2_mul64, a2_max64, a2_min64, S_ADD64, S_MUL64)
A2_INT_OPS(a2_u8, uint8_t, 32, _mm256_add_epi8, a2_mul8, _mm256_max_epu8, _mm256_min_epu8, S_ADD8, S_MUL8)
VECTOR_OPS(a2_f16, AVX2, uint16_t, float, __m256, 8, a2_ldf16, a2_stf16, _mm256_add_ps, _mm256_mul_ps,
           _mm256_max_ps, _mm256_min_ps, F16_LOAD, F16_STORE, S_ADD, S_MUL)
VECTOR_OPS(a2_bf16, AVX2, uint16_t, float, __m256, 8, a2_ldbf16, a2_stbf16, _mm256_add_ps, _mm256_mul_ps,
           _mm256_max_ps, _mm256_min_ps, BF16_LOAD, BF16_STORE, S_ADD, S_MUL)

static const kernel_fn avx2_kernels[7][4] = {
    [PIPE_F32] = ROW(a2_f32), [PIPE_F64] = ROW(a2_f64), [PIPE_I32] = ROW(a2_i32),   [PIPE_I64] = ROW(a2_i64),
    [PIPE_U8] = ROW(a2_u8),   [PIPE_F16] = ROW(a2_f16), [PIPE_BF16] = ROW(a2_bf16),
};

/* ---- AVX-512 (F, BW for bytes, DQ for 64-bit products, VL) ---- */

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

static AVX512 inline __m512 a5_ldf32(const float *p) { return _mm512_loadu_ps(p); }
static AVX512 inline void a5_stf32(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
static AVX512 inline __m512d a5_ldf64(const double *p) { return _mm512_loadu_pd(p); }
static AVX512 inline void a5_stf64(double *p, __m512d v) { _mm512_storeu_pd(p, v); }
static AVX512 inline __m512i a5_ldi(const void *p) { return _mm512_loadu_si512(p); }
static AVX512 inline void a5_sti(void *p, __m512i v) { _mm512_storeu_si512(p, v); }
static AVX512 inline __m512i a5_mul8(__m512i a, __m512i b)
{
    __m512i lo_mask = _mm512_set1_epi16(0xff);
    __m512i even = _mm512_and_si512(_mm512_mullo_epi16(a, b), lo_mask);
    __m512i odd = _mm512_slli_epi16(_mm512_mullo_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8)), 8);
    return _mm512_or_si512(even, odd);
}
static AVX512 inline __m512 a5_ldf16(const uint16_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}
static AVX512 inline void a5_stf16(uint16_t *p, __m512 v)
{
    __m512i bits = _mm512_castps_si512(v);
    __m512i qnan = _mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32((int)0x80000000u)),
                                   _mm512_set1_epi32(0x7fc00000));
    v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_castsi512_ps(qnan));
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static AVX512 inline __m512 a5_ldbf16(const uint16_t *p)
{
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}
static AVX512 inline void a5_stbf16(uint16_t *p, __m512 v)
{
    __m512i bits = _mm512_castps_si512(v);
    __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), odd)), 16);
    __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40));
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(rounded, nan, quiet)));
}

#define A5_INT_OPS(pre, T, W, ADD, MUL, MAX, MIN, SADD, SMUL)                                              \
    VECTOR_OPS(pre, AVX512, T, T, __m512i, W, a5_ldi, a5_sti, ADD, MUL, MAX, MIN, S_LOAD, S_STORE, SADD, SMUL)

VECTOR_OPS(a5_f32, AVX512, float, float, __m512, 16, a5_ldf32, a5_stf32, _mm512_add_ps, _mm512_mul_ps,
           _mm512_max_ps, _mm512_min_ps, S_LOAD, S_STORE, S_ADD, S_MUL)
VECTOR_OPS(a5_f64, AVX512, double, double, __m512d, 8, a5_ldf64, a5_stf64, _mm512_add_pd, _mm512_mul_pd,
           _mm512_max_pd, _mm512_min_pd, S_LOAD, S_STORE, S_ADD, S_MUL)
A5_INT_OPS(a5_i32, int32_t, 16, _mm512_add_epi32, _mm512_mullo_epi32, _mm512_max_epi32, _mm512_min_epi32, S_ADD32,
           S_MUL32)
A5_INT_OPS(a5_i64, int64_t, 8, _mm512_add_epi64, _mm512_mullo_epi64, _mm512_max_epi64, _mm512_min_epi64, S_ADD64,
           S_MUL64)
A5_INT_OPS(a5_u8, uint8_t, 64, _mm512_add_epi8, a5_mul8, _mm512_max_epu8, _mm512_min_epu8, S_ADD8, S_MUL8)
VECTOR_OPS(a5_f16, AVX512, uint16_t, float, __m512, 16, a5_ldf16, a5_stf16, _mm512_add_ps, _mm512_mul_ps,
           _mm512_max_ps, _mm512_min_ps, F16_LOAD, F16_STORE, S_ADD, S_MUL)
VECTOR_OPS(a5_bf16, AVX512, uint16_t, float, __m512, 16, a5_ldbf16, a5_stbf16, _mm512_add_ps, _mm512_mul_ps,
           _mm512_max_ps, _mm512_min_ps, BF16_LOAD, BF16_STORE, S_ADD, S_MUL)

static const kernel_fn avx512_kernels[7][4] = {
    [PIPE_F32] = ROW(a5_f32), [PIPE_F64] = ROW(a5_f64), [PIPE_I32] = ROW(a5_i32),   [PIPE_I64] = ROW(a5_i64),
    [PIPE_U8] = ROW(a5_u8),   [PIPE_F16] = ROW(a5_f16), [PIPE_BF16] = ROW(a5_bf16),
};

static bool has_isa(pipe_coll_isa isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case PIPE_ISA_SCALAR: return true;
    case PIPE_ISA_AVX2: {
        /* F16C from CPUID leaf 1 (ECX bit 29): clang's builtin has no name for it. */
        unsigned a, b, c = 0, d;
        return __builtin_cpu_supports("avx2") && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
    }
    case PIPE_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    default: return false;
    }
}

static const kernel_fn (*table_of(pipe_coll_isa isa))[4]
{
    return isa == PIPE_ISA_AVX512 ? avx512_kernels : isa == PIPE_ISA_AVX2 ? avx2_kernels : scalar_kernels;
}

#else

static bool has_isa(pipe_coll_isa isa) { return isa == PIPE_ISA_SCALAR; }
static const kernel_fn (*table_of(pipe_coll_isa isa))[4]
{
    (void)isa;
    return scalar_kernels;
}

#endif

pipe_coll_isa pipe_coll_best_isa(void)
{
    /* Worked out once; every thread that races here writes the same value. */
    static int best = -1;
    int b = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (b < 0) {
        b = PIPE_ISA_SCALAR;
        for (int isa = PIPE_ISA_SCALAR + 1; isa < PIPE_ISA_COUNT; isa++)
            if (has_isa((pipe_coll_isa)isa))
                b = isa;
        __atomic_store_n(&best, b, __ATOMIC_RELAXED);
    }
    return (pipe_coll_isa)b;
}

const char *pipe_coll_isa_name(pipe_coll_isa isa)
{
    return isa == PIPE_ISA_AVX512 ? "avx512" : isa == PIPE_ISA_AVX2 ? "avx2" : "scalar";
}

static kernel_fn kernel_of(pipe_coll_isa isa, pipe_dtype dtype, pipe_op op)
{
    return table_of(isa)[dtype][op == PIPE_AVG ? PIPE_SUM : op];
}

bool pipe_coll_reduce_isa(pipe_coll_isa isa, void *dst, const void *const *srcs, int nsrc, size_t n,
                          pipe_dtype dtype, pipe_op op)
{
    if (isa < PIPE_ISA_SCALAR || isa >= PIPE_ISA_COUNT || !has_isa(isa))
        return false;
    kernel_of(isa, dtype, op)(dst, srcs, nsrc, n);
    return true;
}

void pipe_coll_reduce(void *dst, const void *const *srcs, int nsrc, size_t n, pipe_dtype dtype, pipe_op op)
{
    kernel_of(pipe_coll_best_isa(), dtype, op)(dst, srcs, nsrc, n);
}
