/* Tests of what the PTX interpreter computes where the PTX ISA defines it exactly, each found
 * running as something else by issue 45's red team: the rounding modes, .sat, bfind.shiftamt and
 * %nsmid, the sink `_` written nowhere, parameter reads outside the parameters, barriers for some
 * of the warps, ld.global of shared memory refused; and the tensor cores' sum made the fast way.
 * The kernels are checker/tests/ptx/kernels.cu's (ptx_kernels_test.h); the bit-for-bit table
 * against the H200 is the conformance suite's. */
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
#include "half.h"
#include "ptx.h"
#include "ptx_float.h"
#include "rng.h"
#include "ptx_exec.h"
#include "ptx_launch.h"
#include "text.h"
#include "ptx_kernels_test.h"

static int run_rounding(const float *in, float *o, int i, unsigned u, long long ll, double d)
{
    union {
        double d;
        uint64_t bits;
    } v = {d};
    return launch("_Z8roundingPKfPfijxd", 1, 32, 6, P(in), P(o), I(i), I(u), (uint64_t)ll, v.bits);
}
static int run_saturate_ffs_nsmid(const float *in, float *o)
{
    return launch("_Z18saturate_ffs_nsmidPKfPf", 1, 32, 2, P(in), P(o));
}
static int run_sinks(float *o) { return launch("_Z5sinksPf", 1, 32, 1, P(o)); }
static int run_param_at(float *o, long long offset)
{
    return launch("_Z8param_atPfx", 1, 32, 2, P(o), (uint64_t)offset);
}
static int run_named_barrier(float *o, int count) { return launch("_Z13named_barrierPfi", 1, 64, 2, P(o), I(count)); }
static int run_named_some(float *o, int threads, int count, int skip)
{
    return launch("_Z18named_barrier_somePfii", 1, threads, 3, P(o), I(count), I(skip));
}
static int run_global_of_shared(float *o) { return launch("_Z16global_of_sharedPf", 1, 32, 1, P(o)); }

/* The float just below or above the exact value x (a double holding it exactly, or so close that
 * no float lies between): what .rm and .rp give, and .rz toward zero. */
static float below(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}
static float above(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* Each rounding mode where it differs from the nearest (rounding in kernels.cu), against values
 * derived here without a rounding mode: the exact result's neighbours among the floats. */
static void rounding_modes_are_exact(void **state)
{
    (void)state;
    float *in = out + 64, *o = out;
    const float x = 1.0f + 0x1p-23f;
    const float inputs[] = {1.0f, 1e-8f, 3.0f, 2.0f, x, 1e-40f};
    memcpy(in, inputs, sizeof inputs);
    long long ll = (1ll << 60) + 1;
    assert_run(run_rounding(in, o, 16777217, 0xffffffffu, ll, 1.0 + 1e-10), 0);
    const double xx = (double)x * x, third = 1.0 / 3.0;
    const float want[20] = {
        above(1.0 + 1e-8f), below(1.0 + 1e-8f), -below(1.0 + 1e-8f), -above(1.0 + 1e-8f), below(third),
        above(third), above(xx), below(xx), below(xx - 1.0), above(xx - 1.0),
        below(sqrt(2.0)), above(sqrt(2.0)), below(third), 16777216.0f, 16777218.0f,
        4294967040.0f, nextafterf(0x1p60f, INFINITY) /* 2^60 + 1, up */, 1.0f, nextafterf(1.0f, 2.0f), 0.0f,
    };
    for (int k = 0; k < 20; k++) {
        if (o[k] != want[k])
            print_error("out[%d] = %a, expected %a\n", k, (double)o[k], (double)want[k]);
        assert_true(o[k] == want[k]);
    }
    assert_true(signbit(o[19]) == 0);
    double d;
    memcpy(&d, o + 32, sizeof d);
    assert_true(d == nextafter(1.0, 2.0)); /* 1 + 1e-16, up: the double after 1 */
}

/* __saturatef clamps to [0, 1] (NaN to 0), __ffs counts from 1 (0 for none), %nsmid is the H200's. */
static void saturate_ffs_and_nsmid(void **state)
{
    (void)state;
    float *in = out + 64, *o = out;
    const float sat_in[6] = {-1.0f, 0.25f, 2.0f, NAN, 1.5f, 1.0f};
    const int ffs_in[4] = {1, (int)0x80000000u, 12, 0};
    memcpy(in, sat_in, sizeof sat_in);
    memcpy(in + 6, ffs_in, sizeof ffs_in);
    assert_run(run_saturate_ffs_nsmid(in, o), 0);
    const float want[11] = {0.0f, 0.25f, 1.0f, 0.0f, 1.0f, 1.0f, 1.0f, 32.0f, 3.0f, 0.0f, 132.0f};
    for (int k = 0; k < 11; k++) {
        if (o[k] != want[k])
            print_error("out[%d] = %g, expected %g\n", k, (double)o[k], (double)want[k]);
        assert_true(o[k] == want[k]);
    }
}

/* The sink `_` written: nowhere (before, it was register -1, a write below the register file of a
 * value the kernel chose), and the other destination of a pair still right. */
static void sink_destinations_write_nowhere(void **state)
{
    (void)state;
    uint32_t zero = 0;
    memcpy(out + 64, &zero, sizeof zero);
    assert_run(run_sinks(out), 0);
    for (int t = 0; t < 32; t++) {
        assert_true(out[t] == (t != 5 ? 1.0f : 0.0f));
        assert_true(out[32 + t] == 7.0f);
    }
    uint32_t count;
    memcpy(&count, out + 64, sizeof count);
    assert_int_equal(count, 32);
}

/* A parameter address at run time: inside the parameters it reads them; 8 bytes before them it
 * is refused (before, offset + size wrapped around to 0 and passed the bounds check: the runner's
 * stack was read). */
static void parameter_reads_outside_are_refused(void **state)
{
    (void)state;
    assert_run(run_param_at(out, 8), 0);
    assert_true(out[31] == 8.0f);
    const long long outside[] = {-8, -16, 16, INT64_MAX};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        assert_run(run_param_at(out, outside[i]), EMU_OUT_OF_BOUNDS);
        assert_said("a parameter access outside the kernel's parameters");
    }
}

/* A barrier for the block's threads (its warps times 32) runs, and so does one for some of its
 * warps (before, refused; before that, run as a whole-block barrier): a warp alone at a barrier
 * for 32 threads goes on alone, so reading its neighbour's words is a race; two warps at one for
 * 64 meet there while a third has returned; one for 96 that only two warps reach is said; sets of
 * warps that overlap with no barrier of the whole block between are refused, and said to be. */
static void barriers_for_some_warps_hold_those_warps(void **state)
{
    (void)state;
    assert_run(run_named_barrier(out, 64), 0);
    assert_true(out[0] == 32.0f && out[63] == 31.0f);
    assert_run(run_named_barrier(out, 32), EMU_RACE);
    assert_said("that thread (32,0) writes");
    assert_said("with no barrier between them: a race");
    assert_run(run_named_some(out, 96, 64, 2), 0);
    assert_true(out[0] == 32.0f && out[40] == 8.0f && out[70] == -1.0f);
    assert_run(run_named_some(out, 128, 96, 2), EMU_BARRIER_DIVERGENCE);
    assert_said("waits at barrier 1 for 96 threads");
    assert_said("which never completes: 64 arrived, 64 threads have returned");
    assert_said(at("named_barrier_some"));
    assert_run(run_named_some(out, 96, 48, 2), EMU_BAD_LAUNCH);
    assert_said("a barrier counts whole warps");
    /* (found by a review: each passed before) */
    assert_run(launch("_Z19named_barrier_wrongPfi", 1, 128, 2, P(out), I(0)), EMU_RACE);
    assert_said("with no barrier between them: a race");
    assert_run(launch("_Z19named_barrier_wrongPfi", 1, 128, 2, P(out), I(1)), EMU_RACE);
    assert_said("which warps meet there depends on timing");
    assert_run(launch("_Z19named_barrier_wrongPfi", 1, 128, 2, P(out), I(2)), EMU_BARRIER_DIVERGENCE);
    assert_said("while other threads wait at barrier");
    assert_run(launch("_Z19named_barrier_wrongPfi", 1, 128, 2, P(out), I(3)), EMU_BAD_LAUNCH);
    assert_said("warp 1 met warps 0x00000003 at a barrier since the last barrier of the whole block");
    assert_said(at("named_barrier_overlap"));
}

/* ld.global of shared memory's generic address: stopped, as a GPU faults (before, it was served
 * from the block's shared memory and priced as global traffic). */
static void global_access_of_shared_memory_is_stopped(void **state)
{
    (void)state;
    assert_run(run_global_of_shared(out), EMU_OUT_OF_BOUNDS);
    assert_said("reads shared memory through a global address");
    assert_said(at("global_of_shared"));
}

/* The tensor cores' sum made from rows prepared once (ptx_tensor_dot_rows, the interpreter's mma and
 * wgmma) gives ptx_tensor_dot16's bits, which the conformance suite holds to the H200's: halves of
 * every class (subnormal, zero, near one, any; NaNs and infinities take dot16's own way) against
 * accumulators of every class, so that the cut to 25 bits below the largest term bites. */
static float any_half(struct rng *r, int kind)
{
    uint64_t x = rng_next(r);
    uint16_t h = kind == 0   ? (uint16_t)x
                 : kind == 1 ? (uint16_t)(x & 0x83ff)
                 : kind == 2 ? (uint16_t)((x & 0x8000) | (13 + (x >> 16) % 5) << 10 | (x & 0x3ff))
                             : (uint16_t)((x & 0x83ff) | ((x >> 20) % 31) << 10);
    return half_to_float(x >> 40 & 7 ? h : (uint16_t)(h & 0x8000));
}
static void tensor_rows_sum_as_dot16(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 46, 0);
    int differ = 0;
    for (int i = 0; i < 200000; i++) {
        float a[16], b[16];
        int ka = (int)(rng_next(&r) % 4), kb = (int)(rng_next(&r) % 4);
        for (int k = 0; k < 16; k++)
            a[k] = any_half(&r, ka), b[k] = any_half(&r, kb);
        uint32_t cu = (uint32_t)rng_next(&r), shape = (uint32_t)(rng_next(&r) % 4);
        cu = shape == 0 ? cu : shape == 1 ? (cu & 0x807fffffu) | (100 + cu % 60) << 23 : shape == 2 ? cu & 0x807fffffu
                                                                                                      : cu & 0x80000000u;
        float c;
        memcpy(&c, &cu, 4);
        struct tensor_row ra, rb;
        ptx_tensor_row(&ra, a, 1);
        ptx_tensor_row(&rb, b, 1);
        differ += ptx_tensor_dot_rows(&ra, &rb, c) != ptx_tensor_dot16(a, b, c);
    }
    assert_int_equal(differ, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rounding_modes_are_exact),
        cmocka_unit_test(saturate_ffs_and_nsmid),
        cmocka_unit_test(sink_destinations_write_nowhere),
        cmocka_unit_test(parameter_reads_outside_are_refused),
        cmocka_unit_test(barriers_for_some_warps_hold_those_warps),
        cmocka_unit_test(global_access_of_shared_memory_is_stopped),
        cmocka_unit_test(tensor_rows_sum_as_dot16),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
