/* The PTX interpreter's view of a module: what ptx_parse.c makes of the text nvcc wrote for one
 * lesson file, and what ptx_exec.c runs. Nothing of the student's file runs natively: this
 * is data, read by our code.
 *
 * Registers are 64-bit slots per lane; an instruction's type says how many of their bits it
 * reads and writes. Addresses in the shared, local and const state spaces are offsets into
 * that space; generic and global addresses are the runner's own pointers (the buffers the job
 * gave), which the tracer checks before every access (emu_trace.c). */
#ifndef WB_PTX_H
#define WB_PTX_H
#include <stddef.h>
#include <stdint.h>

/* The scalar types of PTX (.b8 ... .f64, .pred). */
enum ptx_type {
    T_NONE, T_PRED,
    T_B8, T_B16, T_B32, T_B64,
    T_U8, T_U16, T_U32, T_U64,
    T_S8, T_S16, T_S32, T_S64,
    T_F16, T_F16X2, T_BF16, T_F32, T_F64,
};
static inline int ptx_type_bytes(enum ptx_type t)
{
    static const signed char bytes[] = {[T_PRED] = 1, [T_B8] = 1, [T_B16] = 2, [T_B32] = 4, [T_B64] = 8,
                                        [T_U8] = 1,   [T_U16] = 2, [T_U32] = 4, [T_U64] = 8, [T_S8] = 1,
                                        [T_S16] = 2,  [T_S32] = 4, [T_S64] = 8, [T_F16] = 2, [T_F16X2] = 4,
                                        [T_BF16] = 2, [T_F32] = 4, [T_F64] = 8};
    return (unsigned)t < sizeof bytes ? bytes[t] : 0;
}
static inline int ptx_type_signed(enum ptx_type t)
{
    return t >= T_S8 && t <= T_S64;
}
static inline int ptx_type_float(enum ptx_type t)
{
    return t >= T_F16;
}

enum ptx_space { S_NONE, S_GLOBAL, S_SHARED, S_LOCAL, S_CONST, S_PARAM, S_GENERIC };

enum ptx_op {
    OP_UNKNOWN,
    OP_MOV, OP_LD, OP_ST, OP_CVTA, OP_CVT,
    OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM, OP_NEG, OP_ABS, OP_MIN, OP_MAX,
    OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR,
    OP_SETP, OP_SELP, OP_SET,
    OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN, OP_COS, OP_TANH,
    OP_POPC, OP_CLZ, OP_BREV, OP_BFE, OP_BFI, OP_BFIND, OP_PRMT, OP_COPYSIGN, OP_TESTP, OP_MUL24, OP_MAD24,
    OP_SAD, OP_DP4A, OP_SHF,
    OP_BRA, OP_RET, OP_EXIT,
    OP_BAR, OP_BAR_WARP, OP_MEMBAR, OP_SHFL, OP_VOTE, OP_MATCH, OP_REDUX, OP_ACTIVEMASK,
    OP_ATOM, OP_RED, OP_CALL, OP_NANOSLEEP, OP_TRAP, OP_PMEVENT,
    OP_LDMATRIX, OP_MMA, /* the tensor cores' operand load and product, warp-wide */
    OP_CP_ASYNC,         /* cp.async: a copy from global to shared memory that lands at a wait */
    /* Hopper's asynchronous machinery (ptx_async.c): mbarriers, the tensor memory accelerator's
     * copies (cp.async.bulk.tensor), and the warpgroup's matrix product (wgmma) */
    OP_MBARRIER, OP_BULK_TENSOR, OP_WGMMA,
};

/* Modifiers, as bits of ptx_insn.flags. */
enum {
    F_WIDE = 1 << 0, F_HI = 1 << 1, F_LO = 1 << 2, F_UNI = 1 << 3, F_FTZ = 1 << 4, F_SAT = 1 << 5,
    F_APPROX = 1 << 6, F_TO = 1 << 7, F_CC = 1 << 8, F_VOLATILE = 1 << 9, F_NOFTZ = 1 << 10,
    F_TRANS = 1 << 11, /* ldmatrix .trans */
    F_SHIFTAMT = 1 << 12, /* bfind .shiftamt: the left shift that brings the highest bit to the top */
    F_PARITY = 1 << 13,   /* mbarrier.try_wait .parity */
    F_CLAMP = 1 << 14,    /* shf .clamp: a shift of at most 32 (.wrap: its count mod 32) */
};
/* Rounding (cvt, float arithmetic). */
enum ptx_round { R_NONE, R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI };
/* Comparisons (setp, set) and the boolean that combines them. */
enum ptx_cmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_LO, C_LS, C_HI, C_HS,
               C_EQU, C_NEU, C_LTU, C_LEU, C_GTU, C_GEU, C_NUM, C_NAN };
enum ptx_bool { B_NONE, B_AND, B_OR, B_XOR };
/* Sub-operations: shuffle modes, votes, atomics, barrier reductions. */
enum ptx_sub {
    SUB_NONE,
    SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX,
    VOTE_ALL, VOTE_ANY, VOTE_UNI, VOTE_BALLOT,
    ATOM_ADD, ATOM_MIN, ATOM_MAX, ATOM_AND, ATOM_OR, ATOM_XOR, ATOM_EXCH, ATOM_CAS, ATOM_INC, ATOM_DEC,
    BAR_SYNC, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR,
    MATCH_ANY, MATCH_ALL,
    CP_COPY, CP_COMMIT, CP_WAIT, CP_WAIT_ALL,
    MB_INIT, MB_ARRIVE, MB_ARRIVE_EXPECT, MB_EXPECT_TX, MB_TRY_WAIT, /* mbarrier's */
    FENCE_PROXY_ASYNC, FENCE_MBAR_INIT,                              /* fence's (OP_MEMBAR) */
    WG_FENCE, WG_COMMIT, WG_WAIT, WG_MMA,                            /* wgmma's */
    SHF_L, SHF_R,                                                    /* shf's direction */
};

/* K_BIGVEC: a vector of more than 4 registers (wgmma's accumulators), nvec of them from
 * ptx_kernel.pool[reg]; only wgmma takes one. */
enum ptx_okind { K_NONE, K_REG, K_IMM, K_FIMM, K_SYM, K_SPECIAL, K_VEC, K_MEM, K_LABEL, K_BIGVEC };

/* Special registers (the clocks, SM and warp-slot ids among them are refused when the PTX is read:
 * a kernel's result must not depend on when or where it runs). */
enum ptx_special {
    SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_CLOCK, SR_CLOCK64, SR_LANEMASK_EQ, SR_LANEMASK_LT,
    SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE, SR_SMID, SR_NSMID, SR_GRIDID, SR_GLOBALTIMER,
    SR_COUNT
};
/* %nsmid: the SMs of the H200 the thresholds were calibrated on. */
#define PTX_NSMID 132

struct ptx_operand {
    uint8_t kind;  /* ptx_okind */
    uint8_t neg;   /* !%p */
    uint8_t nvec;  /* K_VEC: elements */
    uint8_t fbytes; /* K_FIMM: 4 (0f..., a float's bits) or 8 (0d..., a double's) */
    int reg;       /* K_REG, K_MEM's base (-1: none), K_SPECIAL's code, K_LABEL's instruction; the sink `_` is
                      a register of its own (ptx_kernel.sink) */
    int sym;       /* K_SYM, K_MEM with a variable as base: its index (-1: none) */
    int64_t imm;   /* K_IMM, K_FIMM (the literal's own bits, fbytes of them), K_MEM's offset */
    int vec[4];    /* K_VEC: registers; K_MEM: a tensor copy's coordinates, nvec of them */
};

/* The longest name the parser takes; a longer one is refused (never cut: two cut names could
 * be one). */
#define PTX_NAME_MAX 256

#define PTX_MAX_OPERANDS 8 /* wgmma.mma_async's d, a, b, scale-d, imm-scale-a/b, imm-trans-a/b */
struct ptx_insn {
    uint8_t op;               /* ptx_op */
    uint8_t space;            /* ptx_space */
    uint8_t type, type2;      /* the destination's (or only) type and, for cvt, the source's */
    uint8_t vec;              /* .v2/.v4: elements, else 1 */
    uint8_t cmp, boolop, rnd; /* setp: comparison and combining boolean; rounding */
    uint8_t sub;              /* ptx_sub */
    uint8_t nops;
    uint16_t flags;
    int pred;                 /* guard predicate register, -1: none */
    uint8_t pred_neg;
    struct ptx_operand o[PTX_MAX_OPERANDS];
    int file, line, col;      /* the .loc in force (0: none) */
    int call_line;            /* inlined from a helper of the lesson file: the line that called it */
    int at;                   /* its line in the PTX, for the parser's sentences */
    const char *text;         /* the opcode as written, for messages */
};

/* A module-scope or kernel-scope variable: shared, local, const (initialised) or global. */
struct ptx_var {
    char name[PTX_NAME_MAX];
    uint8_t space;
    int align;
    size_t bytes;
    size_t offset;       /* in its space's window (S_GLOBAL: in the module's string data) */
    unsigned char *init; /* const: the initial bytes (NULL: zeros) */
    int dynamic;         /* `extern __shared__` memory: its bytes the launch's, after the kernel's own */
};

struct ptx_reg {
    char name[PTX_NAME_MAX];
    uint8_t type;
};

struct ptx_param {
    char name[PTX_NAME_MAX];
    uint8_t type;
    int bytes, align;
    int offset; /* in the kernel's parameter block */
};

#define PTX_MAX_PARAMS 16
#define PTX_MAX_PARAM_BYTES 4096 /* a kernel's parameter space, as PTX ISA 8 gives it */
#define PTX_MAX_REGS (1 << 16)   /* registers a kernel may declare: lesson 10 declares 2186 */
struct ptx_kernel {
    char name[PTX_NAME_MAX];
    struct ptx_param params[PTX_MAX_PARAMS];
    int nparams, param_bytes;
    struct ptx_reg *regs;
    int nregs;
    int sink; /* the register that stands for `_`, which instructions write and nothing reads (-1: none) */
    int *pool; /* the registers of K_BIGVEC operands */
    int npool;
    struct ptx_insn *insns;
    int ninsns;
    size_t shared_bytes, local_bytes;
    int first_var, nvars; /* its shared and local variables in the module's list */
    /* .maxntid (__launch_bounds__'s first number) and .reqntid, x y z, 0: not given. A GPU
     * refuses a launch of more threads a block than .maxntid's product, or of another shape
     * than .reqntid's. */
    unsigned maxntid[3], reqntid[3];
};

#define PTX_MAX_FILES 16
#define PTX_MAX_DEPTH 64 /* blocks ({ ... }) nested in a kernel, its body included */
struct ptx_module {
    struct ptx_kernel *kernels;
    int nkernels;
    struct ptx_var *vars;
    int nvars;
    size_t const_bytes;
    unsigned char *const_data;
    /* nvcc's string literals ($str: printf's formats), read-only, at their own place */
    size_t string_bytes;
    unsigned char *string_data;
    int has_vprintf; /* the module declares vprintf (a kernel calls printf) */
    size_t dynamic_align; /* `extern __shared__` memory's alignment, the largest it was declared with
                             (0: none); it starts after the launched kernel's own shared variables */
    char *files[PTX_MAX_FILES + 1]; /* .file N "name", by N */
    char error[400];
};

/* A whole text file (a PTX module, a source), NUL-terminated, malloc'd; NULL if it cannot be
 * read or is over max bytes. */
char *ptx_read_file(const char *path, size_t max);

/* Parses PTX text into m; 0, or -1 with m->error saying what and where ("line 12: ..."). The
 * text is the module nvcc wrote; anything the interpreter does not know is refused here, by
 * name, rather than misread. */
int ptx_parse(const char *text, struct ptx_module *m);
void ptx_free(struct ptx_module *m);
const struct ptx_kernel *ptx_find_kernel(const struct ptx_module *m, const char *name);

#endif
