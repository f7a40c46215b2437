/* Tests of the emulator's scheduler and race checks on small kernels with known behaviour
 * (checker/tests/emu/kernels.cu): bank conflicts counted for a known column read, a missing
 * first or second barrier found as a race with its lines, an early return before a barrier
 * reported as such, a read of unwritten shared memory, a write past the end of a buffer; the
 * warp's shuffles and votes computing what CUDA defines, masks naming lanes that cannot come,
 * a missing __syncwarp, plain and atomic counters, two blocks writing one element, a
 * misaligned float4; and correct kernels left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu.h"
#include "symbolize.h"

int run_column_read(float *out, int stride);
int run_neighbour(float *out, int with_barrier);
int run_two_rounds(float *out, int with_second_barrier);
int run_shuffles(float *out);
int run_votes(float *out);
int run_warp_exchange(float *out, int with_syncwarp);
int run_counter(float *out, int atomically);
int run_same_output(float *out);
int run_misaligned(float *out);
int run_partial_shuffle(float *out, unsigned mask, int first_out, int source);
int run_clock_wait(float *out);
int run_early_return(float *out, int first_out);
int run_unset_read(float *out);
int run_store_past_end(float *out);

/* The last error with its code addresses as file:line, as the judge shows it. */
static const char *said(void)
{
    static char text[1200], exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); /* the symbolizer's own would be another */
    exe[n > 0 ? n : 0] = '\0';
    symbolize_marks(exe, emu_error(), text, sizeof text);
    return text;
}

static int give_arena(void **state);

/* 192 floats with room for a guard zone of 64 on each side. */
static float arena[64 * 5];
static float *out = arena + 64;

static struct mem_counts count_column_read(int stride)
{
    struct mem_counts c;
    static struct emu_line_counts lines[EMU_MAX_LINES];
    int n;
    emu_trace_start();
    assert_int_equal(run_column_read(out, stride), 0);
    emu_trace_stop(&c, lines, &n);
    return c;
}

static void column_read_counts(void **state)
{
    (void)state;
    const struct {
        int stride;
        uint64_t wavefronts;
    } cases[] = {{1, 1}, {2, 2}, {32, 32}, {33, 1}, {16, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mem_counts c = count_column_read(cases[i].stride);
        assert_int_equal(c.op[SHARED_LD].requests, 1);
        assert_int_equal(c.op[SHARED_LD].wavefronts, cases[i].wavefronts);
        assert_int_equal(c.op[SHARED_LD].ideal, 1);
        /* The 33 row stores that fill the tile are conflict-free whatever the read does. */
        assert_int_equal(c.op[SHARED_ST].requests, 33);
        assert_int_equal(c.op[SHARED_ST].wavefronts, 33);
    }
}

static void barrier_present_no_error(void **state)
{
    (void)state;
    assert_int_equal(run_neighbour(out, 1), 0);
    for (int t = 0; t < 64; t++)
        assert_true(out[t] == (float)((t + 1) % 64));
}

/* The first barrier missing: a thread reads a word its neighbour writes in the same interval. */
static void missing_first_barrier_is_a_race(void **state)
{
    (void)state;
    assert_int_equal(run_neighbour(out, 0), EMU_RACE);
    assert_non_null(strstr(said(), "a race"));
    assert_non_null(strstr(said(), "kernels.cu:"));
}

static void both_barriers_no_error(void **state)
{
    (void)state;
    assert_int_equal(run_two_rounds(out, 1), 0);
    for (int t = 0; t < 128; t++)
        assert_true(out[t] == (float)(2 * ((t + 1) % 64) + 100));
}

/* The second barrier missing: the next round's store overwrites a word another thread reads. */
static void missing_second_barrier_is_a_race(void **state)
{
    (void)state;
    assert_int_equal(run_two_rounds(out, 0), EMU_RACE);
    assert_non_null(strstr(said(), "a race"));
}

static void early_return_before_barrier_is_reported(void **state)
{
    (void)state;
    assert_int_equal(run_early_return(out, 40), EMU_BARRIER_DIVERGENCE);
    assert_non_null(strstr(said(), "40 threads wait at __syncthreads() in checker/tests/emu/kernels.cu:"));
    assert_non_null(strstr(said(), "while 24 have returned"));
}

static void unset_shared_read_is_reported(void **state)
{
    (void)state;
    assert_int_equal(run_unset_read(out), EMU_UNSET_SHARED_READ);
    assert_non_null(strstr(said(), "no thread of the block has written"));
    assert_non_null(strstr(said(), "kernels.cu:"));
}

static void store_past_end_is_reported(void **state)
{
    (void)state;
    const struct emu_buffer b = {(char *)out, (char *)(out + 64), 64 * sizeof(float), "out", 0};
    emu_set_buffers(&b, 1);
    assert_int_equal(run_store_past_end(out), EMU_OUT_OF_BOUNDS);
    assert_non_null(strstr(said(), "thread (63,0) writes element 64 of out, past its end"));
    give_arena(NULL);
}

static void no_early_return_no_error(void **state)
{
    (void)state;
    assert_int_equal(run_early_return(out, 64), 0);
    assert_true(out[63] == 1.0f);
}

/* ---- the warp's and the block's collective operations ---- */

static void shuffles_compute_what_cuda_defines(void **state)
{
    (void)state;
    assert_int_equal(run_shuffles(out), 0);
    for (int t = 0; t < 64; t++) {
        int lane = t % 32, warp = t / 32, base = 32 * warp;
        assert_true(out[t] == (float)(32 * base + 496));
        int below = lane == 0 ? t : t - 1;
        assert_true(out[64 + t] == (float)(base + 31 - lane + 1000 * below));
        assert_true(out[128 + t] == (lane == 0 ? (float)(32 * base + 496) : 0.5f * (float)base));
    }
}

static void votes_and_counting_barriers(void **state)
{
    (void)state;
    assert_int_equal(run_votes(out), 0);
    for (int t = 0; t < 64; t++) {
        assert_true(out[t] == 11.0f + 100.0f * (496 + 0));
        assert_true(out[64 + t] == (float)(1 + 0 + 10 * 100 + 10000 + 100000));
    }
}

static void missing_syncwarp_is_a_race_within_the_warp(void **state)
{
    (void)state;
    assert_int_equal(run_warp_exchange(out, 0), EMU_RACE);
    assert_non_null(strstr(said(), "a lane of the same warp"));
    assert_non_null(strstr(said(), "no __syncwarp() between them"));
    assert_int_equal(run_warp_exchange(out, 1), 0);
    for (int t = 0; t < 64; t++)
        assert_true(out[t] == (float)(t ^ 1));
}

static void atomics_are_no_race_plain_updates_are(void **state)
{
    (void)state;
    out[128] = 0.0f;
    assert_int_equal(run_counter(out, 1), 0);
    for (int t = 0; t < 128; t++)
        assert_true(out[t] == 64.0f);
    assert_true(out[128] == 2.0f); /* one atomic per block, from two blocks: no race */
    assert_int_equal(run_counter(out, 0), EMU_RACE);
    assert_non_null(strstr(said(), "a race"));
}

static void two_blocks_writing_one_element_race(void **state)
{
    (void)state;
    assert_int_equal(run_same_output(out), EMU_BLOCK_RACE);
    assert_non_null(strstr(said(), "block (1,0): thread (0,0) writes element 0 of out"));
    assert_non_null(strstr(said(), "which block (0,0) wrote"));
}

static void misaligned_float4_is_reported(void **state)
{
    (void)state;
    assert_int_equal(run_misaligned(out), EMU_MISALIGNED);
    assert_non_null(strstr(said(), "reads 16 bytes in shared memory (checker/tests/emu/kernels.cu:"));
    assert_non_null(strstr(said(), "at an address 4 bytes past a multiple of 16"));
}

static void masks_naming_absent_lanes_are_reported(void **state)
{
    (void)state;
    assert_int_equal(run_partial_shuffle(out, 0xffffffffu, 16, 0), EMU_WARP_MISMATCH);
    assert_non_null(strstr(said(), "with the mask 0xffffffff, but lane 16, thread (16,0), has returned"));
    assert_int_equal(run_partial_shuffle(out, 0x0000ffffu, 32, 0), EMU_WARP_MISMATCH);
    assert_non_null(strstr(said(), "which leaves out its own lane 16"));
    assert_int_equal(run_partial_shuffle(out, 0x0000ffffu, 16, 20), EMU_WARP_MISMATCH);
    assert_non_null(strstr(said(), "reads lane 20 with __shfl_sync"));
    assert_non_null(strstr(said(), "kernels.cu:")); /* the caller's line, not the header's */
    assert_int_equal(run_partial_shuffle(out, 0x0000ffffu, 16, 3), 0);
    assert_true(out[15] == 3.0f);
}

static void clock64_moves_forward(void **state)
{
    (void)state;
    assert_int_equal(run_clock_wait(out), 0);
    assert_true(out[31] == 1.0f);
}

/* The tracer stops any access outside what a kernel was given: the arena is given. */
static int give_arena(void **state)
{
    (void)state;
    struct emu_buffer b = {(const char *)out, (const char *)(out + 192), 64 * sizeof(float), "out", 0};
    emu_set_buffers(&b, 1);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(column_read_counts),
        cmocka_unit_test(barrier_present_no_error),
        cmocka_unit_test(missing_first_barrier_is_a_race),
        cmocka_unit_test(both_barriers_no_error),
        cmocka_unit_test(missing_second_barrier_is_a_race),
        cmocka_unit_test(early_return_before_barrier_is_reported),
        cmocka_unit_test(no_early_return_no_error),
        cmocka_unit_test(unset_shared_read_is_reported),
        cmocka_unit_test(store_past_end_is_reported),
        cmocka_unit_test(shuffles_compute_what_cuda_defines),
        cmocka_unit_test(votes_and_counting_barriers),
        cmocka_unit_test(missing_syncwarp_is_a_race_within_the_warp),
        cmocka_unit_test(atomics_are_no_race_plain_updates_are),
        cmocka_unit_test(two_blocks_writing_one_element_race),
        cmocka_unit_test(misaligned_float4_is_reported),
        cmocka_unit_test(masks_naming_absent_lanes_are_reported),
        cmocka_unit_test(clock64_moves_forward),
    };
    return cmocka_run_group_tests(tests, give_arena, NULL);
}
