/* The values of PTX's arithmetic (ptx_values.c): what an instruction makes of its operands' bits,
 * bit for bit as the H200 makes it (the conformance suite, checker/tests/conformance/, holds each
 * form to the GPU's record). Pure functions of their arguments: no registers, memory or warps,
 * which are ptx_exec.c's. Values travel as the 64 bits of a register; a float's as its double
 * (fval and fput), which holds an f32 exactly. */
#ifndef WB_PTX_VALUES_H
#define WB_PTX_VALUES_H
#include <stdint.h>

#include "ptx.h"

/* The bits of value seen as `type`, of the same size: a register's float or double, and back. */
#define SAME_BITS(type, value) (((union { __typeof__(value) from; type to; }){.from = (value)}).to)
static inline float as_f(uint64_t v) { return SAME_BITS(float, (uint32_t)v); }
static inline double as_d(uint64_t v) { return SAME_BITS(double, v); }
static inline uint64_t of_f(float f) { return SAME_BITS(uint32_t, f); }
static inline uint64_t of_d(double d) { return SAME_BITS(uint64_t, d); }

/* The bits of a value of type t, sign- or zero-extended to 64. */
static inline uint64_t extend(uint64_t v, int t)
{
    switch (t) {
    case T_S8: return (uint64_t)(int64_t)(int8_t)v;
    case T_S16: return (uint64_t)(int64_t)(int16_t)v;
    case T_S32: return (uint64_t)(int64_t)(int32_t)v;
    case T_B8: case T_U8: return v & 0xff;
    case T_B16: case T_U16: case T_F16: case T_BF16: return v & 0xffff;
    case T_B32: case T_U32: case T_F32: case T_F16X2: return v & 0xffffffffu;
    case T_PRED: return v & 1;
    default: return v;
    }
}

static inline int is_f(int ty)
{
    return ty == T_F32 || ty == T_F64;
}

/* An arithmetic result's NaN as the H200 gives it (the conformance suite's record, 2026-12-05):
 * every f32 NaN the canonical 0x7fffffff, whatever the operands' payloads and signs; an f64 NaN
 * keeps its payload and sign, quieted. */
static inline int nan_bits(uint64_t bits, int ty)
{
    return ty == T_F32 ? (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu)
                       : (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0xfffffffffffffull);
}
static inline uint64_t gpu_nan(uint64_t bits, int ty)
{
    if (!nan_bits(bits, ty))
        return bits;
    return ty == T_F32 ? 0x7fffffffu : bits | 0x0008000000000000ull;
}

/* An f64 operation with NaN operands gives one of them, quieted, its sign kept (sub's b too): in
 * the order first, second, third (the H200's, conformance record: add, sub and mul b before a;
 * fma b, then c, then a). r: the result otherwise. */
static inline uint64_t nan_operand(int ty, uint64_t r, uint64_t first, uint64_t second, uint64_t third)
{
    if (ty != T_F64)
        return r;
    return nan_bits(first, ty) ? gpu_nan(first, ty) : nan_bits(second, ty) ? gpu_nan(second, ty)
           : nan_bits(third, ty) ? gpu_nan(third, ty) : r;
}

static inline double fval(uint64_t v, int ty)
{
    return ty == T_F32 ? (double)as_f(v) : as_d(v);
}
static inline uint64_t fput(double d, int ty)
{
    return ty == T_F32 ? of_f((float)d) : of_d(d);
}

/* Integer bits of width: the type's. */
static inline int width(int ty)
{
    return 8 * ptx_type_bytes(ty);
}

/* mul24's and mad24's product of a and b (the low 24 bits of each), its low 32 bits or with hi
 * its bits 16 to 47. */
uint64_t ptx_mul24(uint64_t a, uint64_t b, int ty, int hi);
/* An integer add, sub, mul (.lo, .hi, .wide), div, rem, min, max, and, or, xor, shl or shr of
 * type ty, with flags' .sat, .hi and .wide. */
uint64_t ptx_int_binary(int op, int flags, int ty, uint64_t a, uint64_t b);
/* in's .ftz (f32 alone) on a value: a subnormal becomes a zero of its sign. */
double ptx_flush(const struct ptx_insn *in, double x);
/* A float add, sub, mul, div, min or max as in asks for it: .ftz, its rounding mode, .sat. */
double ptx_float_binary(const struct ptx_insn *in, double a, double b);
/* fma (and mad) of floats as in asks for it: fused, one rounding in its mode. */
double ptx_float_fma(const struct ptx_insn *in, double a, double b, double c);
/* setp's comparison cmp of a and b, of type ty: 0 or 1 (a float's unordered forms true on NaN). */
int ptx_compare(int cmp, int ty, uint64_t a, uint64_t b);
/* cvt as in asks for it: v of in's second type to its first, rounded, flushed, saturated. */
uint64_t ptx_convert(const struct ptx_insn *in, uint64_t v);

#endif
