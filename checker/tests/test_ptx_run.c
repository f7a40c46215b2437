/* Tests of the PTX interpreter's scheduler and checks (checker/runner/ptx/) on small kernels with
 * known behaviour (checker/tests/ptx/kernels.cu, made into PTX by nvcc): bank conflicts counted
 * for a known column read, a missing first or second barrier found as a race with its lines, an
 * early return before a barrier reported as such, a value read from unwritten shared memory
 * that reaches global memory (and one that is dropped, which is no error), a write past the
 * end of a buffer; the warp's shuffles and votes computing what CUDA defines, masks naming
 * lanes that cannot come, a missing __syncwarp, plain and atomic counters, two blocks writing
 * one element, a misaligned float4; bytes in flight measured while counting; the tensor cores'
 * ldmatrix and mma.sync in the PTX ISA's layouts, ldmatrix's bank conflicts per phase, and a
 * warp instruction half a warp reaches; correct kernels left alone. (What the PTX ISA defines
 * exactly: test_ptx_isa.c; what the reader refuses: test_ptx_read.c.)
 *
 * Built with the PTX's path and the source's name for messages, both relative to the
 * repository's root, where the test runs:
 *   -DWB_PTX_KERNELS='"build/tests/ptx_kernels.ptx"' -DWB_PTX_SOURCE='"checker/tests/ptx/kernels.cu"' */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu.h"
#include "ptx.h"
#include "ptx_exec.h"
#include "ptx_launch.h"
#include "refusals.h"
#include "text.h"
#include "ptx_kernels_test.h"

/* Each kernel's launch: its grid, block and arguments (checker/tests/ptx/kernels.cu). */
static int run_column_read(float *o, int stride) { return launch("_Z11column_readPfi", 1, 32, 2, P(o), I(stride)); }
static int run_neighbour(float *o, int with_barrier) { return launch("_Z9neighbourPfi", 1, 64, 2, P(o), I(with_barrier)); }
static int run_two_rounds(float *o, int with_second_barrier)
{
    return launch("_Z10two_roundsPfi", 2, 64, 2, P(o), I(with_second_barrier));
}
static int run_unset_read(float *o) { return launch("_Z10unset_readPf", 1, 32, 1, P(o)); }
static int run_dropped_read(float *o, int limit) { return launch("_Z12dropped_readPfi", 1, 32, 2, P(o), I(limit)); }
static int run_selp_mark(float *o, int odd_unset) { return launch("_Z9selp_markPfi", 1, 32, 2, P(o), I(odd_unset)); }
static int run_burst_many_stored(const float *in, float *o)
{
    return launch("_Z17burst_many_storedPKfPf", 1, 32, 2, P(in), P(o));
}
static int run_half_then_whole(float *o, int upper, int apart)
{
    return launch("_Z15half_then_wholePfii", 1, 32, 3, P(o), I(upper), I(apart));
}
static int run_guard_mark(float *o, int unset, int through_barrier)
{
    return launch("_Z10guard_markPfii", 1, 32, 3, P(o), I(unset), I(through_barrier));
}
static int run_store_past_end(float *o) { return launch("_Z14store_past_endPf", 1, 64, 1, P(o)); }
static int run_early_return(float *o, int first_out) { return launch("_Z12early_returnPfi", 1, 64, 2, P(o), I(first_out)); }
static int run_shuffles(float *o) { return launch("_Z8shufflesPf", 1, 64, 1, P(o)); }
static int run_votes(float *o) { return launch("_Z5votesPf", 1, 64, 1, P(o)); }
static int run_warp_exchange(float *o, int with_syncwarp)
{
    return launch("_Z13warp_exchangePfi", 1, 64, 2, P(o), I(with_syncwarp));
}
static int run_counter(float *o, int atomically) { return launch("_Z7counterPfi", 2, 64, 2, P(o), I(atomically)); }
static int run_same_output(float *o) { return launch("_Z11same_outputPf", 2, 64, 1, P(o)); }
static int run_misaligned(float *o) { return launch("_Z10misalignedPf", 1, 32, 1, P(o)); }
static int run_partial_shuffle(float *o, unsigned mask, int first_out, int source)
{
    return launch("_Z15partial_shufflePfjii", 1, 32, 4, P(o), I(mask), I(first_out), I(source));
}
static int run_ldmatrix_tile(float *o, int stride, int trans, int swizzle)
{
    return launch("_Z13ldmatrix_tilePfiii", 1, 32, 4, P(o), I(stride), I(trans), I(swizzle));
}
static int run_mma_tile(float *o) { return launch("_Z8mma_tilePf", 1, 32, 1, P(o)); }
static int run_mma_half_warp(float *o) { return launch("_Z13mma_half_warpPf", 1, 32, 1, P(o)); }
static int run_scoped_asm(float *o) { return launch("_Z10scoped_asmPf", 1, 32, 1, P(o)); }
static int run_vector_store_race(float *o) { return launch("_Z17vector_store_racePf", 1, 32, 1, P(o)); }
static int run_mma_after_divergence(float *o) { return launch("_Z20mma_after_divergencePf", 1, 32, 1, P(o)); }
static int run_async_copy16(const float *in, float *o, int from, int e)
{
    return launch("_Z12async_copy16PKfPfii", 1, 32, 4, P(in), P(o), I(from), I(e));
}
static int run_async_reuse(const float *in, float *o, int barrier)
{
    return launch("_Z11async_reusePKfPfi", 1, 32, 3, P(in), P(o), I(barrier));
}
static int run_global_zero_then_add(float *o, int barrier)
{
    return launch("_Z20global_zero_then_addPfi", 1, 128, 2, P(o), I(barrier));
}
static int run_warp_order(float *o)
{
    return launch("_Z10warp_orderPf", 1, 128, 1, P(o));
}
static int run_fenced_handover(float *o) { return launch("_Z15fenced_handoverPf", 1, 64, 1, P(o)); }
static int run_cas_beside_red(float *o, int retry)
{
    return launch("_Z14cas_beside_redPfi", 1, 128, 2, P(o), I(retry));
}
static int run_shared_cas(float *o, int loop) { return launch("_Z10shared_casPfi", 1, 128, 2, P(o), I(loop)); }
static int run_cas_add(float *o, int retry) { return launch("_Z7cas_addPfi", 1, 128, 2, P(o), I(retry)); }
static int run_ticket_sum(float *o, int publish_first)
{
    return launch("_Z10ticket_sumPfi", 1, 128, 2, P(o), I(publish_first));
}
static int run_bounded(float *o, unsigned threads) { return launch("_Z7boundedPf", 1, threads, 1, P(o)); }
static int run_block_order(float *o) { return launch("_Z11block_orderPf", 8, 32, 1, P(o)); }
static int run_block_mark(float *o, unsigned blocks) { return launch("_Z10block_markPf", blocks, 32, 1, P(o)); }
static int run_async_copy_strided(const float *in, float *o, int stride)
{
    return launch("_Z18async_copy_stridedPKfPfi", 1, 32, 3, P(in), P(o), I(stride));
}
static int run_async_copy(const float *in, float *o, int mode)
{
    return launch("_Z10async_copyPKfPfi", 1, 32, 3, P(in), P(o), I(mode));
}
static int run_burst(const float *in, float *o, int unrolled)
{
    return launch(unrolled ? "_Z14burst_unrolledPKfPf" : "_Z12burst_rolledPKfPf", 1, 32, 2, P(in), P(o));
}
static int run_float_units(const float *in, float *o) { return launch("_Z11float_unitsPKfPf", 1, 32, 2, P(in), P(o)); }
static int run_burst_through_shared(const float *in, float *o, int chained)
{
    return launch("_Z20burst_through_sharedPKfPfi", 1, 32, 3, P(in), P(o), I(chained));
}

/* ---- the tests ---- */

static struct mem_counts count_column_read(int stride)
{
    emu_trace_start();
    return counted(run_column_read(out, stride));
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
        for (int t = 0; t < 32; t++)
            assert_true(out[t] == 1.0f);
    }
}

static void barrier_present_no_error(void **state)
{
    (void)state;
    assert_run(run_neighbour(out, 1), 0);
    for (int t = 0; t < 64; t++)
        assert_true(out[t] == (float)((t + 1) % 64));
}

static void both_barriers_no_error(void **state)
{
    (void)state;
    assert_run(run_two_rounds(out, 1), 0);
    for (int t = 0; t < 128; t++)
        assert_true(out[t] == (float)(2 * ((t + 1) % 64) + 100));
}

/* A kernel without one of its barriers: a race between its lines that read and write, and the
 * barrier missing named. */
static void a_missing_barrier_is_a_race(void **state)
{
    (void)state;
    const struct {
        int (*run)(float *o, int with_barrier);
        const char *read, *write, *missing;
    } cases[] = {
        /* The first: a thread reads a word its neighbour writes in the same interval. Thread 31
         * reads s[32] before thread 32 (the next warp) has written it: the read came too early, so
         * the barrier missing is the one after the write. */
        {run_neighbour, "neighbour_read", "neighbour_write", "a __syncthreads() after the write is missing"},
        /* The second: the next round's store overwrites a word another thread reads. */
        {run_two_rounds, "two_rounds_read", "two_rounds_write",
         "a __syncthreads() after the read, before the next write, is missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_run(cases[i].run(out, 0), EMU_RACE);
        assert_said("a race");
        assert_said(at(cases[i].read));
        assert_said(at(cases[i].write));
        assert_said(cases[i].missing);
        assert_null(strstr(said(), "memory fence"));
    }
    /* A handover by fences and an atomic: not followed, and the sentence says so (issue 45). */
    assert_run(run_fenced_handover(out), EMU_RACE);
    assert_said(at("fenced_handover_read"));
    assert_said("Your kernel has a memory fence. If a fence and an atomic order these two accesses on a GPU, the "
                "emulator cannot see it");
}

static void early_return_before_barrier_is_reported(void **state)
{
    (void)state;
    char expected[300];
    assert_run(run_early_return(out, 40), EMU_BARRIER_DIVERGENCE);
    snprintf(expected, sizeof expected, "40 threads wait at __syncthreads() in %s", at("early_return_barrier"));
    assert_said(expected);
    assert_said("while 24 have returned");
}

static void no_early_return_no_error(void **state)
{
    (void)state;
    assert_run(run_early_return(out, 64), 0);
    assert_true(out[63] == 1.0f);
}

/* A value read from unwritten shared memory that reaches global memory. */
static void unset_shared_read_is_reported(void **state)
{
    (void)state;
    char expected[300];
    assert_run(run_unset_read(out), EMU_UNSET_SHARED_READ);
    assert_said("thread (0,0) stores to global memory a value it read from shared memory that no thread of the "
                "block has written");
    snprintf(expected, sizeof expected, "(%s", at("unset_read"));
    assert_said(expected);
}

/* selp of a full warp (the whole-warp path) passes on the mark of the operand it chose: the
 * written word's for every lane, no error; the unwritten one's for the odd lanes, reported. */
static void unset_value_through_selp_is_reported(void **state)
{
    (void)state;
    assert_run(run_selp_mark(out, 0), 0);
    for (int t = 0; t < 32; t++)
        assert_true(out[t] == 1.0f);
    assert_run(run_selp_mark(out, 1), EMU_UNSET_SHARED_READ);
    assert_said("thread (1,0) stores to global memory a value it read from shared memory that no thread of the "
                "block has written");
    assert_said(at("selp_mark"));
}

/* Half a warp at a __syncwarp of its own half, then the whole warp at one shuffle: right, either
 * half first (a red team's kernels were refused as lanes at different operations); one half at a
 * full-warp shuffle, the other at a full-warp vote: refused. */
static void half_warp_operation_then_the_whole_warp(void **state)
{
    (void)state;
    for (int upper = 0; upper <= 1; upper++) {
        assert_run(run_half_then_whole(out, upper, 0), 0);
        for (int t = 0; t < 32; t++)
            assert_true(out[t] == (float)t + (float)(t < 31 ? t + 1 : t));
    }
    assert_run(run_half_then_whole(out, 0, 1), EMU_WARP_MISMATCH);
    assert_said("meet at different warp operations");
}

/* A value an unwritten word decided, through a predicated instruction's guard or a barrier's
 * vote (__syncthreads_or), carries its mark to the store; decided by a written word, no error. */
static void unset_value_through_guard_or_vote_is_reported(void **state)
{
    (void)state;
    for (int through_barrier = 0; through_barrier <= 1; through_barrier++) {
        assert_run(run_guard_mark(out, 0, through_barrier), 0);
        for (int t = 0; t < 32; t++)
            assert_true(out[t] == 3.0f);
        assert_run(run_guard_mark(out, 1, through_barrier), EMU_UNSET_SHARED_READ);
        assert_said("stores to global memory a value it read from shared memory that no thread of the block has "
                    "written");
        assert_said(at("guard_mark"));
    }
}

/* A read of unwritten shared memory whose value goes nowhere is no error (a compiler's
 * speculative load); the same read stored is. */
static void unset_shared_read_dropped_is_no_error(void **state)
{
    (void)state;
    for (int t = 0; t < 32; t++)
        out[t] = -1.0f;
    assert_run(run_dropped_read(out, 16), 0);
    for (int t = 0; t < 32; t++)
        assert_true(out[t] == (t < 16 ? 1.0f : -1.0f));
    assert_run(run_dropped_read(out, 32), EMU_UNSET_SHARED_READ);
    /* the store that uses the value, and (another line) the read that got it, each named */
    assert_said("thread (16,0) stores to global memory a value it read from shared memory that no thread of the "
                "block has written");
    assert_said(at("dropped_store"));
    char read_at[300]; /* in the same file: by its line alone */
    snprintf(read_at, sizeof read_at, "; the block first read unwritten shared memory at line %s",
             at("dropped_load") + strlen(WB_PTX_SOURCE) + 1);
    assert_said(read_at);
}

static void store_past_end_is_reported(void **state)
{
    (void)state;
    char expected[300];
    const struct emu_buffer b = {(char *)out, (char *)(out + 64), 64 * sizeof(float), "out", 0, 4, 0, 0, 0};
    emu_set_buffers(&b, 1);
    int rc = run_store_past_end(out);
    give_arena(NULL);
    assert_run(rc, EMU_OUT_OF_BOUNDS);
    snprintf(expected, sizeof expected, "thread (63,0) writes element 64 of out, past its end (%s",
             at("store_past_end"));
    assert_said(expected);
}

/* ---- the warp's and the block's collective operations ---- */

static void shuffles_compute_what_cuda_defines(void **state)
{
    (void)state;
    assert_run(run_shuffles(out), 0);
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
    assert_run(run_votes(out), 0);
    for (int t = 0; t < 64; t++) {
        assert_true(out[t] == 11.0f + 100.0f * (496 + 0));
        assert_true(out[64 + t] == (float)(1 + 0 + 10 * 100 + 10000 + 100000));
    }
}

static void missing_syncwarp_is_a_race_within_the_warp(void **state)
{
    (void)state;
    assert_run(run_warp_exchange(out, 0), EMU_RACE);
    assert_said("a lane of the same warp");
    assert_said("no __syncwarp() between them");
    assert_said(at("exchange_read"));
    assert_said(at("exchange_write"));
    assert_run(run_warp_exchange(out, 1), 0);
    for (int t = 0; t < 64; t++)
        assert_true(out[t] == (float)(t ^ 1));
}

static void atomics_are_no_race_plain_updates_are(void **state)
{
    (void)state;
    out[128] = 0.0f;
    assert_run(run_counter(out, 1), 0);
    for (int t = 0; t < 128; t++)
        assert_true(out[t] == 64.0f);
    assert_true(out[128] == 2.0f); /* one atomic per block, from two blocks: no race */
    assert_run(run_counter(out, 0), EMU_RACE);
    assert_said("a race");
    assert_said(at("counter_plain"));
}

static void two_blocks_writing_one_element_race(void **state)
{
    (void)state;
    assert_run(run_same_output(out), EMU_BLOCK_RACE);
    assert_said("block (1,0): thread (0,0) writes element 0 of out");
    assert_said(at("same_output"));
    assert_said("which block (0,0) wrote");
}

/* The runner's way: a fatal handler that ends the run at the misaligned access itself. */
static jmp_buf stopped;
static char stop_sentence[1000];
static void stop_run(const char *sentence)
{
    snprintf(stop_sentence, sizeof stop_sentence, "%s", sentence);
    longjmp(stopped, 1);
}

static void misaligned_float4_stops_the_run(void **state)
{
    (void)state;
    char expected[300];
    volatile int stopped_at_once = 0;
    stop_sentence[0] = '\0';
    emu_set_fatal_handler(stop_run);
    if (setjmp(stopped) == 0)
        run_misaligned(out);
    else
        stopped_at_once = 1;
    emu_set_fatal_handler(NULL);
    assert_true(stopped_at_once);
    snprintf(expected, sizeof expected, "thread (0,0) reads 16 bytes in shared memory (%s", at("misaligned"));
    assert_contains(stop_sentence, expected);
    assert_contains(stop_sentence, "at an address 4 bytes past a multiple of 16");
}

/* Without a handler (as in the old test) the access goes ahead and is reported when the threads
 * stop, as any bad access (emu.h): the misaligned read is the first error, before the value
 * that lane 7's float4 brought from s[32], which nobody wrote, reaches out. */
static void misaligned_float4_is_reported(void **state)
{
    (void)state;
    char expected[300];
    assert_run(run_misaligned(out), EMU_MISALIGNED);
    snprintf(expected, sizeof expected, "reads 16 bytes in shared memory (%s", at("misaligned"));
    assert_said(expected);
    assert_said("at an address 4 bytes past a multiple of 16");
}

static void masks_naming_absent_lanes_are_reported(void **state)
{
    (void)state;
    assert_run(run_partial_shuffle(out, 0xffffffffu, 16, 0), EMU_WARP_MISMATCH);
    assert_said("with the mask 0xffffffff, but lane 16, thread (16,0), has returned");
    assert_run(run_partial_shuffle(out, 0x0000ffffu, 32, 0), EMU_WARP_MISMATCH);
    assert_said("which leaves out its own lane 16");
    assert_run(run_partial_shuffle(out, 0x0000ffffu, 16, 20), EMU_WARP_MISMATCH);
    assert_said("reads lane 20 with __shfl_sync");
    assert_said(at("partial_shuffle")); /* the caller's line, not the header's */
    assert_run(run_partial_shuffle(out, 0x0000ffffu, 16, 3), 0);
    assert_true(out[15] == 3.0f);
}

/* ---- bytes in flight ---- */

/* The bytes-in-flight kernels' input, out[0..127], all ones, and a count begun; then each of their
 * 32 outputs, out[128..159], held to v. */
static void ones_in(void)
{
    for (int i = 0; i < 128; i++)
        out[i] = 1.0f;
    emu_trace_start();
}
static void each_out(float v)
{
    for (int t = 0; t < 32; t++)
        assert_true(out[128 + t] == v);
}

static struct mem_counts count_burst(int unrolled)
{
    ones_in();
    struct mem_counts c = counted(run_burst(out, out + 128, unrolled));
    each_out(4.0f);
    return c;
}

/* Four independent loads into registers, then four stores to shared memory: 16 bytes in flight
 * per thread; the loop not unrolled waits at its branch back: 4. */
static void bytes_in_flight_are_measured(void **state)
{
    (void)state;
    struct mem_counts c = count_burst(1);
    assert_int_equal(c.burst_threads, 32);
    assert_int_equal(c.min_burst_bytes, 16);
    c = count_burst(0);
    assert_int_equal(c.burst_threads, 32);
    assert_int_equal(c.min_burst_bytes, 4);
}

/* A load's index that derives from a load in flight through a shared word the thread stored it
 * to: ptxas keeps the read after the store, and the store waits for its value, so one load is in
 * flight at a time (4 bytes); the same loads reading back a word stored with a value at hand: 16. */
static void bytes_in_flight_follow_a_store(void **state)
{
    (void)state;
    for (int chained = 1; chained >= 0; chained--) {
        ones_in();
        struct mem_counts c = counted(run_burst_through_shared(out, out + 128, chained));
        each_out(4.0f);
        assert_int_equal(c.burst_threads, 32);
        assert_int_equal(c.min_burst_bytes, chained ? 4 : 16);
    }
    /* twenty values stored as they come, each still on its way: no wait before the barrier (the
     * list of such stores once made the thread wait at its 17th, a wait no GPU makes) */
    ones_in();
    struct mem_counts c = counted(run_burst_many_stored(out, out + 128));
    each_out(20.0f);
    assert_int_equal(c.min_burst_bytes, 80);
}

/* A block's loads of sectors it read before count once in block_ld_sectors (what would reach L2
 * past its SM's L1), each block's apart; every load's sectors still count in the loads' own. The
 * launch's sectors count once a launch (launch_sectors: what must cross from DRAM at the least),
 * reads and writes apart, and a new launch counts its own again. */
static void sectors_count_once_a_block(void **state)
{
    (void)state;
    for (int i = 0; i < 32; i++)
        out[i] = 1.0f;
    for (int again = 0; again < 2; again++) {
        emu_trace_start();
        struct mem_counts c = counted(launch("_Z6rereadPKfPfi", 2, 32, 3, P(out), P(out + 32), I(5)));
        assert_true(out[32] == 5.0f && out[63] == 5.0f);
        assert_int_equal(c.op[GLOBAL_LD].wavefronts, 2 * 5 * 4);
        assert_int_equal(c.block_ld_sectors, 2 * 4);
        assert_int_equal(c.launch_sectors, 4 + 2 * 4); /* the 128 bytes both blocks read, each its own 128 written */
    }
    /* In place, one block: each thread writes the element it read. A sector read and written is
     * two of the launch's (the DRAM reads it, and writes it back). */
    emu_trace_start();
    struct mem_counts c = counted(launch("_Z6rereadPKfPfi", 1, 32, 3, P(out + 32), P(out + 32), I(1)));
    assert_int_equal(c.launch_sectors, 4 + 4);
}

/* ldmatrix's registers as the PTX ISA lays them out: lane L's register j holds row L/4 of
 * matrix j, elements 2(L%4) and 2(L%4)+1 (with .trans, column L/4, rows 2(L%4) and 2(L%4)+1),
 * the low half first; element (r, c) of the 32 rows is 8r + c. */
static void ldmatrix_gives_the_isa_layout(void **state)
{
    (void)state;
    for (int trans = 0; trans < 2; trans++)
        for (int swizzle = 0; swizzle < 2; swizzle++) {
            assert_run(run_ldmatrix_tile(out, swizzle ? 64 : 8, trans, swizzle), 0);
            const uint32_t *got = (const uint32_t *)out;
            for (int l = 0; l < 32; l++)
                for (int j = 0; j < 4; j++) {
                    int r = 8 * j + l / 4, c = 2 * (l % 4);
                    uint32_t lo = (uint32_t)(8 * r + c), hi = lo + 1;
                    if (trans)
                        lo = (uint32_t)(8 * (8 * j + c) + l / 4), hi = lo + 8;
                    assert_int_equal(got[4 * l + j], lo | hi << 16);
                }
        }
}

static struct mem_counts count_ldmatrix(int stride, int swizzle)
{
    emu_trace_start();
    return counted(run_ldmatrix_tile(out, stride, 0, swizzle));
}

/* One ldmatrix.x4, priced as four phases of eight 16-byte rows: rows packed one after another
 * fill the 32 banks once a phase (4 wavefronts); rows 128 bytes apart all fall in the same four
 * banks (8-way: 32); the same rows with the 16-byte chunk XORed with the row are conflict-free
 * again (4). */
static void ldmatrix_conflicts_are_counted_per_phase(void **state)
{
    (void)state;
    const struct {
        int stride, swizzle;
        uint64_t wavefronts;
    } cases[] = {{8, 0, 4}, {64, 0, 32}, {64, 1, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mem_counts c = count_ldmatrix(cases[i].stride, cases[i].swizzle);
        assert_int_equal(c.op[SHARED_LD].requests, 1);
        assert_int_equal(c.op[SHARED_LD].wavefronts, cases[i].wavefronts);
        assert_int_equal(c.op[SHARED_LD].ideal, 4);
    }
}

/* PTX's blocks: a register declared in { ... } shadows the outer one of its name until the block
 * closes, and a label is looked up in its branch's block first (a helper's inline assembly, inlined
 * twice, defines its label twice). The multiplies are counted where they run: one mma.sync is 2048
 * multiply-adds on the tensor cores, an fma per lane one on the ordinary cores. */
static void asm_blocks_scope_registers_and_labels(void **state)
{
    (void)state;
    emu_trace_start();
    struct mem_counts c = counted(run_scoped_asm(out));
    for (int l = 0; l < 32; l++) {
        assert_true(out[l] == (float)l);
        assert_true(out[32 + l] == (float)(2 * l + 1));
    }
    assert_int_equal(c.core_multiplies, 32);
    assert_int_equal(c.mma_multiply_adds, 0);
    emu_trace_start();
    assert_int_equal(counted(run_mma_tile(out)).mma_multiply_adds, 2048);
}

/* out holds mma_tile's product, lane l's element e at out[4 l + e], as the CPU sums it. */
static void assert_mma_tile_product(void)
{
    for (int l = 0; l < 32; l++)
        for (int e = 0; e < 4; e++) {
            int m = (e < 2 ? l / 4 : l / 4 + 8), n = 2 * (l % 4) + (e & 1);
            float want = (float)(m - n);
            for (int k = 0; k < 16; k++)
                want += (float)((m + 2 * k) % 7 - 3) * (float)((3 * k + n) % 5 - 2);
            assert_true(out[4 * l + e] == want);
        }
}

/* mma.sync m16n8k16 (halves in, floats out) computes D = A B + C with the fragments where the
 * PTX ISA puts them: the kernel builds each lane's from formulas, the test sums on the CPU. */
static void mma_computes_the_product_in_the_isa_layout(void **state)
{
    (void)state;
    assert_run(run_mma_tile(out), 0);
    assert_mma_tile_product();
}

static void mma_after_the_warp_came_apart(void **state)
{
    (void)state;
    assert_run(run_mma_after_divergence(out), 0);
    assert_mma_tile_product();
}

static void mma_in_half_a_warp_is_reported(void **state)
{
    (void)state;
    assert_run(run_mma_half_warp(out), EMU_WARP_MISMATCH);
    assert_said("a warp instruction (.sync.aligned) that every lane of a full warp must reach, but lane 16");
    assert_said("has returned");
}

/* A race on any word of a vector access, not its first alone. */
static void race_on_a_vector_store_s_third_word(void **state)
{
    (void)state;
    assert_run(run_vector_store_race(out), EMU_RACE);
    assert_said(at("vector_store_race_write"));
    assert_said(at("vector_store_race_read"));
}

/* cp.async lands at the wait for its group, as the thread's write then: read after the wait and
 * a barrier it is there (zeros past its src-size); without the wait, or of a group not waited
 * for, it is unwritten; without the barrier, a race. */
static void async_copies_land_at_their_wait(void **state)
{
    (void)state;
    float *in = out, *o = out + 128;
    for (int mode = 0; mode < 6; mode++) {
        for (int k = 0; k < 128; k++)
            in[k] = (float)(k + 1);
        int rc = run_async_copy(in, o, mode);
        if (mode == 0 || mode == 3 || mode == 4) {
            assert_run(rc, 0);
            for (int t = 0; t < 32; t++)
                assert_true(o[t] == (mode == 3 ? 0.0f : (float)(2 * ((t + 1) % 32) + 2)));
        } else if (mode == 2) { /* the copy's write, as the thread's at its wait, named by its line */
            assert_run(rc, EMU_RACE);
            assert_said(at("async_copy_read"));
            assert_said(at("async_copy_a"));
        } else {
            assert_run(rc, EMU_UNSET_SHARED_READ);
            assert_said("no thread of the block has written");
            assert_said("its copy had not landed");
            if (mode == 1)
                assert_said(at("async_copy_a"));
        }
    }
}

/* 16-byte copies with a src-size of 12, 4 or 0 (the zero fill of a ragged edge, no alignment
 * of its own), and two stages through one buffer with and without the barrier between them. */
static void async_copies_fill_and_reuse(void **state)
{
    (void)state;
    float *in = out, *o = out + 128;
    const struct {
        int from, e;
    } cases[] = {{12, 2}, {12, 3}, {4, 0}, {4, 1}, {0, 0}, {16, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int k = 0; k < 128; k++)
            in[k] = (float)(k + 1);
        assert_run(run_async_copy16(in, o, cases[i].from, cases[i].e), 0);
        for (int t = 0; t < 32; t++) {
            int k = 4 * ((t + 1) % 32) + cases[i].e;
            assert_true(o[t] == (4 * cases[i].e < cases[i].from ? (float)(k + 1) : 0.0f));
        }
    }
    for (int k = 0; k < 128; k++)
        in[k] = (float)(k + 1);
    assert_run(run_async_reuse(in, o, 1), 0);
    for (int t = 0; t < 32; t++) {
        int j = (t + 1) % 32;
        assert_true(o[t] == (float)(2 * j + 1) + (float)(64 + 2 * j + 1));
    }
    assert_run(run_async_reuse(in, o, 0), EMU_RACE);
    assert_said(at("async_reuse_read"));
    assert_said(at("async_reuse_copy"));
}

/* cp.async is priced as Nsight Compute counts it (issue 45): its global side a load (sectors), its
 * shared side a store of its width (LDGSTS wavefronts: 16-byte lanes 128 bytes apart are 8-way),
 * and its bytes in flight until the wait for its group, as a load's; async_copy's two 8-byte
 * copies before one wait: 16 bytes, a kernel with no other load measured all the same. */
static void async_copies_are_priced(void **state)
{
    (void)state;
    float *in = out, *o = out + 128;
    const struct {
        int stride;
        uint64_t wavefronts;
    } cases[] = {{1, 4}, {2, 8}, {8, 32}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int k = 0; k < 128; k++)
            in[k] = (float)(k + 1);
        emu_trace_start();
        struct mem_counts c = counted(run_async_copy_strided(in, o, cases[i].stride));
        for (int t = 0; t < 32; t++)
            assert_true(o[t] == (float)(4 * t + 2));
        assert_int_equal(c.op[SHARED_ST].requests, 1);
        assert_int_equal(c.op[SHARED_ST].wavefronts, cases[i].wavefronts);
        assert_int_equal(c.op[SHARED_ST].ideal, 4);
        assert_int_equal(c.op[GLOBAL_LD].requests, 1);
        assert_int_equal(c.op[GLOBAL_LD].wavefronts, 16);
        assert_int_equal(c.burst_threads, 32);
        assert_int_equal(c.min_burst_bytes, 16);
    }
    for (int k = 0; k < 128; k++)
        in[k] = (float)(k + 1);
    emu_trace_start();
    struct mem_counts c = counted(run_async_copy(in, o, 0));
    assert_int_equal(c.op[SHARED_ST].requests, 2);
    assert_int_equal(c.op[SHARED_ST].wavefronts, 4);
    assert_int_equal(c.burst_threads, 32);
    assert_int_equal(c.min_burst_bytes, 16);
}

/* Warp instructions issued, by the unit that runs them (issue 46's time model weighs them): one
 * warp's mma is one tensor-core instruction; cp.async copies are global memory's, their commit and
 * wait control's; a kernel without floats issues no float instruction. */
static void instructions_counted_by_unit(void **state)
{
    (void)state;
    emu_trace_start();
    struct mem_counts c = counted(run_mma_tile(out));
    assert_int_equal(c.issued[ISSUE_TENSOR], 1);
    assert_int_equal(c.mma_multiply_adds, 2048);
    float *in = out, *o = out + 128;
    for (int k = 0; k < 128; k++)
        in[k] = (float)(k + 1);
    emu_trace_start();
    c = counted(run_async_copy_strided(in, o, 1));
    assert_int_equal(c.issued[ISSUE_GLOBAL], c.op[GLOBAL_LD].requests + c.op[GLOBAL_ST].requests);
    assert_true(c.issued[ISSUE_CONTROL] >= 2); /* commit and wait, and the exit */
    assert_int_equal(c.issued[ISSUE_TENSOR], 0);
    assert_int_equal(c.issued[ISSUE_SHARED], c.op[SHARED_LD].requests);
    assert_true(c.issued[ISSUE_INTEGER] > 0);
    assert_int_equal(c.issued[ISSUE_DOUBLE], 0);
    assert_int_equal(c.issued[ISSUE_CONVERT], 0);
    /* an f32 add, an f64 fma, two conversions (f32 to f64 and back): double's and convert's own units */
    for (int k = 0; k < 32; k++)
        in[k] = (float)k;
    emu_trace_start();
    c = counted(run_float_units(in, o));
    assert_int_equal(c.issued[ISSUE_FLOAT], 1);
    assert_int_equal(c.issued[ISSUE_DOUBLE], 1);
    assert_int_equal(c.issued[ISSUE_CONVERT], 2);
    for (int k = 0; k < 32; k++)
        assert_true(o[k] == (float)((k + 1.0) * 3.0 + 0.5));
}

/* The order of a block's warps between barriers (issue 45): forward, backward, or drawn from a
 * seed at each barrier, each phase on its own; and the last writer of a word named by its line. */
static void warps_run_in_the_order_asked(void **state)
{
    (void)state;
    emu_set_schedule(0, 0);
    assert_run(run_warp_order(out), 0);
    assert_true(out[0] == 3.0f && out[1] == 3.0f);
    char where[160];
    assert_non_null(strstr(emu_where(emu_trace_last_writer(&out[0]), where, sizeof where), at("warp_order_swap")));
    emu_set_schedule(1, 0);
    assert_run(run_warp_order(out), 0);
    assert_true(out[0] == 0.0f && out[1] == 0.0f);
    int seen[4][4] = {{0}}, phases_differ = 0;
    for (uint64_t seed = 1; seed <= 32; seed++) {
        emu_set_schedule(2, seed);
        assert_run(run_warp_order(out), 0);
        int a = (int)out[0], b = (int)out[1];
        assert_true(a >= 0 && a < 4 && b >= 0 && b < 4);
        seen[a][b] = 1;
        phases_differ |= a != b;
    }
    emu_set_schedule(0, 0);
    int kinds = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            kinds += seen[a][b];
    assert_true(kinds >= 4 && phases_differ);
}

/* In the drawn order a warp stops before each atomic (atom or red) and the others run to
 * theirs (issue 45): a read-then-compare-and-swap without its retry loop loses addends there, as
 * on a GPU; with its loop it adds every one under every order. */
static void compare_and_swap_needs_its_loop(void **state)
{
    (void)state;
    int lost = 0, lost_to_red = 0;
    for (int order = 0; order <= 2; order++)
        for (uint64_t seed = 1; seed <= (order == 2 ? 8u : 1u); seed++) {
            emu_set_schedule(order, seed);
            out[0] = 0.0f;
            assert_run(run_cas_add(out, 1), 0);
            assert_true(out[0] == 10.0f);
            out[0] = 0.0f;
            assert_run(run_cas_add(out, 0), 0);
            assert_true(out[0] <= 10.0f);
            lost += order == 2 && out[0] < 10.0f;
            /* the same beside red, which the drawn order stops before too */
            out[0] = 0.0f;
            assert_run(run_cas_beside_red(out, 1), 0);
            assert_true(out[0] == 10.0f);
            out[0] = 0.0f;
            assert_run(run_cas_beside_red(out, 0), 0);
            lost_to_red += order == 2 && out[0] < 10.0f;
        }
    emu_set_schedule(0, 0);
    assert_int_equal(lost, 8);
    assert_true(lost_to_red >= 4); /* (not where warp 0 reads after every red: it comes last) */
    /* Warps taking turns on one shared word: a compare-and-swap in a loop counts as a float
     * atomicAdd does (lesson 7's rule), one alone (a leader elected) does not. */
    emu_trace_start();
    struct mem_counts c = counted(run_shared_cas(out, 1));
    assert_true(out[0] == 10.0f);
    assert_int_equal(c.float_atomic_warps, 4);
    emu_trace_start();
    c = counted(run_shared_cas(out, 0));
    assert_true(out[0] >= 1.0f && out[0] <= 4.0f);
    assert_int_equal(c.float_atomic_warps, 0);
}

/* In the drawn order the block's slow warp waits after each such atomic while the others go on
 * (issue 45): a warp that takes its ticket before it publishes is read before it has, by the warp
 * the last ticket names (unless the slow warp is that one); published first, every order adds
 * all four. The fixed orders run each warp on to its end, and see no difference. */
static void a_slow_warp_is_read_before_it_publishes(void **state)
{
    (void)state;
    int wrong = 0;
    for (int order = 0; order <= 2; order++)
        for (uint64_t seed = 1; seed <= (order == 2 ? 16u : 1u); seed++) {
            emu_set_schedule(order, seed);
            assert_run(run_ticket_sum(out, 1), 0);
            assert_true(out[0] == 10.0f);
            assert_run(run_ticket_sum(out, 0), 0);
            assert_true(out[0] <= 10.0f);
            if (order < 2)
                assert_true(out[0] == 10.0f);
            wrong += out[0] < 10.0f;
        }
    emu_set_schedule(0, 0);
    assert_true(wrong >= 8);
}

/* __launch_bounds__ kept: blocks of at most its threads run, a larger one is refused by name. */
static void launch_bounds_kept(void **state)
{
    (void)state;
    assert_run(run_bounded(out, 32), 0);
    assert_true(out[31] == 1.0f);
    assert_run(run_bounded(out, 64), EMU_BAD_LAUNCH);
    assert_said("it promises blocks of at most 32 threads (__launch_bounds__(32) or .maxntid), but the lesson "
                "launches blocks of 64: on a GPU the launch fails");
}

/* The grid's blocks in the order asked too: forward, backward, drawn from the seed (a GPU promises
 * none, so a block that reads another's writes races with it). */
static void blocks_run_in_the_order_asked(void **state)
{
    (void)state;
    emu_set_schedule(0, 0);
    assert_run(run_block_order(out), 0);
    assert_true(out[0] == 7.0f);
    emu_set_schedule(1, 0);
    assert_run(run_block_order(out), 0);
    assert_true(out[0] == 0.0f);
    int seen[8] = {0}, kinds = 0;
    for (uint64_t seed = 1; seed <= 32; seed++) {
        emu_set_schedule(2, seed);
        assert_run(run_block_order(out), 0);
        int last = (int)out[0];
        assert_true(last >= 0 && last < 8);
        kinds += !seen[last];
        seen[last] = 1;
    }
    emu_set_schedule(0, 0);
    assert_true(kinds >= 4);
}

/* A sampled launch (issue 46's time model at the timed size) runs as many blocks as asked, none
 * twice, its first and last among them; asked for more than the grid has, all of them. A sample
 * of one block is drawn from the seed, each seed its own. */
static void sampled_launch_runs_its_sample(void **state)
{
    (void)state;
    int drawn[2] = {-1, -1};
    for (int s = 0; s < 2; s++) {
        memset(out, 0, 64 * sizeof *out);
        emu_set_schedule(0, 1000 + (uint64_t)s);
        ptx_test_sample = 1;
        assert_run(run_block_mark(out, 64), 0);
        ptx_test_sample = 0;
        emu_set_schedule(0, 0);
        for (int b = 0; b < 64; b++)
            if (out[b] == 1.0f)
                drawn[s] = b;
    }
    assert_true(drawn[0] >= 0 && drawn[1] >= 0 && drawn[0] != drawn[1]);
    for (unsigned sample = 4; sample <= 70; sample += 22) {
        memset(out, 0, 64 * sizeof *out);
        ptx_test_sample = sample;
        assert_run(run_block_mark(out, 64), 0);
        ptx_test_sample = 0;
        int ran = 0;
        for (int b = 0; b < 64; b++)
            ran += out[b] == 1.0f;
        assert_int_equal(ran, sample < 64 ? (int)sample : 64);
        assert_true(out[0] == 1.0f);
        assert_true(out[63] == 1.0f);
    }
}

/* Global memory within a block is race-checked as shared memory is, between warps (issue 45): a
 * plain store beside other warps' atomics with no barrier between is a race in any order of the
 * warps, named by both lines; with the barrier, four additions to a zero. */
static void global_race_within_a_block(void **state)
{
    (void)state;
    for (int order = 0; order < 2; order++) {
        emu_set_schedule(order, 0);
        assert_run(run_global_zero_then_add(out, 1), 0);
        assert_true(out[0] == 4.0f);
        assert_run(run_global_zero_then_add(out, 0), EMU_RACE);
        assert_said("an atomic orders only other atomics");
        assert_said(at("global_zero"));
        assert_said(at("global_add"));
    }
    emu_set_schedule(0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(column_read_counts),
        cmocka_unit_test(barrier_present_no_error),
        cmocka_unit_test(both_barriers_no_error),
        cmocka_unit_test(a_missing_barrier_is_a_race),
        cmocka_unit_test(early_return_before_barrier_is_reported),
        cmocka_unit_test(no_early_return_no_error),
        cmocka_unit_test(unset_shared_read_is_reported),
        cmocka_unit_test(unset_shared_read_dropped_is_no_error),
        cmocka_unit_test(unset_value_through_selp_is_reported),
        cmocka_unit_test(unset_value_through_guard_or_vote_is_reported),
        cmocka_unit_test(half_warp_operation_then_the_whole_warp),
        cmocka_unit_test(store_past_end_is_reported),
        cmocka_unit_test(shuffles_compute_what_cuda_defines),
        cmocka_unit_test(votes_and_counting_barriers),
        cmocka_unit_test(missing_syncwarp_is_a_race_within_the_warp),
        cmocka_unit_test(atomics_are_no_race_plain_updates_are),
        cmocka_unit_test(two_blocks_writing_one_element_race),
        cmocka_unit_test(misaligned_float4_stops_the_run),
        cmocka_unit_test(misaligned_float4_is_reported),
        cmocka_unit_test(masks_naming_absent_lanes_are_reported),
        cmocka_unit_test(bytes_in_flight_are_measured),
        cmocka_unit_test(bytes_in_flight_follow_a_store),
        cmocka_unit_test(sectors_count_once_a_block),
        cmocka_unit_test(ldmatrix_gives_the_isa_layout),
        cmocka_unit_test(ldmatrix_conflicts_are_counted_per_phase),
        cmocka_unit_test(asm_blocks_scope_registers_and_labels),
        cmocka_unit_test(mma_computes_the_product_in_the_isa_layout),
        cmocka_unit_test(mma_in_half_a_warp_is_reported),
        cmocka_unit_test(race_on_a_vector_store_s_third_word),
        cmocka_unit_test(async_copies_land_at_their_wait),
        cmocka_unit_test(async_copies_fill_and_reuse),
        cmocka_unit_test(async_copies_are_priced),
        cmocka_unit_test(instructions_counted_by_unit),
        cmocka_unit_test(launch_bounds_kept),
        cmocka_unit_test(blocks_run_in_the_order_asked),
        cmocka_unit_test(warps_run_in_the_order_asked),
        cmocka_unit_test(compare_and_swap_needs_its_loop),
        cmocka_unit_test(a_slow_warp_is_read_before_it_publishes),
        cmocka_unit_test(sampled_launch_runs_its_sample),
        cmocka_unit_test(global_race_within_a_block),
        cmocka_unit_test(mma_after_the_warp_came_apart),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
