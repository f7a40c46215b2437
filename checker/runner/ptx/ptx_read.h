/* Inside the PTX reader (ptx.h's ptx_parse): what its rooms share. ptx_lex.c turns the text into
 * tokens and names the types; ptx_decode.c takes an instruction's opcode and modifiers apart;
 * ptx_check.c holds every operand and every address the PTX fixes itself to what the interpreter
 * may trust; ptx_parse.c builds the module from them. Nothing outside checker/runner/ptx/'s reader
 * includes this. */
#ifndef WB_PTX_READ_H
#define WB_PTX_READ_H
#include <stdint.h>
#include <stdlib.h>

#include "ptx.h"

/* ---- the tokenizer (ptx_lex.c) ---- */
enum tok { TK_END, TK_IDENT, TK_NUM, TK_STR, TK_PUNCT };
struct lexer {
    const char *p;
    int line;
    enum tok kind;
    char text[2 * PTX_NAME_MAX];
    struct ptx_module *m;
    int failed;
};

/* The error, with the line, into the module (the first one wins); always -1. */
int lex_fail(struct lexer *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next token into lx. */
void lex_next(struct lexer *lx);
/* Whether the token is t; lex_accept also steps past it; lex_expect fails where it is not. */
int lex_is(struct lexer *lx, const char *t);
int lex_accept(struct lexer *lx, const char *t);
int lex_expect(struct lexer *lx, const char *t);
/* A number token: its value, whether it was a float, and whether a 32-bit one (0f...). */
int lex_number(struct lexer *lx, int64_t *v, int *is_float, int *is_f32);
/* .align's power of two. */
int lex_alignment(struct lexer *lx, int *align);
/* The type a name (b32, f16x2, ...) is, or T_NONE. */
int ptx_type_named(const char *s);

/* ---- building the module (ptx_parse.c) ---- */
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

/* ---- instructions (ptx_decode.c) ---- */
/* An instruction's opcode with its modifiers, into in; what the interpreter does not run refused. */
int ptx_decode(struct lexer *lx, struct ptx_insn *in, const char *opcode);
/* Hopper's asynchronous instructions: one part of the opcode (1: taken), then the whole. */
int ptx_decode_async(struct ptx_insn *in, const char *part, const char *opcode, int *seen);
int ptx_decode_async_done(struct lexer *lx, struct ptx_insn *in, const char *opcode, const int *types, int ntypes,
                          int seen);
/* The index of a special register's name (%tid.x, ...), or -1; whether a name is one of the
 * clocks and ids a lesson file may not read. */
int ptx_special_named(const char *s);
int ptx_timer_named(const char *s);

/* ---- what may be trusted (ptx_check.c) ---- */
/* An instruction's operands, each index checked against what the kernel declared. */
int ptx_check_insn(struct builder *b, const struct ptx_insn *in);
/* An address the PTX fixes itself, checked against its window once the windows are laid out. */
int ptx_fixed_address(struct ptx_module *m, const struct ptx_kernel *k, const struct ptx_insn *in);

#endif
