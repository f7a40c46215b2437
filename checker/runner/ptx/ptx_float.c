/* Float arithmetic in PTX's rounding modes (ptx_float.h). The host's IEEE operations round as its
 * FPU's mode says, so each directed operation sets the mode, computes, and sets it back. A compiler
 * that assumes the default mode may move arithmetic across fesetround: the operands pass through
 * an empty asm after the mode is set, and the result through another before it is restored, so
 * the operation can happen only between the two. */
#include "ptx_float.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ptx.h"

/* x as the compiler cannot know it: whatever comes next must use x as it is here. */
#define OPAQUE(x) __asm__ volatile("" : "+m"(x) : : "memory")

int ptx_directed(int rnd)
{
    return rnd == R_RZ || rnd == R_RM || rnd == R_RP;
}

static int host_mode(int rnd)
{
    return rnd == R_RZ ? FE_TOWARDZERO : rnd == R_RM ? FE_DOWNWARD : rnd == R_RP ? FE_UPWARD : FE_TONEAREST;
}

static float f32_op(int fop, float x, float y, float z, double a)
{
    switch (fop) {
    case FOP_ADD: return x + y;
    case FOP_SUB: return x - y;
    case FOP_MUL: return x * y;
    case FOP_DIV: return x / y;
    case FOP_FMA: return fmaf(x, y, z);
    case FOP_SQRT: return sqrtf(x);
    case FOP_RCP: return 1.0f / x;
    default: return (float)a; /* FOP_CVT */
    }
}

static double f64_op(int fop, double x, double y, double z)
{
    switch (fop) {
    case FOP_ADD: return x + y;
    case FOP_SUB: return x - y;
    case FOP_MUL: return x * y;
    case FOP_DIV: return x / y;
    case FOP_FMA: return fma(x, y, z);
    case FOP_SQRT: return sqrt(x);
    case FOP_RCP: return 1.0 / x;
    default: return x;
    }
}

double ptx_fop(int fop, int rnd, int f32, double a, double b, double c)
{
    int old = fegetround();
    double r;
    fesetround(host_mode(rnd));
    if (f32) {
        float x = (float)a, y = (float)b, z = (float)c, s; /* exact: f32 operands are floats */
        OPAQUE(x);
        OPAQUE(y);
        OPAQUE(z);
        OPAQUE(a);
        s = f32_op(fop, x, y, z, a);
        OPAQUE(s);
        r = s;
    } else {
        OPAQUE(a);
        OPAQUE(b);
        OPAQUE(c);
        r = f64_op(fop, a, b, c);
        OPAQUE(r);
    }
    fesetround(old);
    return r;
}

double ptx_from_int(int rnd, int f32, int is_signed, uint64_t v)
{
    int old = fegetround();
    double r;
    int64_t s = (int64_t)v;
    fesetround(host_mode(rnd));
    OPAQUE(v);
    OPAQUE(s);
    if (f32) {
        float x = is_signed ? (float)s : (float)v;
        OPAQUE(x);
        r = x;
    } else {
        r = is_signed ? (double)s : (double)v;
        OPAQUE(r);
    }
    fesetround(old);
    return r;
}

double ptx_ftz(double x)
{
    return fpclassify((float)x) == FP_SUBNORMAL ? copysign(0.0, x) : x;
}

double ptx_sat(double x)
{
    return isnan(x) ? 0.0 : x <= 0 ? 0.0 : x > 1 ? 1.0 : x; /* -0 too: +0 (the H200's) */
}

/* A float's bits. */
static inline uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

/* x's magnitude on the grid of 2^q: its bits shifted, cut toward zero (shift: q's distance from
 * the grid the significand is on; negative shifts right). */
static inline int64_t on_grid(uint64_t significand, int shift, int negative)
{
    uint64_t v = shift >= 0 ? significand << shift : -shift >= 64 ? 0 : significand >> -shift;
    return negative ? -(int64_t)v : (int64_t)v;
}

/* c's exponent (INT32_MIN for a zero), and c on the grid of 2^(top - 25). */
static int c_exponent(uint32_t cu)
{
    int ce = (int)(cu >> 23 & 0xff), cm = (int)(cu & 0x7fffff);
    return ce ? ce - 127 : cm ? 31 - __builtin_clz((unsigned)cm) - 149 : INT32_MIN;
}
static int64_t c_on_grid(uint32_t cu, int top)
{
    int ce = (int)(cu >> 23 & 0xff), cm = (int)(cu & 0x7fffff);
    return on_grid(ce ? (uint64_t)(cm | 0x800000) : (uint64_t)cm, (ce ? ce : 1) - 150 - (top - 25), (int)(cu >> 31));
}

/* 2^e as a double, for e within a normal double's exponents (multiplying by it is exact). */
static inline double power_of_two(int e)
{
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* The sum on the grid of 2^(top - 25) rounded toward zero to a float's bits (0: +0). */
static uint32_t rounded_sum(int64_t sum, int top)
{
    if (sum == 0)
        return 0;
    double d = (double)sum * power_of_two(top - 25); /* exact: |sum| < 2^32 */
    float r = (float)d;
    if (fabs((double)r) > fabs(d)) /* rounded away from zero: one step back */
        r = nextafterf(r, 0.0f);
    return bits_of(r);
}

/* (Each term is worked on its bits, not with ldexp and ilogb: lesson 10 makes millions of them.) */
uint32_t ptx_tensor_dot16(const float *a, const float *b, float c)
{
    uint32_t cu = bits_of(c);
    int nan = isnan(c), inf_pos = isinf(c) && c > 0, inf_neg = isinf(c) && c < 0, top = INT32_MIN;
    int e[16]; /* each product's exponent, the sum of its halves' (a subnormal half's: -14) */
    for (int k = 0; k < 16; k++) {
        float p = a[k] * b[k]; /* (only its class is used: NaN, infinite, zero) */
        nan |= isnan(p);
        inf_pos |= isinf(p) && p > 0, inf_neg |= isinf(p) && p < 0;
        int ea = (int)(bits_of(a[k]) >> 23 & 0xff) - 127, eb = (int)(bits_of(b[k]) >> 23 & 0xff) - 127;
        e[k] = (ea < -14 ? -14 : ea) + (eb < -14 ? -14 : eb);
        if (a[k] != 0 && b[k] != 0 && !isnan(p) && !isinf(p) && e[k] > top)
            top = e[k];
    }
    if (nan || (inf_pos && inf_neg))
        return 0x7fffffffu;
    if (inf_pos || inf_neg)
        return inf_pos ? 0x7f800000u : 0xff800000u;
    int c_exp = c_exponent(cu);
    if (c_exp > top)
        top = c_exp;
    if (top == INT32_MIN)
        return 0; /* every term zero: +0 */
    /* The grid is 2^(top - 25). A float's significand (24 bits, the implicit one with it) is on
     * 2^(E - 150); a product of two, on 2^(Ea + Eb - 300). */
    int64_t sum = c_exp == INT32_MIN ? 0 : c_on_grid(cu, top);
    for (int k = 0; k < 16; k++) {
        uint32_t au = bits_of(a[k]), bu = bits_of(b[k]);
        if (a[k] == 0 || b[k] == 0)
            continue;
        uint64_t m = (uint64_t)((au & 0x7fffff) | 0x800000) * ((bu & 0x7fffff) | 0x800000);
        sum += on_grid(m, (int)(au >> 23 & 0xff) + (int)(bu >> 23 & 0xff) - 300 - (top - 25), (au ^ bu) >> 31);
    }
    return rounded_sum(sum, top);
}

#define TERM_ZERO (-(1 << 20)) /* a zero's exponent: any sum with it is below every real one */

void ptx_tensor_row(struct tensor_row *r, const float *x, int stride)
{
    r->special = 0;
    for (int k = 0; k < 16; k++) {
        float v = x[k * stride];
        int e = (int)(bits_of(v) >> 23 & 0xff) - 127;
        r->f[k] = v;
        r->e[k] = v == 0 ? TERM_ZERO : e < -14 ? -14 : e;
        r->special |= !isfinite(v);
    }
}

/* ptx_tensor_dot16's sum without its branches: a product of two halves is exact in a float (22
 * bits, 2^-48 or more), and so is its scaling by 2^(25 - top) onto the grid, where it is below 2^27
 * (a product is below 2^(top + 2)) and, where it is 1 or more, a normal float; the conversion to an
 * integer cuts it toward zero, as the tensor cores cut it (a term below 1 is 0 however the scaling
 * rounded it). The 16 terms' sum fits 32 bits; c on the grid (in a double: 2^(25 - top) may be
 * past a float's range), cut the same way. */
uint32_t ptx_tensor_dot_rows(const struct tensor_row *a, const struct tensor_row *b, float c)
{
    if (a->special || b->special || !isfinite(c))
        return ptx_tensor_dot16(a->f, b->f, c); /* NaNs and infinities: the general way */
    uint32_t cu = bits_of(c);
    int top = cu << 1 ? c_exponent(cu) : 2 * TERM_ZERO;
    for (int k = 0; k < 16; k++) {
        int s = a->e[k] + b->e[k];
        top = s > top ? s : top;
    }
    if (top < -1000) /* every term zero: +0 */
        return 0;
    double scale = power_of_two(25 - top);
    int32_t terms = 0;
    if (25 - top < 127) { /* (else every product is 0: a nonzero one's exponents sum to -28 or more) */
        float f = (float)scale;
        for (int k = 0; k < 16; k++)
            terms += (int32_t)(a->f[k] * b->f[k] * f);
    }
    return rounded_sum((int64_t)((double)c * scale) + terms, top);
}

void ptx_tensor_mma(const float a[16][16], const float b[16][8], const float c[16][8], uint32_t d[16][8])
{
    struct tensor_row ra[16], rb[8];
    for (int m = 0; m < 16; m++)
        ptx_tensor_row(&ra[m], a[m], 1);
    for (int n = 0; n < 8; n++)
        ptx_tensor_row(&rb[n], &b[0][n], 8);
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++)
            d[m][n] = ptx_tensor_dot_rows(&ra[m], &rb[n], c[m][n]);
}
