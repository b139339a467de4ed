/* The 16-bit float conversions (pipe/precision.h): plain functions that
   call nothing, for step code and for the CPU collectives' reductions. The
   loss scaler, which calls a collective, is loss_scaler.c. */
#include "pipe/precision.h"

#include <string.h>

float pipe_bf16_to_f32(pipe_bf16 h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

pipe_bf16 pipe_f32_to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return (pipe_bf16)((bits >> 16) | 0x40); /* keep NaN a NaN */
    bits += 0x7fffu + ((bits >> 16) & 1u);      /* round to nearest even */
    return (pipe_bf16)(bits >> 16);
}

float pipe_f16_to_f32(pipe_f16 h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else { /* subnormal: normalize */
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                exp--;
            }
            bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

pipe_f16 pipe_f32_to_f16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint32_t sign = (bits >> 16) & 0x8000u;
    int32_t exp = (int32_t)((bits >> 23) & 0xffu) - 127 + 15;
    uint32_t mant = bits & 0x7fffffu;
    if (((bits >> 23) & 0xffu) == 0xffu)
        return (pipe_f16)(sign | 0x7c00u | (mant ? 0x200u : 0));
    if (exp >= 31)
        return (pipe_f16)(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10)
            return (pipe_f16)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u)))
            half++;
        return (pipe_f16)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent: that is the correct rounding */
    return (pipe_f16)half;
}

void pipe_f32_to_f16_n(const float *src, pipe_f16 *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pipe_f32_to_f16(src[i]);
}

void pipe_f16_to_f32_n(const pipe_f16 *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pipe_f16_to_f32(src[i]);
}

void pipe_f32_to_bf16_n(const float *src, pipe_bf16 *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pipe_f32_to_bf16(src[i]);
}

void pipe_bf16_to_f32_n(const pipe_bf16 *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pipe_bf16_to_f32(src[i]);
}
