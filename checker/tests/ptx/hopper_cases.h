/* The probes of hopper.cu that the GPU answers once (checker/bench/hopper-conform.cu records its
 * answers in checker/tests/conformance/records/hopper-probes.txt) and the interpreter must answer the same,
 * bit for bit (test_ptx_hopper.c): tensor copies in each swizzle mode, inside, across and before
 * the tensor's edges; wgmma products of random halves through descriptors of each swizzle mode,
 * k-major and mn-major. Plain C, for the test and for the GPU's host code alike. */
#ifndef WB_HOPPER_CASES_H
#define WB_HOPPER_CASES_H
#include <stdint.h>
#include <string.h>

/* The tensor the copies read: 100 halves a row (rows 208 bytes apart: a multiple of 16, as the TMA
 * needs), 37 rows; element i's bits a function of i alone. */
#define TMA_COLS 100
#define TMA_ROWS 37
#define TMA_ROW_BYTES 208
static inline uint16_t tma_element(int i)
{
    return (uint16_t)(i * 7919u + 13u);
}

static const struct tma_case {
    const char *name;
    int swizzle, box_x, box_y, x, y; /* swizzle: 0 or the span in bytes */
} tma_cases[] = {
    {"tma none 24x8 at (0,0)", 0, 24, 8, 0, 0},       {"tma none 24x8 at (88,33)", 0, 24, 8, 88, 33},
    {"tma 32B 16x8 at (0,0)", 32, 16, 8, 0, 0},       {"tma 32B 16x8 at (-8,-3)", 32, 16, 8, -8, -3},
    {"tma 64B 32x8 at (8,2)", 64, 32, 8, 8, 2},       {"tma 64B 32x8 at (80,30)", 64, 32, 8, 80, 30},
    {"tma 128B 64x16 at (0,0)", 128, 64, 16, 0, 0},   {"tma 128B 64x16 at (56,30)", 128, 64, 16, 56, 30},
    {"tma 128B 64x8 at (-16,-2)", 128, 64, 8, -16, -2},
    /* last: a box whose row starts off a 16-byte boundary (x = 52 halves, 104 bytes), which an H100
     * stops with an illegal instruction (the context is lost: nothing runs after it) */
    {"tma 128B 64x16 at (52,30)", 128, 64, 16, 52, 30},
};
#define TMA_CASES ((int)(sizeof tma_cases / sizeof tma_cases[0]))

/* A descriptor (the PTX ISA's matrix descriptor): start, leading and stride byte offsets, swizzle
 * mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte); the start relative to the probe's tile. */
static inline uint64_t hopper_desc(uint32_t start, uint32_t lbo, uint32_t sbo, uint64_t mode)
{
    return (uint64_t)(start >> 4 & 0x3FFF) | (uint64_t)(lbo >> 4 & 0x3FFF) << 16 |
           (uint64_t)(sbo >> 4 & 0x3FFF) << 32 | mode << 62;
}

static const struct wgmma_case {
    const char *name;
    uint32_t a_start, a_lbo, a_sbo, b_start, b_lbo, b_sbo;
    int mode, trans_b;
} wgmma_cases[] = {
    {"wgmma none k-major B", 0, 2048, 256, 8192, 1024, 512, 0, 0},
    {"wgmma none mn-major B", 0, 2048, 256, 8192, 2048, 256, 0, 1},
    {"wgmma 128B k-major B", 0, 16, 1024, 8192, 16, 1024, 1, 0},
    {"wgmma 128B mn-major B", 0, 16, 1024, 8192, 4096, 1024, 1, 1},
    {"wgmma 128B A at +32, B at +2048", 32, 16, 1024, 10240, 4096, 1024, 1, 1},
    {"wgmma 64B k-major B", 0, 16, 512, 8192, 16, 512, 2, 0},
    {"wgmma 64B mn-major B", 0, 16, 512, 8192, 4096, 512, 2, 1},
    {"wgmma 32B k-major B", 0, 16, 256, 8192, 16, 256, 3, 0},
    {"wgmma 32B mn-major B", 0, 16, 256, 8192, 4096, 256, 3, 1},
};
#define WGMMA_CASES ((int)(sizeof wgmma_cases / sizeof wgmma_cases[0]))

/* The products' inputs: 16384 halves (the 32 KiB tile) and 64 x 16 floats of C, from a fixed
 * generator: mostly normal halves of both signs from 2^-6 to 2^3, with zeros of both signs,
 * subnormals and infinities among them, so that the sums round. */
static inline uint64_t hopper_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline void hopper_inputs(uint16_t *tile, float *c)
{
    uint64_t x = 0x40BBE2;
    for (int i = 0; i < 16384; i++) {
        uint64_t r = hopper_next(&x);
        unsigned kind = (unsigned)(r >> 56);
        uint16_t sign = (uint16_t)((r >> 55 & 1) << 15), mant = (uint16_t)(r & 0x3FF);
        tile[i] = kind < 4 ? sign : kind < 8 ? (uint16_t)(sign | mant) : kind == 8 ? (uint16_t)(sign | 0x7C00)
                                                                     : (uint16_t)(sign | (9 + r % 10) << 10 | mant);
    }
    for (int i = 0; i < 64 * 16; i++) {
        uint64_t r = hopper_next(&x);
        uint32_t bits = (uint32_t)((r >> 63) << 31 | (uint32_t)(120 + (r >> 32) % 14) << 23 | (uint32_t)(r & 0x7FFFFF));
        memcpy(&c[i], &bits, 4);
    }
}

/* FNV-1a of an answer's bytes: the record holds these. */
static inline uint64_t hopper_hash(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#endif
