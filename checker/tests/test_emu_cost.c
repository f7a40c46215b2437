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

/* ---- shared memory ---- */

static void shared_stride1_no_conflict(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* words 0..31 -> one word in each bank -> 1 wavefront; 128 B / 128 = ideal 1; 0 conflicts */
    price_strided(&c, WARP, BASE, 4, 4, SHARED_LD);
    assert_shared(&c, 1, 1, 1);
}

static void shared_stride2_two_way(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* words 0,2,..,62 -> even banks get 2 distinct words each -> 2 wavefronts; ideal 1; 1 conflict */
    price_strided(&c, WARP, BASE, 8, 4, SHARED_LD);
    assert_shared(&c, 1, 2, 1);
}

static void shared_stride32_column_32_way(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* float[32][32] column: words 0,32,..,992 -> all bank 0, 32 distinct -> 32 wavefronts; ideal 1; 31 conflicts */
    price_strided(&c, WARP, BASE, 32 * 4, 4, SHARED_LD);
    assert_shared(&c, 1, 32, 1);
}

static void shared_stride33_padded_column(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* float[32][33] column: word 33i -> bank (33i) % 32 = i, all different -> 1 wavefront; ideal 1 */
    price_strided(&c, WARP, BASE, 33 * 4, 4, SHARED_LD);
    assert_shared(&c, 1, 1, 1);
}

static void shared_broadcast(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* 32 lanes, one word -> 1 distinct word -> 1 wavefront; 128 B / 128 = ideal 1 */
    price_strided(&c, WARP, BASE + 4 * 7, 0, 4, SHARED_LD);
    assert_shared(&c, 1, 1, 1);
}

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

static void shared_xor_swizzle_column_read(void **state)
{
    (void)state;
    static const uint32_t columns[] = {0, 5};
    for (size_t k = 0; k < sizeof columns / sizeof columns[0]; k++) {
        uint32_t col = columns[k], words[WARP];
        for (uint32_t r = 0; r < WARP; r++)
            words[r] = r * 32 + (col ^ r);
        struct op_counts c = {0};
        /* lane r -> bank (c ^ r), a permutation of 0..31 -> 1 wavefront; ideal 1 */
        price_words(&c, words, WARP, SHARED_LD);
        assert_shared(&c, 1, 1, 1);
    }
}

static void shared_xor_swizzle_row_write(void **state)
{
    (void)state;
    static const uint32_t rows[] = {0, 3, 31};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        uint32_t y = rows[k], words[WARP];
        for (uint32_t x = 0; x < WARP; x++)
            words[x] = y * 32 + (x ^ y);
        struct op_counts c = {0};
        /* lane x -> bank (x ^ y), a permutation of 0..31 -> 1 wavefront; ideal 1 */
        price_words(&c, words, WARP, SHARED_ST);
        assert_shared(&c, 1, 1, 1);
    }
}

static void shared_8byte_consecutive(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* words 0..63 -> each bank 2 distinct words -> 2 wavefronts; 256 B / 128 = ideal 2; 0 conflicts */
    price_strided(&c, WARP, BASE, 8, 8, SHARED_LD);
    assert_shared(&c, 1, 2, 2);
}

static void shared_16byte_consecutive(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* float4: words 0..127 -> each bank 4 distinct words -> 4 wavefronts; 512 B / 128 = ideal 4; 0 conflicts */
    price_strided(&c, WARP, BASE, 16, 16, SHARED_LD);
    assert_shared(&c, 1, 4, 4);
}

static void shared_16byte_row_stride_128(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* lane i -> words 32i..32i+3 = banks 0-3, 32 distinct words per bank -> 32 wavefronts; 512 B -> ideal 4; 28 conflicts */
    price_strided(&c, WARP, BASE, 128, 16, SHARED_LD);
    assert_shared(&c, 1, 32, 4);
}

static void shared_fewer_lanes(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* 8 lanes, words 0,32,..,224 -> bank 0, 8 distinct -> 8 wavefronts; 32 B -> ideal 1; 7 conflicts */
    price_strided(&c, 8, BASE, 32 * 4, 4, SHARED_LD);
    assert_shared(&c, 1, 8, 1);
}

static void shared_store_prices_as_load(void **state)
{
    (void)state;
    /* the same patterns priced as SHARED_LD and SHARED_ST give the same counts */
    static const struct {
        uintptr_t stride;
        uint32_t size;
        int n;
    } patterns[] = {{4, 4, WARP}, {8, 4, WARP}, {128, 4, WARP}, {132, 4, WARP}, {0, 4, WARP},
                    {8, 8, WARP}, {16, 16, WARP}, {128, 16, WARP}, {128, 4, 8}};
    for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
        struct op_counts ld = {0}, st = {0};
        price_strided(&ld, patterns[k].n, BASE, patterns[k].stride, patterns[k].size, SHARED_LD);
        price_strided(&st, patterns[k].n, BASE, patterns[k].stride, patterns[k].size, SHARED_ST);
        assert_memory_equal(&ld, &st, sizeof ld);
    }
    /* and spot-check one store: stride 32 words -> 32 wavefronts, ideal 1 */
    struct op_counts c = {0};
    price_strided(&c, WARP, BASE, 128, 4, SHARED_ST);
    assert_shared(&c, 1, 32, 1);
}

/* ---- global memory ---- */

static void global_consecutive_aligned(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* bytes 0..127 from an aligned base -> sectors 0..3 -> 4 */
    price_strided(&c, WARP, BASE, 4, 4, GLOBAL_LD);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.wavefronts, 4);
}

static void global_consecutive_misaligned(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* bytes 4..131 -> sectors 0..4 -> 5 */
    price_strided(&c, WARP, BASE + 4, 4, 4, GLOBAL_LD);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.wavefronts, 5);
}

static void global_stride32_floats(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* lanes 128 B apart -> each in its own sector -> 32 */
    price_strided(&c, WARP, BASE, 32 * 4, 4, GLOBAL_LD);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.wavefronts, 32);
}

static void global_same_address(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* 32 lanes, one 4-byte word -> 1 sector */
    price_strided(&c, WARP, BASE + 12, 0, 4, GLOBAL_LD);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.wavefronts, 1);
}

static void global_16byte_consecutive(void **state)
{
    (void)state;
    struct op_counts c = {0};
    /* float4: bytes 0..511 -> 512 / 32 = 16 sectors */
    price_strided(&c, WARP, BASE, 16, 16, GLOBAL_LD);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.wavefronts, 16);
}

static void global_store_prices_as_load(void **state)
{
    (void)state;
    /* the same patterns priced as GLOBAL_LD and GLOBAL_ST give the same counts */
    static const struct {
        uintptr_t base, stride;
        uint32_t size;
    } patterns[] = {{BASE, 4, 4}, {BASE + 4, 4, 4}, {BASE, 128, 4}, {BASE + 12, 0, 4}, {BASE, 16, 16}};
    static const uint64_t sectors[] = {4, 5, 32, 1, 16};
    for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
        struct op_counts ld = {0}, st = {0};
        price_strided(&ld, WARP, patterns[k].base, patterns[k].stride, patterns[k].size, GLOBAL_LD);
        price_strided(&st, WARP, patterns[k].base, patterns[k].stride, patterns[k].size, GLOBAL_ST);
        assert_memory_equal(&ld, &st, sizeof ld);
        assert_int_equal(st.requests, 1);
        assert_int_equal(st.wavefronts, sectors[k]);
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
 * (checker/tools/shared-wavefronts.sh; docs/emulator.md). Every row must be priced exactly. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_size_lane_is_skipped),
        cmocka_unit_test(shared_stride1_no_conflict),
        cmocka_unit_test(shared_stride2_two_way),
        cmocka_unit_test(shared_stride32_column_32_way),
        cmocka_unit_test(shared_stride33_padded_column),
        cmocka_unit_test(shared_broadcast),
        cmocka_unit_test(shared_two_words_same_bank),
        cmocka_unit_test(shared_xor_swizzle_column_read),
        cmocka_unit_test(shared_xor_swizzle_row_write),
        cmocka_unit_test(shared_8byte_consecutive),
        cmocka_unit_test(shared_16byte_consecutive),
        cmocka_unit_test(shared_16byte_row_stride_128),
        cmocka_unit_test(shared_fewer_lanes),
        cmocka_unit_test(shared_store_prices_as_load),
        cmocka_unit_test(global_consecutive_aligned),
        cmocka_unit_test(global_consecutive_misaligned),
        cmocka_unit_test(global_stride32_floats),
        cmocka_unit_test(global_same_address),
        cmocka_unit_test(global_16byte_consecutive),
        cmocka_unit_test(global_store_prices_as_load),
        cmocka_unit_test(counts_accumulate),
        cmocka_unit_test(shared_patterns_measured_on_h200),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
