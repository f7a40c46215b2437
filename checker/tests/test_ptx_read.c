/* Tests of the PTX reader's refusals (checker/runner/ptx/ptx_check.c, ptx_decode.c): what the
 * interpreter does not run is refused when the PTX is read, by name, and every index it would
 * trust at run time is resolved or refused there (issue 45); the forms ptxas allows are read as
 * they are. Each case is one instruction in a kernel of every kind of register. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptx.h"
#include "refusals.h"

/* What the interpreter does not run is refused when the PTX is read, by name, never run as
 * something else: a label where an address goes, half-precision arithmetic, a cache policy, a
 * negative count of groups; and (issue 45) every index it would trust at run time: a register
 * written that is none, the sink read, a parameter, shared, local or constant address outside its
 * window; the clocks and ids a result must not depend on; the approximations only a GPU knows. */
/* One instruction (or a few, and declarations) read as the body of a kernel with registers of
 * every kind, an 8-byte parameter k_param_0, 16 bytes of shared memory s and 16 of __constant__ c:
 * a reader of refusals.h. */
static int parse_instruction(const char *insn, char *err, size_t errlen, int *line)
{
    (void)line;
    char text[2048];
    snprintf(text, sizeof text,
             ".version 8.0\n.target sm_90\n.address_size 64\n\n.const .align 4 .b32 c[4];\n\n"
             ".visible .entry k(.param .u64 k_param_0)\n{\n"
             "\t.reg .b16 %%rs<4>;\n\t.reg .b32 %%r<4>;\n\t.reg .f32 %%f<8>;\n\t.reg .b64 %%rd<4>;\n"
             "\t.reg .pred %%p<2>;\n\t.shared .align 4 .b8 s[16];\n$L_x:\n\t%s\n\tret;\n}\n", insn);
    struct ptx_module m;
    memset(&m, 0, sizeof m);
    int rc = ptx_parse(text, &m);
    snprintf(err, errlen, "%s", m.error);
    ptx_free(&m);
    return rc;
}

REFUSALS_TEST(unrunnable_instructions_are_refused_by_name, parse_instruction,
    {"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, $L_x;", 0, "must be an address in brackets"},
    {"ld.shared.u32 %r1, %tid.x;", 0, "must be an address in brackets"},
    {"cvt.rn.f16x2.f32 %r1, %f1, %f2;", 0, "of half precision the interpreter runs"},
    {"add.f16 %rs1, %rs1, %rs1;", 0, "of half precision the interpreter runs"},
    {"cvt.rm.f16.f32 %rs1, %f1;", 0, "of half precision the interpreter runs"},
    {"cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 16, %rd2;", 0, "with a cache policy"},
    {"cp.async.wait_group -1;", 0, "a count of groups"},
    {"cp.async.bulk.shared::cluster.global [%r1], [%rd1], 16, [%rd2];", 0, "cp.async.bulk.tensor.2d"},
    /* Hopper's asynchronous instructions: the forms the interpreter runs, and no other */
    {"mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r1], %r2;", 0, "of mbarrier the interpreter runs init"},
    {"mbarrier.try_wait.parity.shared::cta.b64 %r1, [%r1], %r2;", 0, "its first operand is the predicate it sets"},
    {"mbarrier.init.shared::cta.b64 [k_param_0], %r1;", 0, "operand 1 lies outside shared memory"},
    {"cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r2, %r3}], "
     "[%r2];", 0, "a 2-D tile from global"},
    {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [k_param_0, {%r1, %r2}], "
     "[%r2];", 0, "the tensor map must be the generic address of one of the kernel's __grid_constant__"},
    {"ld.global.u32 %r1, [%rd1, {%r1, %r2}];", 0, "has coordinates where the instruction takes none"},
    {"fence.proxy.tensormap::generic.release.gpu;", 0, "of the proxy fences the interpreter runs"},
    {"wgmma.wait_group.sync.aligned 9;", 0, "a constant from 0 to 7"},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;", 0,
     ".m64nNk16.f32.f16.f16 alone"},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r0, %r1, %r2, %r3}, %rd2, %p1, 1, 1, "
     "0, 0;", 0, "A and B from shared memory"},
    {"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;", 0,
     "operand 1 is a vector of 4 where the instruction takes another number"},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 2, 1, 0, 0;", 0,
     "imm-scale-a and -b are 1 or -1"},
    {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f1,%f2,%f3,%f4};",
     0, "m16n8k16.row.col.f32.f16.f16.f32 alone"},
    /* registers: each index the interpreter would use, resolved here */
    {"mov.u32 1, %r1;", 0, "operand 1 is written, so it must be a register"},
    {"setp.eq.s32 %clock, %r1, 1;", 0, "may not read clocks"},
    {"add.s32 %r1, %r2;", 0, "'add.s32' takes 3 operands, not 2"},
    {"vote.sync.ballot.b32 %r1;", 0, "takes 3 operands"},
    {"add.s32 %r1, _, 1;", 0, "operand 2 reads the sink `_`"},
    {"st.global.u32 [%rd1], _;", 0, "reads the sink"},
    {"ld.global.u32 %r1, [_];", 0, "cannot take the address '_'"},
    {"bra %r1;", 0, "a branch's target must be a label"},
    {"mov.u32 %r1, $L_x;", 0, "a label where a value goes"},
    {"add.s32 {%r1, %r2}, %r1, 1;", 0, "operand 1 is written, so it must be a register"},
    {"ld.global.v4.f32 {%f1, %f2}, [%rd1];", 0, "a vector of 2 where the instruction takes another number"},
    {"mov.b64 {%r1, %r2}, {%r1, %r2};", 0, "one of its operands is a vector, not both"},
    {"ld.global %r1, [%rd1];", 0, "needs a type"},
    {".reg .b32 %q<65536>;", 0, "more than 65536 registers"},
    /* parameters, shared, local and constant addresses the PTX fixes: inside their window */
    {"ld.param.u64 %rd1, [k_param_0+-16];", 0, "outside the kernel's 8 bytes of parameter memory"},
    {"ld.param.v2.u64 {%rd1, %rd2}, [k_param_0+-16];", 0, "addresses 16 bytes at k_param_0-16, outside"},
    {"ld.param.u64 %rd1, [k_param_0+2147483647];", 0, "outside the kernel's 8 bytes of parameter memory"},
    {"ld.param.u64 %rd1, [k_param_0+9223372036854775807];", 0, "outside the kernel's 8 bytes"},
    {"ld.param.u32 %r1, [k_param_0+6];", 0, "addresses 4 bytes at k_param_0+6"},
    {"ld.shared.u32 %r1, [k_param_0];", 0, "accesses shared memory at k_param_0, which lies in parameter memory"},
    {"ld.global.u32 %r1, [s];", 0, "accesses global memory at s, which lies in shared memory"},
    {"ld.shared.u32 %r1, [s+16];", 0, "outside the kernel's 16 bytes of shared memory"},
    {"st.shared.v2.u32 [s+-4], {%r1, %r2};", 0, "outside the kernel's 16 bytes of shared memory"},
    {"ld.const.u32 %r1, [c+16];", 0, "outside the kernel's 16 bytes of __constant__ memory"},
    {"ld.shared.u32 %r1, [4096];", 0, "outside the kernel's 16 bytes of shared memory"},
    {".local .align 4 .b8 l[8];\n\tld.local.u64 %rd1, [l+4];", 0, "outside the kernel's 8 bytes of local memory"},
    {".shared .align 3 .b8 t[4];", 0, ".align needs a power of two"},
    {".shared .b8 t[1073741824][4];", 0, "the variable t is too large"},
    /* what a kernel's result must not depend on: when and where it runs */
    {"mov.u64 %rd1, %clock64;", 0, "%clock64: lesson files may not read clocks or SM ids: a kernel's result must not "
                                   "depend on when or where it runs"},
    {"mov.u32 %r1, %clock;", 0, "lesson files may not read clocks or SM ids"},
    {"mov.u64 %rd1, %globaltimer;", 0, "lesson files may not read clocks or SM ids"},
    {"mov.u32 %r1, %globaltimer_lo;", 0, "lesson files may not read clocks or SM ids"},
    {"mov.u32 %r1, %smid;", 0, "lesson files may not read clocks or SM ids"},
    {"mov.u32 %r1, %warpid;", 0, "lesson files may not read clocks or SM ids"},
    /* the approximations only a GPU's hardware defines, and what the interpreter does not run */
    {"div.approx.f32 %f1, %f2, %f3;", 0, "an approximation that a GPU computes in its special function units"},
    {"div.full.f32 %f1, %f2, %f3;", 0, "an approximation"},
    {"sqrt.approx.f32 %f1, %f2;", 0, "an approximation"},
    {"ex2.approx.ftz.f32 %f1, %f2;", 0, "an approximation"},
    {"rsqrt.approx.f32 %f1, %f2;", 0, "an approximation"},
    {"bar.arrive 1, 64;", 0, "an arrival at a named barrier without waiting"},
    {"dp4a.u32.u32 %r1, %r2, %r3, %r1;", 0, "the instruction 'dp4a.u32.u32' is not one the interpreter runs"},
)

/* The forms ptxas allows that the parser must take as they are: a sink in each place a result may
 * be discarded, and fixed addresses at the edges of their windows. */
static void valid_forms_are_read(void **state)
{
    (void)state;
    static const char *const forms[] = {
        "setp.eq.s32 _|%p1, %r1, 5;", "setp.eq.s32 %p1|_, %r1, 5;", "setp.eq.s32 _, %r1, 5;",
        "atom.global.add.u32 _, [%rd1], 1;", "mov.b64 {%r1, _}, %rd1;", "ld.param.u32 %r1, [k_param_0+4];",
        "ld.shared.v4.u32 {%r0, %r1, %r2, %r3}, [s];", "ld.const.u32 %r1, [c+12];", "mov.u32 %r1, %nsmid;",
        "mbarrier.init.shared::cta.b64 [s], 1;", "mbarrier.arrive.expect_tx.shared::cta.b64 _, [s], 64;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [s+8], 1;", "fence.proxy.async.shared::cta;",
        "fence.mbarrier_init.release.cluster;", "wgmma.fence.sync.aligned;", "wgmma.wait_group.sync.aligned 1;",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, -1, 0, 1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [s];",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char err[400] = "";
        if (parse_instruction(forms[i], err, sizeof err, NULL))
            fail_msg("refused \"%s\": %s", forms[i], err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unrunnable_instructions_are_refused_by_name),
        cmocka_unit_test(valid_forms_are_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
