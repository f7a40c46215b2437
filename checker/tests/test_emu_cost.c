/* Unit tests for the CPU emulator's cost model, emu_price (checker/model/bank_model.c): one warp
 * instruction's lane accesses priced as Nsight Compute counts them. Shared memory: 32 banks of
 * 4-byte words, bank = (address / 4) % 32, served in phases (bank_model.h); per phase,
 * wavefronts = the most DISTINCT words any one bank is asked for (one word asked by many lanes is
 * a broadcast); ideal = ceil(bytes / 128), capped at the wavefronts; bank conflicts = wavefronts
 * - ideal. Global memory: the wavefronts field holds the distinct 32-byte sectors the lanes' byte
 * ranges touch. Every call is one request. Addresses are plain integers: emu_price never
 * dereferences them. The last test holds the model to 180 patterns measured on an H200. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "emu.h"
#include "unit.h"

enum { WARP = 32 };

/* A 128-byte aligned base address (also 32-byte aligned for sectors). */
#define BASE ((uintptr_t)0x10000)

/* n lanes, lane i at base + i * stride bytes, each size bytes wide, priced into c. */
static void price_strided(struct op_counts *c, int n, uintptr_t base, uintptr_t stride, uint32_t size,
                          enum mem_op op)
{
    struct emu_lane_access lanes[WARP];
    for (int i = 0; i < n; i++)
        lanes[i] = (struct emu_lane_access){base + (uintptr_t)i * stride, size, i};
    emu_price(lanes, n, op, c);
}

/* n lanes of 4-byte accesses, lane i at word words[i] from BASE, priced into c. */
static void price_words(struct op_counts *c, const uint32_t *words, int n, enum mem_op op)
{
    struct emu_lane_access lanes[WARP];
    for (int i = 0; i < n; i++)
        lanes[i] = (struct emu_lane_access){BASE + 4 * (uintptr_t)words[i], 4, i};
    emu_price(lanes, n, op, c);
}

static void assert_shared(const struct op_counts *c, uint64_t requests, uint64_t wavefronts, uint64_t ideal)
{
    assert_int_equal(c->requests, requests);
    assert_int_equal(c->wavefronts, wavefronts);
    assert_int_equal(c->ideal, ideal);
    assert_int_equal(c->wavefronts - c->ideal, wavefronts - ideal); /* the bank conflicts */
}

/* Lanes at even strides, each priced as a load and as a store (the two must agree): the
 * requests, wavefronts (global: sectors) and ideal wavefronts each pattern must get. */
static void strided_patterns(void **state)
{
    (void)state;
    const struct {
        const char *what;
        enum mem_op load, store;
        int lanes;
        uintptr_t offset, stride; /* bytes from BASE, and between lanes */
        uint32_t size;
        uint64_t wavefronts, ideal; /* global: ideal not checked; its bytes are lanes * size */
    } cases[] = {
        {"words 0..31: one in each bank; 128 B, ideal 1; no conflict", SHARED_LD, SHARED_ST, WARP, 0, 4, 4, 1, 1},
        {"words 0, 2, .., 62: the even banks 2 distinct words each; 1 conflict", SHARED_LD, SHARED_ST, WARP, 0, 8, 4, 2,
         1},
        {"a float[32][32] column: words 0, 32, .., 992 all in bank 0; 31 conflicts", SHARED_LD, SHARED_ST, WARP, 0,
         32 * 4, 4, 32, 1},
        {"a float[32][33] column: word 33i in bank i, all different", SHARED_LD, SHARED_ST, WARP, 0, 33 * 4, 4, 1, 1},
        {"32 lanes, one word: a broadcast", SHARED_LD, SHARED_ST, WARP, 4 * 7, 0, 4, 1, 1},
        {"8 bytes each, words 0..63: 2 distinct words a bank; 256 B, ideal 2; no conflict", SHARED_LD, SHARED_ST, WARP,
         0, 8, 8, 2, 2},
        {"float4, words 0..127: 4 distinct words a bank; 512 B, ideal 4; no conflict", SHARED_LD, SHARED_ST, WARP, 0,
         16, 16, 4, 4},
        {"float4s 128 B apart: banks 0-3, 32 distinct words each; ideal 4; 28 conflicts", SHARED_LD, SHARED_ST, WARP, 0,
         128, 16, 32, 4},
        {"8 lanes, words 0, 32, .., 224: bank 0, 8 distinct; 32 B, ideal 1; 7 conflicts", SHARED_LD, SHARED_ST, 8, 0,
         32 * 4, 4, 8, 1},
        {"bytes 0..127 from an aligned base: sectors 0..3", GLOBAL_LD, GLOBAL_ST, WARP, 0, 4, 4, 4, 0},
        {"bytes 4..131: sectors 0..4", GLOBAL_LD, GLOBAL_ST, WARP, 4, 4, 4, 5, 0},
        {"lanes 128 B apart: each in its own sector", GLOBAL_LD, GLOBAL_ST, WARP, 0, 32 * 4, 4, 32, 0},
        {"32 lanes, one 4-byte word: 1 sector", GLOBAL_LD, GLOBAL_ST, WARP, 12, 0, 4, 1, 0},
        {"float4, bytes 0..511: 512 / 32 = 16 sectors", GLOBAL_LD, GLOBAL_ST, WARP, 0, 16, 16, 16, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct op_counts ld = {0}, st = {0};
        price_strided(&ld, cases[k].lanes, BASE + cases[k].offset, cases[k].stride, cases[k].size, cases[k].load);
        price_strided(&st, cases[k].lanes, BASE + cases[k].offset, cases[k].stride, cases[k].size, cases[k].store);
        int shared = cases[k].load == SHARED_LD;
        if (ld.requests != 1 || ld.wavefronts != cases[k].wavefronts || (shared && ld.ideal != cases[k].ideal))
            fail_msg("%s: %llu requests, %llu wavefronts, ideal %llu; expected 1, %llu, %llu", cases[k].what,
                     (unsigned long long)ld.requests, (unsigned long long)ld.wavefronts, (unsigned long long)ld.ideal,
                     (unsigned long long)cases[k].wavefronts, (unsigned long long)cases[k].ideal);
        if (!shared && ld.bytes != (uint64_t)cases[k].lanes * cases[k].size)
            fail_msg("%s: %llu bytes asked for, not %d", cases[k].what, (unsigned long long)ld.bytes,
                     cases[k].lanes * (int)cases[k].size);
        if (memcmp(&ld, &st, sizeof ld) != 0)
            fail_msg("%s: priced otherwise as a store", cases[k].what);
    }
}

/* ---- shared memory, lane by lane ---- */

static void shared_two_words_same_bank(void **state)
{
    (void)state;
    uint32_t words[WARP];
    for (int i = 0; i < WARP; i++)
        words[i] = i < 16 ? 0 : 32; /* both bank 0 */
    struct op_counts c = {0};
    /* bank 0 asked for 2 distinct words (each a 16-lane broadcast) -> 2 wavefronts; ideal 1; 1 conflict */
    price_words(&c, words, WARP, SHARED_LD);
    assert_shared(&c, 1, 2, 1);
}

/* Lesson 5's XOR swizzle of a 32 x 32 tile: lane r reading column c (word 32r + (c ^ r)), or lane x
 * writing row y (word 32y + (x ^ y)), asks every bank once -> 1 wavefront; ideal 1. */
static void shared_xor_swizzle(void **state)
{
    (void)state;
    const struct {
        const char *what;
        enum mem_op op;
        int column; /* 1: lanes down a column; 0: along a row */
        uint32_t at[3];
        int n;
    } cases[] = {{"column", SHARED_LD, 1, {0, 5}, 2}, {"row", SHARED_ST, 0, {0, 3, 31}, 3}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int i = 0; i < cases[k].n; i++) {
            uint32_t v = cases[k].at[i], words[WARP];
            for (uint32_t lane = 0; lane < WARP; lane++)
                words[lane] = cases[k].column ? lane * 32 + (v ^ lane) : v * 32 + (lane ^ v);
            struct op_counts c = {0};
            price_words(&c, words, WARP, cases[k].op);
            if (c.requests != 1 || c.wavefronts != 1 || c.ideal != 1)
                fail_msg("%s %u: %llu requests, %llu wavefronts, ideal %llu", cases[k].what, v,
                         (unsigned long long)c.requests, (unsigned long long)c.wavefronts, (unsigned long long)c.ideal);
        }
}

/* ---- accumulation ---- */

static void counts_accumulate(void **state)
{
    (void)state;
    struct op_counts s = {0}, g = {0};
    /* shared stride 32 words twice: 2 requests, 2 x 32 = 64 wavefronts, 2 x 1 = 2 ideal; 62 conflicts */
    price_strided(&s, WARP, BASE, 128, 4, SHARED_LD);
    price_strided(&s, WARP, BASE, 128, 4, SHARED_LD);
    assert_shared(&s, 2, 64, 2);
    /* then a stride-1 load: +1 request, +1 wavefront, +1 ideal */
    price_strided(&s, WARP, BASE, 4, 4, SHARED_LD);
    assert_shared(&s, 3, 65, 3);
    /* global misaligned twice: 2 requests, 2 x 5 = 10 sectors */
    price_strided(&g, WARP, BASE + 4, 4, 4, GLOBAL_LD);
    price_strided(&g, WARP, BASE + 4, 4, 4, GLOBAL_LD);
    assert_int_equal(g.requests, 2);
    assert_int_equal(g.wavefronts, 10);
}

/* A lane that asks for nothing is skipped, not the end of the warp: 31 lanes of a column. */
static void zero_size_lane_is_skipped(void **state)
{
    (void)state;
    struct emu_lane_access lanes[32];
    for (int i = 0; i < 32; i++)
        lanes[i] = (struct emu_lane_access){0x10000 + 128 * (uintptr_t)i, 4, i};
    lanes[0].size = 0;
    struct op_counts c = {0};
    emu_price(lanes, 32, SHARED_LD, &c);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.wavefronts, 31);
    assert_int_equal(c.ideal, 1);
}

/* ---- the model against the H200 ----
 * checker/tests/data/h200-shared-wavefronts.csv: one warp's 4-, 8- and 16-byte loads and stores
 * in 30 patterns each, with the wavefronts and bank conflicts Nsight Compute counted for them
 * (checker/bench/shared-wavefronts.sh; docs/emulator.md). Every row must be priced exactly. */
static void shared_patterns_measured_on_h200(void **state)
{
    (void)state;
    FILE *f = fopen("checker/tests/data/h200-shared-wavefronts.csv", "r");
    assert_non_null(f);
    char line[512];
    int rows = 0, wrong = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* the header */
    while (fgets(line, sizeof line, f)) {
        char op[4], name[40], indices[300];
        int width;
        unsigned long insts, waves, conflicts;
        if (sscanf(line, "%d,%3[a-z],%39[a-z0-9_],%299[-0-9 ],%lu,%lu,%lu", &width, op, name, indices, &insts, &waves,
                   &conflicts) != 7)
            fail_msg("cannot read row %d: %s", rows + 1, line);
        struct emu_lane_access lanes[WARP];
        int n = 0;
        char *p = indices;
        for (int lane = 0; lane < WARP; lane++) {
            long k = strtol(p, &p, 10);
            if (k >= 0)
                lanes[n++] = (struct emu_lane_access){BASE + (uintptr_t)k * (uintptr_t)width, (uint32_t)width, lane};
        }
        struct op_counts c = {0};
        emu_price(lanes, n, strcmp(op, "st") ? SHARED_LD : SHARED_ST, &c);
        if (c.wavefronts != waves || c.wavefronts - c.ideal != conflicts) {
            printf("  %2d-byte %s %-20s H200: %lu wavefronts, %lu conflicts; model: %llu, %llu\n", width, op, name,
                   waves, conflicts, (unsigned long long)c.wavefronts, (unsigned long long)(c.wavefronts - c.ideal));
            wrong++;
        }
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 180);
    assert_int_equal(wrong, 0);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(zero_size_lane_is_skipped),
    cmocka_unit_test(strided_patterns),
    cmocka_unit_test(shared_two_words_same_bank),
    cmocka_unit_test(shared_xor_swizzle),
    cmocka_unit_test(counts_accumulate),
    cmocka_unit_test(shared_patterns_measured_on_h200))
