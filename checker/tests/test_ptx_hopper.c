/* Tests of the interpreter's Hopper machinery (checker/runner/ptx/ptx_async.c) on the kernels of
 * checker/tests/ptx/hopper.cu: lesson 11's GEMM (tensor copies into swizzled stages, full and
 * empty mbarriers, wgmma through descriptors) gives the product, bit for bit, in every schedule;
 * each mistake its switch makes is refused with the sentence that names it, or gives a wrong
 * product; wgmma of tiles written by ordinary stores needs the proxy fence.
 *   -DWB_PTX_KERNELS='"build/tests/ptx_hopper.ptx"' -DWB_PTX_SOURCE='"checker/tests/ptx/hopper.cu"' */
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
#include "ptx_exec.h"
#include "tensor_map.h"
#include "text.h"
#include "ptx_launch.h"
#include "ptx_kernels_test.h"
#include "ptx/hopper_cases.h"

#define GEMM "_Z4gemm14CUtensorMap_stS_Pfii"
#define STORED_TILES "_Z12stored_tilesPKtS0_Pfi"
#define TMA_PROBE "_Z9tma_probe14CUtensorMap_stPjiii"
#define WGMMA_PROBE "_Z11wgmma_probePKtPKfPfyyi"
#define MAP_PEEK "_Z8map_peek14CUtensorMap_stPy"
#define RECORD "checker/tests/conformance/records/hopper-probes.txt"
enum { RIGHT, WRONG_PARITY, NO_EMPTY_WAIT, NO_WGMMA_FENCE, B_SWIZZLE_64, SHORT_EXPECT, NO_WAIT_GROUP,
       ARRIVE_BEFORE_WAIT, WAIT_ONE, ISSUE_BEFORE_WAIT, OTHER_HALF_IN_ODD_WARPS };
#define STAGES 3
#define DYNAMIC_SHARED (STAGES * 32768 + 1024)

static uint16_t *ha, *hb; /* N x N halves, small integers over 4: every sum exact in float */
static float *c, *ref;

/* C = A B on the CPU (exact: see ha's values). */
static void reference(int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += (double)half_to_float(ha[(size_t)i * n + k]) * half_to_float(hb[(size_t)k * n + j]);
            ref[(size_t)i * n + j] = (float)s;
        }
}

static void fill(int n)
{
    uint64_t x = 12345;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        ha[i] = float_to_half((float)((int)(x >> 60) - 8) / 4, 0);
        hb[i] = float_to_half((float)((int)(x >> 56 & 15) - 8) / 4, 0);
    }
}

/* The gemm kernel on n x n (its maps as lesson 11's harness makes them), under the schedule. */
static int run_gemm(int n, int bug, int order)
{
    const struct ptx_kernel *k = ptx_find_kernel(&module, GEMM);
    assert_non_null(k);
    assert_int_equal(k->nparams, 5);
    unsigned char params[512] = {0};
    struct wb_tensor_map a = {.base = (uint64_t)(uintptr_t)ha, .dims = {(uint64_t)n, (uint64_t)n},
                              .row_bytes = (uint64_t)n * 2, .box = {64, 128}, .elem_bytes = 2, .swizzle = 128};
    struct wb_tensor_map b = a;
    b.base = (uint64_t)(uintptr_t)hb, b.box[1] = 64;
    wb_tensor_map_put(params + k->params[0].offset, &a);
    wb_tensor_map_put(params + k->params[1].offset, &b);
    uint64_t cp = (uint64_t)(uintptr_t)c;
    memcpy(params + k->params[2].offset, &cp, 8);
    memcpy(params + k->params[3].offset, &n, 4);
    memcpy(params + k->params[4].offset, &bug, 4);
    struct emu_buffer bufs[3] = {{(const char *)c, (const char *)(c + (size_t)n * n), 0, "C", 0, 4, 0, 0, 0},
                                 {(const char *)ha, (const char *)(ha + (size_t)n * n), 0, "A", 1, 2, 0, 0, 0},
                                 {(const char *)hb, (const char *)(hb + (size_t)n * n), 0, "B", 1, 2, 0, 0, 0}};
    emu_set_buffers(bufs, 3); /* (the copies read A and B as any load does: checked, counted) */
    memset(c, 0, (size_t)n * n * sizeof *c);
    emu_set_schedule(order, 7);
    struct ptx_launch L = {&module, k, {(unsigned)n / 128, (unsigned)n / 128, 1}, {160, 1, 1}, params,
                           WB_PTX_SOURCE, 0, 0, DYNAMIC_SHARED};
    int rc = ptx_run(&L);
    emu_set_schedule(0, 0);
    return rc;
}

/* The elements of C that differ from the CPU's product (computed for N = 256: only a launch of
 * that size compares). */
static int differences(int n)
{
    assert_int_equal(n, 256);
    int wrong = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        wrong += c[i] != ref[i];
    return wrong;
}

static int setup_gemm(void **state)
{
    int n = 256;
    ha = malloc((size_t)n * n * 2), hb = malloc((size_t)n * n * 2);
    c = malloc((size_t)n * n * 4), ref = malloc((size_t)n * n * 4);
    if (!ha || !hb || !c || !ref)
        return -1;
    fill(n);
    reference(n);
    return setup(state);
}

static int teardown_gemm(void **state)
{
    free(ha), free(hb), free(c), free(ref);
    return teardown(state);
}

static void gemm_is_exact_in_every_schedule(void **state)
{
    (void)state;
    for (int order = 0; order < 3; order++)
        for (int way = RIGHT; way <= WAIT_ONE; way += WAIT_ONE - RIGHT) { /* and with a group in flight */
            assert_run(run_gemm(256, way, order), 0);
            assert_int_equal(differences(256), 0);
        }
}

static void wrong_parity_reads_stages_not_landed(void **state)
{
    (void)state;
    /* each schedule finds it its own way, each sentence naming it: a phase the consumers wait for
     * after it passed (the producer first, its copies landing at once: "A wait on the wrong
     * parity"), a stage read before its copy was issued (consumers first), or before it landed */
    int seen[3] = {0, 0, 0};
    for (int order = 0; order <= 2; order++) {
        int rc = run_gemm(128, WRONG_PARITY, order);
        int k = rc == EMU_BARRIER_DIVERGENCE ? 0 : rc == EMU_UNSET_SHARED_READ ? 1 : rc == EMU_RACE ? 2 : -1;
        if (k < 0)
            print_error("order %d: %d, %s\n", order, rc, said());
        assert_true(k >= 0);
        assert_said(k == 0 ? "A wait on the wrong parity" : k == 1 ? "the wrong parity?" : "has not landed: wait on");
        seen[k] = 1;
    }
    assert_true(seen[0] + seen[1] + seen[2] >= 2); /* the schedules differ: more than one way shows */
}

/* A producer that does not wait for its consumers runs a stage's full mbarrier two phases ahead of
 * them (forward: its copies land at once) or arrives again before the bytes of its last arrival
 * landed (drawn: they land late); either way the consumers' wait cannot end as written. */
static void producer_without_empty_wait_is_refused(void **state)
{
    (void)state;
    assert_run(run_gemm(256, NO_EMPTY_WAIT, 0), EMU_BARRIER_DIVERGENCE);
    assert_said("which never completes");
    assert_run(run_gemm(256, NO_EMPTY_WAIT, 2), EMU_BAD_LAUNCH);
    assert_said("more threads arrive than it was initialized to count");
}

/* Without wgmma.fence, or reading the accumulators with no wgmma.wait_group before: ptxas adds the
 * fence and the wait a GPU needs (its warnings C7519 and C7517), so the products are right there,
 * and here. */
static void fence_and_wait_that_ptxas_adds_are_not_needed(void **state)
{
    (void)state;
    for (int way = NO_WGMMA_FENCE; way <= NO_WAIT_GROUP; way += NO_WAIT_GROUP - NO_WGMMA_FENCE) {
        assert_run(run_gemm(256, way, 0), 0);
        assert_int_equal(differences(256), 0);
    }
}

static void descriptor_without_the_copies_swizzle_is_wrong(void **state)
{
    (void)state;
    /* (said at the first element read where a copy swizzled otherwise: the cause, not what follows) */
    assert_run(run_gemm(128, B_SWIZZLE_64, 0), EMU_BAD_LAUNCH);
    assert_said("B's descriptor names the 64-byte swizzle");
    assert_said("The descriptor must name the copy's swizzle (mode 1)");
}

/* expect_tx of half the stage's bytes: the phase completes when A's copy has landed, B's not yet. */
static void expect_tx_short_of_the_bytes_completes_early(void **state)
{
    (void)state;
    assert_run(run_gemm(128, SHORT_EXPECT, 2), EMU_RACE);
    assert_said("it reads B at shared byte");
    assert_said("has not landed");
}


/* Consumers that free a stage (arrive at its empty mbarrier) before their products have read it:
 * backward, the producer runs first and its copy lands over the stage the products read. */
static void stage_freed_before_its_products_read_it_is_refused(void **state)
{
    (void)state;
    assert_run(run_gemm(256, ARRIVE_BEFORE_WAIT, 1), EMU_RACE);
    assert_said("shared memory it reads changed between its issue and the wgmma.wait_group");
}

/* Products issued before the wait for their stage: the copy lands between their issue and their
 * wait_group (on a GPU the tensor cores may read the stage before it). */
static void products_issued_before_their_stage_landed_are_refused(void **state)
{
    (void)state;
    for (int order = 0; order < 3; order++) {
        assert_run(run_gemm(256, ISSUE_BEFORE_WAIT, order), EMU_RACE);
        assert_said("shared memory it reads changed between its issue and the wgmma.wait_group");
    }
}

/* Odd warps give the product the other half of A: the four warps of a warpgroup make one product. */
static void warps_of_a_warpgroup_giving_other_operands_are_refused(void **state)
{
    (void)state;
    assert_run(run_gemm(256, OTHER_HALF_IN_ODD_WARPS, 0), EMU_WARP_MISMATCH);
    assert_said("the warps of its warpgroup give its product #1 different descriptors");
}

/* A 64 x 16 by 16 x 8 product of tiles ordinary stores wrote: right with the proxy fence, refused
 * without it. */
static void stored_tiles_need_the_proxy_fence(void **state)
{
    (void)state;
    static uint16_t a[64 * 16], b[16 * 8];
    static float d[64 * 8];
    for (int i = 0; i < 64 * 16; i++)
        a[i] = float_to_half((float)(i % 7 - 3), 0);
    for (int i = 0; i < 16 * 8; i++)
        b[i] = float_to_half((float)(i % 5 - 2) / 2, 0);
    struct emu_buffer bufs[3] = {{(const char *)a, (const char *)(a + 64 * 16), 0, "A", 1, 2, 0, 0, 0},
                                 {(const char *)b, (const char *)(b + 16 * 8), 0, "B", 1, 2, 0, 0, 0},
                                 {(const char *)d, (const char *)(d + 64 * 8), 0, "C", 0, 4, 0, 0, 0}};
    emu_set_buffers(bufs, 3);
    assert_run(launch(STORED_TILES, 1, 128, 4, P(a), P(b), P(d), I(1)), 0);
    for (int m = 0; m < 64; m++)
        for (int n = 0; n < 8; n++) {
            float s = 0;
            for (int k = 0; k < 16; k++)
                s += half_to_float(a[m * 16 + k]) * half_to_float(b[k * 8 + n]);
            assert_true(d[m * 8 + n] == s);
        }
    assert_run(launch(STORED_TILES, 1, 128, 4, P(a), P(b), P(d), I(0)), EMU_RACE);
    assert_said("with an ordinary store and no fence.proxy.async after it");
}

/* A tensor map's bytes are the driver's on a GPU and the emulator's here: no kernel may read them. */
static void reading_a_tensor_map_is_refused(void **state)
{
    (void)state;
    const struct ptx_kernel *k = ptx_find_kernel(&module, MAP_PEEK);
    assert_non_null(k);
    static unsigned long long peeked[32];
    unsigned char params[512] = {0};
    struct wb_tensor_map m = {.base = (uint64_t)(uintptr_t)peeked, .dims = {32, 1}, .row_bytes = 64, .box = {32, 1},
                              .elem_bytes = 2};
    wb_tensor_map_put(params + k->params[0].offset, &m);
    uint64_t p = (uint64_t)(uintptr_t)peeked;
    memcpy(params + k->params[1].offset, &p, 8);
    struct emu_buffer b = {(const char *)peeked, (const char *)(peeked + 32), 0, "out", 0, 8, 0, 0, 0};
    emu_set_buffers(&b, 1);
    struct ptx_launch L = {&module, k, {1, 1, 1}, {32, 1, 1}, params, WB_PTX_SOURCE, 0, 0, 0};
    assert_run(ptx_run(&L), EMU_OUT_OF_BOUNDS); /* (the kind of every load stopped where it lands) */
    assert_said("reads the bytes of a tensor map");
}

/* ---- the probes, against the GPU's record ---- */

/* Launches kernel name (one block of 128 threads, dynamic shared memory `dynamic`) with the
 * parameters in params; its buffers are bufs. */
static int run_probe(const char *name, const unsigned char *params, size_t dynamic, const struct emu_buffer *bufs,
                     int nbufs)
{
    const struct ptx_kernel *k = ptx_find_kernel(&module, name);
    assert_non_null(k);
    emu_set_buffers(bufs, nbufs);
    struct ptx_launch L = {&module, k, {1, 1, 1}, {128, 1, 1}, params, WB_PTX_SOURCE, 0, 0, dynamic};
    return ptx_run(&L);
}

static void put_param(const struct ptx_kernel *k, unsigned char *params, int i, const void *v)
{
    memcpy(params + k->params[i].offset, v, (size_t)k->params[i].bytes);
}

/* The record's hash of a case ("name\thash" lines after # comments); 0 where it has none. */
static uint64_t recorded(const char *record, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = record; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == '\t')
            return strtoull(p + n + 1, NULL, 16);
    return 0;
}

/* The interpreter's answer to one probe against the record: 1 where they agree, 0 where the record
 * has none (pending: make the record on a GPU), and a failure naming the case where they differ. */
static int compare(const char *record, const char *name, const void *answer, size_t bytes)
{
    uint64_t want = record ? recorded(record, name) : 0, got = hopper_hash(answer, bytes);
    if (!want) {
        print_message("pending (no GPU answer recorded): %s\n", name);
        return 0;
    }
    if (want != got) {
        char path[300];
        snprintf(path, sizeof path, "build/tests/hopper-%016llx.bin", (unsigned long long)got);
        FILE *f = fopen(path, "wb");
        if (f)
            fwrite(answer, 1, bytes, f), fclose(f);
        print_error("%s: the interpreter's answer (%s) differs from the GPU's\n", name, path);
    }
    assert_true(want == got);
    return 1;
}

static void probes_match_the_gpu_record(void **state)
{
    (void)state;
    char *record = ptx_read_file(RECORD, 1 << 20);
    int agreed = 0;
    static uint16_t tensor[TMA_ROWS * TMA_ROW_BYTES / 2];
    static uint32_t box[16384];
    for (int i = 0; i < TMA_ROWS * TMA_ROW_BYTES / 2; i++)
        tensor[i] = tma_element(i);
    const struct ptx_kernel *k = ptx_find_kernel(&module, TMA_PROBE);
    assert_non_null(k);
    for (int i = 0; i < TMA_CASES; i++) {
        const struct tma_case *c = &tma_cases[i];
        unsigned char params[512] = {0};
        struct wb_tensor_map m = {.base = (uint64_t)(uintptr_t)tensor, .dims = {TMA_COLS, TMA_ROWS},
                                  .row_bytes = TMA_ROW_BYTES, .box = {(uint32_t)c->box_x, (uint32_t)c->box_y},
                                  .elem_bytes = 2, .swizzle = (uint32_t)c->swizzle};
        wb_tensor_map_put(params + k->params[0].offset, &m);
        uint64_t out_p = (uint64_t)(uintptr_t)box;
        int bytes = c->box_x * c->box_y * 2;
        put_param(k, params, 1, &out_p), put_param(k, params, 2, &c->x), put_param(k, params, 3, &c->y);
        put_param(k, params, 4, &bytes);
        struct emu_buffer b[2] = {{(const char *)box, (const char *)box + bytes, 0, "out", 0, 4, 0, 0, 0},
                                  {(const char *)tensor, (const char *)tensor + sizeof tensor, 0, "tensor", 1, 2, 0, 0, 0}};
        int rc = run_probe(TMA_PROBE, params, (size_t)bytes + 1024, b, 2);
        if (rc) { /* the GPU's answer must be a fault too */
            char fault[200], line[200];
            snprintf(fault, sizeof fault, "\n%s\tfault\n", c->name);
            snprintf(line, sizeof line, "\n%s\t", c->name);
            if (!record || !strstr(record, line)) {
                print_message("pending (no GPU answer recorded): %s\n", c->name);
                continue;
            }
            if (!strstr(record, fault))
                print_error("%s: refused here (%s), not by the GPU\n", c->name, said());
            assert_non_null(strstr(record, fault));
            agreed++;
            continue;
        }
        agreed += compare(record, c->name, box, (size_t)bytes);
    }
    static uint16_t tile[16384];
    static float cin[64 * 16], d[64 * 16];
    hopper_inputs(tile, cin);
    k = ptx_find_kernel(&module, WGMMA_PROBE);
    assert_non_null(k);
    for (int i = 0; i < WGMMA_CASES; i++) {
        const struct wgmma_case *c = &wgmma_cases[i];
        unsigned char params[512] = {0};
        uint64_t tp = (uint64_t)(uintptr_t)tile, cp = (uint64_t)(uintptr_t)cin, dp = (uint64_t)(uintptr_t)d;
        uint64_t da = hopper_desc(c->a_start, c->a_lbo, c->a_sbo, (uint64_t)c->mode),
                 db = hopper_desc(c->b_start, c->b_lbo, c->b_sbo, (uint64_t)c->mode);
        put_param(k, params, 0, &tp), put_param(k, params, 1, &cp), put_param(k, params, 2, &dp);
        put_param(k, params, 3, &da), put_param(k, params, 4, &db), put_param(k, params, 5, &c->trans_b);
        struct emu_buffer b[3] = {{(const char *)tile, (const char *)(tile + 16384), 0, "tile", 1, 2, 0, 0, 0},
                                  {(const char *)cin, (const char *)(cin + 1024), 0, "cin", 1, 4, 0, 0, 0},
                                  {(const char *)d, (const char *)(d + 1024), 0, "out", 0, 4, 0, 0, 0}};
        assert_run(run_probe(WGMMA_PROBE, params, 32768 + 1024, b, 3), 0);
        agreed += compare(record, c->name, d, sizeof d);
    }
    print_message("%d of %d probes agree with the GPU's record (%s)\n", agreed, TMA_CASES + WGMMA_CASES, RECORD);
    free(record);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_is_exact_in_every_schedule),
        cmocka_unit_test(wrong_parity_reads_stages_not_landed),
        cmocka_unit_test(producer_without_empty_wait_is_refused),
        cmocka_unit_test(fence_and_wait_that_ptxas_adds_are_not_needed),
        cmocka_unit_test(descriptor_without_the_copies_swizzle_is_wrong),
        cmocka_unit_test(expect_tx_short_of_the_bytes_completes_early),
        cmocka_unit_test(stage_freed_before_its_products_read_it_is_refused),
        cmocka_unit_test(products_issued_before_their_stage_landed_are_refused),
        cmocka_unit_test(warps_of_a_warpgroup_giving_other_operands_are_refused),
        cmocka_unit_test(stored_tiles_need_the_proxy_fence),
        cmocka_unit_test(reading_a_tensor_map_is_refused),
        cmocka_unit_test(probes_match_the_gpu_record),
    };
    return cmocka_run_group_tests(tests, setup_gemm, teardown_gemm);
}
