/* The PTX reader's instructions (ptx_read.h): an opcode and its modifiers taken apart, and the
 * names of the special registers. What the interpreter does not run is refused by name. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_read.h"

/* ---- instructions ---- */
static const struct {
    const char *name;
    enum ptx_op op;
} ops[] = {
    {"mov", OP_MOV},       {"ld", OP_LD},         {"ldu", OP_LD},        {"st", OP_ST},         {"cvta", OP_CVTA},
    {"cvt", OP_CVT},       {"add", OP_ADD},       {"sub", OP_SUB},       {"mul", OP_MUL},       {"mad", OP_MAD},
    {"fma", OP_FMA},       {"div", OP_DIV},       {"rem", OP_REM},       {"neg", OP_NEG},       {"abs", OP_ABS},
    {"min", OP_MIN},       {"max", OP_MAX},       {"and", OP_AND},       {"or", OP_OR},         {"xor", OP_XOR},
    {"not", OP_NOT},       {"cnot", OP_CNOT},     {"shl", OP_SHL},       {"shr", OP_SHR},       {"setp", OP_SETP},
    {"selp", OP_SELP},     {"set", OP_SET},       {"rcp", OP_RCP},       {"sqrt", OP_SQRT},     {"rsqrt", OP_RSQRT},
    {"ex2", OP_EX2},       {"lg2", OP_LG2},       {"sin", OP_SIN},       {"cos", OP_COS},       {"tanh", OP_TANH},
    {"popc", OP_POPC},     {"clz", OP_CLZ},       {"brev", OP_BREV},     {"bfe", OP_BFE},       {"bfi", OP_BFI},
    {"bfind", OP_BFIND},   {"prmt", OP_PRMT},     {"copysign", OP_COPYSIGN}, {"testp", OP_TESTP}, {"mul24", OP_MUL24},
    {"mad24", OP_MAD24},   {"sad", OP_SAD},       {"dp4a", OP_DP4A},     {"bra", OP_BRA},       {"ret", OP_RET},
    {"exit", OP_EXIT},     {"bar", OP_BAR},       {"barrier", OP_BAR},   {"membar", OP_MEMBAR}, {"fence", OP_MEMBAR},
    {"shfl", OP_SHFL},     {"vote", OP_VOTE},     {"match", OP_MATCH},   {"redux", OP_REDUX},
    {"activemask", OP_ACTIVEMASK}, {"atom", OP_ATOM}, {"red", OP_RED},   {"call", OP_CALL},
    {"nanosleep", OP_NANOSLEEP}, {"trap", OP_TRAP}, {"pmevent", OP_PMEVENT}, {"fma.rn", OP_FMA},
    {"ldmatrix", OP_LDMATRIX}, {"mma", OP_MMA}, {"cp", OP_CP_ASYNC}, {"mbarrier", OP_MBARRIER},
    {"wgmma", OP_WGMMA}, {"shf", OP_SHF},
};

static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
                                        "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
static const char *const rnd_names[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};

static int index_of(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* An instruction whose result only a GPU's hardware defines: .approx (and .full) forms, and the
 * functions that exist only as such. The .rn, .rz, .rm and .rp forms are exact, and run. */
static int approximate(const struct ptx_insn *in)
{
    switch (in->op) {
    case OP_RSQRT: case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH:
        return 1;
    case OP_DIV: case OP_SQRT: case OP_RCP:
        return (in->flags & F_APPROX) != 0;
    default:
        return 0;
    }
}

/* ---- Hopper's asynchronous instructions (ptx_async.c runs them) ----
 * The forms the interpreter runs, each checked against the GPU (checker/tests/conformance/):
 *   mbarrier.init.shared::cta.b64 [a], count;   mbarrier.arrive{.expect_tx}.shared::cta.b64 _|d, [a]{, tx};
 *   mbarrier.expect_tx.shared::cta.b64 [a], tx;  mbarrier.try_wait.parity.shared::cta.b64 p, [a], parity;
 *   fence.proxy.async{.shared::cta};  fence.mbarrier_init.release.cluster;
 *   cp.async.bulk.tensor.2d.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes [dst], [map, {x, y}], [a];
 *   wgmma.fence / commit_group / wait_group N .sync.aligned;
 *   wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 {d}, a-desc, b-desc, scale-d, ±1, ±1, trans-a, trans-b. */
enum { SEEN_COMPLETE_TX = 1, SEEN_TENSOR = 2, SEEN_SHAPE = 4, SEEN_BAD = 8 };

/* One part of an async instruction's opcode: 1 where it was taken, 0 where the caller's general
 * parts decide. */
int ptx_decode_async(struct ptx_insn *in, const char *part, const char *opcode, int *seen)
{
    (void)opcode;
    switch (in->op) {
    case OP_MBARRIER:
        if (!strcmp(part, "init")) in->sub = MB_INIT;
        else if (!strcmp(part, "arrive")) in->sub = MB_ARRIVE;
        else if (!strcmp(part, "expect_tx")) in->sub = in->sub == MB_ARRIVE ? MB_ARRIVE_EXPECT : MB_EXPECT_TX;
        else if (!strcmp(part, "try_wait")) in->sub = MB_TRY_WAIT;
        else if (!strcmp(part, "parity")) in->flags |= F_PARITY;
        else if (!strcmp(part, "test_wait") || !strcmp(part, "inval") || !strcmp(part, "complete_tx") ||
                 !strcmp(part, "pending_count") || !strcmp(part, "noComplete") || !strcmp(part, "arrive_drop"))
            *seen |= SEEN_BAD;
        else
            return 0;
        return 1;
    case OP_MEMBAR:
        if (!strcmp(part, "proxy")) in->sub = FENCE_PROXY_ASYNC;
        else if (!strcmp(part, "async") && in->sub == FENCE_PROXY_ASYNC) ;
        else if (!strcmp(part, "mbarrier_init")) in->sub = FENCE_MBAR_INIT;
        else
            return 0;
        return 1;
    case OP_BULK_TENSOR:
        if (!strcmp(part, "tensor")) *seen |= SEEN_TENSOR;
        else if (part[0] >= '1' && part[0] <= '5' && !strcmp(part + 1, "d")) in->vec = (uint8_t)(part[0] - '0');
        else if (!strcmp(part, "tile")) ;
        else if (!strcmp(part, "mbarrier::complete_tx::bytes")) *seen |= SEEN_COMPLETE_TX;
        else if (!strcmp(part, "global")) ; /* the source's space; in->space is the destination's */
        else if (strcmp(part, "shared::cluster") && strcmp(part, "shared::cta"))
            *seen |= SEEN_BAD; /* im2col, multicast, cache hints, the reverse direction, reductions */
        else
            return 0;
        return 1;
    case OP_WGMMA:
        if (!strcmp(part, "fence")) in->sub = WG_FENCE;
        else if (!strcmp(part, "commit_group")) in->sub = WG_COMMIT;
        else if (!strcmp(part, "wait_group")) in->sub = WG_WAIT;
        else if (!strcmp(part, "mma_async")) in->sub = WG_MMA;
        else if (!strcmp(part, "sync") || !strcmp(part, "aligned")) ;
        else if (in->sub == WG_MMA && part[0] == 'm' && !(*seen & SEEN_SHAPE)) {
            int n = 0, used = 0;
            if (sscanf(part, "m64n%dk16%n", &n, &used) == 1 && part[used] == 0 && n >= 8 && n <= 256 && n % 8 == 0)
                in->vec = (uint8_t)(n / 8), *seen |= SEEN_SHAPE;
            else
                *seen |= SEEN_BAD;
        } else if (ptx_type_named(part) == T_NONE)
            *seen |= SEEN_BAD; /* .sp, .satfinite, other shapes */
        else
            return 0;
        return 1;
    default:
        return 0;
    }
}

/* The async instruction whole: what the interpreter runs of it, or a refusal that names it. */
int ptx_decode_async_done(struct lexer *lx, struct ptx_insn *in, const char *opcode, const int *types, int ntypes,
                          int seen)
{
    switch (in->op) {
    case OP_MBARRIER:
        if ((seen & SEEN_BAD) || in->sub == SUB_NONE || in->type != T_B64 || ntypes != 1 || in->space != S_SHARED ||
            ((in->sub == MB_TRY_WAIT) != !!(in->flags & F_PARITY)))
            return lex_fail(lx, "'%s': of mbarrier the interpreter runs init, arrive, arrive.expect_tx, expect_tx "
                            "and try_wait.parity, each .shared::cta.b64", opcode);
        return 0;
    case OP_MEMBAR:
        if ((seen & SEEN_BAD) || (in->sub == FENCE_PROXY_ASYNC && strcmp(opcode, "fence.proxy.async") &&
                                  strcmp(opcode, "fence.proxy.async.shared::cta")))
            return lex_fail(lx, "'%s': of the proxy fences the interpreter runs fence.proxy.async{.shared::cta} "
                            "alone", opcode);
        if (in->sub == FENCE_MBAR_INIT && !strstr(opcode, ".release.cluster"))
            return lex_fail(lx, "'%s': fence.mbarrier_init is .release.cluster", opcode);
        return 0;
    case OP_BULK_TENSOR:
        if ((seen & SEEN_BAD) || !(seen & SEEN_TENSOR) || !(seen & SEEN_COMPLETE_TX) || in->vec != 2 || ntypes ||
            !(strstr(opcode, ".shared::cluster.global") || strstr(opcode, ".shared::cta.global")))
            return lex_fail(lx, "'%s': of the tensor memory accelerator the interpreter runs "
                            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes alone (a "
                            "2-D tile from global into this block's shared memory)", opcode);
        in->space = S_SHARED; /* the destination's: a block launched without a cluster is a cluster of one */
        return 0;
    case OP_WGMMA:
        if (in->sub == WG_MMA && (!(seen & SEEN_SHAPE) || (seen & SEEN_BAD) || ntypes != 3 || types[0] != T_F32 ||
                                  types[1] != T_F16 || types[2] != T_F16))
            return lex_fail(lx, "'%s': of wgmma.mma_async the interpreter runs .m64nNk16.f32.f16.f16 alone (N a "
                            "multiple of 8 up to 256)", opcode);
        if (in->sub == SUB_NONE || (in->sub != WG_MMA && (ntypes || (seen & SEEN_BAD))))
            return lex_fail(lx, "'%s': of wgmma the interpreter runs fence, commit_group, wait_group and mma_async",
                            opcode);
        return 0;
    default:
        return 0;
    }
}

/* The opcode's parts after the first: types, spaces, modifiers. */
int ptx_decode(struct lexer *lx, struct ptx_insn *in, const char *opcode)
{
    char buf[2 * PTX_NAME_MAX];
    snprintf(buf, sizeof buf, "%s", opcode);
    char *save, *part = strtok_r(buf, ".", &save);
    in->op = OP_UNKNOWN;
    if (!part) /* an opcode of dots alone: no name to look up */
        return lex_fail(lx, "'%s' is not an instruction", opcode);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, part) == 0)
            in->op = (uint8_t)ops[i].op;
    if (in->op == OP_UNKNOWN)
        return lex_fail(lx, "the instruction '%s' is not one the interpreter knows", opcode);
    in->vec = 1;
    int ntypes = 0, cmp_seen = 0, types[4] = {0}, nsteps = 0;
    while ((part = strtok_r(NULL, ".", &save))) {
        int t = ptx_type_named(part), c, r;
        if (t != T_NONE && ntypes < 4)
            types[ntypes] = t;
        if (t != T_NONE) {
            if (ntypes == 0)
                in->type = (uint8_t)t;
            else
                in->type2 = (uint8_t)t;
            ntypes++;
            continue;
        }
        if (strcmp(part, "global") == 0) in->space = S_GLOBAL;
        else if (strcmp(part, "shared") == 0 || strcmp(part, "shared::cta") == 0) in->space = S_SHARED;
        else if (strcmp(part, "local") == 0) in->space = S_LOCAL;
        else if (strcmp(part, "const") == 0) in->space = S_CONST;
        else if (strcmp(part, "param") == 0) in->space = S_PARAM;
        else if (strcmp(part, "v2") == 0) in->vec = 2;
        else if (strcmp(part, "v4") == 0) in->vec = 4;
        else if (strcmp(part, "wide") == 0) in->flags |= F_WIDE;
        else if (strcmp(part, "hi") == 0 && in->op != OP_SETP && in->op != OP_SET) in->flags |= F_HI;
        else if (strcmp(part, "lo") == 0 && in->op != OP_SETP && in->op != OP_SET) in->flags |= F_LO;
        else if (strcmp(part, "uni") == 0 && in->op != OP_VOTE) in->flags |= F_UNI;
        else if (strcmp(part, "ftz") == 0) in->flags |= F_FTZ;
        else if (strcmp(part, "sat") == 0) in->flags |= F_SAT;
        else if (strcmp(part, "approx") == 0) in->flags |= F_APPROX;
        else if (strcmp(part, "full") == 0) in->flags |= F_APPROX;
        else if (strcmp(part, "to") == 0) in->flags |= F_TO;
        else if (strcmp(part, "cc") == 0) in->flags |= F_CC;
        else if (strcmp(part, "volatile") == 0) in->flags |= F_VOLATILE;
        else if (in->op == OP_BFIND && strcmp(part, "shiftamt") == 0) in->flags |= F_SHIFTAMT;
        else if (in->op == OP_SHF && in->sub == SUB_NONE && (!strcmp(part, "l") || !strcmp(part, "r")))
            in->sub = part[0] == 'l' ? SHF_L : SHF_R;
        else if (in->op == OP_SHF && !strcmp(part, "clamp")) in->flags |= F_CLAMP;
        else if ((r = index_of(rnd_names, 9, part)) > 0) in->rnd = (uint8_t)r;
        else if ((in->op == OP_SETP || in->op == OP_SET) && !cmp_seen && (c = index_of(cmp_names, 18, part)) >= 0)
            in->cmp = (uint8_t)c, cmp_seen = 1;
        else if ((in->op == OP_SETP || in->op == OP_SET) && cmp_seen && strcmp(part, "and") == 0) in->boolop = B_AND;
        else if ((in->op == OP_SETP || in->op == OP_SET) && cmp_seen && strcmp(part, "or") == 0) in->boolop = B_OR;
        else if ((in->op == OP_SETP || in->op == OP_SET) && cmp_seen && strcmp(part, "xor") == 0) in->boolop = B_XOR;
        else if (in->op == OP_SHFL && strcmp(part, "up") == 0) in->sub = SHFL_UP;
        else if (in->op == OP_SHFL && strcmp(part, "down") == 0) in->sub = SHFL_DOWN;
        else if (in->op == OP_SHFL && strcmp(part, "bfly") == 0) in->sub = SHFL_BFLY;
        else if (in->op == OP_SHFL && strcmp(part, "idx") == 0) in->sub = SHFL_IDX;
        else if (in->op == OP_VOTE && strcmp(part, "all") == 0) in->sub = VOTE_ALL;
        else if (in->op == OP_VOTE && strcmp(part, "any") == 0) in->sub = VOTE_ANY;
        else if (in->op == OP_VOTE && strcmp(part, "uni") == 0) in->sub = VOTE_UNI;
        else if (in->op == OP_VOTE && strcmp(part, "ballot") == 0) in->sub = VOTE_BALLOT;
        else if (in->op == OP_MATCH && strcmp(part, "any") == 0) in->sub = MATCH_ANY;
        else if (in->op == OP_MATCH && strcmp(part, "all") == 0) in->sub = MATCH_ALL;
        else if ((in->op == OP_ATOM || in->op == OP_RED || in->op == OP_REDUX) &&
                 (c = index_of((const char *const[]){"add", "min", "max", "and", "or", "xor", "exch", "cas", "inc",
                                                     "dec"}, 10, part)) >= 0)
            in->sub = (uint8_t)(ATOM_ADD + c);
        else if (in->op == OP_BAR && strcmp(part, "sync") == 0 && in->sub == SUB_NONE) in->sub = BAR_SYNC;
        else if (in->op == OP_BAR && strcmp(part, "arrive") == 0) in->sub = BAR_ARRIVE;
        else if (in->op == OP_BAR && strcmp(part, "warp") == 0) in->op = OP_BAR_WARP;
        else if (in->op == OP_BAR && strcmp(part, "red") == 0) in->sub = BAR_RED_POPC;
        else if (in->op == OP_BAR && in->sub >= BAR_RED_POPC && strcmp(part, "popc") == 0) in->sub = BAR_RED_POPC;
        else if (in->op == OP_BAR && in->sub >= BAR_RED_POPC && strcmp(part, "and") == 0) in->sub = BAR_RED_AND;
        else if (in->op == OP_BAR && in->sub >= BAR_RED_POPC && strcmp(part, "or") == 0) in->sub = BAR_RED_OR;
        else if (in->op == OP_CP_ASYNC && strcmp(part, "async") == 0 && in->sub == SUB_NONE) in->sub = CP_COPY;
        else if (in->op == OP_CP_ASYNC && strcmp(part, "commit_group") == 0) in->sub = CP_COMMIT;
        else if (in->op == OP_CP_ASYNC && strcmp(part, "wait_group") == 0) in->sub = CP_WAIT;
        else if (in->op == OP_CP_ASYNC && strcmp(part, "wait_all") == 0) in->sub = CP_WAIT_ALL;
        else if (in->op == OP_CP_ASYNC && in->sub == CP_COPY && strcmp(part, "bulk") == 0)
            in->op = OP_BULK_TENSOR, in->sub = SUB_NONE;
        else if (in->op == OP_CP_ASYNC && (strcmp(part, "mbarrier") == 0 || strcmp(part, "reduce") == 0 ||
                                           in->sub == SUB_NONE))
            return lex_fail(lx, "'%s': of cp the interpreter runs cp.async (with commit_group, wait_group and wait_all) "
                            "and cp.async.bulk.tensor alone", opcode);
        else if (ptx_decode_async(in, part, opcode, &nsteps) > 0)
            ;
        /* The tensor cores' shapes: what the interpreter runs of them, checked below. */
        else if (in->op == OP_LDMATRIX && strcmp(part, "m8n8") == 0) ;
        else if (in->op == OP_LDMATRIX && strcmp(part, "x1") == 0) in->vec = 1;
        else if (in->op == OP_LDMATRIX && strcmp(part, "x2") == 0) in->vec = 2;
        else if (in->op == OP_LDMATRIX && strcmp(part, "x4") == 0) in->vec = 4;
        else if (in->op == OP_LDMATRIX && strcmp(part, "trans") == 0) in->flags |= F_TRANS;
        else if (in->op == OP_MMA && (strcmp(part, "m16n8k16") == 0 || strcmp(part, "row") == 0 ||
                                      strcmp(part, "col") == 0)) ;
        else if (in->op == OP_MMA && (part[0] == 'm' || strcmp(part, "row") == 0 || strcmp(part, "col") == 0))
            return lex_fail(lx, "'%s': of mma the interpreter runs m16n8k16.row.col.f32.f16.f16.f32 alone", opcode);
        else if (in->op == OP_BULK_TENSOR && strcmp(part, "shared::cluster") == 0)
            ; /* a block launched without a cluster is a cluster of one */
        else if (in->op == OP_MEMBAR && in->sub == FENCE_MBAR_INIT && strcmp(part, "cluster") == 0)
            ;
        else if (strcmp(part, "shared::cluster") == 0 || strcmp(part, "cluster") == 0)
            return lex_fail(lx, "'%s': thread-block clusters are not something the interpreter runs", opcode);
        /* Modifiers that change nothing the interpreter models: caching, ordering and scope
         * (one block runs at a time here), alignment of bar, synchronisation of warp ops. */
        else if (strstr(part, "::") || !strcmp(part, "nc") || !strcmp(part, "ca") || !strcmp(part, "cg") ||
                 !strcmp(part, "cs") || !strcmp(part, "lu") || !strcmp(part, "cv") || !strcmp(part, "wb") ||
                 !strcmp(part, "wt") || !strcmp(part, "sync") || !strcmp(part, "aligned") || !strcmp(part, "cta") ||
                 !strcmp(part, "gpu") || !strcmp(part, "sys") || !strcmp(part, "gl") || !strcmp(part, "relaxed") ||
                 !strcmp(part, "acquire") || !strcmp(part, "release") || !strcmp(part, "acq_rel") ||
                 !strcmp(part, "sc") || !strcmp(part, "weak") || !strcmp(part, "noftz") ||
                 !strcmp(part, "clamp") || !strcmp(part, "wrap") || !strcmp(part, "x"))
            ;
        else
            return lex_fail(lx, "'%s': the modifier .%s is not one the interpreter knows", opcode, part);
    }
    /* Halves: cvt between a half and a float (nearest, or toward zero), and mma's operands; every
     * other use of .f16, .f16x2 or .bf16 would run as integer arithmetic here: refused by name. */
    int halves = 0;
    for (int k = 0; k < ntypes && k < 4; k++)
        halves |= types[k] == T_F16 || types[k] == T_F16X2 || types[k] == T_BF16;
    if (in->op == OP_MBARRIER || in->op == OP_BULK_TENSOR || in->op == OP_WGMMA ||
        (in->op == OP_MEMBAR && in->sub != SUB_NONE))
        return ptx_decode_async_done(lx, in, opcode, types, ntypes, nsteps);
    if (halves && !(in->op == OP_MMA || (in->op == OP_CVT && ntypes == 2 &&
                                         ((types[0] == T_F16 && (types[1] == T_F32 || types[1] == T_F64) &&
                                           (in->rnd == R_RN || in->rnd == R_RZ)) ||
                                          (types[1] == T_F16 && (types[0] == T_F32 || types[0] == T_F64))))))
        return lex_fail(lx, "'%s': of half precision the interpreter runs cvt.rn.f16.f32 (or .rz), cvt.f32.f16 and "
                        "mma's operands alone", opcode);
    if (approximate(in))
        return lex_fail(lx, "'%s': an approximation that a GPU computes in its special function units, whose bits the "
                        "interpreter cannot reproduce (fast-math intrinsics such as __fdividef and __expf, and CUDA's "
                        "expf, powf and tanhf, use them): refused rather than run with other bits; divide with `/` and "
                        "take sqrtf, whose results are exact", opcode);
    if (in->op == OP_BAR && in->sub == BAR_ARRIVE)
        return lex_fail(lx, "'%s': an arrival at a named barrier without waiting (a producer's) is not something the "
                        "interpreter runs; use __syncthreads()", opcode);
    if (in->op == OP_BAR && in->sub == SUB_NONE)
        return lex_fail(lx, "'%s': a barrier without .sync or .red", opcode);
    if (in->op == OP_SHF && (in->sub == SUB_NONE || in->type != T_B32 || ntypes != 1 ||
                             !(strstr(opcode, ".wrap") || strstr(opcode, ".clamp"))))
        return lex_fail(lx, "'%s': of shf the interpreter runs shf.l or shf.r, .wrap or .clamp, of .b32", opcode);
    if (in->op == OP_CP_ASYNC && strstr(opcode, "cache_hint"))
        return lex_fail(lx, "'%s': cp.async with a cache policy is not one the interpreter runs", opcode);
    if (in->op == OP_CP_ASYNC && in->sub == CP_COPY && !(strstr(opcode, ".shared") && strstr(opcode, ".global")))
        return lex_fail(lx, "'%s': cp.async copies from .global to .shared", opcode);
    if (in->op == OP_CP_ASYNC && in->sub == CP_COPY)
        in->space = S_SHARED; /* its destination's; the source is global */
    if (in->op == OP_CP_ASYNC && in->sub == SUB_NONE)
        return lex_fail(lx, "'%s': cp without .async", opcode);
    if (in->op == OP_LDMATRIX && (strstr(opcode, ".m8n8.") == NULL || in->type != T_B16 || in->space != S_SHARED))
        return lex_fail(lx, "'%s': of ldmatrix the interpreter runs .m8n8 of .b16 from .shared alone", opcode);
    if (in->op == OP_MMA && !(strstr(opcode, ".m16n8k16.row.col.") && ntypes == 4 && types[0] == T_F32 &&
                              types[1] == T_F16 && types[2] == T_F16 && types[3] == T_F32))
        return lex_fail(lx, "'%s': of mma the interpreter runs m16n8k16.row.col.f32.f16.f16.f32 alone", opcode);
    return 0;
}

int ptx_special_named(const char *s)
{
    static const char *const names[] = {
        "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
        "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%clock", "%clock64",
        "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%smid", "%nsmid",
        "%gridid", "%globaltimer"};
    return index_of(names, (int)(sizeof names / sizeof names[0]), s);
}

/* The special registers a kernel may not read: clocks, timers and the ids of the SM and the warp
 * slot it runs on (the GPU judge refuses them too: the sealed compile, checker/compile/ptx.c). */
int ptx_timer_named(const char *s)
{
    static const char *const names[] = {"%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
                                        "%globaltimer_hi", "%smid", "%warpid", "%nwarpid", "%gridid"};
    return index_of(names, (int)(sizeof names / sizeof names[0]), s) >= 0;
}
