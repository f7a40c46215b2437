/* IEEE 754 half precision (binary16), as bits: the conversions the PTX interpreter's cvt and
 * mma need, and the runners' for a family whose inputs are halves (family.h). */
#ifndef WB_HALF_H
#define WB_HALF_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A half's bits as a float (exact: every half is a float). */
static inline float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    if (e == 0x1f)
        u = sign | 0x7f800000u | (m << 13); /* inf, nan */
    else if (e)
        u = sign | ((e + 112) << 23) | (m << 13);
    else if (!m)
        u = sign; /* zero */
    else { /* subnormal: normalise */
        int shift = 0;
        while (!(m & 0x400))
            m <<= 1, shift++;
        u = sign | ((uint32_t)(113 - shift) << 23) | ((m & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A float to the nearest half, ties to even (toward_zero: truncated, as cvt.rz): the bits. */
static inline uint16_t float_to_half(float f, int toward_zero)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (e == 0xff)
        return (uint16_t)(m ? 0x7fff : sign | 0x7c00); /* a NaN: the GPU's canonical one */
    int big = (int)e - 112; /* the half's exponent field */
    uint32_t v, s;          /* v shifted right by s, rounded, is the half without its sign */
    if (big > 0)
        v = (uint32_t)big << 23 | m, s = 13;
    else if (e >= 102) /* a half subnormal, or a tie with zero */
        v = m | 0x800000, s = (uint32_t)(126 - (int)e);
    else
        return (uint16_t)sign;
    uint32_t r = v >> s, rem = v & ((1u << s) - 1), half = 1u << (s - 1);
    if (!toward_zero && (rem > half || (rem == half && (r & 1))))
        r++; /* a carry into the exponent is right, up to infinity */
    if (r >= 0x7c00)
        r = toward_zero ? 0x7bff : 0x7c00;
    return (uint16_t)(sign | r);
}

/* n floats into halves (to nearest). */
static inline void floats_to_halves(const float *in, uint16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = float_to_half(in[i], 0);
}

#endif
