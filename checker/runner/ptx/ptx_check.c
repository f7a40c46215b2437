/* What the interpreter may trust (ptx_read.h): every operand of an instruction and every address
 * the PTX fixes itself, checked once when the PTX is read, so that ptx_exec.c uses no index it has
 * not been given checked (inline assembly lets a kernel write any PTX). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_read.h"

/* ---- what an instruction's operands may be, checked once here so that ptx_exec.c can trust
 * every index it uses: a register, a special register, a variable or a parameter ---- */

static int async_shape(const struct ptx_insn *in, int *lo, int *hi, int *writes);

/* How many operands in takes (from *lo to *hi) and whether the first is what it writes; 0 where
 * the interpreter does not run it. */
static int shape(const struct ptx_insn *in, int *lo, int *hi, int *writes)
{
    *writes = 1;
    switch (in->op) {
    case OP_MOV: case OP_CVTA: case OP_CVT: case OP_LD: case OP_NEG: case OP_ABS: case OP_NOT: case OP_CNOT:
    case OP_RCP: case OP_SQRT: case OP_POPC: case OP_CLZ: case OP_BREV: case OP_BFIND: case OP_TESTP:
    case OP_LDMATRIX:
        *lo = *hi = 2;
        return 1;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX: case OP_AND:
    case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR: case OP_COPYSIGN: case OP_MUL24: case OP_VOTE:
    case OP_MATCH: case OP_REDUX:
        *lo = *hi = 3;
        return 1;
    case OP_SETP: case OP_SET:
        *lo = *hi = in->boolop ? 4 : 3;
        return 1;
    case OP_MAD: case OP_FMA: case OP_MAD24: case OP_SAD: case OP_BFE: case OP_PRMT: case OP_SELP: case OP_MMA:
    case OP_SHF:
        *lo = *hi = 4;
        return 1;
    case OP_BFI: case OP_SHFL:
        *lo = *hi = 5;
        return 1;
    case OP_ATOM:
        *lo = *hi = in->sub == ATOM_CAS ? 4 : 3;
        return 1;
    case OP_ACTIVEMASK:
        *lo = *hi = 1;
        return 1;
    case OP_BAR: /* bar.red.OP d, a{, b}, {!}c; bar.sync a{, b} */
        *writes = in->sub >= BAR_RED_POPC;
        *lo = *writes ? 3 : 1, *hi = *lo + 1;
        return 1;
    default:
        break;
    }
    *writes = 0;
    switch (in->op) {
    case OP_ST: case OP_RED:
        *lo = *hi = 2;
        return 1;
    case OP_BRA: case OP_BAR_WARP: case OP_NANOSLEEP: case OP_PMEVENT:
        *lo = *hi = 1;
        return 1;
    case OP_RET: case OP_EXIT: case OP_TRAP: case OP_MEMBAR:
        *lo = *hi = 0;
        return 1;
    case OP_CP_ASYNC: /* its forms: operands_fit */
        *lo = 0, *hi = 4;
        return 1;
    case OP_BULK_TENSOR: /* [dst], [map, {x, y}], [mbarrier] */
        *lo = *hi = 3;
        return 1;
    default:
        break;
    }
    return async_shape(in, lo, hi, writes);
}

/* Hopper's asynchronous instructions (ptx_decode.c's forms). */
static int async_shape(const struct ptx_insn *in, int *lo, int *hi, int *writes)
{
    static const signed char mbarrier[][2] = {[MB_INIT] = {2, 0}, [MB_ARRIVE] = {2, 1}, [MB_ARRIVE_EXPECT] = {3, 1},
                                              [MB_EXPECT_TX] = {2, 0}, [MB_TRY_WAIT] = {3, 1}};
    switch (in->op) {
    case OP_MBARRIER:
        if (in->sub < MB_INIT || in->sub > MB_TRY_WAIT)
            return 0;
        *lo = *hi = mbarrier[in->sub][0], *writes = mbarrier[in->sub][1];
        if (in->sub == MB_TRY_WAIT) /* (a fourth: the suspend-time hint, a time a GPU may wait; ignored) */
            *hi = 4;
        return 1;
    case OP_WGMMA:
        *lo = *hi = in->sub == WG_MMA ? 8 : in->sub == WG_WAIT ? 1 : 0;
        *writes = in->sub == WG_MMA;
        return 1;
    default:
        return 0;
    }
}

/* Whether operand j of in may be a {vector} (a pair a|b among them), and how many elements it
 * must have (0: any the instruction checks itself). */
static int vector_at(const struct ptx_insn *in, int j, int *n)
{
    *n = 0;
    switch (in->op) {
    case OP_LD: return j == 0 && (*n = in->vec) > 1;
    case OP_ST: return j == 1 && (*n = in->vec) > 1;
    case OP_MOV: return j <= 1; /* unpack {a, b} = x, or pack x = {a, b} */
    case OP_SETP: case OP_SHFL: case OP_MATCH: return j == 0 && (*n = 2); /* d|p */
    case OP_LDMATRIX: return j == 0 && (*n = in->vec);
    case OP_MMA: return 1;
    case OP_WGMMA: return j == 0 && in->sub == WG_MMA && (*n = 4 * in->vec); /* N/2 floats a thread */
    default: return 0;
    }
}

/* A register index of k, or a refusal naming the operand. */
static int check_reg(struct builder *b, const struct ptx_insn *in, int j, int r, int written)
{
    if (r < 0 || r >= b->k->nregs)
        return lex_fail(&b->lx, "'%s': operand %d names no declared register", in->text, j + 1);
    if (r == b->k->sink && !written)
        return lex_fail(&b->lx, "'%s': operand %d reads the sink `_`, which holds nothing", in->text, j + 1);
    return 0;
}

/* Operand j of in: its kind where it stands, each index it holds in range. */
static int check_operand(struct builder *b, const struct ptx_insn *in, int j, int written)
{
    struct lexer *lx = &b->lx;
    const struct ptx_operand *o = &in->o[j];
    int n = 0;
    if (written && o->kind != K_REG && !((o->kind == K_VEC || o->kind == K_BIGVEC) && vector_at(in, j, &n)))
        return lex_fail(lx, "'%s': operand %d is written, so it must be a register (or the sink `_`)", in->text, j + 1);
    switch (o->kind) {
    case K_REG:
        return check_reg(b, in, j, o->reg, written);
    case K_VEC:
        if (!vector_at(in, j, &n) || (n && o->nvec != n))
            return lex_fail(lx, "'%s': operand %d is a vector of %d where %s", in->text, j + 1, o->nvec,
                        n ? "the instruction takes another number" : "it takes a single value");
        for (int e = 0; e < o->nvec; e++)
            if (check_reg(b, in, j, o->vec[e], written))
                return -1;
        return 0;
    case K_BIGVEC:
        if (!vector_at(in, j, &n) || o->nvec != n || o->reg < 0 || o->reg + o->nvec > b->k->npool)
            return lex_fail(lx, "'%s': operand %d is a vector of %d registers where the instruction takes %s", in->text,
                            j + 1, o->nvec, n ? "another number" : "no such vector");
        for (int e = 0; e < o->nvec; e++)
            if (check_reg(b, in, j, b->k->pool[o->reg + e], written))
                return -1;
        return 0;
    case K_MEM:
        if (o->reg >= 0 && check_reg(b, in, j, o->reg, 0))
            return -1;
        if (o->nvec && !(in->op == OP_BULK_TENSOR && j == 1 && o->nvec == in->vec))
            return lex_fail(lx, "'%s': operand %d has coordinates where the instruction takes %s", in->text, j + 1,
                            in->op == OP_BULK_TENSOR ? "as many as its dimensions" : "none");
        for (int e = 0; e < o->nvec; e++)
            if (check_reg(b, in, j, o->vec[e], 0))
                return -1;
        break;
    case K_SPECIAL:
        if (o->reg < 0 || o->reg >= SR_COUNT)
            return lex_fail(lx, "'%s': operand %d is no special register the interpreter knows", in->text, j + 1);
        return 0;
    case K_LABEL:
        if (in->op != OP_BRA)
            return lex_fail(lx, "'%s': operand %d is a label where a value goes", in->text, j + 1);
        return 0;
    default:
        break;
    }
    if (o->sym >= b->m->nvars || (o->sym <= -2 && -2 - o->sym >= b->k->nparams))
        return lex_fail(lx, "'%s': operand %d names no variable or parameter", in->text, j + 1);
    return 0;
}

/* The instruction as ptx_exec.c runs it: its operands' number, a register where it writes, a
 * label where it branches, and no index outside what the kernel declared. */
int ptx_check_insn(struct builder *b, const struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    int lo, hi, writes;
    if (!shape(in, &lo, &hi, &writes))
        return lex_fail(lx, "the instruction '%s' is not one the interpreter runs", in->text);
    if ((in->nops < lo || in->nops > hi) && lo == hi)
        return lex_fail(lx, "'%s' takes %d operands, not %d", in->text, lo, in->nops);
    if (in->nops < lo || in->nops > hi)
        return lex_fail(lx, "'%s' takes %d to %d operands, not %d", in->text, lo, hi, in->nops);
    if (in->op == OP_BRA && in->o[0].kind != K_LABEL)
        return lex_fail(lx, "'%s': a branch's target must be a label", in->text);
    if (in->pred >= b->k->nregs || (in->pred >= 0 && in->pred == b->k->sink))
        return lex_fail(lx, "'%s': its guard names no declared register", in->text);
    if ((in->op == OP_LD || in->op == OP_ST || in->op == OP_ATOM || in->op == OP_RED) && !ptx_type_bytes(in->type))
        return lex_fail(lx, "'%s' needs a type, which says how many bytes it moves", in->text);
    if (in->op == OP_MOV && in->o[0].kind == K_VEC && in->o[1].kind == K_VEC)
        return lex_fail(lx, "'%s' packs or unpacks: one of its operands is a vector, not both", in->text);
    for (int j = 0; j < in->nops; j++)
        if (check_operand(b, in, j, writes && j == 0))
            return -1;
    return 0;
}

/* ---- addresses the PTX fixes itself ([variable+offset], [parameter+offset], [offset]): checked
 * against their window once the windows are laid out, with arithmetic that cannot wrap ---- */

static const char *space_name(int sp)
{
    static const char *const names[] = {[S_GLOBAL] = "global", [S_SHARED] = "shared", [S_LOCAL] = "local",
                                        [S_CONST] = "__constant__", [S_PARAM] = "parameter", [S_GENERIC] = "generic"};
    return sp > S_NONE && sp <= S_GENERIC ? names[sp] : "no";
}

/* The size of the window in space sp that the interpreter indexes (parameters, shared, local and
 * constant memory); 0 where an address is a pointer that the tracer checks (global, generic). */
static int window(const struct ptx_module *m, const struct ptx_kernel *k, int sp, size_t *bytes)
{
    switch (sp) {
    case S_PARAM: *bytes = (size_t)k->param_bytes; return 1;
    case S_SHARED: *bytes = k->shared_bytes; return 1;
    case S_LOCAL: *bytes = k->local_bytes; return 1;
    case S_CONST: *bytes = m->const_bytes; return 1;
    default: return 0;
    }
}

/* The bytes one lane's access of in makes at its address. */
static int64_t access_bytes(const struct ptx_insn *in)
{
    switch (in->op) {
    case OP_LDMATRIX: return 16; /* a row */
    case OP_CP_ASYNC: return in->o[2].kind == K_IMM ? in->o[2].imm : 16;
    case OP_ATOM: case OP_RED: return ptx_type_bytes(in->type);
    default: return (int64_t)ptx_type_bytes(in->type) * in->vec;
    }
}

/* Instruction in of k: a variable or parameter in brackets belongs to the space it accesses, and an
 * address without a register lies inside its window. 0, or -1 with m->error set. */
int ptx_fixed_address(struct ptx_module *m, const struct ptx_kernel *k, const struct ptx_insn *in)
{
    int j = in->op == OP_LD || in->op == OP_ATOM || in->op == OP_LDMATRIX                          ? 1
            : in->op == OP_ST || in->op == OP_RED || (in->op == OP_CP_ASYNC && in->sub == CP_COPY) ? 0
                                                                                                   : -1;
    if (j < 0 || in->o[j].kind != K_MEM)
        return 0;
    const struct ptx_operand *o = &in->o[j];
    int64_t base, at, size = access_bytes(in);
    size_t bytes;
    const char *what = o->sym <= -2 ? k->params[-2 - o->sym].name : o->sym >= 0 ? m->vars[o->sym].name : NULL;
    int owner = o->sym <= -2 ? S_PARAM : o->sym >= 0 ? m->vars[o->sym].space : in->space;
    if (owner == S_GLOBAL && o->sym >= 0 && (in->space == S_GLOBAL || in->space == S_NONE))
        return 0; /* a string literal's address: a pointer */
    if (owner != in->space) {
        snprintf(m->error, sizeof m->error, "line %d of the PTX: '%s' accesses %s memory at %.100s, which lies in %s "
                 "memory", in->at, in->text, space_name(in->space ? in->space : S_GENERIC), what, space_name(owner));
        return -1;
    }
    if (o->reg >= 0 || !window(m, k, in->space, &bytes) || (o->sym >= 0 && m->vars[o->sym].dynamic))
        return 0; /* a register's address, or extern __shared__ memory: checked where it is used */
    base = o->sym <= -2 ? k->params[-2 - o->sym].offset : o->sym >= 0 ? (int64_t)m->vars[o->sym].offset : 0;
    if (__builtin_add_overflow(base, o->imm, &at) || at < 0 || (uint64_t)at > bytes ||
        (uint64_t)size > bytes - (uint64_t)at) {
        snprintf(m->error, sizeof m->error, "line %d of the PTX: '%s' addresses %lld bytes at %.100s%+lld, outside "
                 "the kernel's %zu bytes of %s memory", in->at, in->text, (long long)size, what ? what : "0",
                 (long long)o->imm, bytes, space_name(in->space));
        return -1;
    }
    return 0;
}
