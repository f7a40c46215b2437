/* Unit tests for checker/src/judging/occupancy.c: blocks per SM on compute capability 9.0 for
 * the lessons' shapes, each limit reached where it should be, and the launches a GPU refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "family.h"
#include "objgate.h"
#include "occupancy.h"
#include "unit.h"

static void threads_limit_small_kernels(void **state)
{
    (void)state;
    struct occupancy o = occupancy_sm90(1024, 32, 0); /* lesson 1: 32 x 32 threads, few registers */
    assert_int_equal(o.blocks, 2);
    assert_int_equal(o.warps, 64);
    assert_int_equal(o.limit, BY_THREADS);
    o = occupancy_sm90(32, 16, 0); /* one warp a block: the 32 blocks an SM stop it */
    assert_int_equal(o.blocks, 32);
    assert_int_equal(o.limit, BY_BLOCKS);
}

static void registers_rounded_per_warp(void **state)
{
    (void)state;
    /* 65 registers round to 72: 2304 a warp; 28 warps an SM, 3 blocks of 8 warps. */
    struct occupancy o = occupancy_sm90(256, 65, 0);
    assert_int_equal(o.blocks, 3);
    assert_int_equal(o.limit, BY_REGISTERS);
    /* lesson 8's __launch_bounds__(256, 2): at most 128 registers keeps 2 blocks. */
    assert_int_equal(occupancy_sm90(256, 128, 8192).blocks, 2);
    assert_int_equal(occupancy_sm90(256, 129, 8192).blocks, 1);
}

static void shared_memory_with_its_reserve(void **state)
{
    (void)state;
    /* 48 KB static + 1 KB reserved: 4 blocks in 228 KB; 4 KB + 1 KB: 45, but one warp a block stops at 32 blocks. */
    struct occupancy o = occupancy_sm90(128, 32, 48 * 1024);
    assert_int_equal(o.blocks, 4);
    assert_int_equal(o.limit, BY_SHARED);
    assert_int_equal(occupancy_sm90(32, 32, 4096).limit, BY_BLOCKS);
}

static void launches_a_gpu_refuses(void **state)
{
    (void)state;
    /* registers_exceed_block.mutant: 96 registers, 1024 threads: 98304 > 65536. */
    struct occupancy o = occupancy_sm90(1024, 96, 0);
    assert_int_equal(o.blocks, 0);
    assert_int_equal(o.limit, CANNOT_LAUNCH);
    assert_int_equal(occupancy_sm90(1024, 64, 0).blocks, 1);
    assert_int_equal(occupancy_sm90(0, 32, 0).blocks, 0);
    assert_int_equal(occupancy_sm90(2048, 32, 0).blocks, 0);
}

/* What ptxas gave a compiled kernel, read from its cubin: dropped_read(float *, int) of the
 * test kernels declares 64 floats of shared memory: 256 bytes, as `ptxas -v` says, though the
 * cubin's section for it is 1 KB longer (the system's reserve, which occupancy adds itself). */
static void cubin_resources_are_ptxas_own(void **state)
{
    (void)state;
    struct family f = {0};
    f.params = "float *out, int n";
    int regs;
    size_t shared;
    assert_int_equal(cubin_resources(WB_TEST_CUBIN, "dropped_read", &f, &regs, &shared), 0);
    assert_int_equal(shared, 256);
    assert_true(regs > 0 && regs <= 255);
    assert_int_equal(cubin_resources(WB_TEST_CUBIN, "no_such_kernel", &f, &regs, &shared), -1);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(cubin_resources_are_ptxas_own),
    cmocka_unit_test(threads_limit_small_kernels),
    cmocka_unit_test(registers_rounded_per_warp),
    cmocka_unit_test(shared_memory_with_its_reserve),
    cmocka_unit_test(launches_a_gpu_refuses))
