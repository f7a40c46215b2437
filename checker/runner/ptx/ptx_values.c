/* The values of PTX's arithmetic (ptx_values.h): integer and float operations, comparisons and
 * conversions, with the H200's NaNs, roundings and flushes. */
#include "ptx_values.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "half.h"
#include "ptx_float.h"

/* mul24's and mad24's product: the low 24 bits of a and b (signed types: each sign-extended from
 * bit 23); its low 32 bits, or with .hi its bits 16 to 47. */
uint64_t ptx_mul24(uint64_t a, uint64_t b, int ty, int hi)
{
    a &= 0xffffff, b &= 0xffffff;
    if (ptx_type_signed(ty)) {
        int64_t p = (((int64_t)(a << 40)) >> 40) * (((int64_t)(b << 40)) >> 40);
        return hi ? (uint64_t)(p >> 16) : (uint64_t)p;
    }
    return hi ? (a * b) >> 16 : a * b;
}

uint64_t ptx_int_binary(int op, int flags, int ty, uint64_t a, uint64_t b)
{
    int w = width(ty), s = ptx_type_signed(ty);
    uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
    int64_t sa = (int64_t)extend(a, ty), sb = (int64_t)extend(b, ty);
    uint64_t ua = a & mask, ub = b & mask;
    if ((flags & F_SAT) && s && w == 32 && (op == OP_ADD || op == OP_SUB)) { /* add/sub.sat.s32: clamped */
        int64_t r = op == OP_ADD ? sa + sb : sa - sb;
        r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
        return (uint64_t)r & mask;
    }
    switch (op) {
    case OP_ADD: return (a + b) & mask;
    case OP_SUB: return (a - b) & mask;
    case OP_MUL:
    case OP_MUL24:
        if (flags & F_WIDE)
            return s ? (uint64_t)((int64_t)(int32_t)sa * (int64_t)(int32_t)sb) : (uint64_t)((ua & 0xffffffffu) * (ub & 0xffffffffu));
        if (flags & F_HI) {
            if (w == 64) {
                if (s)
                    return (uint64_t)(((__int128)sa * (__int128)sb) >> 64);
                return (uint64_t)(((unsigned __int128)ua * (unsigned __int128)ub) >> 64);
            }
            return s ? (uint64_t)((sa * sb) >> w) & mask : ((ua * ub) >> w) & mask;
        }
        return (a * b) & mask;
    case OP_DIV:
        if (ub == 0)
            return mask;
        if (s) {
            if (sb == -1)
                return (uint64_t)(-(uint64_t)sa) & mask;
            return (uint64_t)(sa / sb) & mask;
        }
        return ua / ub;
    case OP_REM:
        if (ub == 0) /* all ones, as div's: the H200's (conformance record) */
            return mask;
        if (s) {
            if (sb == -1)
                return 0;
            return (uint64_t)(sa % sb) & mask;
        }
        return ua % ub;
    case OP_MIN: return s ? (uint64_t)(sa < sb ? sa : sb) & mask : (ua < ub ? ua : ub);
    case OP_MAX: return s ? (uint64_t)(sa > sb ? sa : sb) & mask : (ua > ub ? ua : ub);
    case OP_AND: return a & b & mask;
    case OP_OR: return (a | b) & mask;
    case OP_XOR: return (a ^ b) & mask;
    case OP_SHL: return (b & 0xffffffffu) >= (uint64_t)w ? 0 : (a << (b & 0xffffffffu)) & mask;
    case OP_SHR: {
        uint64_t n = b & 0xffffffffu;
        if (s)
            return (uint64_t)(sa >> (n >= (uint64_t)w ? w - 1 : (int)n)) & mask;
        return n >= (uint64_t)w ? 0 : ua >> n;
    }
    default: return 0;
    }
}

static double fbinary(int op, double a, double b, int ty)
{
    switch (op) {
    case OP_ADD: return ty == T_F32 ? (double)((float)a + (float)b) : a + b;
    case OP_SUB: return ty == T_F32 ? (double)((float)a - (float)b) : a - b;
    case OP_MUL: return ty == T_F32 ? (double)((float)a * (float)b) : a * b;
    case OP_DIV: return ty == T_F32 ? (double)((float)a / (float)b) : a / b;
    /* (-0 below +0: the H200's, conformance record) */
    case OP_MIN: return isnan(a) ? b : isnan(b) ? a : a < b || (a == b && signbit(a)) ? a : b;
    case OP_MAX: return isnan(a) ? b : isnan(b) ? a : a > b || (a == b && !signbit(a)) ? a : b;
    default: return 0;
    }
}

/* in's .ftz (f32 alone) on a value: a subnormal becomes a zero of its sign. */
double ptx_flush(const struct ptx_insn *in, double x)
{
    return in->type == T_F32 && (in->flags & F_FTZ) ? ptx_ftz(x) : x;
}

/* .ftz of a result that rounded up to the smallest normal: flushed all the same, for it was
 * below it before rounding (the H200's; conformance record). exact: the result, or a double close
 * enough to tell. */
static inline double flush_tiny(const struct ptx_insn *in, double exact, double r)
{
    if (in->type == T_F32 && (in->flags & F_FTZ) && fabs(r) == FLT_MIN && fabs(exact) < FLT_MIN)
        return copysign(0.0, r);
    return r;
}

/* A float binary operation as in asks for it: .ftz on its inputs and result, its rounding mode,
 * .sat. */
double ptx_float_binary(const struct ptx_insn *in, double a, double b)
{
    int fop = in->op == OP_ADD ? FOP_ADD : in->op == OP_SUB ? FOP_SUB : in->op == OP_MUL ? FOP_MUL
              : in->op == OP_DIV ? FOP_DIV : -1;
    a = ptx_flush(in, a), b = ptx_flush(in, b);
    double r = fop >= 0 && ptx_directed(in->rnd) ? ptx_fop(fop, in->rnd, in->type == T_F32, a, b, 0)
                                                 : fbinary(in->op, a, b, in->type);
    if (fop == FOP_MUL) /* (the product of two floats is exact in a double) */
        r = flush_tiny(in, a * b, r);
    else if (fop == FOP_ADD || fop == FOP_SUB)
        r = flush_tiny(in, fop == FOP_ADD ? a + b : a - b, r);
    r = ptx_flush(in, r);
    return in->flags & F_SAT ? ptx_sat(r) : r;
}

/* fma (and mad) of floats as in asks for it: fused, one rounding in its mode. */
double ptx_float_fma(const struct ptx_insn *in, double a, double b, double c)
{
    int f32 = in->type == T_F32;
    a = ptx_flush(in, a), b = ptx_flush(in, b), c = ptx_flush(in, c);
    double r = ptx_directed(in->rnd) ? ptx_fop(FOP_FMA, in->rnd, f32, a, b, c)
               : f32                 ? (double)fmaf((float)a, (float)b, (float)c)
                                     : fma(a, b, c);
    r = flush_tiny(in, fma(a, b, c), r);
    r = ptx_flush(in, r);
    return in->flags & F_SAT ? ptx_sat(r) : r;
}

int ptx_compare(int cmp, int ty, uint64_t a, uint64_t b)
{
    if (is_f(ty)) {
        double x = fval(a, ty), y = fval(b, ty);
        int un = isnan(x) || isnan(y);
        switch (cmp) {
        case C_EQ: return !un && x == y;
        case C_NE: return !un && x != y;
        case C_LT: return !un && x < y;
        case C_LE: return !un && x <= y;
        case C_GT: return !un && x > y;
        case C_GE: return !un && x >= y;
        case C_EQU: return un || x == y;
        case C_NEU: return un || x != y;
        case C_LTU: return un || x < y;
        case C_LEU: return un || x <= y;
        case C_GTU: return un || x > y;
        case C_GEU: return un || x >= y;
        case C_NUM: return !un;
        case C_NAN: return un;
        default: return 0;
        }
    }
    int s = ptx_type_signed(ty) && cmp != C_LO && cmp != C_LS && cmp != C_HI && cmp != C_HS;
    uint64_t ua = extend(a, ty), ub = extend(b, ty);
    if (ty == T_PRED)
        ua &= 1, ub &= 1;
    int64_t sa = (int64_t)ua, sb = (int64_t)ub;
    switch (cmp) {
    case C_EQ: return ua == ub;
    case C_NE: return ua != ub;
    case C_LT: return s ? sa < sb : ua < ub;
    case C_LE: return s ? sa <= sb : ua <= ub;
    case C_GT: return s ? sa > sb : ua > ub;
    case C_GE: return s ? sa >= sb : ua >= ub;
    case C_LO: return ua < ub;
    case C_LS: return ua <= ub;
    case C_HI: return ua > ub;
    case C_HS: return ua >= ub;
    default: return 0;
    }
}

static double round_to_int(double x, int rnd)
{
    switch (rnd) {
    case R_RNI: case R_RN: return nearbyint(x);
    case R_RMI: case R_RM: return floor(x);
    case R_RPI: case R_RP: return ceil(x);
    default: return trunc(x);
    }
}

uint64_t ptx_convert(const struct ptx_insn *in, uint64_t v)
{
    int dt = in->type, st = in->type2;
    /* Halves: to one from a float, and from one to either; no arithmetic on them. From a double
     * through a float: rounding twice gives the same half (a float has 2 x 11 + 2 bits), but the
     * float is rounded in the cvt's mode (rz: never up to infinity). A double's NaN gives the
     * half's quiet NaN with its sign (the H200's; an f32's gives 0x7fff). */
    if (dt == T_F16 && st == T_F64 && nan_bits(v, T_F64) && !(in->flags & F_SAT))
        return 0x7e00 | (v >> 63 << 15);
    /* .sat limits a half's value to [0, 1] (a NaN to +0) as a float's: 0 and 1 are halves, and
     * rounding keeps order, so saturating before the rounding gives the same half. */
    if (dt == T_F16 && is_f(st)) {
        double d = fval(v, st);
        d = in->flags & F_SAT ? ptx_sat(d) : d;
        return float_to_half(st == T_F64 && in->rnd == R_RZ ? (float)ptx_fop(FOP_CVT, R_RZ, 1, d, 0, 0) : (float)d,
                             in->rnd == R_RZ);
    }
    /* A half's NaN to a float: the canonical 0x7fffffff whatever its sign and payload (the H100's
     * record, 2026-12-07); to a double, the float's NaN widened (the same record). */
    if (st == T_F16 && dt == T_F32 && !(in->flags & F_SAT) && (v & 0x7c00) == 0x7c00 && (v & 0x3ff))
        return 0x7fffffffu;
    if (st == T_F16 && is_f(dt))
        return in->flags & F_SAT ? fput(ptx_sat(half_to_float((uint16_t)v)), dt) : fput(half_to_float((uint16_t)v), dt);
    int ftz_in = st == T_F32 && (in->flags & F_FTZ), ftz_out = dt == T_F32 && (in->flags & F_FTZ);
    if (is_f(dt) && is_f(st)) { /* rounded to an integer, or to a float in its mode; .ftz, .sat */
        double d = fval(v, st);
        d = ftz_in ? ptx_ftz(d) : d;
        if (in->rnd >= R_RNI)
            d = round_to_int(d, in->rnd);
        else if (dt == T_F32 && st == T_F64 && ptx_directed(in->rnd))
            d = ptx_fop(FOP_CVT, in->rnd, 1, d, 0, 0);
        d = dt == T_F32 ? (double)(float)d : d;
        d = ftz_out ? ptx_ftz(d) : d;
        uint64_t bits = fput(in->flags & F_SAT ? ptx_sat(d) : d, dt);
        /* NaNs, the H200's (conformance record): f32 to f32 canonical; .ftz from an f32 the
         * canonical f32 NaN widened; f64 rounded to an integer quieted */
        if (ftz_in && dt == T_F64 && isnan(d))
            return fput(as_f(0x7fffffffu), dt);
        return (dt == T_F32 && st == T_F32) || (st == T_F64 && in->rnd >= R_RNI) ? gpu_nan(bits, dt) : bits;
    }
    if (is_f(dt)) { /* from an integer, rounded once in its mode */
        double d = ptx_type_signed(st) ? (double)(int64_t)extend(v, st) : (double)extend(v, st);
        if (ptx_directed(in->rnd))
            d = ptx_from_int(in->rnd, dt == T_F32, ptx_type_signed(st), extend(v, st));
        else if ((st == T_S64 || st == T_U64) && dt == T_F32) /* to float directly, not through a double */
            d = ptx_type_signed(st) ? (float)(int64_t)v : (float)v;
        return fput(in->flags & F_SAT ? ptx_sat(d) : d, dt);
    }
    if (is_f(st)) { /* to an integer: rounded, saturated, NaN to 0 */
        double d = fval(v, st);
        d = ftz_in ? ptx_ftz(d) : d;
        int w = width(dt);
        if (isnan(d)) /* the H200's (conformance record): the top bit alone, but 0 from an f32 into 32 bits or fewer */
            return st == T_F32 && w <= 32 ? 0 : 1ull << (w - 1);
        d = round_to_int(d, in->rnd ? in->rnd : R_RZI);
        if (ptx_type_signed(dt)) {
            double lo = -ldexp(1, w - 1), hi = ldexp(1, w - 1); /* hi: the first value past the range */
            if (d >= hi)
                return extend((1ull << (w - 1)) - 1, dt);
            d = d < lo ? lo : d;
            return extend((uint64_t)(int64_t)d, dt);
        }
        double hi = ldexp(1, w);
        if (d >= hi)
            return w == 64 ? ~0ull : (1ull << w) - 1;
        d = d < 0 ? 0 : d;
        return (uint64_t)d;
    }
    /* integer to integer: the source extended by its type, cut to the destination's */
    uint64_t x = extend(v, st);
    if (in->flags & F_SAT) {
        int w = width(dt);
        if (ptx_type_signed(dt)) {
            int64_t lo = -(int64_t)(1ull << (w - 1)), hi = (int64_t)((1ull << (w - 1)) - 1), s = (int64_t)x;
            if (!ptx_type_signed(st) && x > (uint64_t)hi)
                s = hi;
            return extend((uint64_t)(s < lo ? lo : s > hi ? hi : s), dt);
        }
        if (ptx_type_signed(st) && (int64_t)x < 0)
            return 0;
        uint64_t hi = w == 64 ? ~0ull : (1ull << w) - 1;
        return x > hi ? hi : x;
    }
    return extend(x, dt);
}

