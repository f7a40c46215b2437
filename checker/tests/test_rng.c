/* Unit tests for checker/src/judging/rng.c: the same seed and stream replay the same numbers,
 * different streams or seeds give different ones, rng_fill_uniform stays in [-1, 1) with
 * exactly representable, well spread values, and fresh seeds are short. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "unit.h"

enum { SEQ = 64 };

static void sequence(uint64_t seed, uint64_t stream, uint64_t *out)
{
    struct rng r;
    rng_seed(&r, seed, stream);
    for (int i = 0; i < SEQ; i++)
        out[i] = rng_next(&r);
}

static void same_seed_same_numbers(void **state)
{
    (void)state;
    uint64_t a[SEQ], b[SEQ];
    sequence(12345, 3, a);
    sequence(12345, 3, b);
    assert_memory_equal(a, b, sizeof a);
    /* ... and the numbers are not a constant. */
    int distinct = 0;
    for (int i = 1; i < SEQ; i++)
        distinct += a[i] != a[0];
    assert_true(distinct == SEQ - 1);
}

/* Sequences that must share no draw: at the same place, or (any_shift) at any two places. */
static void other_streams_and_seeds_differ(void **state)
{
    (void)state;
    const struct {
        const char *what;
        uint64_t seed[2], stream[2];
        int any_shift;
    } pairs[] = {
        {"streams 0 and 1", {12345, 12345}, {0, 1}, 0},
        {"streams 1 and 2", {12345, 12345}, {1, 2}, 0},
        {"streams 0 and 2", {12345, 12345}, {0, 2}, 0},
        {"stream 1, not stream 0 shifted by a few steps", {7, 7}, {0, 1}, 1},
        {"seeds 1 and 2", {1, 2}, {5, 5}, 0},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        uint64_t a[SEQ], b[SEQ];
        sequence(pairs[k].seed[0], pairs[k].stream[0], a);
        sequence(pairs[k].seed[1], pairs[k].stream[1], b);
        for (int i = 0; i < SEQ; i++)
            for (int j = 0; j < SEQ; j++)
                if ((pairs[k].any_shift || i == j) && a[i] == b[j])
                    fail_msg("%s: draw %d of the one is draw %d of the other", pairs[k].what, i, j);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void small_seeds_and_streams_never_collide(void **state)
{
    (void)state;
    /* Seeds are typed back in (< 1e9) and streams are case indices: no (seed, stream) pair
     * of small numbers may replay another pair's stream. */
    enum { SEEDS = 64, STREAMS = 64 };
    uint64_t *first = malloc(SEEDS * STREAMS * sizeof *first);
    assert_non_null(first);
    for (uint64_t s = 0; s < SEEDS; s++)
        for (uint64_t k = 0; k < STREAMS; k++) {
            struct rng r;
            rng_seed(&r, s, k);
            first[s * STREAMS + k] = rng_next(&r);
        }
    qsort(first, SEEDS * STREAMS, sizeof *first, cmp_u64);
    for (size_t i = 1; i < SEEDS * STREAMS; i++)
        assert_true(first[i] != first[i - 1]);
    free(first);
}

static void fill_replays(void **state)
{
    (void)state;
    float x[1000], y[1000];
    struct rng r;
    rng_seed(&r, 99, 4);
    rng_fill_uniform(&r, x, 1000);
    rng_seed(&r, 99, 4);
    rng_fill_uniform(&r, y, 1000);
    assert_memory_equal(x, y, sizeof x);
    rng_seed(&r, 99, 5);
    rng_fill_uniform(&r, y, 1000);
    assert_memory_not_equal(x, y, sizeof x);
}

static void fill_in_range_and_spread(void **state)
{
    (void)state;
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x);
    assert_non_null(x);
    struct rng r;
    rng_seed(&r, 2024, 0);
    rng_fill_uniform(&r, x, N);
    float lo = x[0], hi = x[0];
    double sum = 0.0;
    int below = 0;
    for (int i = 0; i < N; i++) {
        if (!(x[i] >= -1.0f && x[i] < 1.0f))
            fail_msg("x[%d] = %.9g outside [-1, 1)", i, x[i]);
        /* 24 random bits: every value is a multiple of 2^-23. */
        float scaled = x[i] * 8388608.0f;
        assert_true(scaled == truncf(scaled));
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        sum += x[i];
        below += x[i] < 0.0f;
    }
    assert_true(lo < hi); /* not all equal */
    assert_true(lo < -0.99f);
    assert_true(hi > 0.99f);
    assert_true(fabs(sum / N) < 0.01);          /* mean ~ 0 (its sd is ~0.0018) */
    assert_true(below > N * 45 / 100 && below < N * 55 / 100);
    free(x);
}

/* reduce_4096's inputs: 12 random bits put every value on a grid of 2^-11, so that 4096 of them
 * add up exactly in a float whatever the order: forwards, backwards and in pairs agree with a
 * double sum, while the 24-bit values of rng_fill_uniform do not. */
static void fill_grid_sums_exactly(void **state)
{
    (void)state;
    enum { N = 4096 };
    static float x[N], pairs[N];
    struct rng r;
    int rounded = 0;
    for (int bits = 12; bits <= 24; bits += 12)
        for (uint64_t stream = 0; stream < 8; stream++) {
            rng_seed(&r, 7, stream);
            rng_fill_grid(&r, x, N, bits);
            double exact = 0.0;
            float forward = 0.0f, backward = 0.0f;
            for (int i = 0; i < N; i++) {
                exact += x[i];
                forward += x[i];
                backward += x[N - 1 - i];
                if (bits == 12)
                    assert_true(x[i] * 2048.0f == truncf(x[i] * 2048.0f) && x[i] >= -1.0f && x[i] < 1.0f);
            }
            for (int i = 0; i < N; i++)
                pairs[i] = x[i];
            for (int n = N; n > 1; n /= 2)
                for (int i = 0; i < n / 2; i++)
                    pairs[i] = pairs[2 * i] + pairs[2 * i + 1];
            int same = forward == exact && backward == exact && pairs[0] == exact;
            if (bits == 12)
                assert_true(same);
            else
                rounded += !same;
        }
    assert_true(rounded > 0); /* the test can tell an exact sum from a rounded one */
    rng_seed(&r, 7, 0);
    rng_fill_grid(&r, x, 100, 24);
    rng_seed(&r, 7, 0);
    rng_fill_uniform(&r, pairs, 100);
    assert_memory_equal(x, pairs, 100 * sizeof *x);
}

static void fill_zero_elements(void **state)
{
    (void)state;
    float x[2] = {5.0f, 6.0f};
    struct rng r, before;
    rng_seed(&r, 1, 1);
    before = r;
    rng_fill_uniform(&r, x, 0);
    assert_true(x[0] == 5.0f && x[1] == 6.0f);
    assert_true(r.s == before.s);
}

static void fresh_seed_is_short(void **state)
{
    (void)state;
    int differ = 0;
    uint64_t first = rng_fresh_seed();
    for (int i = 0; i < 20; i++) {
        uint64_t s = rng_fresh_seed();
        assert_true(s < 1000000000ull);
        differ += s != first;
    }
    assert_true(differ > 0);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(same_seed_same_numbers),
    cmocka_unit_test(other_streams_and_seeds_differ),
    cmocka_unit_test(small_seeds_and_streams_never_collide),
    cmocka_unit_test(fill_replays),
    cmocka_unit_test(fill_in_range_and_spread),
    cmocka_unit_test(fill_grid_sums_exactly),
    cmocka_unit_test(fill_zero_elements),
    cmocka_unit_test(fresh_seed_is_short))
