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

/* A half's exponent (held as a float): a subnormal half's is the smallest normal one's. */
static int half_exponent(float x)
{
    int e = ilogbf(x);
    return e < -14 ? -14 : e;
}

uint32_t ptx_tensor_dot16(const float *a, const float *b, float c)
{
    int nan = isnan(c), inf_pos = isinf(c) && c > 0, inf_neg = isinf(c) && c < 0, top = INT32_MIN;
    for (int k = 0; k < 16; k++) {
        double p = (double)a[k] * (double)b[k];
        nan |= isnan(p);
        inf_pos |= isinf(p) && p > 0, inf_neg |= isinf(p) && p < 0;
        if (p != 0 && !isnan(p) && !isinf(p) && half_exponent(a[k]) + half_exponent(b[k]) > top)
            top = half_exponent(a[k]) + half_exponent(b[k]);
    }
    if (nan || (inf_pos && inf_neg))
        return 0x7fffffffu;
    if (inf_pos || inf_neg)
        return inf_pos ? 0x7f800000u : 0xff800000u;
    if (c != 0 && ilogbf(c) > top)
        top = ilogbf(c);
    if (top == INT32_MIN)
        return 0; /* every term zero: +0 */
    int64_t sum = (int64_t)ldexp((double)c, 25 - top); /* (the cast cuts toward zero) */
    for (int k = 0; k < 16; k++)
        sum += (int64_t)ldexp((double)a[k] * (double)b[k], 25 - top);
    float r = (float)ptx_fop(FOP_CVT, R_RZ, 1, ldexp((double)sum, top - 25), 0, 0);
    uint32_t bits;
    memcpy(&bits, &r, 4);
    return sum == 0 ? 0 : bits;
}
