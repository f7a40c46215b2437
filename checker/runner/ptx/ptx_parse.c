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

#include "ptx.h"

/* ---- types ---- */
static const struct {
    const char *name;
    enum ptx_type t;
    int bytes, is_signed, is_float;
} types[] = {
    {"pred", T_PRED, 1, 0, 0}, {"b8", T_B8, 1, 0, 0},   {"b16", T_B16, 2, 0, 0},  {"b32", T_B32, 4, 0, 0},
    {"b64", T_B64, 8, 0, 0},   {"u8", T_U8, 1, 0, 0},   {"u16", T_U16, 2, 0, 0},  {"u32", T_U32, 4, 0, 0},
    {"u64", T_U64, 8, 0, 0},   {"s8", T_S8, 1, 1, 0},   {"s16", T_S16, 2, 1, 0},  {"s32", T_S32, 4, 1, 0},
    {"s64", T_S64, 8, 1, 0},   {"f16", T_F16, 2, 0, 1}, {"f16x2", T_F16X2, 4, 0, 1}, {"bf16", T_BF16, 2, 0, 1},
    {"f32", T_F32, 4, 0, 1},   {"f64", T_F64, 8, 0, 1},
};
#define NTYPES (sizeof types / sizeof types[0])

static int type_named(const char *s)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (strcmp(types[i].name, s) == 0)
            return types[i].t;
    return T_NONE;
}
/* ---- the tokenizer ---- */
enum tok { TK_END, TK_IDENT, TK_NUM, TK_STR, TK_PUNCT };
struct lexer {
    const char *p;
    int line;
    enum tok kind;
    char text[2 * PTX_NAME_MAX];
    struct ptx_module *m;
    int failed;
};

static int fail(struct lexer *lx, const char *fmt, ...)
{
    if (lx->failed++)
        return -1;
    int n = snprintf(lx->m->error, sizeof lx->m->error, "line %d of the PTX: ", lx->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->m->error + n, sizeof lx->m->error - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '$' || c == '.' || c == '%' || c == ':';
}

static void next(struct lexer *lx)
{
    for (;;) {
        while (*lx->p && isspace((unsigned char)*lx->p))
            lx->line += *lx->p++ == '\n';
        if (lx->p[0] == '/' && lx->p[1] == '/') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else if (lx->p[0] == '/' && lx->p[1] == '*') {
            const char *e = strstr(lx->p + 2, "*/");
            for (const char *q = lx->p; q < (e ? e : lx->p + strlen(lx->p)); q++)
                lx->line += *q == '\n';
            lx->p = e ? e + 2 : lx->p + strlen(lx->p);
        } else
            break;
    }
    const char *s = lx->p;
    size_t n = 0;
    if (!*s) {
        lx->kind = TK_END;
        lx->text[0] = '\0';
        return;
    }
    if (*s == '"') {
        s++;
        while (*s && *s != '"' && *s != '\n' && n < sizeof lx->text - 1)
            lx->text[n++] = *s++;
        lx->kind = TK_STR;
        lx->p = *s == '"' ? s + 1 : s;
    } else if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))) {
        if (*s == '-')
            lx->text[n++] = *s++;
        while ((isalnum((unsigned char)*s) || *s == '.') && n < sizeof lx->text - 1)
            lx->text[n++] = *s++;
        lx->kind = TK_NUM;
        lx->p = s;
    } else if (ident_char((unsigned char)*s) && *s != ':') {
        /* `::` belongs to modifiers (shared::cta); a label's `:` ends it. */
        while (*s && n < sizeof lx->text - 1 && (ident_char((unsigned char)*s) && (*s != ':' || s[1] == ':' ||
                                                                                       (s > lx->p && s[-1] == ':'))))
            lx->text[n++] = *s++;
        lx->kind = TK_IDENT;
        lx->p = s;
    } else {
        lx->text[n++] = *s;
        lx->kind = TK_PUNCT;
        lx->p = s + 1;
    }
    lx->text[n] = '\0';
    if (n >= PTX_NAME_MAX)
        fail(lx, "a name or number of more than %d characters", PTX_NAME_MAX - 1);
}

static int is(struct lexer *lx, const char *t)
{
    return lx->kind != TK_END && lx->kind != TK_STR && strcmp(lx->text, t) == 0;
}
static int accept(struct lexer *lx, const char *t)
{
    if (!is(lx, t))
        return 0;
    next(lx);
    return 1;
}
static int expect(struct lexer *lx, const char *t)
{
    if (accept(lx, t))
        return 0;
    return fail(lx, "expected '%s' but found '%s'", t, lx->text);
}

/* A number: decimal, 0x hex, 0f/0d float bits, a decimal float; into bits (floats as doubles
 * unless the 0f form, which keeps a float's bits and sets *is_f32). */
static int number(struct lexer *lx, int64_t *v, int *is_float, int *is_f32)
{
    const char *t = lx->text;
    int neg = *t == '-';
    const char *d = t + neg;
    *is_float = *is_f32 = 0;
    char *end;
    if ((d[0] == '0') && (d[1] == 'f' || d[1] == 'F') && strlen(d) == 10) {
        *v = (int64_t)strtoull(d + 2, &end, 16);
        *is_float = *is_f32 = 1;
    } else if ((d[0] == '0') && (d[1] == 'd' || d[1] == 'D') && strlen(d) == 18) {
        *v = (int64_t)strtoull(d + 2, &end, 16);
        *is_float = 1;
    } else if (strpbrk(d, ".eE") && !(d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))) {
        double x = strtod(d, &end);
        if (neg)
            x = -x;
        memcpy(v, &x, sizeof x);
        *is_float = 1;
        neg = 0;
    } else {
        *v = (int64_t)strtoull(d, &end, 0);
        if (*end == 'U' || *end == 'u')
            end++;
    }
    if (*end)
        return fail(lx, "cannot read the number '%s'", t);
    if (neg && *is_float) {
        *v ^= *is_f32 ? (int64_t)0x80000000 : INT64_MIN;
    } else if (neg)
        *v = -*v;
    next(lx);
    return 0;
}

/* An .align's value: a power of two up to 4096 (a larger or odd one would lay variables out
 * where no GPU puts them, and its arithmetic past what the windows hold). */
static int alignment(struct lexer *lx, int *align)
{
    int64_t a;
    int f, f32;
    if (lx->kind != TK_NUM || number(lx, &a, &f, &f32) || f || a < 1 || a > 4096 || (a & (a - 1)))
        return fail(lx, ".align needs a power of two from 1 to 4096");
    *align = (int)a;
    return 0;
}

/* ---- building the module ---- */
struct builder {
    struct lexer lx;
    struct ptx_module *m;
    struct ptx_kernel *k; /* the kernel being read */
    int file, line, col;  /* the .loc in force */
    int call_line;        /* its call in the lesson file, where it is inlined from a helper there */
    /* labels: name -> instruction index, and the operands waiting for them; each in the block
     * ({ ... }) it was written in, which is where PTX looks a name up first */
    struct label {
        char name[PTX_NAME_MAX];
        int at, block;
    } *labels;
    int nlabels, caplabels;
    struct fixup {
        int insn, operand, block;
        char name[PTX_NAME_MAX];
    } *fixups;
    int nfixups, capfixups;
    int capinsns, capregs, capvars;
    /* The blocks: a kernel's body is block 0, each { ... } inside it (inline assembly's, say) one
     * more; open[] the ones now open, innermost last, each with the first register it declared. */
    int *parent, nblocks, capblocks;
    struct open_block {
        int block, first_reg;
    } open[PTX_MAX_DEPTH];
    int depth;
};

#define GROW(arr, n, cap)                                                                                         \
    do {                                                                                                          \
        if ((n) == (cap)) {                                                                                       \
            (cap) = (cap) ? 2 * (cap) : 64;                                                                       \
            void *p_ = realloc((arr), (size_t)(cap) * sizeof *(arr));                                             \
            if (!p_)                                                                                              \
                abort();                                                                                          \
            (arr) = p_;                                                                                           \
        }                                                                                                         \
    } while (0)

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
    /* the kernel's own first, then the module's __constant__ data and string literals (module
     * scope holds nothing else: the parser refuses it) */
    for (int i = m->nvars - 1; i >= 0; i--) {
        int kernel_scoped = k && i >= k->first_var && i < k->first_var + k->nvars;
        int module_scoped = m->vars[i].space == S_CONST || m->vars[i].space == S_GLOBAL;
        if ((kernel_scoped || module_scoped) && strcmp(m->vars[i].name, name) == 0)
            return i;
    }
    return -1;
}

static void add_reg(struct builder *b, const char *name, int type)
{
    struct ptx_kernel *k = b->k;
    if (strlen(name) >= PTX_NAME_MAX) {
        fail(&b->lx, "a register name of more than %d characters", PTX_NAME_MAX - 1);
        return;
    }
    if (k->nregs >= PTX_MAX_REGS) {
        fail(&b->lx, "more than %d registers", PTX_MAX_REGS);
        return;
    }
    int same = find_reg(k, name);
    if (b->depth > 0 && same >= b->open[b->depth - 1].first_reg) {
        fail(&b->lx, "the register %s is declared twice in one block", name);
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
        return fail(lx, "a .reg declaration without a type");
    int t = type_named(lx->text + 1);
    if (t == T_NONE)
        return fail(lx, "the register type '%s' is not one the interpreter knows", lx->text);
    next(lx);
    do {
        if (lx->kind != TK_IDENT)
            return fail(lx, "expected a register name, found '%s'", lx->text);
        char name[PTX_NAME_MAX];
        snprintf(name, sizeof name, "%.255s", lx->text);
        next(lx);
        if (accept(lx, "<")) {
            int64_t n;
            int f, f32;
            if (lx->kind != TK_NUM || number(lx, &n, &f, &f32) || n < 0 || n > 1 << 20)
                return fail(lx, "a register range needs a count");
            if (expect(lx, ">"))
                return -1;
            for (int64_t i = 0; i < n; i++) {
                char r[PTX_NAME_MAX + 24];
                snprintf(r, sizeof r, "%s%lld", name, (long long)i);
                add_reg(b, r, t);
            }
        } else
            add_reg(b, name, t);
    } while (accept(lx, ","));
    return expect(lx, ";");
}

/* A variable: [.align A] .TYPE name[N]... [= {...}];  in space. */
static int var_decl(struct builder *b, int space, int kernel_scoped)
{
    struct lexer *lx = &b->lx;
    struct ptx_module *m = b->m;
    int align = 0;
    if (accept(lx, ".align") && alignment(lx, &align))
        return -1;
    while (is(lx, ".visible") || is(lx, ".extern") || is(lx, ".weak"))
        next(lx);
    int t = lx->kind == TK_IDENT && lx->text[0] == '.' ? type_named(lx->text + 1) : T_NONE;
    if (t == T_NONE || t == T_PRED)
        return fail(lx, "a variable of type '%s' is not one the interpreter knows", lx->text);
    next(lx);
    if (lx->kind != TK_IDENT)
        return fail(lx, "expected a variable name, found '%s'", lx->text);
    GROW(m->vars, m->nvars, b->capvars);
    struct ptx_var *v = &m->vars[m->nvars];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%.255s", lx->text);
    next(lx);
    size_t elem = (size_t)ptx_type_bytes(t), count = 1;
    while (accept(lx, "[")) {
        int64_t n;
        int f, f32;
        if (is(lx, "]")) {
            return fail(lx, "the array %s has no size (extern shared memory is not used by lesson files)", v->name);
        }
        if (lx->kind != TK_NUM || number(lx, &n, &f, &f32) || n < 0 || n > (1 << 30))
            return fail(lx, "the array %s needs a size", v->name);
        count *= (size_t)n;
        if (count > ((size_t)1 << 30)) /* each dimension's product checked: no size wraps around */
            return fail(lx, "the variable %s is too large", v->name);
        if (expect(lx, "]"))
            return -1;
    }
    v->space = (uint8_t)space;
    v->align = align ? align : (int)elem;
    v->bytes = elem * count;
    v->offset = (size_t)-1;
    if (v->bytes > ((size_t)1 << 30))
        return fail(lx, "the variable %s is too large", v->name);
    if (accept(lx, "=")) {
        if (space != S_CONST && !(space == S_GLOBAL && v->name[0] == '$'))
            return fail(lx, "an initialised %s variable (%s): only __constant__ data may have an initial value",
                        space == S_GLOBAL ? "__device__" : "non-constant", v->name);
        v->init = calloc(1, v->bytes ? v->bytes : 1);
        size_t i = 0;
        int brace = accept(lx, "{");
        do {
            while (accept(lx, "{"))
                ;
            if (is(lx, "}"))
                break;
            int64_t x;
            int f, f32;
            if (lx->kind != TK_NUM || number(lx, &x, &f, &f32))
                return fail(lx, "an initial value of %s is not a number", v->name);
            if (i * elem >= v->bytes)
                return fail(lx, "%s has more initial values than elements", v->name);
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
            while (accept(lx, "}"))
                ;
        } while (accept(lx, ","));
        if (brace)
            while (accept(lx, "}"))
                ;
    }
    if (kernel_scoped)
        b->k->nvars++;
    m->nvars++;
    return expect(lx, ";");
}

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
    {"ldmatrix", OP_LDMATRIX}, {"mma", OP_MMA}, {"cp", OP_CP_ASYNC},
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

/* The opcode's parts after the first: types, spaces, modifiers. */
static int decode(struct lexer *lx, struct ptx_insn *in, const char *opcode)
{
    char buf[2 * PTX_NAME_MAX];
    snprintf(buf, sizeof buf, "%s", opcode);
    char *save, *part = strtok_r(buf, ".", &save);
    in->op = OP_UNKNOWN;
    if (!part) /* an opcode of dots alone: no name to look up */
        return fail(lx, "'%s' is not an instruction", opcode);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, part) == 0)
            in->op = (uint8_t)ops[i].op;
    if (in->op == OP_UNKNOWN)
        return fail(lx, "the instruction '%s' is not one the interpreter knows", opcode);
    in->vec = 1;
    int ntypes = 0, cmp_seen = 0, types[4] = {0};
    while ((part = strtok_r(NULL, ".", &save))) {
        int t = type_named(part), c, r;
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
        else if (in->op == OP_CP_ASYNC && (strcmp(part, "bulk") == 0 || strcmp(part, "mbarrier") == 0 ||
                                           strcmp(part, "reduce") == 0 || in->sub == SUB_NONE))
            return fail(lx, "'%s': of cp the interpreter runs cp.async (with commit_group, wait_group and wait_all) "
                            "alone, not the bulk copies of the Tensor Memory Accelerator", opcode);
        /* The tensor cores' shapes: what the interpreter runs of them, checked below. */
        else if (in->op == OP_LDMATRIX && strcmp(part, "m8n8") == 0) ;
        else if (in->op == OP_LDMATRIX && strcmp(part, "x1") == 0) in->vec = 1;
        else if (in->op == OP_LDMATRIX && strcmp(part, "x2") == 0) in->vec = 2;
        else if (in->op == OP_LDMATRIX && strcmp(part, "x4") == 0) in->vec = 4;
        else if (in->op == OP_LDMATRIX && strcmp(part, "trans") == 0) in->flags |= F_TRANS;
        else if (in->op == OP_MMA && (strcmp(part, "m16n8k16") == 0 || strcmp(part, "row") == 0 ||
                                      strcmp(part, "col") == 0)) ;
        else if (in->op == OP_MMA && (part[0] == 'm' || strcmp(part, "row") == 0 || strcmp(part, "col") == 0))
            return fail(lx, "'%s': of mma the interpreter runs m16n8k16.row.col.f32.f16.f16.f32 alone", opcode);
        else if (strcmp(part, "shared::cluster") == 0 || strcmp(part, "cluster") == 0)
            return fail(lx, "'%s': thread-block clusters are not something the interpreter runs", opcode);
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
            return fail(lx, "'%s': the modifier .%s is not one the interpreter knows", opcode, part);
    }
    /* Halves: cvt between a half and a float (nearest, or toward zero), and mma's operands; every
     * other use of .f16, .f16x2 or .bf16 would run as integer arithmetic here: refused by name. */
    int halves = 0;
    for (int k = 0; k < ntypes && k < 4; k++)
        halves |= types[k] == T_F16 || types[k] == T_F16X2 || types[k] == T_BF16;
    if (halves && !(in->op == OP_MMA || (in->op == OP_CVT && ntypes == 2 &&
                                         ((types[0] == T_F16 && (types[1] == T_F32 || types[1] == T_F64) &&
                                           (in->rnd == R_RN || in->rnd == R_RZ)) ||
                                          (types[1] == T_F16 && (types[0] == T_F32 || types[0] == T_F64))))))
        return fail(lx, "'%s': of half precision the interpreter runs cvt.rn.f16.f32 (or .rz), cvt.f32.f16 and "
                        "mma's operands alone", opcode);
    if (approximate(in))
        return fail(lx, "'%s': an approximation that a GPU computes in its special function units, whose bits the "
                        "interpreter cannot reproduce (fast-math intrinsics such as __fdividef and __expf, and CUDA's "
                        "expf, powf and tanhf, use them): refused rather than run with other bits; divide with `/` and "
                        "take sqrtf, whose results are exact", opcode);
    if (in->op == OP_BAR && in->sub == BAR_ARRIVE)
        return fail(lx, "'%s': an arrival at a named barrier without waiting (a producer's) is not something the "
                        "interpreter runs; use __syncthreads()", opcode);
    if (in->op == OP_BAR && in->sub == SUB_NONE)
        return fail(lx, "'%s': a barrier without .sync or .red", opcode);
    if (in->op == OP_CP_ASYNC && strstr(opcode, "cache_hint"))
        return fail(lx, "'%s': cp.async with a cache policy is not one the interpreter runs", opcode);
    if (in->op == OP_CP_ASYNC && in->sub == CP_COPY && !(strstr(opcode, ".shared") && strstr(opcode, ".global")))
        return fail(lx, "'%s': cp.async copies from .global to .shared", opcode);
    if (in->op == OP_CP_ASYNC && in->sub == CP_COPY)
        in->space = S_SHARED; /* its destination's; the source is global */
    if (in->op == OP_CP_ASYNC && in->sub == SUB_NONE)
        return fail(lx, "'%s': cp without .async", opcode);
    if (in->op == OP_LDMATRIX && (strstr(opcode, ".m8n8.") == NULL || in->type != T_B16 || in->space != S_SHARED))
        return fail(lx, "'%s': of ldmatrix the interpreter runs .m8n8 of .b16 from .shared alone", opcode);
    if (in->op == OP_MMA && !(strstr(opcode, ".m16n8k16.row.col.") && ntypes == 4 && types[0] == T_F32 &&
                              types[1] == T_F16 && types[2] == T_F16 && types[3] == T_F32))
        return fail(lx, "'%s': of mma the interpreter runs m16n8k16.row.col.f32.f16.f16.f32 alone", opcode);
    return 0;
}

static int special_named(const char *s)
{
    static const char *const names[] = {
        "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
        "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%clock", "%clock64",
        "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%smid", "%nsmid",
        "%gridid", "%globaltimer"};
    return index_of(names, (int)(sizeof names / sizeof names[0]), s);
}

/* The special registers a kernel may not read: clocks, timers and the ids of the SM and the warp
 * slot it runs on (the GPU judge refuses them too: checker/tools/sealed-compile.sh). */
static int timer_named(const char *s)
{
    static const char *const names[] = {"%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
                                        "%globaltimer_hi", "%smid", "%warpid", "%nwarpid", "%gridid"};
    return index_of(names, (int)(sizeof names / sizeof names[0]), s) >= 0;
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
    if (timer_named(name))
        return fail(&b->lx, "%s: lesson files may not read clocks or SM ids: a kernel's result must not depend on when "
                            "or where it runs", name);
    int s = special_named(name);
    if (s >= 0) {
        o->kind = K_SPECIAL, o->reg = s;
        return 0;
    }
    if (strncmp(name, "%envreg", 7) == 0 || strncmp(name, "%pm", 3) == 0 || name[0] == '%')
        return fail(&b->lx, "the register %s is not one the interpreter knows", name);
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
    if (accept(lx, "_")) {
        *r = sink_reg(b);
        return 0;
    }
    *r = lx->kind == TK_IDENT ? find_reg(b->k, lx->text) : -1;
    if (*r < 0)
        return fail(lx, "%s must be a register, found '%s'", what, lx->text);
    next(lx);
    return 0;
}

static int operand(struct builder *b, struct ptx_operand *o, int index)
{
    struct lexer *lx = &b->lx;
    memset(o, 0, sizeof *o);
    o->reg = o->sym = -1;
    if (accept(lx, "[")) {
        o->kind = K_MEM;
        if (lx->kind == TK_IDENT) {
            struct ptx_operand base;
            char name[PTX_NAME_MAX];
            snprintf(name, sizeof name, "%.255s", lx->text);
            next(lx);
            memset(&base, 0, sizeof base);
            if (name_operand(b, &base, index, name))
                return -1;
            if (base.kind == K_REG)
                o->reg = base.reg;
            else if (base.kind == K_SYM)
                o->sym = base.sym;
            else
                return fail(lx, "cannot take the address '%s'", name);
        }
        if (accept(lx, "+") || is(lx, "-") || lx->kind == TK_NUM) {
            int neg = accept(lx, "-");
            int64_t v;
            int f, f32;
            if (lx->kind != TK_NUM || number(lx, &v, &f, &f32) || f)
                return fail(lx, "an address offset must be an integer");
            o->imm = neg ? -v : v;
        }
        return expect(lx, "]");
    }
    if (accept(lx, "{")) {
        o->kind = K_VEC;
        do {
            if (o->nvec == 4)
                return fail(lx, "a vector of more than 4 elements");
            if (register_or_sink(b, &o->vec[o->nvec++], "a vector element"))
                return -1;
        } while (accept(lx, ","));
        return expect(lx, "}");
    }
    if (accept(lx, "!"))
        o->neg = 1;
    if (lx->kind == TK_NUM) {
        int f, f32;
        if (number(lx, &o->imm, &f, &f32))
            return -1;
        o->kind = f ? K_FIMM : K_IMM;
        if (f && f32) { /* keep every float immediate as a double's bits */
            uint32_t u = (uint32_t)o->imm;
            float fl;
            memcpy(&fl, &u, 4);
            double d = fl;
            memcpy(&o->imm, &d, 8);
        }
        return 0;
    }
    if (accept(lx, "_")) {
        o->kind = K_REG, o->reg = sink_reg(b);
    } else {
        if (lx->kind != TK_IDENT)
            return fail(lx, "expected an operand, found '%s'", lx->text);
        char name[PTX_NAME_MAX];
        snprintf(name, sizeof name, "%.255s", lx->text);
        next(lx);
        if (name_operand(b, o, index, name))
            return -1;
    }
    /* a|b: two destinations (setp's result and its complement, shfl's value and its predicate) */
    if (o->kind == K_REG && !o->neg && accept(lx, "|")) {
        o->kind = K_VEC, o->nvec = 2, o->vec[0] = o->reg;
        if (register_or_sink(b, &o->vec[1], "the destination after '|'"))
            return -1;
    }
    if (o->kind == K_SYM && (accept(lx, "+"))) { /* mov %r, var+8 */
        int64_t v;
        int f, f32;
        if (lx->kind != TK_NUM || number(lx, &v, &f, &f32))
            return fail(lx, "an address offset must be an integer");
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
        return fail(lx, "a call's parameter '%s' is not one of its declared parameters of %zu bytes", lx->text, bytes);
    memset(o, 0, sizeof *o);
    o->kind = K_SYM, o->sym = v, o->reg = -1;
    next(lx);
    return 0;
}

/* call[.uni] (retval), vprintf, (format, arguments); printf's call, the only one the
 * interpreter runs: o[0] the result, o[1] the format's address, o[2] the arguments'. */
static int call(struct builder *b, struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    if (expect(lx, "(") || call_operand(b, &in->o[0], 4) || expect(lx, ")") || expect(lx, ","))
        return -1;
    if (!accept(lx, "vprintf"))
        return fail(lx, "a call of '%s', a function the compiler did not inline: the interpreter runs kernels "
                        "whose only call is printf", lx->text);
    if (expect(lx, ",") || expect(lx, "(") || call_operand(b, &in->o[1], 8) || expect(lx, ",") ||
        call_operand(b, &in->o[2], 8) || expect(lx, ")"))
        return -1;
    in->nops = 3;
    b->k->ninsns++;
    return expect(lx, ";");
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
        return fail(lx, "'%s': operand %d must be an address in brackets", in->text, addr + 1);
    int vec4 = 0;
    switch (in->op) {
    case OP_LDMATRIX:
        if (in->nops != 2 || !(o[0].kind == K_VEC || o[0].kind == K_REG))
            return fail(lx, "'%s' takes {registers}, [address]", in->text);
        break;
    case OP_MMA:
        for (int k = 0; k < 4 && k < in->nops; k++)
            vec4 += o[k].kind == K_VEC;
        if (in->nops != 4 || vec4 != 4)
            return fail(lx, "'%s' takes four {register} vectors: d, a, b, c", in->text);
        break;
    case OP_CP_ASYNC:
        if (in->sub == CP_COPY &&
            (in->nops < 3 || in->nops > 4 || o[1].kind != K_MEM || o[2].kind != K_IMM ||
             (in->nops == 4 && !(o[3].kind == K_IMM || (o[3].kind == K_REG && b->k->regs[o[3].reg].type != T_PRED)))))
            return fail(lx, "'%s': of cp.async the interpreter runs [dst], [src], cp-size{, src-size} (no cache "
                            "policy, no ignore-src predicate)", in->text);
        if (in->sub == CP_WAIT && (in->nops != 1 || o[0].kind != K_IMM || o[0].imm < 0))
            return fail(lx, "'%s' takes a count of groups, a constant from 0", in->text);
        if ((in->sub == CP_COMMIT || in->sub == CP_WAIT_ALL) && in->nops != 0)
            return fail(lx, "'%s' takes no operand", in->text);
        break;
    default:
        break;
    }
    return 0;
}

/* ---- what an instruction's operands may be, checked once here so that ptx_exec.c can trust
 * every index it uses: a register, a special register, a variable or a parameter ---- */

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
    default: return 0;
    }
}

/* A register index of k, or a refusal naming the operand. */
static int check_reg(struct builder *b, const struct ptx_insn *in, int j, int r, int written)
{
    if (r < 0 || r >= b->k->nregs)
        return fail(&b->lx, "'%s': operand %d names no declared register", in->text, j + 1);
    if (r == b->k->sink && !written)
        return fail(&b->lx, "'%s': operand %d reads the sink `_`, which holds nothing", in->text, j + 1);
    return 0;
}

/* Operand j of in: its kind where it stands, each index it holds in range. */
static int check_operand(struct builder *b, const struct ptx_insn *in, int j, int written)
{
    struct lexer *lx = &b->lx;
    const struct ptx_operand *o = &in->o[j];
    int n = 0;
    if (written && o->kind != K_REG && !(o->kind == K_VEC && vector_at(in, j, &n)))
        return fail(lx, "'%s': operand %d is written, so it must be a register (or the sink `_`)", in->text, j + 1);
    switch (o->kind) {
    case K_REG:
        return check_reg(b, in, j, o->reg, written);
    case K_VEC:
        if (!vector_at(in, j, &n) || (n && o->nvec != n))
            return fail(lx, "'%s': operand %d is a vector of %d where %s", in->text, j + 1, o->nvec,
                        n ? "the instruction takes another number" : "it takes a single value");
        for (int e = 0; e < o->nvec; e++)
            if (check_reg(b, in, j, o->vec[e], written))
                return -1;
        return 0;
    case K_MEM:
        if (o->reg >= 0 && check_reg(b, in, j, o->reg, 0))
            return -1;
        break;
    case K_SPECIAL:
        if (o->reg < 0 || o->reg >= SR_COUNT)
            return fail(lx, "'%s': operand %d is no special register the interpreter knows", in->text, j + 1);
        return 0;
    case K_LABEL:
        if (in->op != OP_BRA)
            return fail(lx, "'%s': operand %d is a label where a value goes", in->text, j + 1);
        return 0;
    default:
        break;
    }
    if (o->sym >= b->m->nvars || (o->sym <= -2 && -2 - o->sym >= b->k->nparams))
        return fail(lx, "'%s': operand %d names no variable or parameter", in->text, j + 1);
    return 0;
}

/* The instruction as ptx_exec.c runs it: its operands' number, a register where it writes, a
 * label where it branches, and no index outside what the kernel declared. */
static int check_insn(struct builder *b, const struct ptx_insn *in)
{
    struct lexer *lx = &b->lx;
    int lo, hi, writes;
    if (!shape(in, &lo, &hi, &writes))
        return fail(lx, "the instruction '%s' is not one the interpreter runs", in->text);
    if ((in->nops < lo || in->nops > hi) && lo == hi)
        return fail(lx, "'%s' takes %d operands, not %d", in->text, lo, in->nops);
    if (in->nops < lo || in->nops > hi)
        return fail(lx, "'%s' takes %d to %d operands, not %d", in->text, lo, hi, in->nops);
    if (in->op == OP_BRA && in->o[0].kind != K_LABEL)
        return fail(lx, "'%s': a branch's target must be a label", in->text);
    if (in->pred >= b->k->nregs || (in->pred >= 0 && in->pred == b->k->sink))
        return fail(lx, "'%s': its guard names no declared register", in->text);
    if ((in->op == OP_LD || in->op == OP_ST || in->op == OP_ATOM || in->op == OP_RED) && !ptx_type_bytes(in->type))
        return fail(lx, "'%s' needs a type, which says how many bytes it moves", in->text);
    if (in->op == OP_MOV && in->o[0].kind == K_VEC && in->o[1].kind == K_VEC)
        return fail(lx, "'%s' packs or unpacks: one of its operands is a vector, not both", in->text);
    for (int j = 0; j < in->nops; j++)
        if (check_operand(b, in, j, writes && j == 0))
            return -1;
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
    if (accept(lx, "@")) {
        in->pred_neg = (uint8_t)accept(lx, "!");
        in->pred = lx->kind == TK_IDENT ? find_reg(k, lx->text) : -1;
        if (in->pred < 0)
            return fail(lx, "a guard must be a predicate register, found '%s'", lx->text);
        next(lx);
    }
    if (lx->kind != TK_IDENT)
        return fail(lx, "expected an instruction, found '%s'", lx->text);
    in->text = strdup(lx->text);
    if (decode(lx, in, lx->text))
        return -1;
    next(lx);
    if (in->op == OP_CALL) /* call (retval), vprintf, (format, arguments): printf, the one call */
        return call(b, in);
    while (!is(lx, ";")) {
        if (in->nops == PTX_MAX_OPERANDS)
            return fail(lx, "too many operands");
        if (operand(b, &in->o[in->nops], in->nops))
            return -1;
        in->nops++;
        if (!accept(lx, ","))
            break;
    }
    /* ld.param/st.param of a call's own parameters: they live in the thread's memory */
    for (int i = 0; i < in->nops; i++)
        if (in->space == S_PARAM && in->o[i].kind == K_MEM && in->o[i].sym >= 0 &&
            b->m->vars[in->o[i].sym].space == S_LOCAL)
            in->space = S_LOCAL;
    if (operands_fit(b, in) || check_insn(b, in))
        return -1;
    k->ninsns++;
    return expect(lx, ";");
}

/* .loc FILE LINE COL [, function_name NAME, inlined_at FILE LINE COL] */
static int loc(struct builder *b)
{
    struct lexer *lx = &b->lx;
    int64_t v[3];
    int f, f32;
    for (int i = 0; i < 3; i++)
        if (lx->kind != TK_NUM || number(lx, &v[i], &f, &f32))
            return fail(lx, ".loc needs a file, a line and a column");
    b->file = (int)v[0], b->line = (int)v[1], b->col = (int)v[2], b->call_line = 0;
    while (accept(lx, ",")) {
        if (accept(lx, "function_name"))
            next(lx);
        else if (accept(lx, "inlined_at")) {
            /* The line that called an inlined function is the student's line to show. */
            int64_t w[3];
            for (int i = 0; i < 3; i++)
                if (lx->kind != TK_NUM || number(lx, &w[i], &f, &f32))
                    return fail(lx, "inlined_at needs a file, a line and a column");
            /* in a header (a CUDA intrinsic's body), or on no line: the lesson file's call */
            if (b->line == 0 || b->file != 1)
                b->file = (int)w[0], b->line = (int)w[1], b->col = (int)w[2];
            /* in a helper of the lesson file: the helper's line, and the call that tells one use of
             * it from another (lesson 10's ldmatrix_x4 loads A's fragments and B's) */
            else if (w[0] == 1 && w[1] > 0 && w[1] != b->line)
                b->call_line = (int)w[1];
        } else
            return fail(lx, "unexpected '%s' in .loc", lx->text);
    }
    return 0;
}

/* Opens a block ({), the kernel's body first. */
static int open_block(struct builder *b)
{
    if (b->depth == PTX_MAX_DEPTH)
        return fail(&b->lx, "blocks nested more than %d deep", PTX_MAX_DEPTH);
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
            return fail(lx, "the kernel %s does not end", b->k->name);
        if (accept(lx, "{")) {
            if (open_block(b))
                return -1;
        } else if (accept(lx, "}")) {
            close_block(b);
        } else if (accept(lx, ".reg")) {
            if (reg_decl(b))
                return -1;
        } else if (accept(lx, ".shared")) {
            if (var_decl(b, S_SHARED, 1))
                return -1;
        } else if (accept(lx, ".local")) {
            if (var_decl(b, S_LOCAL, 1))
                return -1;
        } else if (accept(lx, ".loc")) {
            if (loc(b))
                return -1;
        } else if (accept(lx, ".pragma")) {
            next(lx);
            if (expect(lx, ";"))
                return -1;
        } else if (accept(lx, ".param")) { /* a call's parameters: the thread's own memory */
            if (var_decl(b, S_LOCAL, 1))
                return -1;
        } else if (is(lx, ".const") || is(lx, ".global")) {
            return fail(lx, "a %s declaration inside a kernel is not something the interpreter runs", lx->text);
        } else if (lx->kind == TK_IDENT && lx->p[0] == ':') {
            int block = b->open[b->depth - 1].block;
            for (int l = 0; l < b->nlabels; l++)
                if (b->labels[l].block == block && strcmp(b->labels[l].name, lx->text) == 0)
                    return fail(lx, "the label %s is defined twice in one block", lx->text);
            GROW(b->labels, b->nlabels, b->caplabels);
            snprintf(b->labels[b->nlabels].name, sizeof b->labels[0].name, "%.255s", lx->text);
            b->labels[b->nlabels].block = block;
            b->labels[b->nlabels++].at = b->k->ninsns;
            next(lx);
            next(lx); /* the ':' */
        } else if (lx->kind == TK_IDENT && lx->text[0] == '.') {
            return fail(lx, "the directive %s inside a kernel is not one the interpreter knows", lx->text);
        } else if (instruction(b))
            return -1;
    }
    return 0;
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

static int entry(struct builder *b, int is_func)
{
    struct lexer *lx = &b->lx;
    struct ptx_module *m = b->m;
    if (is_func)
        return fail(lx, "a device function the compiler did not inline (.func): the interpreter runs one kernel "
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
        return fail(lx, "an .entry without a name");
    snprintf(k->name, sizeof k->name, "%.255s", lx->text);
    next(lx);
    if (accept(lx, "(")) {
        while (!accept(lx, ")")) {
            if (expect(lx, ".param"))
                return -1;
            if (k->nparams == PTX_MAX_PARAMS)
                return fail(lx, "too many parameters");
            struct ptx_param *p = &k->params[k->nparams];
            int align = 0;
            if (accept(lx, ".align") && alignment(lx, &align))
                return -1;
            if (accept(lx, ".ptr")) { /* .ptr .global .align N: a pointer's attributes */
                while (lx->kind == TK_IDENT && lx->text[0] == '.' && type_named(lx->text + 1) == T_NONE) {
                    if (accept(lx, ".align"))
                        next(lx);
                    else
                        next(lx);
                }
            }
            int t = lx->kind == TK_IDENT && lx->text[0] == '.' ? type_named(lx->text + 1) : T_NONE;
            if (t == T_NONE)
                return fail(lx, "a parameter of type '%s'", lx->text);
            next(lx);
            while (is(lx, ".ptr") || is(lx, ".global") || is(lx, ".align")) {
                if (accept(lx, ".align"))
                    next(lx);
                else
                    next(lx);
            }
            snprintf(p->name, sizeof p->name, "%.255s", lx->text);
            next(lx);
            int bytes = ptx_type_bytes(t);
            if (accept(lx, "[")) {
                int64_t n;
                int f, f32;
                if (lx->kind != TK_NUM || number(lx, &n, &f, &f32) || f || n < 1 || n > PTX_MAX_PARAM_BYTES ||
                    expect(lx, "]"))
                    return fail(lx, "a parameter array needs a size from 1 to %d", PTX_MAX_PARAM_BYTES);
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
                return fail(lx, "the kernel's parameters take more than %d bytes", PTX_MAX_PARAM_BYTES);
            k->nparams++;
            accept(lx, ",");
        }
    }
    /* Performance directives between the parameters and the body: the block shapes a launch must
     * keep kept (the others, .minnctapersm, .maxnreg, tell ptxas how to allocate registers). */
    while (lx->kind == TK_IDENT && lx->text[0] == '.') {
        unsigned *shape = is(lx, ".maxntid") ? k->maxntid : is(lx, ".reqntid") ? k->reqntid : NULL;
        next(lx);
        for (int d = 0; lx->kind == TK_NUM || is(lx, ",") || lx->kind == TK_STR;) {
            int64_t v;
            int f, f32;
            if (shape && lx->kind == TK_NUM) {
                if (d == 3 || number(lx, &v, &f, &f32) || f || v < 1 || v > 1024)
                    return fail(lx, "a block shape (.maxntid or .reqntid) of up to three numbers from 1 to 1024");
                shape[d++] = (unsigned)v;
                continue;
            }
            next(lx);
        }
    }
    if (accept(lx, ";"))
        return fail(lx, "the kernel %s is declared but has no body", k->name);
    if (expect(lx, "{") || kernel_body(b))
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
static int fixed_address(struct ptx_module *m, const struct ptx_kernel *k, const struct ptx_insn *in)
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
    if (o->reg >= 0 || !window(m, k, in->space, &bytes))
        return 0; /* a register's address, checked where it is used */
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

int ptx_parse(const char *text, struct ptx_module *m)
{
    memset(m, 0, sizeof *m);
    struct builder b = {0};
    b.m = m;
    b.lx.p = text;
    b.lx.line = 1;
    b.lx.m = m;
    struct lexer *lx = &b.lx;
    next(lx);
    while (lx->kind != TK_END && !lx->failed) {
        if (accept(lx, ".version") || accept(lx, ".address_size")) {
            next(lx);
        } else if (accept(lx, ".target")) {
            next(lx);
            while (accept(lx, ","))
                next(lx);
        } else if (accept(lx, ".file")) {
            int64_t n;
            int f, f32;
            if (lx->kind != TK_NUM || number(lx, &n, &f, &f32) || lx->kind != TK_STR) {
                fail(lx, ".file needs a number and a name"); /* (the builder's arrays freed below) */
                break;
            }
            if (n >= 1 && n <= PTX_MAX_FILES) {
                free(m->files[n]);
                m->files[n] = strdup(lx->text);
            }
            next(lx);
            while (accept(lx, ","))
                next(lx);
        } else if (accept(lx, ".section")) {
            /* debugging sections (the names of inlined functions): nothing to run */
            next(lx);
            if (accept(lx, "{"))
                for (int depth = 1; depth > 0 && lx->kind != TK_END; next(lx))
                    depth += is(lx, "{") - is(lx, "}");
        } else if (accept(lx, ".visible") || accept(lx, ".weak") || accept(lx, ".extern")) {
            continue;
        } else if (accept(lx, ".entry")) {
            if (entry(&b, 0))
                break;
        } else if (accept(lx, ".func")) {
            /* printf's declaration; any other function is one nvcc did not inline */
            if (accept(lx, "("))
                while (lx->kind != TK_END && !accept(lx, ")"))
                    next(lx);
            if (accept(lx, "vprintf")) {
                while (lx->kind != TK_END && !accept(lx, ";"))
                    next(lx);
                m->has_vprintf = 1;
                continue;
            }
            entry(&b, 1);
            break;
        } else if (accept(lx, ".const")) {
            b.k = NULL;
            if (var_decl(&b, S_CONST, 0))
                break;
        } else if (accept(lx, ".global")) {
            /* nvcc's string literals ($str, printf's formats) are data; any other variable is
             * state kept from one launch to the next */
            struct lexer at = *lx;
            while ((lx->kind == TK_IDENT && lx->text[0] == '.') || lx->kind == TK_NUM) /* .align 4 .b8 */
                next(lx);
            char name[PTX_NAME_MAX];
            snprintf(name, sizeof name, "%.255s", lx->kind == TK_IDENT ? lx->text : "?");
            *lx = at;
            b.k = NULL;
            if (name[0] == '$') {
                if (var_decl(&b, S_GLOBAL, 0))
                    break;
                continue;
            }
            fail(lx, "a writable __device__ variable (%s): it would keep state from one launch to the next; lesson "
                     "files may not have writable variables outside their kernel", name);
            break;
        } else if (accept(lx, ".shared")) {
            b.k = NULL;
            fail(lx, "a __shared__ variable outside the kernel, or `extern __shared__` memory: declare shared arrays "
                     "inside the kernel, with a size");
            break;
        } else
            fail(lx, "the directive '%s' is not one the interpreter knows", lx->text);
    }
    free(b.labels);
    free(b.parent);
    free(b.fixups);
    if (lx->failed || m->error[0])
        return -1;
    if (lay_out(m, S_CONST, 0, "__constant__ data: a GPU has 64 KiB of it", &m->const_data, &m->const_bytes) ||
        lay_out(m, S_GLOBAL, 1, "string literals: more than a kernel's printf needs", &m->string_data, &m->string_bytes))
        return -1;
    for (int i = 0; i < m->nkernels; i++)
        for (int j = 0; j < m->kernels[i].ninsns; j++)
            if (fixed_address(m, &m->kernels[i], &m->kernels[i].insns[j]))
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
