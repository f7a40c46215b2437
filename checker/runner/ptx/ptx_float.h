/* Float arithmetic as PTX defines it beyond the host's defaults (ptx_float.c): the rounding
 * modifiers .rz, .rm and .rp (each the IEEE operation in that mode: the host's own, under
 * fesetround), .ftz (subnormal inputs and results flushed to a zero of their sign) and .sat
 * (clamped to [0, 1], NaN to 0). ptx_exec.c calls these off its fast paths, where an instruction
 * asks for one. Values travel as doubles; an f32 one holds a float exactly. */
#ifndef WB_PTX_FLOAT_H
#define WB_PTX_FLOAT_H
#include <stdint.h>

enum ptx_fop { FOP_ADD, FOP_SUB, FOP_MUL, FOP_DIV, FOP_FMA, FOP_SQRT, FOP_RCP, FOP_CVT };

/* Whether rounding rnd (ptx.h's enum ptx_round) is a directed one: .rz, .rm or .rp. */
int ptx_directed(int rnd);
/* fop of a (b, c) rounded by rnd, in float (f32) or double; FOP_CVT: a rounded to f32's format. */
double ptx_fop(int fop, int rnd, int f32, double a, double b, double c);
/* The integer v (signed or not, 64 bits) as a float (f32) or double, rounded by rnd. */
double ptx_from_int(int rnd, int f32, int is_signed, uint64_t v);
/* x with .ftz: a subnormal float becomes a zero of its sign (f32 alone: .ftz is for .f32). */
double ptx_ftz(double x);
/* x with .sat: clamped to [0, 1], NaN to 0. */
double ptx_sat(double x);
/* One element of mma.m16n8k16's f32 D from halves (held as floats): c plus the 16 products
 * a[k] b[k], as the H200's tensor cores sum them (the bits of the conformance record): each
 * product exact, each term cut toward zero to 25 bits below the largest exponent among them
 * (a product's: the sum of its halves' exponents), the cut terms summed exactly, the sum rounded
 * toward zero to a float; a NaN, or infinities of both signs, give the canonical NaN. */
uint32_t ptx_tensor_dot16(const float *a, const float *b, float c);
/* A row of A or a column of B, its 16 halves (held as floats) made ready once for the many dot
 * products that read it: each with its exponent as the alignment counts it. */
struct tensor_row {
    float f[16];
    int32_t e[16]; /* a half's exponent (a subnormal half's: -14); far below any for a zero */
    int special;   /* a NaN or an infinity among them */
};
/* r from x[0], x[stride], ..., x[15 stride]. */
void ptx_tensor_row(struct tensor_row *r, const float *x, int stride);
/* ptx_tensor_dot16 of a row of A and a column of B made ready, the same bits. */
uint32_t ptx_tensor_dot_rows(const struct tensor_row *a, const struct tensor_row *b, float c);
/* The same for a whole mma: its A (16 x 16) and B (16 x 8) read once, each element of D from c
 * (16 x 8) into d (16 x 8) as ptx_tensor_dot16 makes it. */
void ptx_tensor_mma(const float a[16][16], const float b[16][8], const float c[16][8], uint32_t d[16][8]);

#endif
