/* Reading the PTX nvcc writes (ptx.h): a tokenizer, then a small recursive descent over the
 * module's directives, each kernel's declarations and its instructions. What it does not know
 * (an instruction, a modifier, a state space) is refused with its name and line, never guessed;
 * every index it hands ptx_exec.c (a register, the sink, a label, a variable, a parameter, an
 * address fixed in the PTX) is checked here, since inline assembly lets a kernel write any PTX. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_read.h"

/* Registers by name: an open-addressed table of indices + 1, kept for the kernel being read
 * (a kernel has thousands of registers and each operand names one). A register declared in a
 * block is hidden when the block closes: a name means the innermost one still open (PTX's
 * scopes; inline assembly declares `.reg .pred p` in a block of its own, once per use). */
static struct {
    int *slot;
    size_t cap;
    unsigned char *hidden;
    size_t hidden_cap;
} names;

static size_t name_hash(const char *s)
{
    size_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static int find_reg(const struct ptx_kernel *k, const char *name)
{
    if (!names.cap)
        return -1;
    int found = -1; /* the latest declared of those still in scope */
    for (size_t h = name_hash(name) & (names.cap - 1);; h = (h + 1) & (names.cap - 1)) {
        int i = names.slot[h] - 1;
        if (i < 0)
            return found;
        if (i < k->nregs && i > found && !names.hidden[i] && strcmp(k->regs[i].name, name) == 0)
            found = i;
    }
}

/* Adds register i of k to the table, growing it to keep it at most half full. */
static void index_reg(const struct ptx_kernel *k, int i)
{
    if ((size_t)(i + 1) * 2 > names.cap) {
        free(names.slot);
        names.cap = names.cap ? names.cap * 2 : 1024;
        while ((size_t)(i + 1) * 2 > names.cap)
            names.cap *= 2;
        names.slot = calloc(names.cap, sizeof *names.slot);
        if (!names.slot)
            abort();
        for (int j = 0; j < i; j++)
            index_reg(k, j);
    }
    size_t h = name_hash(k->regs[i].name) & (names.cap - 1);
    while (names.slot[h])
        h = (h + 1) & (names.cap - 1);
    names.slot[h] = i + 1;
}

static int find_var(const struct ptx_module *m, const struct ptx_kernel *k, const char *name)
{
    /* the kernel's own first, then the module's __constant__ data, string literals and extern
     * __shared__ arrays (module scope holds nothing else: the parser refuses it) */
    for (int i = m->nvars - 1; i >= 0; i--) {
        int kernel_scoped = k && i >= k->first_var && i < k->first_var + k->nvars;
        int module_scoped = m->vars[i].space == S_CONST || m->vars[i].space == S_GLOBAL || m->vars[i].dynamic;
        if ((kernel_scoped || module_scoped) && strcmp(m->vars[i].name, name) == 0)
            return i;
    }
    return -1;
}

static void add_reg(struct builder *b, const char *name, int type)
{
    struct ptx_kernel *k = b->k;
    if (strlen(name) >= PTX_NAME_MAX) {
        lex_fail(&b->lx, "a register name of more than %d characters", PTX_NAME_MAX - 1);
        return;
    }
    if (k->nregs >= PTX_MAX_REGS) {
        lex_fail(&b->lx, "more than %d registers", PTX_MAX_REGS);
        return;
    }
    int same = find_reg(k, name);
    if (b->depth > 0 && same >= b->open[b->depth - 1].first_reg) {
        lex_fail(&b->lx, "the register %s is declared twice in one block", name);
        return;
    }
    GROW(k->regs, k->nregs, b->capregs);
    if ((size_t)k->nregs >= names.hidden_cap) {
        names.hidden_cap = names.hidden_cap ? 2 * names.hidden_cap : 1024;
        names.hidden = realloc(names.hidden, names.hidden_cap);
        if (!names.hidden)
            abort();
    }
    names.hidden[k->nregs] = 0;
    snprintf(k->regs[k->nregs].name, sizeof k->regs[0].name, "%s", name);
    k->regs[k->nregs++].type = (uint8_t)type;
    index_reg(k, k->nregs - 1);
}

/* .reg .TYPE %r<N>;  or  .reg .TYPE a, b; */
static int reg_decl(struct builder *b)
{
    struct lexer *lx = &b->lx;
    if (lx->kind != TK_IDENT || lx->text[0] != '.')
        return lex_fail(lx, "a .reg declaration without a type");
    int t = ptx_type_named(lx->text + 1);
    if (t == T_NONE)
        return lex_fail(lx, "the register type '%s' is not one the interpreter knows", lx->text);
    lex_next(lx);
    do {
        if (lx->kind != TK_IDENT)
            return lex_fail(lx, "expected a register name, found '%s'", lx->text);
        char name[PTX_NAME_MAX];
        snprintf(name, sizeof name, "%.255s", lx->text);
        lex_next(lx);
        if (lex_accept(lx, "<")) {
            int64_t n;
            int f, f32;
            if (lx->kind != TK_NUM || lex_number(lx, &n, &f, &f32) || n < 0 || n > 1 << 20)
                return lex_fail(lx, "a register range needs a count");
            if (lex_expect(lx, ">"))
                return -1;
            for (int64_t i = 0; i < n; i++) {
                char r[PTX_NAME_MAX + 24];
                snprintf(r, sizeof r, "%s%lld", name, (long long)i);
                add_reg(b, r, t);
            }
        } else
            add_reg(b, name, t);
    } while (lex_accept(lx, ","));
    return lex_expect(lx, ";");
}

/* A variable: [.align A] .TYPE name[N]... [= {...}];  in space. */
static int var_decl(struct builder *b, int space, int kernel_scoped)
{
    struct lexer *lx = &b->lx;
    struct ptx_module *m = b->m;
    int align = 0;
    if (lex_accept(lx, ".align") && lex_alignment(lx, &align))
        return -1;
    while (lex_is(lx, ".visible") || lex_is(lx, ".extern") || lex_is(lx, ".weak"))
        lex_next(lx);
    int t = lx->kind == TK_IDENT && lx->text[0] == '.' ? ptx_type_named(lx->text + 1) : T_NONE;
    if (t == T_NONE || t == T_PRED)
        return lex_fail(lx, "a variable of type '%s' is not one the interpreter knows", lx->text);
    lex_next(lx);
    if (lx->kind != TK_IDENT)
        return lex_fail(lx, "expected a variable name, found '%s'", lx->text);
    GROW(m->vars, m->nvars, b->capvars);
    struct ptx_var *v = &m->vars[m->nvars];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%.255s", lx->text);
    lex_next(lx);
    size_t elem = (size_t)ptx_type_bytes(t), count = 1;
    while (lex_accept(lx, "[")) {
        int64_t n;
        int f, f32;
        if (lex_accept(lx, "]")) { /* extern __shared__ T name[]: the launch gives its bytes */
            if (space != S_SHARED || kernel_scoped || count != 1 || lex_is(lx, "["))
                return lex_fail(lx, "the array %s has no size", v->name);
            v->dynamic = 1;
            count = 0;
            break;
        }
        if (lx->kind != TK_NUM || lex_number(lx, &n, &f, &f32) || n < 0 || n > (1 << 30))
            return lex_fail(lx, "the array %s needs a size", v->name);
        count *= (size_t)n;
        if (count > ((size_t)1 << 30)) /* each dimension's product checked: no size wraps around */
            return lex_fail(lx, "the variable %s is too large", v->name);
        if (lex_expect(lx, "]"))
            return -1;
    }
    v->space = (uint8_t)space;
    v->align = align ? align : (int)elem;
    v->bytes = elem * count;
    v->offset = (size_t)-1;
    if (v->bytes > ((size_t)1 << 30))
        return lex_fail(lx, "the variable %s is too large", v->name);
    if (lex_accept(lx, "=")) {
        if (space != S_CONST && !(space == S_GLOBAL && v->name[0] == '$'))
            return lex_fail(lx, "an initialised %s variable (%s): only __constant__ data may have an initial value",
                        space == S_GLOBAL ? "__device__" : "non-constant", v->name);
        v->init = calloc(1, v->bytes ? v->bytes : 1);
        size_t i = 0;
        int brace = lex_accept(lx, "{");
        do {
            while (lex_accept(lx, "{"))
                ;
            if (lex_is(lx, "}"))
                break;
            int64_t x;
            int f, f32;
            if (lx->kind != TK_NUM || lex_number(lx, &x, &f, &f32))
                return lex_fail(lx, "an initial value of %s is not a number", v->name);
            if (i * elem >= v->bytes)
                return lex_fail(lx, "%s has more initial values than elements", v->name);
            if (t == T_F32 && f && !f32) {
                double d;
                memcpy(&d, &x, sizeof d);
                float fl = (float)d;
                uint32_t u;
                memcpy(&u, &fl, 4);
                x = u;
            } else if (t == T_F64 && f32) {
                uint32_t u = (uint32_t)x;
                float fl;
                memcpy(&fl, &u, 4);
                double d = fl;
                memcpy(&x, &d, 8);
            }
            memcpy(v->init + i * elem, &x, elem); /* little-endian: the low bytes */
            i++;
            while (lex_accept(lx, "}"))
                ;
        } while (lex_accept(lx, ","));
        if (brace)
            while (lex_accept(lx, "}"))
                ;
    }
    if (kernel_scoped)
        b->k->nvars++;
    m->nvars++;
    return lex_expect(lx, ";");
}

/* The sink `_`: a register of its own, after the declared ones, that instructions write and
 * nothing reads (the parser refuses it where a value is read); never found by name. */
static int sink_reg(struct builder *b)
{
    struct ptx_kernel *k = b->k;
    if (k->sink >= 0)
        return k->sink;
    add_reg(b, "_", T_B64);
    if (b->lx.failed)
        return 0;
    names.hidden[k->nregs - 1] = 1;
    return k->sink = k->nregs - 1;
}

static int add_fixup(struct builder *b, int operand, const char *name)
{
    GROW(b->fixups, b->nfixups, b->capfixups);
    b->fixups[b->nfixups].insn = b->k->ninsns;
    b->fixups[b->nfixups].operand = operand;
    b->fixups[b->nfixups].block = b->open[b->depth - 1].block;
    snprintf(b->fixups[b->nfixups++].name, sizeof b->fixups[0].name, "%s", name);
    return 0;
}

/* One name in an operand: a register, a special register, a variable or a label. */
static int name_operand(struct builder *b, struct ptx_operand *o, int index, const char *name)
{
    int r = find_reg(b->k, name);
    if (r >= 0) {
        o->kind = K_REG, o->reg = r;
        return 0;
    }
    if (ptx_timer_named(name))
        return lex_fail(&b->lx, "%s: lesson files may not read clocks or SM ids: a kernel's result must not depend on when "
                            "or where it runs", name);
    int s = ptx_special_named(name);
    if (s >= 0) {
        o->kind = K_SPECIAL, o->reg = s;
        return 0;
    }
    if (strncmp(name, "%envreg", 7) == 0 || strncmp(name, "%pm", 3) == 0 || name[0] == '%')
        return lex_fail(&b->lx, "the register %s is not one the interpreter knows", name);
    int v = find_var(b->m, b->k, name);
    if (v >= 0) {
        o->kind = K_SYM, o->sym = v;
        return 0;
    }
    for (int p = 0; p < b->k->nparams; p++)
        if (strcmp(b->k->params[p].name, name) == 0) {
            o->kind = K_SYM, o->sym = -2 - p; /* a kernel parameter */
            return 0;
        }
    o->kind = K_LABEL, o->reg = -1;
    return add_fixup(b, index, name);
}

/* A register, or the sink `_`, into *r; what names the place in a refusal. */
static int register_or_sink(struct builder *b, int *r, const char *what)
{
    struct lexer *lx = &b->lx;
    if (lex_accept(lx, "_")) {
        *r = sink_reg(b);
        return 0;
    }
    *r = lx->kind == TK_IDENT ? find_reg(b->k, lx->text) : -1;
    if (*r < 0)
        return lex_fail(lx, "%s must be a register, found '%s'", what, lx->text);
    lex_next(lx);
    return 0;
}

static int operand(struct builder *b, struct ptx_operand *o, int index)
{
    struct lexer *lx = &b->lx;
    memset(o, 0, sizeof *o);
    o->reg = o->sym = -1;
    if (lex_accept(lx, "[")) {
        o->kind = K_MEM;
        if (lx->kind == TK_IDENT) {
            struct ptx_operand base;
            char name[PTX_NAME_MAX];
            snprintf(name, sizeof name, "%.255s", lx->text);
            lex_next(lx);
            memset(&base, 0, sizeof base);
            if (name_operand(b, &base, index, name))
                return -1;
            if (base.kind == K_REG)
                o->reg = base.reg;
            else if (base.kind == K_SYM)
                o->sym = base.sym;
            else
                return lex_fail(lx, "cannot take the address '%s'", name);
        }
        if (lex_accept(lx, "+") || lex_is(lx, "-") || lx->kind == TK_NUM) {
            int neg = lex_accept(lx, "-");
            int64_t v;
            int f, f32;
            if (lx->kind != TK_NUM || lex_number(lx, &v, &f, &f32) || f)
                return lex_fail(lx, "an address offset must be an integer");
            o->imm = neg ? -v : v;
        }
        if (lex_accept(lx, ",")) { /* [map, {x, y}]: a tensor copy's coordinates */
            if (lex_expect(lx, "{"))
                return -1;
            do {
                if (o->nvec == 4)
                    return lex_fail(lx, "more than 4 coordinates");
                if (register_or_sink(b, &o->vec[o->nvec++], "a coordinate"))
                    return -1;
            } while (lex_accept(lx, ","));
            if (lex_expect(lx, "}"))
                return -1;
        }
        return lex_expect(lx, "]");
    }
    if (lex_accept(lx, "{")) {
        int r[256], n = 0;
        do {
            if (n == 256)
                return lex_fail(lx, "a vector of more than 256 elements");
            if (register_or_sink(b, &r[n++], "a vector element"))
                return -1;
        } while (lex_accept(lx, ","));
        o->kind = n <= 4 ? K_VEC : K_BIGVEC;
        o->nvec = (uint8_t)(n <= 255 ? n : 255);
        if (n > 255)
            return lex_fail(lx, "a vector of more than 255 elements");
        if (n <= 4)
            memcpy(o->vec, r, (size_t)n * sizeof *r);
        else {
            struct ptx_kernel *k = b->k;
            int *grown = realloc(k->pool, (size_t)(k->npool + n) * sizeof *grown);
            if (!grown)
                return lex_fail(lx, "out of memory");
            k->pool = grown;
            memcpy(k->pool + k->npool, r, (size_t)n * sizeof *r);
            o->reg = k->npool;
            k->npool += n;
        }
        return lex_expect(lx, "}");
    }
    if (lex_accept(lx, "!"))
        o->neg = 1;
    if (lx->kind == TK_NUM) {
        int f, f32;
        if (lex_number(lx, &o->imm, &f, &f32))
            return -1;
        o->kind = f ? K_FIMM : K_IMM;
        o->fbytes = f ? (f32 ? 4 : 8) : 0; /* its bits kept as written: a .b32 instruction takes them as they are */
        return 0;
    }
    if (lex_accept(lx, "_")) {
        o->kind = K_REG, o->reg = sink_reg(b);
    } else {
        if (lx->kind != TK_IDENT)
            return lex_fail(lx, "expected an operand, found '%s'", lx->text);
        char name[PTX_NAME_MAX];
        snprintf(name, sizeof name, "%.255s", lx->text);
        lex_next(lx);
        if (name_operand(b, o, index, name))
            return -1;
    }
    /* a|b: two destinations (setp's result and its complement, shfl's value and its predicate) */
    if (o->kind == K_REG && !o->neg && lex_accept(lx, "|")) {
        o->kind = K_VEC, o->nvec = 2, o->vec[0] = o->reg;
        if (register_or_sink(b, &o->vec[1], "the destination after '|'"))
            return -1;
    }
    if (o->kind == K_SYM && (lex_accept(lx, "+"))) { /* mov %r, var+8 */
        int64_t v;
        int f, f32;
        if (lx->kind != TK_NUM || lex_number(lx, &v, &f, &f32))
            return lex_fail(lx, "an address offset must be an integer");
        o->imm = v;
    }
    return 0;
}

/* A variable named in a call's operand list: one of the call's own parameters (the thread's
 * memory, where print() reads and writes `bytes` of it). */
static int call_operand(struct builder *b, struct ptx_operand *o, size_t bytes)
{
    struct lexer *lx = &b->lx;
    int v = lx->kind == TK_IDENT ? find_var(b->m, b->k, lx->text) : -1;
    if (v < 0 || b->m->vars[v].space != S_LOCAL || b->m->vars[v].bytes < bytes)
        return lex_fail(lx, "a call's parameter '%s' is not one of its declared parameters of %zu bytes", lx->text, bytes);
    memset(o, 0, sizeof *o);
    o->kind = K_SYM, o->sym = v, o->reg = -1;
    lex_next(lx);
    return 0;
}

/* call[.uni] (retval), vprintf, (format, arguments); printf's call, the only one the
 * interpreter runs: o[0] the result, o[1] the format's address, o[2] the arguments'. */
static int call(struct builder *b, struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    if (lex_expect(lx, "(") || call_operand(b, &in->o[0], 4) || lex_expect(lx, ")") || lex_expect(lx, ","))
        return -1;
    if (!lex_accept(lx, "vprintf"))
        return lex_fail(lx, "a call of '%s', a function the compiler did not inline: the interpreter runs kernels "
                        "whose only call is printf", lx->text);
    if (lex_expect(lx, ",") || lex_expect(lx, "(") || call_operand(b, &in->o[1], 8) || lex_expect(lx, ",") ||
        call_operand(b, &in->o[2], 8) || lex_expect(lx, ")"))
        return -1;
    in->nops = 3;
    b->k->ninsns++;
    return lex_expect(lx, ";");
}

/* A value operand: a register that holds a number, or a constant. */
static int number_operand(struct builder *b, const struct ptx_operand *o)
{
    return o->kind == K_IMM || (o->kind == K_REG && b->k->regs[o->reg].type != T_PRED);
}

/* Hopper's asynchronous instructions (ptx_decode.c's forms): addresses in brackets where they take
 * one, each of shared memory (a tensor map's, of a parameter), and numbers where they take them. */
static int async_operands_fit(struct builder *b, const struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    const struct ptx_operand *o = in->o;
    int mem = -1, num = -1;
    switch (in->op) {
    case OP_MBARRIER:
        mem = in->sub == MB_INIT || in->sub == MB_EXPECT_TX ? 0 : 1;
        num = in->sub == MB_ARRIVE ? -1 : mem + 1;
        if (in->sub == MB_TRY_WAIT && (o[0].kind != K_REG || b->k->regs[o[0].reg].type != T_PRED))
            return lex_fail(lx, "'%s': its first operand is the predicate it sets", in->text);
        if ((in->sub == MB_ARRIVE || in->sub == MB_ARRIVE_EXPECT) && (o[0].kind != K_REG || o[0].reg != b->k->sink))
            return lex_fail(lx, "'%s': the interpreter runs arrivals whose state goes to the sink `_` (its waits "
                            "are by parity)", in->text);
        break;
    case OP_BULK_TENSOR:
        for (int j = 0; j < 3; j++)
            if (in->nops <= j || o[j].kind != K_MEM)
                return lex_fail(lx, "'%s' takes [shared destination], [tensor map, {coordinates}], [mbarrier]",
                                in->text);
        if (o[1].reg < 0 || o[1].sym != -1 || o[1].imm)
            return lex_fail(lx, "'%s': the tensor map must be the generic address of one of the kernel's "
                            "__grid_constant__ parameters", in->text);
        break;
    case OP_WGMMA:
        if (in->sub == WG_WAIT && (o[0].kind != K_IMM || o[0].imm < 0 || o[0].imm > 7))
            return lex_fail(lx, "'%s' takes a count of groups, a constant from 0 to 7", in->text);
        if (in->sub == WG_MMA) {
            if (o[0].kind != K_VEC && o[0].kind != K_BIGVEC)
                return lex_fail(lx, "'%s': its accumulators are a {vector} of registers", in->text);
            if (o[1].kind != K_REG || o[2].kind != K_REG)
                return lex_fail(lx, "'%s': the interpreter runs A and B from shared memory, each given by a "
                                "descriptor in a 64-bit register", in->text);
            if (!(o[3].kind == K_IMM || (o[3].kind == K_REG && b->k->regs[o[3].reg].type == T_PRED)))
                return lex_fail(lx, "'%s': scale-d is a predicate or a constant", in->text);
            for (int j = 4; j < 8; j++)
                if (o[j].kind != K_IMM || (j < 6 ? o[j].imm != 1 && o[j].imm != -1 : o[j].imm != 0 && o[j].imm != 1))
                    return lex_fail(lx, "'%s': imm-scale-a and -b are 1 or -1, imm-trans-a and -b 0 or 1", in->text);
        }
        return 0;
    default:
        return 0;
    }
    if (mem >= 0 && (in->nops <= mem || o[mem].kind != K_MEM))
        return lex_fail(lx, "'%s': operand %d must be an address in brackets", in->text, mem + 1);
    if (num >= 0 && (in->nops <= num || !number_operand(b, &o[num])))
        return lex_fail(lx, "'%s': operand %d must be a number", in->text, num + 1);
    int map = in->op == OP_BULK_TENSOR ? 1 : -1;
    for (int j = 0; j < in->nops; j++)
        if (o[j].kind == K_MEM && j != map && (o[j].sym <= -2 || (o[j].sym >= 0 && b->m->vars[o[j].sym].space != S_SHARED)))
            return lex_fail(lx, "'%s': operand %d lies outside shared memory", in->text, j + 1);
    return 0;
}

/* The operands an instruction's execution reads as such: an address where it reads an address
 * (a register, a variable or a parameter in brackets, never a label or a special register, whose
 * numbers index nothing), the warp instructions' register vectors, cp.async's sizes. */
static int operands_fit(struct builder *b, const struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    const struct ptx_operand *o = in->o;
    int addr = in->op == OP_LD || in->op == OP_ATOM || in->op == OP_LDMATRIX ? 1
               : in->op == OP_ST || in->op == OP_RED || (in->op == OP_CP_ASYNC && in->sub == CP_COPY) ? 0 : -1;
    if (addr >= 0 && (in->nops <= addr || o[addr].kind != K_MEM))
        return lex_fail(lx, "'%s': operand %d must be an address in brackets", in->text, addr + 1);
    int vec4 = 0;
    switch (in->op) {
    case OP_LDMATRIX:
        if (in->nops != 2 || !(o[0].kind == K_VEC || o[0].kind == K_REG))
            return lex_fail(lx, "'%s' takes {registers}, [address]", in->text);
        break;
    case OP_MMA:
        for (int k = 0; k < 4 && k < in->nops; k++)
            vec4 += o[k].kind == K_VEC;
        if (in->nops != 4 || vec4 != 4)
            return lex_fail(lx, "'%s' takes four {register} vectors: d, a, b, c", in->text);
        break;
    case OP_CP_ASYNC:
        if (in->sub == CP_COPY &&
            (in->nops < 3 || in->nops > 4 || o[1].kind != K_MEM || o[2].kind != K_IMM ||
             (in->nops == 4 && !(o[3].kind == K_IMM || (o[3].kind == K_REG && b->k->regs[o[3].reg].type != T_PRED)))))
            return lex_fail(lx, "'%s': of cp.async the interpreter runs [dst], [src], cp-size{, src-size} (no cache "
                            "policy, no ignore-src predicate)", in->text);
        if (in->sub == CP_WAIT && (in->nops != 1 || o[0].kind != K_IMM || o[0].imm < 0))
            return lex_fail(lx, "'%s' takes a count of groups, a constant from 0", in->text);
        if ((in->sub == CP_COMMIT || in->sub == CP_WAIT_ALL) && in->nops != 0)
            return lex_fail(lx, "'%s' takes no operand", in->text);
        break;
    default:
        return async_operands_fit(b, in);
    }
    return 0;
}

static int instruction_body(struct builder *b, struct ptx_insn *in);

/* One instruction, k->insns[k->ninsns] once read and checked. */
static int instruction(struct builder *b)
{
    struct ptx_kernel *k = b->k;
    GROW(k->insns, k->ninsns, b->capinsns);
    struct ptx_insn *in = &k->insns[k->ninsns];
    memset(in, 0, sizeof *in);
    for (int k = 0; k < PTX_MAX_OPERANDS; k++) /* an operand not given names no register */
        in->o[k].reg = in->o[k].sym = -1;
    in->pred = -1;
    in->file = b->file, in->line = b->line, in->col = b->col, in->call_line = b->call_line;
    in->at = b->lx.line;
    if (instruction_body(b, in) == 0)
        return 0;
    free((void *)in->text); /* (ptx_free frees those of the instructions counted) */
    in->text = NULL;
    return -1;
}

static int instruction_body(struct builder *b, struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    struct ptx_kernel *k = b->k;
    if (lex_accept(lx, "@")) {
        in->pred_neg = (uint8_t)lex_accept(lx, "!");
        in->pred = lx->kind == TK_IDENT ? find_reg(k, lx->text) : -1;
        if (in->pred < 0)
            return lex_fail(lx, "a guard must be a predicate register, found '%s'", lx->text);
        lex_next(lx);
    }
    if (lx->kind != TK_IDENT)
        return lex_fail(lx, "expected an instruction, found '%s'", lx->text);
    in->text = strdup(lx->text);
    if (ptx_decode(lx, in, lx->text))
        return -1;
    lex_next(lx);
    if (in->op == OP_CALL) /* call (retval), vprintf, (format, arguments): printf, the one call */
        return call(b, in);
    while (!lex_is(lx, ";")) {
        if (in->nops == PTX_MAX_OPERANDS)
            return lex_fail(lx, "too many operands");
        if (operand(b, &in->o[in->nops], in->nops))
            return -1;
        in->nops++;
        if (!lex_accept(lx, ","))
            break;
    }
    /* ld.param/st.param of a call's own parameters: they live in the thread's memory */
    for (int i = 0; i < in->nops; i++)
        if (in->space == S_PARAM && in->o[i].kind == K_MEM && in->o[i].sym >= 0 &&
            b->m->vars[in->o[i].sym].space == S_LOCAL)
            in->space = S_LOCAL;
    if (operands_fit(b, in) || ptx_check_insn(b, in))
        return -1;
    k->ninsns++;
    return lex_expect(lx, ";");
}

/* .loc FILE LINE COL [, function_name NAME, inlined_at FILE LINE COL] */
static int loc(struct builder *b)
{
    struct lexer *lx = &b->lx;
    int64_t v[3];
    int f, f32;
    for (int i = 0; i < 3; i++)
        if (lx->kind != TK_NUM || lex_number(lx, &v[i], &f, &f32))
            return lex_fail(lx, ".loc needs a file, a line and a column");
    b->file = (int)v[0], b->line = (int)v[1], b->col = (int)v[2], b->call_line = 0;
    while (lex_accept(lx, ",")) {
        if (lex_accept(lx, "function_name"))
            lex_next(lx);
        else if (lex_accept(lx, "inlined_at")) {
            /* The line that called an inlined function is the student's line to show. */
            int64_t w[3];
            for (int i = 0; i < 3; i++)
                if (lx->kind != TK_NUM || lex_number(lx, &w[i], &f, &f32))
                    return lex_fail(lx, "inlined_at needs a file, a line and a column");
            /* in a header (a CUDA intrinsic's body), or on no line: the lesson file's call */
            if (b->line == 0 || b->file != 1)
                b->file = (int)w[0], b->line = (int)w[1], b->col = (int)w[2];
            /* in a helper of the lesson file: the helper's line, and the call that tells one use of
             * it from another (lesson 10's ldmatrix_x4 loads A's fragments and B's) */
            else if (w[0] == 1 && w[1] > 0 && w[1] != b->line)
                b->call_line = (int)w[1];
        } else
            return lex_fail(lx, "unexpected '%s' in .loc", lx->text);
    }
    return 0;
}

/* Opens a block ({), the kernel's body first. */
static int open_block(struct builder *b)
{
    if (b->depth == PTX_MAX_DEPTH)
        return lex_fail(&b->lx, "blocks nested more than %d deep", PTX_MAX_DEPTH);
    GROW(b->parent, b->nblocks, b->capblocks);
    b->parent[b->nblocks] = b->depth ? b->open[b->depth - 1].block : -1;
    b->open[b->depth++] = (struct open_block){b->nblocks++, b->k->nregs};
    return 0;
}

/* Closes the innermost block (}): its registers go out of scope. */
static void close_block(struct builder *b)
{
    for (int r = b->open[--b->depth].first_reg; r < b->k->nregs; r++)
        names.hidden[r] = 1;
}

static int kernel_body(struct builder *b)
{
    struct lexer *lx = &b->lx;
    b->depth = b->nblocks = 0;
    if (open_block(b))
        return -1;
    while (b->depth > 0) {
        if (lx->kind == TK_END)
            return lex_fail(lx, "the kernel %s does not end", b->k->name);
        if (lex_accept(lx, "{")) {
            if (open_block(b))
                return -1;
        } else if (lex_accept(lx, "}")) {
            close_block(b);
        } else if (lex_accept(lx, ".reg")) {
            if (reg_decl(b))
                return -1;
        } else if (lex_accept(lx, ".shared")) {
            if (var_decl(b, S_SHARED, 1))
                return -1;
        } else if (lex_accept(lx, ".local")) {
            if (var_decl(b, S_LOCAL, 1))
                return -1;
        } else if (lex_accept(lx, ".loc")) {
            if (loc(b))
                return -1;
        } else if (lex_accept(lx, ".pragma")) {
            lex_next(lx);
            if (lex_expect(lx, ";"))
                return -1;
        } else if (lex_accept(lx, ".param")) { /* a call's parameters: the thread's own memory */
            if (var_decl(b, S_LOCAL, 1))
                return -1;
        } else if (lex_is(lx, ".const") || lex_is(lx, ".global")) {
            return lex_fail(lx, "a %s declaration inside a kernel is not something the interpreter runs", lx->text);
        } else if (lx->kind == TK_IDENT && lx->p[0] == ':') {
            int block = b->open[b->depth - 1].block;
            for (int l = 0; l < b->nlabels; l++)
                if (b->labels[l].block == block && strcmp(b->labels[l].name, lx->text) == 0)
                    return lex_fail(lx, "the label %s is defined twice in one block", lx->text);
            GROW(b->labels, b->nlabels, b->caplabels);
            snprintf(b->labels[b->nlabels].name, sizeof b->labels[0].name, "%.255s", lx->text);
            b->labels[b->nlabels].block = block;
            b->labels[b->nlabels++].at = b->k->ninsns;
            lex_next(lx);
            lex_next(lx); /* the ':' */
        } else if (lx->kind == TK_IDENT && lx->text[0] == '.') {
            return lex_fail(lx, "the directive %s inside a kernel is not one the interpreter knows", lx->text);
        } else if (instruction(b))
            return -1;
    }
    return 0;
}

/* `extern __shared__` arrays: one place, after the launched kernel's own shared variables (a GPU
 * gives them all the same address), aligned as the most aligned of them asks (ptx_exec.c places
 * them at each launch). */
static void place_dynamic_shared(struct ptx_module *m)
{
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].dynamic) {
            size_t a = m->vars[i].align > 16 ? (size_t)m->vars[i].align : 16;
            m->dynamic_align = a > m->dynamic_align ? a : m->dynamic_align;
            m->vars[i].offset = 0;
        }
}

/* Lays the kernel's shared and local variables out, each at its alignment. */
static void layout(struct ptx_module *m, struct ptx_kernel *k)
{
    size_t shared = 0, local = 0;
    for (int i = k->first_var; i < k->first_var + k->nvars; i++) {
        struct ptx_var *v = &m->vars[i];
        size_t *at = v->space == S_LOCAL ? &local : &shared;
        size_t a = v->align > 0 ? (size_t)v->align : 1;
        *at = (*at + a - 1) / a * a;
        v->offset = *at;
        *at += v->bytes;
    }
    k->shared_bytes = shared;
    k->local_bytes = local;
}

/* One parameter of an .entry's list, laid out after those before it: 0, or -1 with the error
 * set. */
static int entry_param(struct lexer *lx, struct ptx_kernel *k)
{
    if (lex_expect(lx, ".param"))
        return -1;
    if (k->nparams == PTX_MAX_PARAMS)
        return lex_fail(lx, "too many parameters");
    struct ptx_param *p = &k->params[k->nparams];
    int align = 0;
    if (lex_accept(lx, ".align") && lex_alignment(lx, &align))
        return -1;
    if (lex_accept(lx, ".ptr")) { /* .ptr .global .align N: a pointer's attributes */
        while (lx->kind == TK_IDENT && lx->text[0] == '.' && ptx_type_named(lx->text + 1) == T_NONE) {
            if (lex_accept(lx, ".align"))
                lex_next(lx);
            else
                lex_next(lx);
        }
    }
    int t = lx->kind == TK_IDENT && lx->text[0] == '.' ? ptx_type_named(lx->text + 1) : T_NONE;
    if (t == T_NONE)
        return lex_fail(lx, "a parameter of type '%s'", lx->text);
    lex_next(lx);
    while (lex_is(lx, ".ptr") || lex_is(lx, ".global") || lex_is(lx, ".align")) {
        if (lex_accept(lx, ".align"))
            lex_next(lx);
        else
            lex_next(lx);
    }
    snprintf(p->name, sizeof p->name, "%.255s", lx->text);
    lex_next(lx);
    int bytes = ptx_type_bytes(t);
    if (lex_accept(lx, "[")) {
        int64_t n;
        int f, f32;
        if (lx->kind != TK_NUM || lex_number(lx, &n, &f, &f32) || f || n < 1 || n > PTX_MAX_PARAM_BYTES ||
            lex_expect(lx, "]"))
            return lex_fail(lx, "a parameter array needs a size from 1 to %d", PTX_MAX_PARAM_BYTES);
        bytes *= (int)n;
    }
    p->type = (uint8_t)t;
    p->bytes = bytes;
    p->align = align ? align : ptx_type_bytes(t);
    k->param_bytes = (k->param_bytes + p->align - 1) / p->align * p->align;
    p->offset = k->param_bytes;
    k->param_bytes += bytes;
    /* checked after each parameter, whose size and alignment are at most 32 KiB and 4 KiB:
     * the int sum cannot wrap before it is refused */
    if (k->param_bytes > PTX_MAX_PARAM_BYTES)
        return lex_fail(lx, "the kernel's parameters take more than %d bytes", PTX_MAX_PARAM_BYTES);
    return 0;
}

static int entry(struct builder *b, int is_func)
{
    struct lexer *lx = &b->lx;
    struct ptx_module *m = b->m;
    if (is_func)
        return lex_fail(lx, "a device function the compiler did not inline (.func): the interpreter runs one kernel "
                        "without calls");
    m->kernels = realloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *m->kernels);
    struct ptx_kernel *k = b->k = &m->kernels[m->nkernels++];
    memset(k, 0, sizeof *k);
    k->sink = -1;
    b->capinsns = b->capregs = 0;
    b->nlabels = b->nfixups = 0;
    k->first_var = m->nvars;
    if (names.cap)
        memset(names.slot, 0, names.cap * sizeof *names.slot);
    if (lx->kind != TK_IDENT)
        return lex_fail(lx, "an .entry without a name");
    snprintf(k->name, sizeof k->name, "%.255s", lx->text);
    lex_next(lx);
    if (lex_accept(lx, "(")) {
        while (!lex_accept(lx, ")")) {
            if (entry_param(lx, k))
                return -1;
            k->nparams++;
            lex_accept(lx, ",");
        }
    }
    /* Performance directives between the parameters and the body: the block shapes a launch must
     * keep kept (the others, .minnctapersm, .maxnreg, tell ptxas how to allocate registers). */
    while (lx->kind == TK_IDENT && lx->text[0] == '.') {
        unsigned *shape = lex_is(lx, ".maxntid") ? k->maxntid : lex_is(lx, ".reqntid") ? k->reqntid : NULL;
        lex_next(lx);
        for (int d = 0; lx->kind == TK_NUM || lex_is(lx, ",") || lx->kind == TK_STR;) {
            int64_t v;
            int f, f32;
            if (shape && lx->kind == TK_NUM) {
                if (d == 3 || lex_number(lx, &v, &f, &f32) || f || v < 1 || v > 1024)
                    return lex_fail(lx, "a block shape (.maxntid or .reqntid) of up to three numbers from 1 to 1024");
                shape[d++] = (unsigned)v;
                continue;
            }
            lex_next(lx);
        }
    }
    if (lex_accept(lx, ";"))
        return lex_fail(lx, "the kernel %s is declared but has no body", k->name);
    if (lex_expect(lx, "{") || kernel_body(b))
        return -1;
    /* A branch's label: the one of its own block, else of the block around that, and so on. */
    for (int i = 0; i < b->nfixups; i++) {
        struct fixup *f = &b->fixups[i];
        int at = -1;
        for (int blk = f->block; blk >= 0 && at < 0; blk = b->parent[blk])
            for (int l = 0; l < b->nlabels; l++)
                if (b->labels[l].block == blk && strcmp(b->labels[l].name, f->name) == 0)
                    at = b->labels[l].at;
        if (at < 0) {
            snprintf(m->error, sizeof m->error, "in %.120s: '%.120s' names no register, variable or label", k->name, f->name);
            return -1;
        }
        k->insns[f->insn].o[f->operand].reg = at;
    }
    layout(m, k);
    return 0;
}

/* Lays the module's variables of one space out in one window, each on its alignment with `tail`
 * bytes after it (1: the NUL a string literal's declared size leaves out), and copies their
 * values in: the window in *data, its size in *bytes. -1 past 64 KiB, said as "N bytes of
 * <too_big>". */
static int lay_out(struct ptx_module *m, int space, size_t tail, const char *too_big, unsigned char **data,
                   size_t *bytes)
{
    size_t at = 0;
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].space == space) {
            size_t a = m->vars[i].align > 0 ? (size_t)m->vars[i].align : 1;
            at = (at + a - 1) / a * a;
            m->vars[i].offset = at;
            at += m->vars[i].bytes + tail;
        }
    if (at > 64 * 1024) {
        snprintf(m->error, sizeof m->error, "%zu bytes of %s", at, too_big);
        return -1;
    }
    *bytes = at;
    *data = calloc(1, at ? at : 1);
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].space == space && m->vars[i].init)
            memcpy(*data + m->vars[i].offset, m->vars[i].init, m->vars[i].bytes);
    return 0;
}

int ptx_parse(const char *text, struct ptx_module *m)
{
    memset(m, 0, sizeof *m);
    struct builder b = {0};
    b.m = m;
    b.lx.p = text;
    b.lx.line = 1;
    b.lx.m = m;
    struct lexer *lx = &b.lx;
    lex_next(lx);
    while (lx->kind != TK_END && !lx->failed) {
        if (lex_accept(lx, ".version") || lex_accept(lx, ".address_size")) {
            lex_next(lx);
        } else if (lex_accept(lx, ".target")) {
            lex_next(lx);
            while (lex_accept(lx, ","))
                lex_next(lx);
        } else if (lex_accept(lx, ".file")) {
            int64_t n;
            int f, f32;
            if (lx->kind != TK_NUM || lex_number(lx, &n, &f, &f32) || lx->kind != TK_STR) {
                lex_fail(lx, ".file needs a number and a name"); /* (the builder's arrays freed below) */
                break;
            }
            if (n >= 1 && n <= PTX_MAX_FILES) {
                free(m->files[n]);
                m->files[n] = strdup(lx->text);
            }
            lex_next(lx);
            while (lex_accept(lx, ","))
                lex_next(lx);
        } else if (lex_accept(lx, ".section")) {
            /* debugging sections (the names of inlined functions): nothing to run */
            lex_next(lx);
            if (lex_accept(lx, "{"))
                for (int depth = 1; depth > 0 && lx->kind != TK_END; lex_next(lx))
                    depth += lex_is(lx, "{") - lex_is(lx, "}");
        } else if (lex_accept(lx, ".visible") || lex_accept(lx, ".weak") || lex_accept(lx, ".extern")) {
            continue;
        } else if (lex_accept(lx, ".entry")) {
            if (entry(&b, 0))
                break;
        } else if (lex_accept(lx, ".func")) {
            /* printf's declaration; any other function is one nvcc did not inline */
            if (lex_accept(lx, "("))
                while (lx->kind != TK_END && !lex_accept(lx, ")"))
                    lex_next(lx);
            if (lex_accept(lx, "vprintf")) {
                while (lx->kind != TK_END && !lex_accept(lx, ";"))
                    lex_next(lx);
                m->has_vprintf = 1;
                continue;
            }
            entry(&b, 1);
            break;
        } else if (lex_accept(lx, ".const")) {
            b.k = NULL;
            if (var_decl(&b, S_CONST, 0))
                break;
        } else if (lex_accept(lx, ".global")) {
            /* nvcc's string literals ($str, printf's formats) are data; any other variable is
             * state kept from one launch to the next */
            struct lexer at = *lx;
            while ((lx->kind == TK_IDENT && lx->text[0] == '.') || lx->kind == TK_NUM) /* .align 4 .b8 */
                lex_next(lx);
            char name[PTX_NAME_MAX];
            snprintf(name, sizeof name, "%.255s", lx->kind == TK_IDENT ? lx->text : "?");
            *lx = at;
            b.k = NULL;
            if (name[0] == '$') {
                if (var_decl(&b, S_GLOBAL, 0))
                    break;
                continue;
            }
            lex_fail(lx, "a writable __device__ variable (%s): it would keep state from one launch to the next; lesson "
                     "files may not have writable variables outside their kernel", name);
            break;
        } else if (lex_accept(lx, ".shared")) {
            b.k = NULL;
            if (var_decl(&b, S_SHARED, 0))
                break;
            if (!m->vars[m->nvars - 1].dynamic) {
                lex_fail(lx, "a __shared__ variable outside the kernel (%s): declare shared arrays inside the kernel",
                         m->vars[m->nvars - 1].name);
                break;
            }
        } else
            lex_fail(lx, "the directive '%s' is not one the interpreter knows", lx->text);
    }
    free(b.labels);
    free(b.parent);
    free(b.fixups);
    if (lx->failed || m->error[0])
        return -1;
    place_dynamic_shared(m);
    if (lay_out(m, S_CONST, 0, "__constant__ data: a GPU has 64 KiB of it", &m->const_data, &m->const_bytes) ||
        lay_out(m, S_GLOBAL, 1, "string literals: more than a kernel's printf needs", &m->string_data, &m->string_bytes))
        return -1;
    for (int i = 0; i < m->nkernels; i++)
        for (int j = 0; j < m->kernels[i].ninsns; j++)
            if (ptx_fixed_address(m, &m->kernels[i], &m->kernels[i].insns[j]))
                return -1;
    return 0;
}

void ptx_free(struct ptx_module *m)
{
    for (int i = 0; i < m->nkernels; i++) {
        for (int j = 0; j < m->kernels[i].ninsns; j++)
            free((void *)m->kernels[i].insns[j].text);
        free(m->kernels[i].insns);
        free(m->kernels[i].regs);
        free(m->kernels[i].pool);
    }
    for (int i = 0; i < m->nvars; i++)
        free(m->vars[i].init);
    for (int i = 0; i <= PTX_MAX_FILES; i++)
        free(m->files[i]);
    free(m->kernels);
    free(m->vars);
    free(m->const_data);
    free(m->string_data);
    memset(m, 0, sizeof *m);
}

char *ptx_read_file(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            if (cap >= max) {
                free(buf);
                buf = NULL;
                break;
            }
            char *more = realloc(buf, 2 * cap + 1);
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

const struct ptx_kernel *ptx_find_kernel(const struct ptx_module *m, const char *name)
{
    for (int i = 0; i < m->nkernels; i++)
        if (strcmp(m->kernels[i].name, name) == 0)
            return &m->kernels[i];
    return NULL;
}
