/* The PTX interpreter's engine (ptx_exec.h).
 *
 * Scheduling. Blocks run one after another. In a block, each warp runs in lockstep: of its
 * lanes that can go on, those at the lowest instruction index execute it together (nvcc lays
 * out structured code so that a branch's paths come before the point where they meet, so this
 * reconverges where an immediate post-dominator stack would). A lane stops at bar.sync (until
 * every thread of the block has arrived), at a warp's collective operation (until every lane
 * its mask names has arrived at one) or at its end. Warps run in order up to each barrier, so a
 * missing barrier gives wrong results every time rather than by luck.
 *
 * Values. A read of shared memory that no thread of the block has written is not an error in
 * itself (compilers load speculatively): the value is marked, the mark follows it through
 * registers and shared memory, and it is an error where it reaches global memory, an address or
 * a branch.
 *
 * Memory. Every shared and global access goes through the emulator's tracer, which checks it
 * before it happens, finds races between barriers and prices each warp instruction in banks and
 * sectors (bank_model.h). Instruction i is the tracer's code address i + 1. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poison.h"
#include "emu.h"
#include "half.h"
#include "occupancy.h"
#include "ptx_exec.h"
#include "ptx_float.h"
#include "ptx_values.h"

#define MAX_THREADS 1024
/* l: each lane of the mask m, lowest first. */
#define FOR_LANES(m, l)                                                                                           \
    for (uint32_t m_ = (m), l; m_ && ((l = (uint32_t)__builtin_ctz(m_)), 1); m_ &= m_ - 1)
#define MAX_WARPS (MAX_THREADS / 32)
#define MAX_COPIES 256 /* cp.async in flight per thread: a tile of 4-byte copies over few threads */

/* The launch's coordinates, which the tracer's sentences read (emu_report.c). */
struct emu_uint3 {
    unsigned x, y, z;
} blockIdx, blockDim, gridDim;

enum lane_state { READY, AT_BARRIER, AT_WARP, EXITED };

/* Shared memory's bytes: never written, written, written with a marked value. */
enum { UNSET = 0, SET = 1, MARKED = 2 };

static struct {
    const struct ptx_launch *L; /* &launch: the last launch's, kept for naming its lines afterwards */
    struct ptx_launch launch;
    const struct ptx_kernel *k;
    int threads, warps;
    uint64_t *regs;   /* [reg][thread] */
    uint32_t *marks;  /* [reg][warp]: lanes whose value came from unwritten shared memory */
    int pc[MAX_THREADS];
    uint8_t state[MAX_THREADS];
    int epoch[MAX_THREADS]; /* warp operations each lane completed (the race check's order) */
    int vote[MAX_THREADS];  /* its predicate at a bar.red */
    unsigned char *shared, *shared_state;
    size_t shared_bytes;
    unsigned char *local; /* [thread][local_bytes] */
    unsigned char *local_state; /* the same, a byte's UNSET, SET or MARKED, as shared_state's */
    size_t local_bytes;
    /* Bytes in flight, measured while counting. ptxas schedules a thread's loads together where
     * nothing stops it, whatever their order in the PTX: a load waits for the loads before it only
     * where its address, or a branch before it, depends on their values, or a loop's branch back
     * or a barrier lies between them. dep[reg][thread] is the newest load a value derives from;
     * loads after done[thread] are in flight, in_flight[thread] bytes of them. */
    int counting;
    uint32_t *dep;
    uint32_t issued[MAX_THREADS], done[MAX_THREADS], in_flight[MAX_THREADS];
    const char **touches; /* [insn]: the buffer or shared array it touched, for the line table */
    struct {
        const unsigned char *begin, *end;
    } inputs[4]; /* the launch's read-only buffers */
    int ninputs;
    /* cp.async: each thread's copies not landed yet, in issue order, each with the number of
     * groups the thread had committed when it issued it (its group); and that number now */
    struct pending_copy {
        const unsigned char *src;
        uint32_t dst, group;
        uint8_t bytes, from_src; /* from_src: copied, the rest of bytes zeros (src-size) */
        int insn;
    } copies[MAX_THREADS][MAX_COPIES];
    uint16_t ncopies[MAX_THREADS];
    uint32_t committed[MAX_THREADS];
    uint32_t copy_bytes[MAX_THREADS]; /* the bytes of copies[t]: in flight, as loads' are */
    int unlanded; /* a cp.async whose words were read before they landed (insn + 1), for the sentence */
    int unset_read; /* the block's first read of a shared byte no thread had written (insn + 1): the
                     * sentence names it, where the value's use (a store, an address) may lie far below */
    int copies_pending;  /* in all threads' lists */
    int warp_kind; /* the error's kind when a warp instruction completed by resolve() failed */
    int running_insn;     /* where the running warp is (for a CPU-time stop) */
    int running_thread;
    /* the first value error (a marked value used): its sentence. A value is marked where it was read
     * from shared memory no thread had written, or from a register nothing had written (every
     * register starts the block marked: on a GPU it holds what an earlier warp left there);
     * shared_marks says whether the block has read such shared memory yet, which tells the two
     * apart where it has not. */
    int value_error, shared_marks;
    char value_sentence[600];
    char error[600];
} X;

const char *ptx_where(int insn, char *buf, size_t len)
{
    if (!X.k || insn < 0 || insn >= X.k->ninsns) {
        snprintf(buf, len, "?");
        return buf;
    }
    const struct ptx_insn *in = &X.k->insns[insn];
    const char *file = in->file == 1 && X.L->source ? X.L->source
                       : in->file >= 1 && in->file <= PTX_MAX_FILES && X.L->m->files[in->file] ? X.L->m->files[in->file]
                                                                                                : "?";
    if (in->line && in->call_line)
        snprintf(buf, len, "%s:%d:%d, called at line %d", file, in->line, in->col, in->call_line);
    else if (in->line)
        snprintf(buf, len, "%s:%d:%d", file, in->line, in->col);
    else
        snprintf(buf, len, "%s (instruction %d: %s)", file, insn, in->text);
    return buf;
}

/* ---- the runtime interface the tracer and emu_job.c expect (emu.h) ---- */
static void (*fatal_handler)(const char *sentence);

void emu_set_fatal_handler(void (*handler)(const char *sentence))
{
    fatal_handler = handler;
}

const char *emu_error(void)
{
    return X.error;
}

const char *emu_where(uintptr_t pc, char *buf, size_t len)
{
    return ptx_where((int)pc - 1, buf, len);
}

const char *emu_line_where(uintptr_t pc, char *buf, size_t len)
{
    ptx_where((int)pc - 1, buf, len);
    int i = (int)pc - 1;
    if (X.touches && i >= 0 && i < X.k->ninsns && X.touches[i])
        snprintf(buf + strlen(buf), len - strlen(buf), " (%s)", X.touches[i]);
    return buf;
}

/* The shared array at offset off of the block's shared memory, by its name in the source (nvcc
 * names a kernel's array _ZZ<kernel>E<length><name>), or NULL. */
static const char *shared_array(size_t off)
{
    const struct ptx_module *m = X.L->m;
    for (int v = X.k->first_var; v < X.k->first_var + X.k->nvars; v++) {
        const struct ptx_var *var = &m->vars[v];
        if (var->space != S_SHARED || off < var->offset || off >= var->offset + var->bytes)
            continue;
        const char *e = strrchr(var->name, 'E'), *name = var->name;
        if (e && e[1] >= '0' && e[1] <= '9') {
            name = e + 1;
            while (*name >= '0' && *name <= '9')
                name++;
        }
        return name;
    }
    return NULL;
}


size_t emu_shared_array_start(size_t off)
{
    for (int v = X.k ? X.k->first_var : 0; X.k && v < X.k->first_var + X.k->nvars; v++) {
        const struct ptx_var *var = &X.L->m->vars[v];
        if (var->space == S_SHARED && off >= var->offset && off < var->offset + var->bytes)
            return var->offset;
    }
    return off;
}

void emu_stop_at_bad_access(void)
{
    if (!fatal_handler)
        return;
    emu_report_bad_access(X.error, sizeof X.error);
    fatal_handler(X.error);
    abort();
}

static const char *thread_name(int t, char *buf, size_t len)
{
    unsigned bx = blockDim.x ? blockDim.x : 1;
    snprintf(buf, len, "thread (%u,%u)", (unsigned)t % bx, (unsigned)t / bx);
    return buf;
}

void emu_wild_access(uintptr_t pc, const void *addr, int is_write)
{
    char where[160], who[40];
    snprintf(X.error, sizeof X.error,
             "block (%u,%u): %s %s memory it was not given, at %p (%s): nowhere near its inputs, its output, its "
             "shared memory or its own variables. A kernel may touch only those; the run was stopped",
             blockIdx.x, blockIdx.y, thread_name(X.running_thread, who, sizeof who), is_write ? "writes" : "reads",
             addr, emu_where(pc, where, sizeof where));
    if (fatal_handler)
        fatal_handler(X.error);
    abort();
}

void emu_describe_spin(uintptr_t pc, char *buf, size_t len)
{
    char where[160], who[40];
    (void)pc;
    snprintf(buf, len, "%s of block (%u,%u) was running %s when it was stopped",
             thread_name(X.running_thread, who, sizeof who), blockIdx.x, blockIdx.y,
             ptx_where(X.running_insn, where, sizeof where));
}

/* ---- registers and operands ---- */
static inline uint64_t *reg(int r, int t)
{
    return &X.regs[(size_t)r * (size_t)X.threads + (size_t)t];
}
static inline uint32_t *mark(int r, int w)
{
    return &X.marks[(size_t)r * (size_t)X.warps + (size_t)w];
}

static uint64_t special(int sr, int t)
{
    unsigned bx = blockDim.x, by = blockDim.y;
    unsigned x = (unsigned)t % bx, y = ((unsigned)t / bx) % by, z = (unsigned)t / (bx * by);
    int lane = t % 32;
    switch (sr) {
    case SR_TID_X: return x;
    case SR_TID_Y: return y;
    case SR_TID_Z: return z;
    case SR_NTID_X: return blockDim.x;
    case SR_NTID_Y: return blockDim.y;
    case SR_NTID_Z: return blockDim.z;
    case SR_CTAID_X: return blockIdx.x;
    case SR_CTAID_Y: return blockIdx.y;
    case SR_CTAID_Z: return blockIdx.z;
    case SR_NCTAID_X: return gridDim.x;
    case SR_NCTAID_Y: return gridDim.y;
    case SR_NCTAID_Z: return gridDim.z;
    case SR_LANEID: return (uint64_t)lane;
    case SR_WARPID: return (uint64_t)(t / 32);
    case SR_NWARPID: return (uint64_t)X.warps;
    case SR_NSMID: return PTX_NSMID;
    case SR_LANEMASK_EQ: return 1u << lane;
    case SR_LANEMASK_LT: return (1u << lane) - 1;
    case SR_LANEMASK_LE: return (uint32_t)((2ull << lane) - 1);
    case SR_LANEMASK_GT: return (uint32_t)~((2ull << lane) - 1);
    case SR_LANEMASK_GE: return (uint32_t)~((1u << lane) - 1);
    default: return 0; /* (the clocks and ids the parser refuses) */
    }
}

/* An address operand's value: a variable's place in its space, a parameter's in the block. */
static uint64_t sym_address(const struct ptx_operand *o)
{
    if (o->sym <= -2)
        return (uint64_t)X.k->params[-2 - o->sym].offset;
    const struct ptx_var *v = &X.L->m->vars[o->sym];
    if (v->space == S_GLOBAL) /* a string literal: its place in the runner's memory */
        return (uint64_t)(uintptr_t)(X.L->m->string_data + v->offset);
    return (uint64_t)v->offset;
}

/* The address a memory operand ([reg+imm], [var+imm], [imm]) gives thread t. */
static inline uint64_t address_of(const struct ptx_operand *o, int t)
{
    return (o->reg >= 0 ? *reg(o->reg, t) : o->sym != -1 ? sym_address(o) : 0) + (uint64_t)o->imm;
}

/* The value of operand o for thread t, read as type ty. */
static inline uint64_t val(const struct ptx_operand *o, int ty, int t)
{
    switch (o->kind) {
    case K_REG: {
        uint64_t v = *reg(o->reg, t);
        return o->neg ? !(v & 1) : v;
    }
    case K_IMM:
        if (ty == T_F32)
            return of_f((float)o->imm);
        if (ty == T_F64)
            return of_d((double)o->imm);
        return (uint64_t)o->imm;
    case K_FIMM:
        if (ty == T_F32)
            return of_f((float)as_d((uint64_t)o->imm));
        return (uint64_t)o->imm;
    case K_SPECIAL:
        return special(o->reg, t);
    case K_SYM:
        return sym_address(o) + (uint64_t)o->imm;
    default:
        return 0;
    }
}

/* The marked lanes among `lanes` of the operands' registers. */
static inline uint32_t marks_of(const struct ptx_insn *in, int first, int w, uint32_t lanes)
{
    uint32_t m = 0;
    for (int i = first; i < in->nops; i++) {
        const struct ptx_operand *o = &in->o[i];
        if ((o->kind == K_REG || o->kind == K_MEM) && o->reg >= 0)
            m |= *mark(o->reg, w);
        else if (o->kind == K_VEC)
            for (int e = 0; e < o->nvec; e++)
                if (o->vec[e] >= 0)
                    m |= *mark(o->vec[e], w);
    }
    return m & lanes;
}

static inline void set_marks(int r, int w, uint32_t lanes, uint32_t marked)
{
    uint32_t *m = mark(r, w);
    *m = (*m & ~lanes) | (marked & lanes);
}

static inline void put(int r, int t, uint64_t v, int ty)
{
    *reg(r, t) = extend(v, ty);
}

/* ---- errors ---- */
static int fail(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(X.error, sizeof X.error, fmt, ap);
    va_end(ap);
    return kind;
}

/* A marked value used where it matters: the first such use, kept for the block's end. */
static void value_used(int insn, int t, const char *what)
{
    struct emu_bad_access first;
    if (X.value_error || emu_trace_bad_access(&first)) /* the first error is the one reported */
        return;
    char where[160], who[40];
    X.value_error = 1;
    if (!X.shared_marks) {
        snprintf(X.value_sentence, sizeof X.value_sentence,
                 "block (%u,%u): %s %s a value computed from a variable that was never given one (%s): on a GPU "
                 "it holds whatever an earlier kernel or warp left in that register. Give it its value first "
                 "(`float acc = 0.0f;`, not `float acc;`)",
                 blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), what, ptx_where(insn, where, sizeof where));
        return;
    }
    /* (the block's first such read: a value's own read is not tracked, so the words say which) */
    char at[150], read_at[sizeof at + 64] = ""; /* (room for the words and the whole place) */
    if (X.unset_read && strcmp(ptx_where(X.unset_read - 1, at, sizeof at), ptx_where(insn, where, sizeof where))) {
        /* in the same file as the use: its line alone (the sentence must fit its 600 bytes) */
        size_t file = 0;
        while (where[file] && !(where[file] == ':' && where[file + 1] >= '0' && where[file + 1] <= '9'))
            file++;
        int same = where[file] && strncmp(at, where, file + 1) == 0;
        snprintf(read_at, sizeof read_at, "; the block first read unwritten shared memory at %s%s",
                 same ? "line " : "", same ? at + file + 1 : at);
    }
    int n = snprintf(X.value_sentence, sizeof X.value_sentence,
                     "block (%u,%u): %s %s a value it read from shared memory that no thread of the block has "
                     "written (%s%s): ",
                     blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), what,
                     ptx_where(insn, where, sizeof where), read_at);
    n = n < 0 ? 0 : n >= (int)sizeof X.value_sentence ? (int)sizeof X.value_sentence - 1 : n;
    if (X.unlanded)
        snprintf(X.value_sentence + n, sizeof X.value_sentence - (size_t)n,
                 "a cp.async (%s) copies there, but its copy had not landed: a cp.async.wait_group (or wait_all) "
                 "for its group, then a barrier, must come before the read",
                 ptx_where(X.unlanded - 1, where, sizeof where));
    else
        snprintf(X.value_sentence + n, sizeof X.value_sentence - (size_t)n,
                 "a tile element nobody loaded, an index outside the loaded part, or a read that maps indices "
                 "differently from the write");
}

/* The lanes of *exec whose address, operand addr, holds a marked value: the first is said, and all
 * are left out of *exec (they access nothing). Returns them. */
static uint32_t marked_addresses(int insn, int w, const struct ptx_operand *addr, uint32_t *exec)
{
    uint32_t am = addr->reg >= 0 ? *mark(addr->reg, w) & *exec : 0;
    if (am) {
        value_used(insn, w * 32 + __builtin_ctz(am), "uses as an address");
        *exec &= ~am;
    }
    return am;
}

/* An unwritten shared byte at off was read by instruction insn: the first such read, and the
 * cp.async, if any, whose copy was to write it. */
static void note_unlanded(int insn, size_t off)
{
    if (!X.unset_read)
        X.unset_read = insn + 1;
    for (int t = 0; X.copies_pending && t < X.threads && !X.unlanded; t++)
        for (int k = 0; k < X.ncopies[t]; k++) {
            const struct pending_copy *c = &X.copies[t][k];
            if (off >= c->dst && off < (size_t)c->dst + c->bytes) {
                X.unlanded = c->insn + 1;
                break;
            }
        }
}

/* ---- memory ---- */
static inline unsigned char *local_of(int t)
{
    return X.local + (size_t)t * X.local_bytes;
}

/* Whether `size` bytes at offset a lie inside a window of `bytes`: a test that no address can make
 * wrap around (a near 2^64, from a negative offset, would pass a + size <= bytes). */
static inline int fits(uint64_t a, uint64_t size, uint64_t bytes)
{
    return a <= bytes && size <= bytes - a;
}

/* Whether `size` bytes at pointer p lie inside the window of `bytes` at base. */
static inline int inside_window(const unsigned char *p, uint64_t size, const unsigned char *base, size_t bytes)
{
    return (uintptr_t)p >= (uintptr_t)base && fits((uintptr_t)p - (uintptr_t)base, size, bytes);
}

/* Whether `size` bytes at pointer p touch the window of `bytes` at base at all. */
static inline int touches_window(const unsigned char *p, uint64_t size, const unsigned char *base, size_t bytes)
{
    return bytes && (uintptr_t)p < (uintptr_t)base + bytes && (uintptr_t)p + size > (uintptr_t)base;
}

/* Where an access lands: the tracer sees shared and global memory (as on a GPU, where local,
 * constant and parameter memory are not what the lessons count). */
enum land { IN_SHARED, IN_LOCAL, IN_CONST, IN_PARAM, IN_GLOBAL };

/* A .global access of `size` bytes at p that touches the block's shared memory, a thread's local
 * memory or the __constant__ data: on a GPU those lie outside the global window, and the access
 * faults (a generic address of shared memory used with ld.global: a pointer converted with the
 * wrong cvta). Here they are the runner's own arrays, which the tracer would let a kernel touch:
 * refused, with the error set. */
static int not_global(int insn, int t, const unsigned char *p, uint64_t size, int write)
{
    char where[160], who[40];
    const char *what = touches_window(p, size, X.shared, X.shared_bytes) ? "shared memory"
                       : touches_window(p, size, X.local, X.local_bytes * (size_t)X.threads) ? "local memory"
                       : touches_window(p, size, X.L->m->const_data, X.L->m->const_bytes) ? "__constant__ data"
                                                                                           : NULL;
    if (!what)
        return 0;
    fail(EMU_WILD_ACCESS,
         "block (%u,%u): %s %s %s through a global address (%s): a .global access of an address that is not in "
         "global memory, which stops the kernel on a GPU (a generic pointer to it converted with cvta.to.global, "
         "or handed to ld.global?)",
         blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), write ? "writes" : "reads", what,
         ptx_where(insn, where, sizeof where));
    return 1;
}

/* Where an access of `size` bytes at address a in space sp lands, for thread t: a pointer the
 * interpreter may use, or NULL after the error is set; *land says where, and *shared_off is the
 * offset in shared memory where it is there. */
static unsigned char *locate(int insn, int t, int sp, uint64_t a, int size, int write, int *land, size_t *shared_off)
{
    char where[160], who[40];
    const struct ptx_module *m = X.L->m;
    *shared_off = (size_t)-1;
    switch (sp) {
    case S_SHARED:
        *land = IN_SHARED;
        if (!fits(a, (uint64_t)size, X.shared_bytes)) {
            fail(EMU_OUT_OF_BOUNDS,
                 "block (%u,%u): %s %s shared memory at byte %lld, outside the block's %zu bytes of shared arrays "
                 "(%s): an index outside its tile?",
                 blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), write ? "writes" : "reads", (long long)a,
                 X.shared_bytes, ptx_where(insn, where, sizeof where));
            return NULL;
        }
        *shared_off = (size_t)a;
        return X.shared + a;
    case S_LOCAL:
        *land = IN_LOCAL;
        if (!fits(a, (uint64_t)size, X.local_bytes)) {
            fail(EMU_OUT_OF_BOUNDS,
                 "block (%u,%u): %s indexes a local array outside its bounds (%s): on a GPU it would %s memory "
                 "that is not the array's",
                 blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where),
                 write ? "write" : "read");
            return NULL;
        }
        return local_of(t) + a;
    case S_CONST:
        *land = IN_CONST;
        if (write || !fits(a, (uint64_t)size, m->const_bytes)) {
            fail(EMU_OUT_OF_BOUNDS, "block (%u,%u): %s %s __constant__ data outside its bounds, past its end (%s): an "
                 "index outside the table?",
                 blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), write ? "writes" : "reads",
                 ptx_where(insn, where, sizeof where));
            return NULL;
        }
        return m->const_data + a;
    case S_PARAM:
        *land = IN_PARAM;
        if (write || !fits(a, (uint64_t)size, (uint64_t)X.k->param_bytes)) {
            fail(EMU_BAD_LAUNCH, "a parameter access outside the kernel's parameters (%s)",
                 ptx_where(insn, where, sizeof where));
            return NULL;
        }
        return (unsigned char *)X.L->params + a;
    default: { /* global or generic: one of the runner's own pointers, which the tracer checks */
        unsigned char *p = (unsigned char *)(uintptr_t)a;
        *land = IN_GLOBAL;
        if (sp == S_GLOBAL && not_global(insn, t, p, (uint64_t)size, write))
            return NULL;
        if (sp != S_GLOBAL && inside_window(p, (uint64_t)size, X.shared, X.shared_bytes)) {
            *land = IN_SHARED;
            *shared_off = (size_t)(p - X.shared);
        } else if (sp != S_GLOBAL && inside_window(p, (uint64_t)size, local_of(t), X.local_bytes)) {
            *land = IN_LOCAL;
        } else if (sp != S_GLOBAL && inside_window(p, (uint64_t)size, m->const_data, m->const_bytes)) {
            *land = IN_CONST;
            if (write) {
                fail(EMU_WILD_ACCESS, "block (%u,%u): %s writes __constant__ data (%s)", blockIdx.x, blockIdx.y,
                     thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where));
                return NULL;
            }
        }
        return p;
    }
    }
}

/* The lanes of the running warp instruction, by where they landed (0: shared, 1: global), for
 * pricing it once all its lanes have gone (price_warp). */
static struct {
    struct emu_lane_access lanes[2][32];
    int n[2];
} W;

/* One lane's access through the tracer, which checks it before it happens (and stops a wild
 * one) and looks for races; the lane joins its warp instruction's price. */
static inline void trace(int insn, int t, const void *p, int size, int write, int land)
{
    emu_trace_switch_to(t, X.epoch[t], (const char *)local_of(t), (const char *)local_of(t) + X.local_bytes);
    emu_trace_access(p, (uint32_t)size, write, (uintptr_t)insn + 1);
    int g = land == IN_GLOBAL;
    if (X.counting && W.n[g] < 32)
        W.lanes[g][W.n[g]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)size, t % 32};
}

/* Prices the warp instruction whose lanes trace() gathered: one request per kind of memory it
 * touched (an atomic: a read and a write). */
static void price_warp(int insn, int write, int atomic)
{
    for (int g = 0; g < 2; g++) {
        if (!W.n[g])
            continue;
        if (X.touches && !X.touches[insn])
            X.touches[insn] = g ? emu_trace_buffer_name((const void *)W.lanes[g][0].addr)
                                : shared_array((size_t)((const unsigned char *)W.lanes[g][0].addr - X.shared));
        enum mem_op ld = g ? GLOBAL_LD : SHARED_LD, st = g ? GLOBAL_ST : SHARED_ST;
        if (atomic || !write)
            emu_trace_price((uintptr_t)insn + 1, ld, atomic, W.lanes[g], W.n[g]);
        if (atomic || write)
            emu_trace_price((uintptr_t)insn + 1, st, atomic, W.lanes[g], W.n[g]);
        W.n[g] = 0;
    }
}

/* A read that the tracer would only let through: inside an input (a read-only buffer), aligned,
 * while nothing is counted (the inputs are the launch's; the tracer logs no global access). */
static inline int plain_input_read(const unsigned char *p, int bytes)
{
    if (X.counting || ((uintptr_t)p & (uintptr_t)(bytes - 1)))
        return 0;
    for (int i = 0; i < X.ninputs; i++)
        if (p >= X.inputs[i].begin && p + bytes <= X.inputs[i].end)
            return 1;
    return 0;
}

/* Reads n elements of `size` bytes for a load; marked[e] when any byte of element e came from
 * unwritten shared memory (each element of a vector load on its own: a float4 at a tile's
 * edge may hold words nobody wrote beside the one the kernel uses). */
static int load(int insn, int t, int sp, uint64_t a, int size, int n, void *dst, int *marked, int *landed)
{
    size_t off;
    int land;
    unsigned char *p = locate(insn, t, sp, a, size * n, 0, &land, &off);
    if (!p)
        return -1;
    if (land == IN_SHARED || (land == IN_GLOBAL && !plain_input_read(p, size * n)))
        trace(insn, t, p, size * n, 0, land);
    /* (a local array's bytes have states too: an element never written reads as what the GPU's
     * memory held, a variable never given a value) */
    const unsigned char *state = off != (size_t)-1 ? X.shared_state + off
                                 : land == IN_LOCAL ? X.local_state + (p - X.local) : NULL;
    for (int e = 0; e < n; e++) {
        marked[e] = 0;
        for (int i = 0; state && i < size; i++)
            marked[e] |= state[e * size + i] != SET;
        if (off == (size_t)-1)
            continue;
        X.shared_marks |= marked[e];
        if (marked[e] && X.shared_state[off + (size_t)(e * size)] == UNSET) {
            emu_trace_note_unset_read((uintptr_t)insn + 1);
            note_unlanded(insn, off + (size_t)(e * size));
        }
    }
    memcpy(dst, p, (size_t)(size * n));
    *landed = land;
    return 0;
}

/* The `size` bytes at p as a register's low bits (sizes the compiler can see: one load). */
static inline uint64_t read_bytes(const unsigned char *p, int size)
{
    uint64_t v8;
    uint32_t v4;
    uint16_t v2;
    switch (size) {
    case 8: memcpy(&v8, p, 8); return v8;
    case 4: memcpy(&v4, p, 4); return v4;
    case 2: memcpy(&v2, p, 2); return v2;
    default: return *p;
    }
}

/* Whether every one of `bytes` shared-memory bytes whose state is at s was written (SET). */
static inline int all_set(const unsigned char *s, int bytes)
{
    uint64_t v8, ones = 0x0101010101010101ull;
    uint32_t v4;
    switch (bytes) {
    case 16: memcpy(&v8, s, 8); if (v8 != ones) return 0; memcpy(&v8, s + 8, 8); return v8 == ones;
    case 8: memcpy(&v8, s, 8); return v8 == ones;
    case 4: memcpy(&v4, s, 4); return v4 == (uint32_t)ones;
    default:
        for (int b = 0; b < bytes; b++)
            if (s[b] != SET)
                return 0;
        return 1;
    }
}

/* Each lane's address of `bytes` in shared memory into at[lane]; 0 if one lies outside it. */
static int shared_addresses(const struct ptx_operand *addr, int first, uint32_t exec, int bytes, uint64_t *at)
{
    FOR_LANES(exec, l) {
        uint64_t a = address_of(addr, first + (int)l);
        if (a > X.shared_bytes || a + (uint64_t)bytes > X.shared_bytes)
            return 0;
        at[l] = a;
    }
    return 1;
}

/* ld.shared for the lanes of exec, all of whose addresses lie inside the block's shared memory
 * (else 0, and the general path says which lane strayed): the same checks, logs and marks as
 * load(), without its search for where each lane's access lands. */
static int load_shared(const struct ptx_insn *in, int i, int w, uint32_t exec)
{
    const struct ptx_operand *o = in->o;
    int size = ptx_type_bytes(in->type), n = in->vec, bytes = size * n, first = w * 32;
    uint64_t at[32];
    if (!shared_addresses(&o[1], first, exec, bytes, at))
        return 0;
    uint32_t marked[4] = {0};
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        const unsigned char *p = X.shared + at[l], *state = X.shared_state + at[l];
        emu_trace_shared_access(t, X.epoch[t], p, (uint32_t)bytes, 0, (uintptr_t)i + 1);
        if (X.counting && W.n[0] < 32)
            W.lanes[0][W.n[0]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)bytes, (int)l};
        int written = all_set(state, bytes);
        for (int e = 0; !written && e < n; e++) {
            int mk = 0;
            for (int b = 0; b < size; b++)
                mk |= state[e * size + b] != SET;
            if (mk && state[e * size] == UNSET) {
                emu_trace_note_unset_read((uintptr_t)i + 1);
                note_unlanded(i, at[l] + (size_t)(e * size));
            }
            marked[e] |= (uint32_t)mk << l;
            X.shared_marks |= mk;
        }
        for (int e = 0; e < n; e++) {
            uint64_t v = read_bytes(p + e * size, size);
            int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
            if (r >= 0)
                *reg(r, t) = ptx_type_signed(in->type) ? extend(v, in->type) : v;
        }
    }
    for (int e = 0; e < n; e++) {
        int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
        if (r >= 0)
            set_marks(r, w, exec, marked[e]);
    }
    price_warp(i, 0, 0);
    return 1;
}

/* ld.global of the lanes of exec when every one reads inside an input while nothing is counted:
 * what the tracer would only let through (plain_input_read), so it is not asked; else 0. */
static int load_inputs(const struct ptx_insn *in, int w, uint32_t exec)
{
    const struct ptx_operand *o = in->o;
    int size = ptx_type_bytes(in->type), n = in->vec, first = w * 32;
    const unsigned char *at[32];
    if (X.counting || o[1].sym != -1) /* (a variable's address is never an input's) */
        return 0;
    FOR_LANES(exec, l) {
        at[l] = (const unsigned char *)(uintptr_t)address_of(&o[1], first + (int)l);
        if (!plain_input_read(at[l], size * n))
            return 0;
    }
    FOR_LANES(exec, l)
        for (int e = 0; e < n; e++) {
            uint64_t v = read_bytes(at[l] + e * size, size);
            int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
            if (r >= 0)
                *reg(r, first + (int)l) = ptx_type_signed(in->type) ? extend(v, in->type) : v;
        }
    for (int e = 0; e < n; e++) {
        int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
        if (r >= 0)
            set_marks(r, w, exec, 0);
    }
    return 1;
}

/* st.shared likewise (store()). */
static int store_shared(const struct ptx_insn *in, int i, int w, uint32_t exec, uint32_t value_marks)
{
    const struct ptx_operand *o = in->o;
    int size = ptx_type_bytes(in->type), n = in->vec, bytes = size * n, first = w * 32;
    uint64_t at[32];
    if (!shared_addresses(&o[0], first, exec, bytes, at))
        return 0;
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        unsigned char *p = X.shared + at[l];
        emu_trace_shared_access(t, X.epoch[t], p, (uint32_t)bytes, 1, (uintptr_t)i + 1);
        if (X.counting && W.n[0] < 32)
            W.lanes[0][W.n[0]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)bytes, (int)l};
        for (int e = 0; e < n; e++) {
            uint64_t v = o[1].kind == K_VEC ? (o[1].vec[e] >= 0 ? *reg(o[1].vec[e], t) : 0) : val(&o[1], in->type, t);
            memcpy(p + e * size, &v, (size_t)size);
        }
        memset(X.shared_state + at[l], (value_marks >> l) & 1 ? MARKED : SET, (size_t)bytes);
    }
    price_warp(i, 1, 0);
    return 1;
}

static int store(int insn, int t, int sp, uint64_t a, int size, const void *src, int marked)
{
    size_t off;
    int land;
    unsigned char *p = locate(insn, t, sp, a, size, 1, &land, &off);
    if (!p)
        return -1;
    if (land == IN_SHARED || land == IN_GLOBAL)
        trace(insn, t, p, size, 1, land);
    if (off != (size_t)-1)
        memset(X.shared_state + off, marked ? MARKED : SET, (size_t)size);
    else if (land == IN_LOCAL)
        memset(X.local_state + (p - X.local), marked ? MARKED : SET, (size_t)size);
    else if (marked && land == IN_GLOBAL)
        value_used(insn, t, "stores to global memory");
    memcpy(p, src, (size_t)size);
    return 0;
}

/* cvta's address a in thread t: to a space, the generic pointer into its offset; from one, the
 * offset into a pointer (the global space's are the same). */
static uint64_t cvta(const struct ptx_insn *in, int t, uint64_t a)
{
    unsigned char *base = in->space == S_SHARED ? X.shared
                          : in->space == S_LOCAL ? local_of(t)
                          : in->space == S_CONST ? X.L->m->const_data
                                                 : NULL;
    if (!base)
        return a;
    return (in->flags & F_TO) ? a - (uint64_t)(uintptr_t)base : a + (uint64_t)(uintptr_t)base;
}

/* ---- one warp ---- */

/* The lanes of warp w that are READY at the lowest instruction: their mask, and that index;
 * *all: whether they are all the warp's READY lanes (the warp has not diverged). */
static uint32_t next_group(int w, int *pc, int *all)
{
    int first = w * 32, lanes = X.threads - first < 32 ? X.threads - first : 32, lo = -1, others = 0;
    uint32_t m = 0;
    for (int l = 0; l < lanes; l++) {
        int t = first + l;
        if (X.state[t] != READY)
            continue;
        if (lo < 0 || X.pc[t] < lo) {
            others += m != 0;
            lo = X.pc[t];
            m = 1u << l;
        } else if (X.pc[t] == lo)
            m |= 1u << l;
        else
            others = 1;
    }
    *pc = lo;
    *all = !others;
    return m;
}


/* ---- printf ---- */
/* A kernel's printf (call vprintf): the format from the module's string literals, the arguments
 * from the thread's own memory, as nvcc lays them out (each at its size's alignment; floats
 * passed as doubles). %s and %n are refused: they would read or write memory by a pointer. */
static int print(int insn, int t)
{
    const struct ptx_insn *in = &X.k->insns[insn];
    const struct ptx_module *m = X.L->m;
    char where[160], who[40];
    uint64_t fmt_at, args_at;
    memcpy(&fmt_at, local_of(t) + m->vars[in->o[1].sym].offset, 8);
    memcpy(&args_at, local_of(t) + m->vars[in->o[2].sym].offset, 8);
    const char *fmt = (const char *)(uintptr_t)fmt_at;
    if (!m->string_bytes || fmt < (const char *)m->string_data || fmt >= (const char *)m->string_data + m->string_bytes)
        return fail(EMU_WILD_ACCESS, "block (%u,%u): %s calls printf with a format that is not a string literal (%s)",
                    blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where));
    const unsigned char *args = (const unsigned char *)(uintptr_t)args_at, *end = local_of(t) + X.local_bytes;
    size_t used = 0;
    char out[1024];
    size_t n = 0;
    for (const char *p = fmt; *p && n < sizeof out - 64; p++) {
        if (*p != '%' || p[1] == '%') {
            out[n++] = *p;
            p += *p == '%';
            continue;
        }
        const char *conv = p + 1 + strspn(p + 1, "-+ #0123456789.*hlLqjzt");
        if (*conv == 's' || *conv == 'n' || *conv == '*' || strchr(p + 1, '*') == conv - 1)
            return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s calls printf with %%%c (%s): printf's %%%c is not available "
                                        "to kernels in the emulator, since it would %s memory through a pointer "
                                        "(print numbers instead)",
                        blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), *conv,
                        ptx_where(insn, where, sizeof where), *conv, *conv == 'n' ? "write" : "read");
        int longs = 0;
        for (const char *q = p + 1; q < conv; q++)
            longs += *q == 'l' || *q == 'j' || *q == 'z' || *q == 't' || *q == 'q';
        int size = strchr("feEgGaA", *conv) || *conv == 'p' || longs ? 8 : 4;
        used = (used + (size_t)size - 1) / (size_t)size * (size_t)size;
        if (!args || args < local_of(t) || args + used + (size_t)size > end)
            return fail(EMU_WILD_ACCESS, "block (%u,%u): %s calls printf with arguments outside its own memory (%s)",
                        blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where));
        uint64_t v = 0;
        memcpy(&v, args + used, (size_t)size);
        used += (size_t)size;
        char spec[32];
        snprintf(spec, sizeof spec, "%.*s", (int)(conv - p + 1 < 31 ? conv - p + 1 : 31), p);
        if (strchr("feEgGaA", *conv))
            n += (size_t)snprintf(out + n, sizeof out - n, spec, as_d(v));
        else if (*conv == 'p')
            n += (size_t)snprintf(out + n, sizeof out - n, "%p", (void *)(uintptr_t)v);
        else if (*conv == 'c')
            n += (size_t)snprintf(out + n, sizeof out - n, "%c", (int)(unsigned char)v);
        else if (strchr("di", *conv))
            n += (size_t)snprintf(out + n, sizeof out - n, "%lld", longs ? (long long)v : (long long)(int32_t)v);
        else if (strchr("uxXo", *conv)) {
            char f[8] = {'%', 'l', 'l', *conv, 0};
            n += (size_t)snprintf(out + n, sizeof out - n, f, longs ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
        } else
            return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s calls printf with %%%c (%s), a conversion the emulator "
                                        "does not know", blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), *conv,
                        ptx_where(insn, where, sizeof where));
        if (n >= sizeof out - 64)
            n = sizeof out - 64;
        p = conv;
    }
    fwrite(out, 1, n, stdout);
    memset(local_of(t) + m->vars[in->o[0].sym].offset, 0, 4); /* printf's result: 0 */
    return 0;
}

/* ---- bytes in flight (while counting) ---- */
static inline uint32_t *dep(int r, int t)
{
    return &X.dep[(size_t)r * (size_t)X.threads + (size_t)t];
}

/* Thread t waits for its loads in flight: what it had in flight is its sample. */
static void wait_loads(int t)
{
    if (X.in_flight[t])
        emu_trace_in_flight(t, X.in_flight[t]);
    X.in_flight[t] = 0;
    X.done[t] = X.issued[t];
}

/* The newest load still in flight that operand o's value derives from (0: none). */
static inline uint32_t derives(const struct ptx_operand *o, int t)
{
    uint32_t s = 0, v;
    if ((o->kind == K_REG || o->kind == K_MEM) && o->reg >= 0)
        s = *dep(o->reg, t);
    else if (o->kind == K_VEC)
        for (int e = 0; e < o->nvec; e++)
            if (o->vec[e] >= 0 && (v = *dep(o->vec[e], t)) > s)
                s = v;
    return s > X.done[t] ? s : 0;
}

static inline void set_dep(const struct ptx_operand *d, int t, uint32_t s)
{
    if (d->kind == K_REG && d->reg >= 0)
        *dep(d->reg, t) = s;
    else if (d->kind == K_VEC)
        for (int e = 0; e < d->nvec; e++)
            if (d->vec[e] >= 0)
                *dep(d->vec[e], t) = s;
}

/* Before instruction i runs for the lanes of exec (of active): the waits it makes, and the
 * loads its result derives from. */
static void follow_loads(const struct ptx_insn *in, int i, int w, uint32_t active, uint32_t exec)
{
    int first = w * 32;
    /* whether the instruction gives its first operand a value to follow */
    int result = in->op == OP_LD || in->op == OP_ATOM ||
                 (in->nops > 0 && in->op != OP_BRA && in->op != OP_BAR && in->op != OP_RET && in->op != OP_EXIT &&
                  in->op != OP_ST && in->op != OP_RED);
    if (exec == ~0u && result && in->op != OP_LD && in->op != OP_ATOM && in->o[0].kind == K_REG && in->o[0].reg >= 0) {
        /* all 32 lanes, a plain result: the newest load in flight its operands derive from, by
         * columns (what the loop below does lane by lane) */
        const uint32_t *done = &X.done[first];
        uint32_t s[32] = {0};
        int r[PTX_MAX_OPERANDS * 4 + 1], nr = 0;
        if (in->pred >= 0)
            r[nr++] = in->pred; /* the guard */
        for (int k = 1; k < in->nops; k++) {
            const struct ptx_operand *o = &in->o[k];
            if ((o->kind == K_REG || o->kind == K_MEM) && o->reg >= 0)
                r[nr++] = o->reg;
            else if (o->kind == K_VEC)
                for (int e = 0; e < o->nvec; e++)
                    if (o->vec[e] >= 0)
                        r[nr++] = o->vec[e];
        }
        for (int j = 0; j < nr; j++) {
            const uint32_t *col = dep(r[j], first);
            for (int l = 0; l < 32; l++) {
                uint32_t v = col[l] > done[l] ? col[l] : 0;
                s[l] = v > s[l] ? v : s[l];
            }
        }
        memcpy(dep(in->o[0].reg, first), s, sizeof s);
        return;
    }
    FOR_LANES(active, l) {
        int t = first + (int)l;
        int on = (exec >> l) & 1;
        if (X.issued[t] == X.done[t]) { /* nothing in flight: nothing to wait for or derive from */
            if (on && result)
                set_dep(&in->o[0], t, 0);
            continue;
        }
        uint32_t guard = in->pred >= 0 && X.issued[t] != X.done[t] && *dep(in->pred, t) > X.done[t] ? *dep(in->pred, t) : 0;
        switch (in->op) {
        case OP_BRA: /* on a loaded value, or back to the top of a loop */
            if (guard || (on && in->o[0].reg <= i))
                wait_loads(t);
            break;
        case OP_BAR: case OP_RET: case OP_EXIT:
        case OP_MEMBAR: /* a fence waits for the thread's memory operations, its loads among them */
            if (on || guard)
                wait_loads(t);
            break;
        case OP_LD: case OP_ST: case OP_ATOM: case OP_RED: {
            const struct ptx_operand *addr = in->op == OP_LD || in->op == OP_ATOM ? &in->o[1] : &in->o[0];
            if (on && (guard || derives(addr, t)))
                wait_loads(t);
            if (on && (in->op == OP_ATOM || in->op == OP_LD))
                set_dep(&in->o[0], t, 0); /* a global load's own: issue_load, once it has landed */
            break;
        }
        default:
            if (on && in->nops > 0) { /* a result derives from the loads its operands derive from */
                uint32_t s = guard;
                for (int k = 1; X.issued[t] != X.done[t] && k < in->nops; k++) { /* (none in flight: none) */
                    uint32_t v = derives(&in->o[k], t);
                    s = v > s ? v : s;
                }
                set_dep(&in->o[0], t, s);
            }
        }
    }
}

/* Thread t issues a global load of `bytes` into the register(s) of operand d. */
static void issue_load(int t, const struct ptx_operand *d, int bytes)
{
    X.in_flight[t] += (uint32_t)bytes;
    set_dep(d, t, ++X.issued[t]);
}

/* ---- a warp with all 32 lanes on: whole columns at once ----
 * Registers are stored [reg][thread], so one register of a warp's 32 lanes is 32 adjacent
 * slots: the common instructions (address arithmetic, float math, comparisons, conversions)
 * run as loops over columns, the type's switch taken once per instruction instead of once per
 * lane. The results are the general path's, bit for bit. */

/* Operand o of warp w's 32 lanes: a register's own column, or buf filled with its values. */
static inline const uint64_t *column(const struct ptx_operand *o, int ty, int first, uint64_t *buf)
{
    if (o->kind == K_REG && !o->neg)
        return reg(o->reg, first);
    for (int l = 0; l < 32; l++)
        buf[l] = val(o, ty, first + l);
    return buf;
}

/* d = v extended by type ty (put() for a column). */
static inline void put_column(uint64_t *d, const uint64_t *v, int ty)
{
    switch (ty) {
    case T_B32: case T_U32: case T_F32:
        for (int l = 0; l < 32; l++)
            d[l] = v[l] & 0xffffffffu;
        break;
    case T_S32:
        for (int l = 0; l < 32; l++)
            d[l] = (uint64_t)(int64_t)(int32_t)v[l];
        break;
    case T_B64: case T_U64: case T_S64: case T_F64:
        for (int l = 0; l < 32; l++)
            d[l] = v[l];
        break;
    default:
        for (int l = 0; l < 32; l++)
            d[l] = extend(v[l], ty);
    }
}

/* Instruction in for all 32 lanes of warp w, when it is one of the common plain ones; 0 when
 * it is not (the general path runs it). */
static int whole_warp(const struct ptx_insn *in, int w)
{
    const struct ptx_operand *o = in->o;
    int ty = in->type, first = w * 32, bytes = ptx_type_bytes(ty);
    if (in->nops < 2 || o[0].kind != K_REG || o[0].reg < 0 || (in->flags & F_SAT))
        return 0;
    uint64_t ba[32], bb[32], bc[32], r[32];
    const uint64_t *a, *b, *c;
    switch (in->op) {
    case OP_MOV: case OP_CVT:
        if (o[1].kind == K_VEC)
            return 0;
        a = column(&o[1], in->op == OP_CVT ? in->type2 : ty, first, ba);
        if (in->op == OP_CVT)
            for (int l = 0; l < 32; l++)
                r[l] = ptx_convert(in, a[l]);
        put_column(reg(o[0].reg, first), in->op == OP_CVT ? r : a, ty);
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_AND: case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR:
        if (ty == T_F32 && !in->flags && in->rnd <= R_RN &&
            (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL)) { /* the plain forms: nearest, no .ftz */
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
            uint64_t *d = reg(o[0].reg, first);
            for (int l = 0; l < 32; l++) {
                float x = as_f(a[l]), y = as_f(b[l]);
                d[l] = gpu_nan(of_f(in->op == OP_ADD ? x + y : in->op == OP_SUB ? x - y : x * y), T_F32);
            }
            break;
        }
        if (is_f(ty) || ty == T_PRED || (bytes != 4 && bytes != 8) || (in->flags & F_HI))
            return 0;
        if (in->flags & F_WIDE) { /* mul.wide.s32/u32: the 64-bit product */
            if (in->op != OP_MUL || bytes != 4)
                return 0;
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
            uint64_t *d = reg(o[0].reg, first);
            if (ty == T_S32)
                for (int l = 0; l < 32; l++)
                    d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int64_t)(int32_t)b[l]);
            else
                for (int l = 0; l < 32; l++)
                    d[l] = (a[l] & 0xffffffffu) * (b[l] & 0xffffffffu);
            break;
        }
        a = column(&o[1], ty, first, ba);
        b = column(&o[2], in->op == OP_SHL || in->op == OP_SHR ? T_U32 : ty, first, bb);
        if (in->op == OP_SHR) {
            for (int l = 0; l < 32; l++)
                r[l] = ptx_int_binary(OP_SHR, in->flags, ty, a[l], b[l]);
        } else {
            uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
            for (int l = 0; l < 32; l++) {
                uint64_t x = a[l], y = b[l], n = y & 0xffffffffu;
                switch (in->op) {
                case OP_ADD: r[l] = (x + y) & mask; break;
                case OP_SUB: r[l] = (x - y) & mask; break;
                case OP_MUL: r[l] = (x * y) & mask; break;
                case OP_AND: r[l] = x & y & mask; break;
                case OP_OR: r[l] = (x | y) & mask; break;
                case OP_XOR: r[l] = (x ^ y) & mask; break;
                default: r[l] = n >= (uint64_t)(8 * bytes) ? 0 : (x << n) & mask;
                }
            }
        }
        put_column(reg(o[0].reg, first), r, ty);
        break;
    case OP_FMA: case OP_MAD:
        if (ty == T_F32 && !in->flags && in->rnd <= R_RN) {
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb), c = column(&o[3], ty, first, bc);
            uint64_t *d = reg(o[0].reg, first);
            for (int l = 0; l < 32; l++)
                d[l] = gpu_nan(of_f(fmaf(as_f(a[l]), as_f(b[l]), as_f(c[l]))), T_F32);
            break;
        }
        if (in->op != OP_MAD || is_f(ty) || bytes != 4 || (in->flags & F_HI))
            return 0;
        if (in->flags & F_WIDE) { /* mad.wide.s32/u32: a 64-bit product plus a 64-bit addend */
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
            c = column(&o[3], ty == T_S32 ? T_S64 : T_U64, first, bc);
            uint64_t *d = reg(o[0].reg, first);
            if (ty == T_S32)
                for (int l = 0; l < 32; l++)
                    d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int64_t)(int32_t)b[l]) + c[l];
            else
                for (int l = 0; l < 32; l++)
                    d[l] = (a[l] & 0xffffffffu) * (b[l] & 0xffffffffu) + c[l];
            break;
        }
        a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb), c = column(&o[3], ty, first, bc);
        for (int l = 0; l < 32; l++)
            r[l] = ((a[l] * b[l]) & 0xffffffffu) + c[l];
        put_column(reg(o[0].reg, first), r, ty);
        break;
    case OP_SETP:
        if (in->boolop || ty == T_PRED || (in->flags & F_FTZ))
            return 0;
        a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
        for (int l = 0; l < 32; l++)
            r[l] = (uint64_t)ptx_compare(in->cmp, ty, a[l], b[l]);
        memcpy(reg(o[0].reg, first), r, sizeof r);
        break;
    default:
        return 0;
    }
    set_marks(o[0].reg, w, ~0u, marks_of(in, 1, w, ~0u));
    return 1;
}

/* ---- cp.async: copies from global to shared memory that land when the thread waits ----
 * A copy is checked where it is issued (its addresses, its bounds, the global read counted as a
 * load); from then its words are in flight: the thread's write as the race check sees it, and
 * unwritten. It is written into shared memory at the cp.async.wait_group or wait_all that waits
 * for its group, as the thread's write at that moment: a read of its words before the wait finds
 * them unwritten (a missing wait is an error every time), and a thread that reads another's copy
 * needs a barrier after the other's wait, as on a GPU. */

static void land(int t, const struct pending_copy *c)
{
    unsigned char *p = X.shared + c->dst;
    X.copies_pending--;
    emu_trace_shared_access(t, X.epoch[t], p, c->bytes, 1, (uintptr_t)c->insn + 1);
    if (c->from_src)
        memcpy(p, c->src, c->from_src);
    memset(p + c->from_src, 0, (size_t)(c->bytes - c->from_src));
    memset(X.shared_state + c->dst, SET, c->bytes);
}

/* Lands thread t's copies of the groups before `upto` (all, uncommitted too, when all is set). */
static void land_copies(int t, int64_t upto, int all)
{
    int kept = 0;
    /* A wait for copies is a wait for loads: the bytes its thread's copies had in flight then
     * (those it waits for and those it leaves in flight) are one sample of bytes in flight. */
    uint32_t waited = 0;
    for (int k = 0; k < X.ncopies[t]; k++)
        waited += all || (int64_t)X.copies[t][k].group < upto;
    if (waited && X.counting)
        emu_trace_in_flight(t, X.copy_bytes[t]);
    for (int k = 0; k < X.ncopies[t]; k++) {
        const struct pending_copy *c = &X.copies[t][k];
        if (all || (int64_t)c->group < upto) {
            X.copy_bytes[t] -= c->bytes;
            land(t, c);
        } else
            X.copies[t][kept++] = *c;
    }
    X.ncopies[t] = (uint16_t)kept;
}

/* cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}; commit_group; wait_group N;
 * wait_all. 0, or the error's kind. */
static int cp_async(const struct ptx_insn *in, int i, int w, uint32_t exec)
{
    const struct ptx_operand *o = in->o;
    int first = w * 32;
    char who[40], where[160];
    switch (in->sub) {
    case CP_COMMIT:
        FOR_LANES(exec, l)
            X.committed[first + (int)l]++;
        return 0;
    case CP_WAIT: /* all but the N newest committed groups */
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            land_copies(t, (int64_t)X.committed[t] - (int64_t)val(&o[0], T_U32, t), 0);
        }
        return 0;
    case CP_WAIT_ALL:
        FOR_LANES(exec, l)
            land_copies(first + (int)l, 0, 1);
        return 0;
    }
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t dst = address_of(&o[0], t), src = address_of(&o[1], t);
        int bytes = (int)val(&o[2], T_U32, t), from = in->nops > 3 ? (int)val(&o[3], T_U32, t) : bytes;
        for (int k = 0; k < 2; k++)
            if (o[k].reg >= 0 && (*mark(o[k].reg, w) >> l & 1))
                value_used(i, t, "uses as an address");
        thread_name(t, who, sizeof who);
        ptx_where(i, where, sizeof where);
        if (bytes != 4 && bytes != 8 && bytes != 16)
            return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s copies %d bytes with cp.async (%s): 4, 8 or 16",
                        blockIdx.x, blockIdx.y, who, bytes, where);
        if (from < 0 || from > bytes)
            return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s asks cp.async (%s) to read %d of its %d bytes",
                        blockIdx.x, blockIdx.y, who, where, from, bytes);
        if (dst % (uint64_t)bytes || src % (uint64_t)bytes)
            return fail(EMU_MISALIGNED,
                        "block (%u,%u): %s copies %d bytes with cp.async (%s) %s an address not a multiple of %d",
                        blockIdx.x, blockIdx.y, who, bytes, where, dst % (uint64_t)bytes ? "to" : "from", bytes);
        if (strstr(in->text, ".cg") && bytes != 16)
            return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s copies %d bytes with cp.async.cg (%s): .cg copies 16",
                        blockIdx.x, blockIdx.y, who, bytes, where);
        size_t off;
        int land_at;
        unsigned char *d = locate(i, t, S_SHARED, dst, bytes, 1, &land_at, &off);
        if (!d)
            return EMU_OUT_OF_BOUNDS;
        const unsigned char *p = NULL;
        if (from > 0) {
            p = (const unsigned char *)(uintptr_t)src;
            if (touches_window(p, (uint64_t)from, X.shared, X.shared_bytes) ||
                touches_window(p, (uint64_t)from, X.local, X.local_bytes * (size_t)X.threads))
                return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s copies with cp.async (%s) from shared or local "
                            "memory: its source must be global memory", blockIdx.x, blockIdx.y, who, where);
            if (!(p = locate(i, t, S_GLOBAL, src, from, 0, &land_at, &off)))
                return EMU_OUT_OF_BOUNDS;
            /* checked (and a wild read stopped) before it is made, with no alignment of its own */
            emu_trace_switch_to(t, X.epoch[t], (const char *)local_of(t), (const char *)local_of(t) + X.local_bytes);
            emu_trace_read_bytes(p, (uint32_t)from, (uintptr_t)i + 1);
            if (X.counting && W.n[1] < 32)
                W.lanes[1][W.n[1]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)from, (int)l};
        }
        /* In flight from now: the words are the copy's (a write another thread's read between the
         * same barriers races with) and hold nothing yet. */
        emu_trace_shared_access(t, X.epoch[t], d, (uint32_t)bytes, 1, (uintptr_t)i + 1);
        /* its shared side a store of its width (Nsight Compute's LDGSTS wavefronts: bank conflicts
         * as an st.shared's) */
        if (X.counting && W.n[0] < 32)
            W.lanes[0][W.n[0]++] = (struct emu_lane_access){(uintptr_t)d, (uint32_t)bytes, (int)l};
        memset(X.shared_state + dst, UNSET, (size_t)bytes);
        if (X.ncopies[t] == MAX_COPIES)
            return fail(EMU_BAD_LAUNCH,
                        "block (%u,%u): %s has %d cp.async copies in flight at %s, more than the interpreter holds: a "
                        "cp.async.wait_group missing from a loop?", blockIdx.x, blockIdx.y, who, MAX_COPIES, where);
        X.copies[t][X.ncopies[t]++] =
            (struct pending_copy){p, (uint32_t)dst, X.committed[t], (uint8_t)bytes, (uint8_t)from, i};
        X.copies_pending++;
        X.copy_bytes[t] += (uint32_t)bytes;
    }
    int stores = W.n[0]; /* the global side priced as a load, then the shared side as a store */
    W.n[0] = 0;
    price_warp(i, 0, 0);
    W.n[0] = stores;
    price_warp(i, 1, 0);
    return 0;
}

/* ---- the tensor cores: ldmatrix and mma.sync (PTX ISA, "Warp-level matrix instructions") ----
 * Each runs for the 32 lanes of a full warp at once: step() runs it so when they are all there,
 * resolve() when they came apart and have all arrived. */

/* The registers of a vector operand (or of a lone register). */
static int regs_of(const struct ptx_operand *o, int *r)
{
    if (o->kind == K_VEC) {
        for (int e = 0; e < o->nvec; e++)
            r[e] = o->vec[e];
        return o->nvec;
    }
    r[0] = o->kind == K_REG ? o->reg : -1;
    return 1;
}

/* ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 {d...}, [a]: N 8x8 matrices of 16-bit
 * elements, matrix j's eight rows of 16 bytes at the addresses of lanes 8j .. 8j+7. Lane L gets
 * in d[j] row L/4's elements 2(L%4) and 2(L%4)+1 (with .trans, column L/4's); the low half first.
 * Priced as one shared load of 16 bytes a lane: each matrix is one phase of 8 rows, so rows
 * whose 16 bytes fall in the same banks conflict (a row-major tile with 128-byte rows: 8-way). */
static int ldmatrix(const struct ptx_insn *in, int i, int w)
{
    int first = w * 32, nmat = in->vec, dst[4];
    if (regs_of(&in->o[0], dst) != nmat)
        return fail(EMU_BAD_LAUNCH, "%s: %d matrices into %d registers", in->text, nmat, in->o[0].nvec);
    uint16_t row[32][8];
    int marked[32][8], land;
    for (int l = 0; l < 8 * nmat; l++) {
        int t = first + l;
        uint64_t at = address_of(&in->o[1], t);
        char who[40], where[160];
        if (in->o[1].reg >= 0 && (*mark(in->o[1].reg, w) >> l & 1))
            value_used(i, t, "uses as an address");
        if (at % 16)
            return fail(EMU_MISALIGNED,
                        "block (%u,%u): %s gives %s (%s) a row at shared byte %llu, not a multiple of 16: each "
                        "lane's row of 8 halves must be 16-byte aligned",
                        blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), in->text,
                        ptx_where(i, where, sizeof where), (unsigned long long)at);
        if (load(i, t, S_SHARED, at, 2, 8, row[l], marked[l], &land) != 0)
            return EMU_OUT_OF_BOUNDS; /* (as ld's: locate said which) */
    }
    price_warp(i, 0, 0);
    for (int j = 0; j < nmat; j++) {
        uint32_t mk = 0;
        for (int l = 0; l < 32; l++) {
            int r0 = 8 * j + l / 4, c0 = 2 * (l % 4), lo_r = r0, lo_c = c0, hi_r = r0, hi_c = c0 + 1;
            if (in->flags & F_TRANS) /* element (2(L%4) + h, L/4) */
                lo_r = 8 * j + c0, hi_r = 8 * j + c0 + 1, lo_c = hi_c = l / 4;
            if (dst[j] >= 0)
                *reg(dst[j], first + l) = (uint64_t)row[lo_r][lo_c] | (uint64_t)row[hi_r][hi_c] << 16;
            if (marked[lo_r][lo_c] || marked[hi_r][hi_c])
                mk |= 1u << l;
        }
        if (dst[j] >= 0)
            set_marks(dst[j], w, ~0u, mk);
    }
    return 0;
}

/* mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}:
 * D (16x8) = A (16x16) B (16x8) + C, the fragments spread over the warp as the PTX ISA lays
 * them out (g = lane / 4, q = lane % 4): A's halves a0..a7 at rows g (a0, a1, a4, a5) or g + 8,
 * columns 2q + (i & 1), 8 more for a4..a7; B's b0..b3 at rows 2q + (i & 1), 8 more for b2, b3,
 * column g; C and D's four at rows g (c0, c1) or g + 8, columns 2q + (i & 1). Each element
 * summed as the tensor cores sum it (ptx_tensor_dot16). */
static int mma(const struct ptx_insn *in, int w)
{
    int first = w * 32, d[4], a[4], b[4], c[4];
    if (regs_of(&in->o[0], d) != 4 || regs_of(&in->o[1], a) != 4 || regs_of(&in->o[2], b) != 2 ||
        regs_of(&in->o[3], c) != 4)
        return fail(EMU_BAD_LAUNCH, "%s: the operands are not {4}, {4}, {2}, {4} registers", in->text);
    float A[16][16], B[16][8], C[16][8];
    uint8_t mA[16][16] = {{0}}, mB[16][8] = {{0}}, mC[16][8] = {{0}};
    for (int l = 0; l < 32; l++) {
        int t = first + l, g = l / 4, q = l % 4;
        for (int e = 0; e < 8; e++) {
            int r = a[e / 2], m = e < 2 || (e >= 4 && e < 6) ? g : g + 8, k = 2 * q + (e & 1) + (e >= 4 ? 8 : 0);
            uint32_t bits = r >= 0 ? (uint32_t)*reg(r, t) : 0;
            A[m][k] = half_to_float((uint16_t)(bits >> (16 * (e & 1))));
            mA[m][k] = r >= 0 && (*mark(r, w) >> l & 1);
        }
        for (int e = 0; e < 4; e++) {
            int r = b[e / 2], k = 2 * q + (e & 1) + (e >= 2 ? 8 : 0);
            uint32_t bits = r >= 0 ? (uint32_t)*reg(r, t) : 0;
            B[k][g] = half_to_float((uint16_t)(bits >> (16 * (e & 1))));
            mB[k][g] = r >= 0 && (*mark(r, w) >> l & 1);
            int m = e < 2 ? g : g + 8, n = 2 * q + (e & 1);
            C[m][n] = c[e] >= 0 ? as_f(*reg(c[e], t)) : 0.0f;
            mC[m][n] = c[e] >= 0 && (*mark(c[e], w) >> l & 1);
        }
    }
    uint32_t mk[4] = {0}, D[16][8];
    ptx_tensor_mma(A, B, C, D); /* every input read above before any output is written */
    for (int l = 0; l < 32; l++) {
        int t = first + l, g = l / 4, q = l % 4;
        for (int e = 0; e < 4; e++) {
            int m = e < 2 ? g : g + 8, n = 2 * q + (e & 1), marked = mC[m][n];
            for (int k = 0; k < 16; k++)
                marked |= mA[m][k] | mB[k][n];
            if (d[e] >= 0)
                *reg(d[e], t) = D[m][n];
            mk[e] |= (uint32_t)marked << l;
        }
    }
    for (int e = 0; e < 4; e++)
        if (d[e] >= 0)
            set_marks(d[e], w, ~0u, mk[e]);
    emu_trace_mma();
    return 0;
}

/* bar.sync a{, b} (and bar.red's a, b): barrier a of 16, for b threads counted by warps (32 for
 * each that arrives). The emulator runs whole-block barriers alone (its race check orders a block's
 * threads by barriers they all reach): b, where given, must be the block's warps times 32. */
static int whole_block_barrier(const struct ptx_insn *in, int i, int w, uint32_t exec)
{
    int red = in->sub >= BAR_RED_POPC, counted = in->nops == (red ? 4 : 2), whole = X.warps * 32;
    char who[40], where[160];
    FOR_LANES(exec, l) {
        int t = w * 32 + (int)l;
        uint64_t id = val(&in->o[red], T_U32, t) & 0xffffffffu;
        uint64_t count = counted ? val(&in->o[red + 1], T_U32, t) & 0xffffffffu : (uint64_t)whole;
        if (id <= 15 && count == (uint64_t)whole)
            continue;
        thread_name(t, who, sizeof who);
        ptx_where(i, where, sizeof where);
        if (id > 15)
            return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s waits at barrier %llu (%s): a block has barriers 0 to 15",
                        blockIdx.x, blockIdx.y, who, (unsigned long long)id, where);
        return fail(EMU_BAD_LAUNCH,
                    "block (%u,%u): %s waits at barrier %llu for %llu threads (%s), where the block has %d in %d "
                    "warps: a barrier for some of a block's warps (a named barrier with a thread count) is not "
                    "something the emulator runs, since its race check orders a block's threads by barriers they "
                    "all reach; use __syncthreads()",
                    blockIdx.x, blockIdx.y, who, (unsigned long long)id, (unsigned long long)count, where, X.threads,
                    X.warps);
    }
    return 0;
}

/* The unit that runs an instruction (enum issue_kind, counts.h). */
static int issue_kind(const struct ptx_insn *in)
{
    int sp = in->space == S_GENERIC || in->space == S_NONE ? S_GLOBAL : in->space;
    switch (in->op) {
    case OP_LD: case OP_ST: case OP_ATOM: case OP_RED:
        return sp == S_SHARED ? ISSUE_SHARED : sp == S_LOCAL ? ISSUE_LOCAL
               : sp == S_PARAM || sp == S_CONST ? ISSUE_INTEGER : ISSUE_GLOBAL;
    case OP_LDMATRIX:
        return ISSUE_SHARED;
    case OP_CP_ASYNC:
        return in->sub == CP_COPY ? ISSUE_GLOBAL : ISSUE_CONTROL;
    case OP_MMA:
        return ISSUE_TENSOR;
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_ACTIVEMASK:
        return ISSUE_WARP;
    case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH:
        return ISSUE_SPECIAL;
    case OP_BRA: case OP_RET: case OP_EXIT: case OP_BAR: case OP_BAR_WARP: case OP_MEMBAR: case OP_CALL:
    case OP_NANOSLEEP: case OP_TRAP: case OP_PMEVENT:
        return ISSUE_CONTROL;
    case OP_MOV: case OP_CVTA: case OP_CVT: case OP_SELP:
        return ISSUE_INTEGER;
    default:
        return is_f(in->type) ? ISSUE_FLOAT : ISSUE_INTEGER;
    }
}

/* What step does with an instruction, by its class: each handler runs in's effect for the lanes
 * in exec (those of active whose guard holds). It returns 0 when every active lane goes on to the
 * next instruction, PC_MOVED when it has moved or parked the lanes itself (a branch, an exit, a
 * barrier, a warp-wide instruction waiting for its warp), else an EMU_* code. */
struct step {
    const struct ptx_insn *in;
    int i, w;
    uint32_t active, exec;
};
enum { PC_MOVED = -1 };
/* A handler's names for its step, those the cases of step's one switch used to share (each
 * handler uses some). */
#define STEP_NAMES(s)                                                                                             \
    const struct ptx_insn *const in __attribute__((unused)) = (s)->in;                                            \
    const struct ptx_operand *const o __attribute__((unused)) = (s)->in->o;                                       \
    const int i __attribute__((unused)) = (s)->i, w __attribute__((unused)) = (s)->w,                             \
              first __attribute__((unused)) = (s)->w * 32, ty __attribute__((unused)) = (s)->in->type;            \
    const uint32_t active __attribute__((unused)) = (s)->active;                                                  \
    uint32_t exec __attribute__((unused)) = (s)->exec; /* (a load, store or atomic narrows it to the lanes set) */ \
    char who[40] __attribute__((unused)), where[160] __attribute__((unused))

static int exec_mov(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    if (o[0].kind == K_VEC) { /* unpack: mov.b64 {a,b}, x */
        int parts = o[0].nvec, bits = width(ty) / parts;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t v = val(&o[1], ty, t);
            for (int e = 0; e < parts; e++)
                if (o[0].vec[e] >= 0)
                    *reg(o[0].vec[e], t) = bits == 64 ? v : (v >> (e * bits)) & ((1ull << bits) - 1);
        }
        for (int e = 0; e < parts; e++)
            if (o[0].vec[e] >= 0)
                set_marks(o[0].vec[e], w, exec, mk);
        return 0;
    }
    if (o[1].kind == K_VEC) { /* pack: mov.b64 x, {a,b} */
        int parts = o[1].nvec, bits = width(ty) / parts;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t v = 0;
            for (int e = 0; e < parts; e++)
                if (o[1].vec[e] >= 0)
                    v |= (*reg(o[1].vec[e], t) & (bits == 64 ? ~0ull : (1ull << bits) - 1)) << (e * bits);
            put(o[0].reg, first + (int)l, v, ty);
        }
        set_marks(o[0].reg, w, exec, mk);
        return 0;
    }
    FOR_LANES(exec, l)
        put(o[0].reg, first + (int)l, val(&o[1], ty, first + (int)l), ty);
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

/* one value per lane, converted: an address (cvta) or a number */
static int exec_convert(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        if (in->op == OP_CVTA)
            put(o[0].reg, t, cvta(in, t, val(&o[1], T_U64, t)), ty == T_U32 ? T_U32 : T_U64);
        else
            put(o[0].reg, t, ptx_convert(in, val(&o[1], in->type2, t)), ty);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_load(const struct step *s)
{
    STEP_NAMES(s);
    int size = ptx_type_bytes(ty), n = in->vec;
    uint32_t am = marked_addresses(i, w, &o[1], &exec);
    if (!am && ((in->space == S_SHARED && load_shared(in, i, w, exec)) ||
                (in->space == S_GLOBAL && load_inputs(in, w, exec))))
        return 0;
    uint32_t marked[4] = {0};
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = address_of(&o[1], t);
        unsigned char buf[32] = {0};
        int mk[4], land;
        if (load(i, t, in->space, a, size, n, buf, mk, &land))
            return EMU_OUT_OF_BOUNDS;
        if (X.counting && land == IN_GLOBAL)
            issue_load(t, o, size * n);
        for (int e = 0; e < n; e++)
            marked[e] |= (uint32_t)mk[e] << l;
        for (int e = 0; e < n; e++) {
            uint64_t v = 0;
            memcpy(&v, buf + e * size, (size_t)size);
            int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
            if (r >= 0) /* a narrow load widens into its register by its own type */
                *reg(r, t) = ptx_type_signed(ty) ? extend(v, ty) : v;
        }
    }
    for (int e = 0; e < n; e++) {
        int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
        if (r >= 0)
            set_marks(r, w, exec | am, marked[e] | am);
    }
    price_warp(i, 0, 0);
    return 0;
}

static int exec_store(const struct step *s)
{
    STEP_NAMES(s);
    int size = ptx_type_bytes(ty), n = in->vec;
    uint32_t am = marked_addresses(i, w, &o[0], &exec);
    uint32_t vm = marks_of(in, 1, w, exec);
    if (in->space == S_SHARED && !am && store_shared(in, i, w, exec, vm))
        return 0;
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = address_of(&o[0], t);
        unsigned char buf[32];
        for (int e = 0; e < n; e++) {
            uint64_t v = o[1].kind == K_VEC ? (o[1].vec[e] >= 0 ? *reg(o[1].vec[e], t) : 0) : val(&o[1], ty, t);
            memcpy(buf + e * size, &v, (size_t)size);
        }
        if (store(i, t, in->space, a, size * n, buf, (vm >> l) & 1))
            return EMU_OUT_OF_BOUNDS;
    }
    price_warp(i, 1, 0);
    return 0;
}

static int exec_binary(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    /* The address arithmetic of every kernel, done without the general path: 32- and 64-bit
     * add, sub, and, or, xor, shl and mul.lo. */
    int bytes = ptx_type_bytes(ty);
    if (!is_f(ty) && ty != T_PRED && (bytes == 4 || bytes == 8) && !(in->flags & (F_WIDE | F_HI | F_SAT)) &&
        (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_AND || in->op == OP_OR || in->op == OP_XOR ||
         in->op == OP_SHL || in->op == OP_MUL)) {
        uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], in->op == OP_SHL ? T_U32 : ty, t), r;
            switch (in->op) {
            case OP_ADD: r = a + b; break;
            case OP_SUB: r = a - b; break;
            case OP_AND: r = a & b; break;
            case OP_OR: r = a | b; break;
            case OP_XOR: r = a ^ b; break;
            case OP_MUL: r = a * b; break;
            default: r = (b & 0xffffffffu) >= (uint64_t)(8 * bytes) ? 0 : a << (b & 0xffffffffu);
            }
            r &= mask;
            *reg(o[0].reg, t) = ptx_type_signed(ty) && bytes == 4 ? (uint64_t)(int64_t)(int32_t)r : r;
        }
        set_marks(o[0].reg, w, exec, mk);
        return 0;
    }
    int dty = (in->flags & F_WIDE) ? (ty == T_S32 ? T_S64 : ty == T_U32 ? T_U64 : ty == T_S16 ? T_S32 : T_U32) : ty;
    if (ty == T_PRED) {
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t) & 1, b = val(&o[2], ty, t) & 1;
            put(o[0].reg, t, in->op == OP_AND ? (a & b) : in->op == OP_OR ? (a | b) : (a ^ b), T_PRED);
        }
    } else if (is_f(ty)) {
        uint64_t sign = ty == T_F32 ? 0x80000000u : 0x8000000000000000ull;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t);
            if (in->op == OP_COPYSIGN) { /* bits moved, never a value: a signalling NaN stays one */
                put(o[0].reg, t, (b & ~sign) | (a & sign), ty);
                continue;
            }
            uint64_t r = gpu_nan(fput(ptx_float_binary(in, fval(a, ty), fval(b, ty)), ty), ty);
            if (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL)
                r = nan_operand(ty, r, b, a, a);
            put(o[0].reg, t, r, ty);
        }
    } else {
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            int sty = in->op == OP_SHL || in->op == OP_SHR ? T_U32 : ty;
            uint64_t b = val(&o[2], sty, t);
            if (in->op == OP_MUL24) {
                put(o[0].reg, t, ptx_mul24(val(&o[1], ty, t), b, ty, in->flags & F_HI), ty);
                continue;
            }
            put(o[0].reg, t, ptx_int_binary(in->op, in->flags, ty, val(&o[1], ty, t), b), dty);
        }
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_fused(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    if (is_f(ty)) {
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t), c = val(&o[3], ty, t);
            uint64_t r = gpu_nan(fput(ptx_float_fma(in, fval(a, ty), fval(b, ty), fval(c, ty)), ty), ty);
            put(o[0].reg, t, nan_operand(ty, r, b, c, a), ty);
        }
    } else {
        int dty = (in->flags & F_WIDE) ? (ty == T_S32 ? T_S64 : ty == T_U32 ? T_U64 : ty == T_S16 ? T_S32 : T_U32) : ty;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t);
            uint64_t p = in->op == OP_MAD24 ? ptx_mul24(a, b, ty, in->flags & F_HI) : ptx_int_binary(OP_MUL, in->flags, ty, a, b);
            if (in->flags & F_SAT) /* mad.hi.sat.s32: the high half plus c, clamped to s32 */
                p = ptx_int_binary(OP_ADD, F_SAT, T_S32, p, val(&o[3], dty, t)), put(o[0].reg, t, p, dty);
            else
                put(o[0].reg, t, p + val(&o[3], dty, t), dty);
        }
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

/* (the .approx functions, rsqrt, ex2 and the like, are refused when the PTX is read) */
static int exec_unary(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = val(&o[1], ty, t), r = 0;
        if (is_f(ty)) {
            double x = ptx_flush(in, fval(a, ty)), y;
            int f32 = ty == T_F32, fop = in->op == OP_RCP ? FOP_RCP : FOP_SQRT;
            if (in->op == OP_RCP || in->op == OP_SQRT)
                y = ptx_directed(in->rnd) ? ptx_fop(fop, in->rnd, f32, x, 0, 0)
                    : in->op == OP_RCP    ? (f32 ? (double)(1.0f / (float)x) : 1.0 / x)
                    : f32                 ? (double)sqrtf((float)x)
                                          : sqrt(x);
            else
                y = x;
            if (f32 && (in->flags & F_FTZ))
                a = fput(x, ty); /* flushed (else the bits as they are: a NaN's payload kept) */
            if (in->op == OP_NEG || in->op == OP_ABS) /* the sign bit only; a NaN keeps its sign */
                r = nan_bits(a, ty) ? gpu_nan(a, ty)
                    : in->op == OP_NEG ? a ^ (f32 ? 0x80000000u : 0x8000000000000000ull)
                                       : a & (f32 ? 0x7fffffffu : 0x7fffffffffffffffull);
            else
                r = gpu_nan(fput(ptx_flush(in, y), ty), ty);
        } else {
            int wd = width(ty);
            uint64_t x = extend(a, ty);
            switch (in->op) {
            case OP_NEG: r = (uint64_t)(-(int64_t)x); break;
            case OP_ABS: r = (int64_t)x < 0 ? (uint64_t)(-(int64_t)x) : x; break;
            case OP_NOT: r = ty == T_PRED ? !(x & 1) : ~x; break;
            case OP_CNOT: r = x == 0; break;
            case OP_POPC: r = (uint64_t)__builtin_popcountll(wd == 64 ? x : x & ((1ull << wd) - 1)); break;
            case OP_CLZ: {
                uint64_t y = wd == 64 ? x : x & ((1ull << wd) - 1);
                r = y ? (uint64_t)(__builtin_clzll(y) - (64 - wd)) : (uint64_t)wd;
                break;
            }
            case OP_BREV: {
                uint64_t y = 0;
                for (int b2 = 0; b2 < wd; b2++)
                    y |= ((x >> b2) & 1) << (wd - 1 - b2);
                r = y;
                break;
            }
            default: r = x;
            }
        }
        put(o[0].reg, t, r, in->op == OP_POPC || in->op == OP_CLZ ? T_U32 : ty);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_bits(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        int wd = width(ty);
        uint64_t r = 0;
        if (in->op == OP_BFE) {
            /* pos and len: 8 bits of each at 32 bits (the hardware's BFE), all 32 at 64 (the
             * H200's, conformance record) */
            uint64_t a = extend(val(&o[1], ty, t), ty), keep = wd == 64 ? 0xffffffffu : 0xff;
            uint64_t pos = val(&o[2], T_U32, t) & keep, len = val(&o[3], T_U32, t) & keep;
            uint64_t msb = pos + len - 1 < (uint64_t)wd ? pos + len - 1 : (uint64_t)wd - 1;
            uint64_t sbit = ptx_type_signed(ty) && len ? (a >> msb) & 1 : 0;
            for (uint64_t b2 = 0; b2 < (uint64_t)wd; b2++)
                r |= (b2 < len && pos + b2 < (uint64_t)wd ? (a >> (pos + b2)) & 1 : sbit) << b2;
        } else if (in->op == OP_BFI) {
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t);
            uint64_t keep = wd == 64 ? 0xffffffffu : 0xff; /* as bfe's */
            uint64_t pos = val(&o[3], T_U32, t) & keep, len = val(&o[4], T_U32, t) & keep;
            r = b;
            for (uint64_t b2 = 0; b2 < len && pos + b2 < (uint64_t)wd; b2++)
                r = (r & ~(1ull << (pos + b2))) | (((a >> b2) & 1) << (pos + b2));
        } else if (in->op == OP_BFIND) {
            uint64_t a = extend(val(&o[1], ty, t), ty);
            if (ptx_type_signed(ty) && (int64_t)a < 0)
                a = ~a;
            if (wd < 64)
                a &= (1ull << wd) - 1;
            r = a ? (uint64_t)(63 - __builtin_clzll(a)) : 0xffffffffu;
            if ((in->flags & F_SHIFTAMT) && a) /* __ffs's way: the shift that brings that bit to the top */
                r = (uint64_t)(wd - 1) - r;
        } else if (in->op == OP_PRMT) {
            uint64_t a = val(&o[1], T_B32, t) & 0xffffffffu, b = val(&o[2], T_B32, t) & 0xffffffffu,
                     c = val(&o[3], T_B32, t);
            uint64_t bytes = a | (b << 32);
            for (int k2 = 0; k2 < 4; k2++) {
                unsigned sel = (unsigned)(c >> (4 * k2)) & 0xf;
                uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
                if (sel & 8)
                    byte = (byte & 0x80) ? 0xff : 0;
                r |= byte << (8 * k2);
            }
        } else if (in->op == OP_SAD) {
            int64_t a = (int64_t)extend(val(&o[1], ty, t), ty), b = (int64_t)extend(val(&o[2], ty, t), ty);
            uint64_t ua = val(&o[1], ty, t), ub = val(&o[2], ty, t);
            r = (ptx_type_signed(ty) ? (uint64_t)(a > b ? a - b : b - a) : (ua > ub ? ua - ub : ub - ua)) +
                val(&o[3], ty, t);
        } else { /* testp.finite/... : not modelled beyond finite and nan */
            double x = fval(val(&o[1], ty, t), ty);
            r = isfinite(x);
        }
        put(o[0].reg, t, r, in->op == OP_TESTP ? T_PRED : in->op == OP_BFIND ? T_U32 : ty);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_compare(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        /* set.CmpOp.dtype.stype compares stype's (type2); setp's type is the compared one */
        int cty = in->op == OP_SET ? in->type2 : ty;
        uint64_t x = val(&o[1], cty, t), y = val(&o[2], cty, t);
        if (cty == T_F32 && (in->flags & F_FTZ))
            x = of_f((float)ptx_ftz(as_f(x))), y = of_f((float)ptx_ftz(as_f(y)));
        int cmp = ptx_compare(in->cmp, cty, x, y), r = cmp, q = !cmp;
        if (in->boolop) { /* p = cmp BoolOp c, q = !cmp BoolOp c */
            int c = (int)(val(&o[3], T_PRED, t) & 1);
            r = in->boolop == B_AND ? r && c : in->boolop == B_OR ? r || c : r != c;
            q = in->boolop == B_AND ? q && c : in->boolop == B_OR ? q || c : q != c;
        }
        if (in->op == OP_SET) {
            put(o[0].reg, t, in->type == T_F32 ? (r ? of_f(1.0f) : 0) : (r ? 0xffffffffu : 0), T_B32);
            continue;
        }
        if (o[0].kind == K_VEC) {
            put(o[0].vec[0], t, (uint64_t)r, T_PRED);
            put(o[0].vec[1], t, (uint64_t)q, T_PRED);
        } else
            put(o[0].reg, t, (uint64_t)r, T_PRED);
    }
    if (o[0].kind == K_VEC) {
        set_marks(o[0].vec[0], w, exec, mk);
        set_marks(o[0].vec[1], w, exec, mk);
    } else
        set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_select(const struct step *s)
{
    STEP_NAMES(s);
    /* the mark of the operand chosen (and of the choice), not of the one dropped */
    uint32_t m1 = o[1].kind == K_REG ? *mark(o[1].reg, w) : 0, m2 = o[2].kind == K_REG ? *mark(o[2].reg, w) : 0,
             mp = o[3].kind == K_REG ? *mark(o[3].reg, w) : 0, mk = 0;
    FOR_LANES(exec, l) {
        int t = first + (int)l, pick = (int)(val(&o[3], T_PRED, t) & 1);
        put(o[0].reg, t, pick ? val(&o[1], ty, t) : val(&o[2], ty, t), ty);
        mk |= ((pick ? m1 : m2) | mp) & (1u << l);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_branch(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        X.pc[first + (int)l] = o[0].reg;
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED;
}

static int exec_exit(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        X.state[first + (int)l] = EXITED;
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED;
}

static int exec_trap(const struct step *s)
{
    STEP_NAMES(s);
    if (exec)
        return fail(EMU_BAD_LAUNCH, "block (%u,%u): %s executes a trap (%s): an assert that failed?", blockIdx.x,
                    blockIdx.y, thread_name(first + __builtin_ctz(exec), who, sizeof who),
                    ptx_where(i, where, sizeof where));
    return 0;
}

/* membar, nanosleep, pmevent: nothing to model */
static int exec_nothing(const struct step *s)
{
    (void)s;
    return 0;
}

static int exec_barrier(const struct step *s)
{
    STEP_NAMES(s);
    int rc = whole_block_barrier(in, i, w, exec);
    if (rc)
        return rc;
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        X.state[t] = AT_BARRIER;
        X.vote[t] = in->sub >= BAR_RED_POPC ? (int)(val(&o[in->nops - 1], T_PRED, t) & 1) : 0;
        emu_trace_barrier();
    }
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED; /* pc moves on when the barrier releases */
}

static int exec_warp_wide(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        X.state[first + (int)l] = AT_WARP;
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED; /* completed with the warp's other lanes (resolve) */
}

static int exec_activemask(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        put(o[0].reg, first + (int)l, active, T_B32);
    set_marks(o[0].reg, w, exec, 0);
    return 0;
}

static int exec_atomic(const struct step *s)
{
    STEP_NAMES(s);
    int size = ptx_type_bytes(ty);
    const struct ptx_operand *addr = in->op == OP_ATOM ? &o[1] : &o[0];
    int vi = in->op == OP_ATOM ? 2 : 1;
    marked_addresses(i, w, addr, &exec);
    uint32_t vm = marks_of(in, vi, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = address_of(addr, t);
        size_t off;
        int land;
        unsigned char *p = locate(i, t, in->space, a, size, 1, &land, &off);
        if (!p)
            return EMU_OUT_OF_BOUNDS;
        emu_trace_switch_to(t, X.epoch[t], (const char *)local_of(t), (const char *)local_of(t) + X.local_bytes);
        emu_trace_atomic_access(p, (uint32_t)size, (uintptr_t)i + 1);
        int g = land == IN_GLOBAL;
        if (X.counting && (land == IN_SHARED || land == IN_GLOBAL) && W.n[g] < 32)
            W.lanes[g][W.n[g]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)size, (int)l};
        uint64_t old = 0, v = val(&o[vi], ty, t), next;
        memcpy(&old, p, (size_t)size);
        if (is_f(ty)) {
            /* The H200's adds (conformance record): in global memory, f32 flushes subnormal
             * operands and result, and f64 with a NaN gives the operand's NaN, else the word's,
             * bits unchanged (a signalling NaN stays one); in shared memory, no flushing, and
             * the word's NaN, else the operand's, quieted */
            int add = in->sub == ATOM_ADD, ftz = add && ty == T_F32 && land == IN_GLOBAL;
            double x = ftz ? ptx_ftz(fval(old, ty)) : fval(old, ty), y = ftz ? ptx_ftz(fval(v, ty)) : fval(v, ty);
            double rr = add ? x + y : in->sub == ATOM_MIN ? fmin(x, y) : in->sub == ATOM_MAX ? fmax(x, y) : y;
            next = gpu_nan(fput(ftz ? ptx_ftz(rr) : rr, ty), ty);
            if (add && ty == T_F64 && land == IN_GLOBAL && (isnan(x) || isnan(y)))
                next = isnan(y) ? v : old;
            else if (add)
                next = nan_operand(ty, next, old, v, v);
        } else {
            uint64_t mask = size == 8 ? ~0ull : 0xffffffffu;
            int64_t so = (int64_t)extend(old, ty), sv = (int64_t)extend(v, ty);
            int s = ptx_type_signed(ty);
            switch (in->sub) {
            case ATOM_ADD: next = old + v; break;
            case ATOM_MIN: next = s ? (sv < so ? v : old) : ((v & mask) < (old & mask) ? v : old); break;
            case ATOM_MAX: next = s ? (sv > so ? v : old) : ((v & mask) > (old & mask) ? v : old); break;
            case ATOM_AND: next = old & v; break;
            case ATOM_OR: next = old | v; break;
            case ATOM_XOR: next = old ^ v; break;
            case ATOM_INC: next = (old & mask) >= (v & mask) ? 0 : old + 1; break;
            case ATOM_DEC: next = (old & mask) == 0 || (old & mask) > (v & mask) ? v : old - 1; break;
            case ATOM_CAS: next = (old & mask) == (v & mask) ? val(&o[vi + 1], ty, t) : old; break;
            default: next = v;
            }
            next &= mask;
        }
        int was_marked = 0;
        if (off != (size_t)-1) {
            for (int b2 = 0; b2 < size; b2++)
                was_marked |= X.shared_state[off + (size_t)b2] != SET;
            /* an atomic on a word nobody wrote starts from garbage: the old value is marked (an
             * exchange's new value owes the old nothing: atomicExch may set a word first) */
            memset(X.shared_state + off, ((vm >> l) & 1) || (was_marked && in->sub != ATOM_EXCH) ? MARKED : SET,
                   (size_t)size);
        } else if ((vm >> l) & 1)
            value_used(i, t, "adds into global memory");
        memcpy(p, &next, (size_t)size);
        if (in->op == OP_ATOM) {
            put(o[0].reg, t, old, ty);
            if (was_marked)
                *mark(o[0].reg, w) |= 1u << l;
            else
                *mark(o[0].reg, w) &= ~(1u << l);
        }
    }
    price_warp(i, 1, 1);
    return 0;
}

static int exec_cp_async(const struct step *s)
{
    STEP_NAMES(s);
    int rc = cp_async(in, i, w, exec);
    if (rc)
        return rc;
    return 0;
}

static int exec_tensor(const struct step *s)
{
    STEP_NAMES(s);
    /* The whole warp here together: at once; else its lanes meet as at a shuffle (resolve),
     * the warp's 32 lanes for a mask. */
    if (exec != ~0u || X.threads - first < 32) {
        FOR_LANES(exec, l)
            X.state[first + (int)l] = AT_WARP;
        FOR_LANES(active & ~exec, l)
            X.pc[first + (int)l]++;
        return PC_MOVED;
    }
    int rc = in->op == OP_LDMATRIX ? ldmatrix(in, i, w) : mma(in, w);
    if (rc)
        return rc;
    return 0;
}

static int exec_call(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l) {
        int rc = print(i, first + (int)l);
        if (rc)
            return rc;
    }
    return 0;
}

static int (*const handlers[])(const struct step *) = {
    [OP_MOV] = exec_mov,
    [OP_CVTA] = exec_convert,
    [OP_CVT] = exec_convert,
    [OP_LD] = exec_load,
    [OP_ST] = exec_store,
    [OP_ADD] = exec_binary,
    [OP_SUB] = exec_binary,
    [OP_MUL] = exec_binary,
    [OP_DIV] = exec_binary,
    [OP_REM] = exec_binary,
    [OP_MIN] = exec_binary,
    [OP_MAX] = exec_binary,
    [OP_AND] = exec_binary,
    [OP_OR] = exec_binary,
    [OP_XOR] = exec_binary,
    [OP_SHL] = exec_binary,
    [OP_SHR] = exec_binary,
    [OP_COPYSIGN] = exec_binary,
    [OP_MUL24] = exec_binary,
    [OP_MAD] = exec_fused,
    [OP_FMA] = exec_fused,
    [OP_MAD24] = exec_fused,
    [OP_NEG] = exec_unary,
    [OP_ABS] = exec_unary,
    [OP_NOT] = exec_unary,
    [OP_CNOT] = exec_unary,
    [OP_RCP] = exec_unary,
    [OP_SQRT] = exec_unary,
    [OP_POPC] = exec_unary,
    [OP_CLZ] = exec_unary,
    [OP_BREV] = exec_unary,
    [OP_BFE] = exec_bits,
    [OP_BFI] = exec_bits,
    [OP_BFIND] = exec_bits,
    [OP_PRMT] = exec_bits,
    [OP_SAD] = exec_bits,
    [OP_TESTP] = exec_bits,
    [OP_SETP] = exec_compare,
    [OP_SET] = exec_compare,
    [OP_SELP] = exec_select,
    [OP_BRA] = exec_branch,
    [OP_RET] = exec_exit,
    [OP_EXIT] = exec_exit,
    [OP_TRAP] = exec_trap,
    [OP_MEMBAR] = exec_nothing,
    [OP_NANOSLEEP] = exec_nothing,
    [OP_PMEVENT] = exec_nothing,
    [OP_BAR] = exec_barrier,
    [OP_BAR_WARP] = exec_warp_wide,
    [OP_SHFL] = exec_warp_wide,
    [OP_VOTE] = exec_warp_wide,
    [OP_MATCH] = exec_warp_wide,
    [OP_REDUX] = exec_warp_wide,
    [OP_ACTIVEMASK] = exec_activemask,
    [OP_ATOM] = exec_atomic,
    [OP_RED] = exec_atomic,
    [OP_CP_ASYNC] = exec_cp_async,
    [OP_LDMATRIX] = exec_tensor,
    [OP_MMA] = exec_tensor,
    [OP_CALL] = exec_call,
};

/* Executes instruction i for the lanes of `active` (all at i) of warp w: the guard, the counts,
 * then its class's handler. Returns 0, or an EMU_* code with X.error set. */
static int step(int w, int i, uint32_t active)
{
    const struct ptx_insn *in = &X.k->insns[i];
    int first = w * 32;
    uint32_t exec = active;
    X.running_insn = i;
    if (in->pred >= 0) {
        uint32_t on = 0;
        FOR_LANES(active, l) {
            int t = first + (int)l;
            if (((*reg(in->pred, t) & 1) != 0) != in->pred_neg)
                on |= 1u << l;
        }
        exec = on;
        uint32_t pm = *mark(in->pred, w) & active;
        if (pm && (in->op == OP_BRA || in->op == OP_ST || in->op == OP_ATOM || in->op == OP_RED || in->op == OP_RET ||
                   in->op == OP_EXIT))
            value_used(i, first + __builtin_ctz(pm), "decides a branch with");
    }
    if (X.counting) {
        follow_loads(in, i, w, active, exec);
        emu_trace_issue(issue_kind(in));
    }
    if ((in->op == OP_FMA || in->op == OP_MAD || in->op == OP_MUL) && is_f(in->type))
        emu_trace_core_multiplies((uint64_t)__builtin_popcount(exec));
    if (exec == ~0u && whole_warp(in, w)) {
        int *pc = &X.pc[first];
        for (int l = 0; l < 32; l++)
            pc[l]++;
        return 0;
    }
    const struct step s = {in, i, w, active, exec};
    int (*handler)(const struct step *) = (size_t)in->op < sizeof handlers / sizeof *handlers ? handlers[in->op] : NULL;
    if (!handler) {
        char where[160];
        return fail(EMU_BAD_LAUNCH, "the instruction %s (%s) is not one the interpreter runs yet", in->text,
                    ptx_where(i, where, sizeof where));
    }
    int rc = handler(&s);
    if (rc)
        return rc == PC_MOVED ? 0 : rc;
    FOR_LANES(active, l)
        X.pc[first + (int)l]++;
    return 0;
}

static const char *op_name(const struct ptx_insn *in)
{
    switch (in->op) {
    case OP_BAR_WARP: return "__syncwarp";
    case OP_SHFL:
        return in->sub == SHFL_UP ? "__shfl_up_sync" : in->sub == SHFL_DOWN ? "__shfl_down_sync"
               : in->sub == SHFL_BFLY ? "__shfl_xor_sync" : "__shfl_sync";
    case OP_VOTE:
        return in->sub == VOTE_BALLOT ? "__ballot_sync" : in->sub == VOTE_ALL ? "__all_sync"
               : in->sub == VOTE_ANY ? "__any_sync" : "__uni_sync";
    case OP_MATCH: return in->sub == MATCH_ALL ? "__match_all_sync" : "__match_any_sync";
    case OP_REDUX: return "__reduce_*_sync";
    default: return in->text;
    }
}

/* The mask operand of a warp operation (its last). */
static uint32_t op_mask(const struct ptx_insn *in, int t)
{
    if (in->op == OP_LDMATRIX || in->op == OP_MMA) /* .sync.aligned: the whole warp */
        return ~0u;
    return (uint32_t)val(&in->o[in->nops - 1], T_B32, t);
}

/* Completes the warp operation the lanes of `mask` (all waiting) meet at. */
static int complete(int w, uint32_t mask)
{
    int first = w * 32;
    char who[40], where[160];
    uint32_t value_marks = 0;
    int at = X.pc[first + __builtin_ctz(mask)];
    const struct ptx_insn *warp_in = &X.k->insns[at];
    if (warp_in->op == OP_LDMATRIX || warp_in->op == OP_MMA) { /* lanes that came apart, together again */
        int rc = warp_in->op == OP_LDMATRIX ? ldmatrix(warp_in, at, w) : mma(warp_in, w);
        if (rc)
            return X.warp_kind = rc, -1;
        FOR_LANES(mask, l) {
            X.state[first + (int)l] = READY;
            X.pc[first + (int)l]++;
        }
        return 0;
    }
    /* values read before any lane's result is written */
    uint64_t in_val[32];
    FOR_LANES(mask, l) {
        const struct ptx_insn *in = &X.k->insns[X.pc[first + (int)l]];
        in_val[l] = in->op == OP_BAR_WARP ? 0 : val(&in->o[1], in->op == OP_VOTE ? T_PRED : in->type, first + (int)l);
        if (in->op != OP_BAR_WARP && in->o[1].kind == K_REG)
            value_marks |= *mark(in->o[1].reg, w) & (1u << l);
    }
    uint32_t ballot = 0;
    FOR_LANES(mask, l)
        if (in_val[l] & 1)
            ballot |= 1u << l;
    FOR_LANES(mask, l) {
        int t = first + (int)l;
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        const struct ptx_operand *o = in->o;
        switch (in->op) {
        case OP_SHFL: {
            /* shfl.sync.MODE.b32 d[|p], a, b, c, mask: c packs the segment mask and the clamp */
            /* b's low 5 bits, the lane or the offset (the H200 ignores the rest: conformance record) */
            uint32_t b = (uint32_t)val(&o[2], T_U32, t) & 0x1f, c = (uint32_t)val(&o[3], T_U32, t);
            int lane = (int)l, max = (int)(c & 0x1f), seg = (int)((c >> 8) & 0x1f);
            int minl = lane & seg, maxl = minl | (max & ~seg), src = lane, ok;
            switch (in->sub) {
            case SHFL_UP: src = lane - (int)b; ok = src >= maxl; break;
            case SHFL_DOWN: src = lane + (int)b; ok = src <= maxl; break;
            case SHFL_BFLY: src = lane ^ (int)b; ok = src <= maxl; break;
            default: src = minl | ((int)b & ~seg); ok = src <= maxl; break;
            }
            if (!ok)
                src = lane;
            if (src < 0 || src > 31)
                src = lane, ok = 0;
            if (ok && !(mask >> src & 1)) {
                return fail(EMU_WARP_MISMATCH,
                            "block (%u,%u): %s reads lane %d with %s (%s), but lane %d is not in the mask 0x%08x: a "
                            "value from a lane that does not take part is undefined on a GPU",
                            blockIdx.x, blockIdx.y, thread_name(t, who, sizeof who), src, op_name(in),
                            ptx_where(X.pc[t], where, sizeof where), src, op_mask(in, t));
            }
            int dst = o[0].kind == K_VEC ? o[0].vec[0] : o[0].reg;
            put(dst, t, in_val[src], in->type);
            set_marks(dst, w, 1u << l, (value_marks >> src) & 1 ? 1u << l : 0);
            if (o[0].kind == K_VEC && o[0].vec[1] >= 0) {
                put(o[0].vec[1], t, (uint64_t)ok, T_PRED);
                set_marks(o[0].vec[1], w, 1u << l, 0);
            }
            break;
        }
        case OP_VOTE: {
            uint32_t m = op_mask(in, t) & mask;
            uint64_t r = in->sub == VOTE_BALLOT ? (ballot & m)
                         : in->sub == VOTE_ALL   ? ((ballot & m) == m)
                         : in->sub == VOTE_ANY   ? ((ballot & m) != 0)
                                                 : ((ballot & m) == 0 || (ballot & m) == m);
            put(o[0].reg, t, r, in->sub == VOTE_BALLOT ? T_B32 : T_PRED);
            set_marks(o[0].reg, w, 1u << l, value_marks & m ? 1u << l : 0);
            break;
        }
        case OP_MATCH: { /* match.any d, match.all d|p */
            uint32_t same = 0, m = op_mask(in, t) & mask;
            int dst = o[0].kind == K_VEC ? o[0].vec[0] : o[0].reg;
            FOR_LANES(m, k)
                if (in_val[k] == in_val[l])
                    same |= 1u << k;
            put(dst, t, in->sub == MATCH_ANY ? same : same == m ? m : 0, T_B32);
            set_marks(dst, w, 1u << l, value_marks & m ? 1u << l : 0);
            if (o[0].kind == K_VEC) {
                put(o[0].vec[1], t, (uint64_t)(same == m), T_PRED);
                set_marks(o[0].vec[1], w, 1u << l, value_marks & m ? 1u << l : 0);
            }
            break;
        }
        case OP_REDUX: {
            uint32_t m = op_mask(in, t) & mask;
            int s = ptx_type_signed(in->type);
            int64_t acc = 0;
            int started = 0;
            FOR_LANES(m, k) {
                int64_t v = s ? (int64_t)(int32_t)in_val[k] : (int64_t)(uint32_t)in_val[k];
                if (!started)
                    acc = v, started = 1;
                else if (in->sub == ATOM_ADD) acc += v;
                else if (in->sub == ATOM_MIN) acc = v < acc ? v : acc;
                else if (in->sub == ATOM_MAX) acc = v > acc ? v : acc;
                else if (in->sub == ATOM_AND) acc &= v;
                else if (in->sub == ATOM_OR) acc |= v;
                else acc ^= v;
            }
            put(o[0].reg, t, (uint64_t)acc, in->type);
            set_marks(o[0].reg, w, 1u << l, value_marks & m ? 1u << l : 0);
            break;
        }
        default: /* __syncwarp */
            break;
        }
    }
    FOR_LANES(mask, l) {
        int t = first + (int)l;
        X.state[t] = READY;
        X.pc[t]++;
        X.epoch[t]++;
    }
    return 0;
}

/* Completes every warp operation of warp w whose lanes have all arrived, when none of its lanes
 * can go on. A lane a mask names that returned, waits at a barrier or at another operation can
 * never arrive: an error. Returns how many completed, or -1 with X.error set. */
static int resolve(int w)
{
    int first = w * 32, lanes = X.threads - first < 32 ? X.threads - first : 32, completed = 0;
    char who[40], other[40], where[160], there[160];
    for (int l = 0; l < lanes; l++) {
        int t = first + l;
        if (X.state[t] != AT_WARP)
            continue;
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        uint32_t mask = op_mask(in, t);
        ptx_where(X.pc[t], where, sizeof where);
        thread_name(t, who, sizeof who);
        if (in->op == OP_LDMATRIX || in->op == OP_MMA) { /* every lane of a full warp, at this one */
            int coming = 0; /* a lane an operation completed above goes on, and may come here */
            for (int k = 0; k < lanes; k++)
                coming |= X.state[first + k] == READY;
            for (int k = 0; k < 32 && !coming; k++) {
                int u = first + k;
                if (k < lanes && X.state[u] == AT_WARP && X.pc[u] == X.pc[t])
                    continue;
                char why[300];
                if (k >= lanes)
                    snprintf(why, sizeof why, "the warp has only %d threads (the block has %d)", lanes, X.threads);
                else
                    snprintf(why, sizeof why, "lane %d, %s, %s%s", k, thread_name(u, other, sizeof other),
                             X.state[u] == EXITED ? "has returned" : X.state[u] == AT_BARRIER ? "waits at __syncthreads() in "
                             : "waits at another warp operation in ",
                             X.state[u] == EXITED ? "" : ptx_where(X.pc[u], there, sizeof there));
                fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): %s runs %s (%s), a warp instruction (.sync.aligned) that every lane of a full "
                     "warp must reach, but %s",
                     blockIdx.x, blockIdx.y, who, in->text, where, why);
                return -1;
            }
            if (coming)
                continue;
            if (complete(w, ~0u))
                return -1;
            completed++;
            continue;
        }
        const struct ptx_operand *mo = &in->o[in->nops - 1];
        if (mo->kind == K_REG && (*mark(mo->reg, w) >> l & 1))
            value_used(X.pc[t], t, "uses as a warp mask");
        if (!(mask >> l & 1)) {
            fail(EMU_WARP_MISMATCH,
                 "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, which leaves out its own lane %d: every "
                 "lane that calls it must be in the mask",
                 blockIdx.x, blockIdx.y, who, op_name(in), where, mask, l);
            return -1;
        }
        if (lanes < 32 && (mask >> lanes) != 0) {
            fail(EMU_WARP_MISMATCH,
                 "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, which names lane %d, but its warp has only "
                 "%d threads (the block has %d)",
                 blockIdx.x, blockIdx.y, who, op_name(in), where, mask, lanes + __builtin_ctz(mask >> lanes), lanes,
                 X.threads);
            return -1;
        }
        for (int k = 0; k < 32; k++) {
            if (!(mask >> k & 1) || k == l)
                continue;
            int u = first + k;
            const struct ptx_insn *g = &X.k->insns[X.pc[u] < X.k->ninsns ? X.pc[u] : 0];
            thread_name(u, other, sizeof other);
            if (X.state[u] == AT_WARP && g->op == in->op && op_mask(g, u) == mask)
                continue;
            if (X.state[u] == EXITED)
                fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, but lane %d, %s, has returned: a lane "
                     "the mask names must call it too (an early `return`, or a mask wider than the lanes that get "
                     "there?)",
                     blockIdx.x, blockIdx.y, who, op_name(in), where, mask, k, other);
            else if (X.state[u] == AT_BARRIER)
                fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, but lane %d, %s, waits at "
                     "__syncthreads() in %s: a lane the mask names must call it too",
                     blockIdx.x, blockIdx.y, who, op_name(in), where, mask, k, other,
                     ptx_where(X.pc[u], there, sizeof there));
            else
                fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): lanes %d and %d of a warp meet at different warp operations: %s calls %s (%s) "
                     "with the mask 0x%08x, %s calls %s (%s) with the mask 0x%08x; the lanes of a mask must all "
                     "call the same one",
                     blockIdx.x, blockIdx.y, l, k, who, op_name(in), where, mask, other, op_name(g),
                     ptx_where(X.pc[u], there, sizeof there), op_mask(g, u));
            return -1;
        }
        if (complete(w, mask))
            return -1;
        completed++;
    }
    return completed;
}

/* Runs warp w until none of its lanes can go on. */
static int run_warp(int w)
{
    for (;;) {
        int pc, all;
        uint32_t active = next_group(w, &pc, &all);
        while (active) {
            if (pc >= X.k->ninsns) { /* ran off the end: as a return */
                FOR_LANES(active, l)
                    X.state[w * 32 + (int)l] = EXITED;
                active = next_group(w, &pc, &all);
                continue;
            }
            X.running_thread = w * 32 + __builtin_ctz(active);
            const struct ptx_insn *in = &X.k->insns[pc];
            int rc = step(w, pc, active);
            if (rc)
                return rc;
            /* A warp that has not diverged stays together through any instruction that neither
             * stops its lanes nor splits them: no need to look for the next group. */
            int target = in->op == OP_BRA ? X.pc[w * 32 + __builtin_ctz(active)] : pc + 1;
            if (all && in->op != OP_RET && in->op != OP_EXIT && in->op != OP_BAR && in->op != OP_BAR_WARP &&
                in->op != OP_SHFL && in->op != OP_VOTE && in->op != OP_MATCH && in->op != OP_REDUX &&
                in->op != OP_LDMATRIX && in->op != OP_MMA) {
                int together = 1;
                if (in->op == OP_BRA)
                    FOR_LANES(active, l)
                        together &= X.pc[w * 32 + (int)l] == target;
                if (together) {
                    pc = target;
                    continue;
                }
            }
            active = next_group(w, &pc, &all);
        }
        int n = resolve(w);
        if (n < 0) {
            int kind = X.warp_kind ? X.warp_kind : EMU_WARP_MISMATCH;
            X.warp_kind = 0;
            return kind;
        }
        if (n == 0)
            return 0;
    }
}

/* Every thread at a barrier waits at the same one (by its source line: the compiler may copy a
 * barrier), and none has returned; else the sentence. */
static int check_barrier(void)
{
    int waiting = 0, exited = 0, other = 0, pc = -1, other_pc = -1;
    for (int t = 0; t < X.threads; t++) {
        if (X.state[t] == EXITED) {
            exited++;
            continue;
        }
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        if (pc < 0 || X.pc[t] == pc ||
            (in->line && in->line == X.k->insns[pc].line && in->col == X.k->insns[pc].col)) {
            if (pc < 0)
                pc = X.pc[t];
            waiting++;
        } else {
            other_pc = X.pc[t];
            other++;
        }
    }
    if (waiting == 0 || (exited == 0 && other == 0))
        return 0;
    char a[160], b[160];
    ptx_where(pc, a, sizeof a);
    if (other)
        return fail(EMU_BARRIER_DIVERGENCE,
                    "block (%u,%u): %d threads wait at __syncthreads() in %s while %d wait at the one in %s: every "
                    "thread of a block must reach the same barriers",
                    blockIdx.x, blockIdx.y, waiting, a, other, ptx_where(other_pc, b, sizeof b));
    return fail(EMU_BARRIER_DIVERGENCE,
                "block (%u,%u): %d thread%s wait%s at __syncthreads() in %s while %d ha%s returned without reaching "
                "it: an early `return` before a barrier, or a barrier inside an `if` that only some threads enter? "
                "Threads outside the matrix must still reach it",
                blockIdx.x, blockIdx.y, waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "", a, exited,
                exited == 1 ? "s" : "ve");
}

/* The order of a block's warps between two barriers (emu_set_schedule): forward, backward, or
 * drawn anew at every barrier from the seed and the block, so that a race between warps that
 * the race check cannot see (atomics beside plain accesses are seen; an order of float atomics
 * is not a race) shows as another output. The grid's blocks run in the same kind of order
 * (forward, backward, or drawn from the seed): a GPU runs them in no order it promises, so a
 * kernel whose block reads what another block wrote is a race between blocks. */
static struct {
    int order;
    uint64_t seed;
} S;

void emu_set_schedule(int order, uint64_t seed)
{
    S.order = order;
    S.seed = seed;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The warps' order up to the next barrier into w[]. */
static void next_order(int *w, uint64_t *rnd)
{
    for (int k = 0; k < X.warps; k++)
        w[k] = S.order == 1 ? X.warps - 1 - k : k;
    if (S.order == 2)
        for (int k = X.warps - 1; k > 0; k--) { /* Fisher-Yates */
            int j = (int)(splitmix(rnd) % (uint64_t)(k + 1)), t = w[k];
            w[k] = w[j], w[j] = t;
        }
}

static int run_block(void)
{
    int order[MAX_WARPS];
    uint64_t rnd = S.seed ^ ((((uint64_t)blockIdx.z << 16 ^ blockIdx.y) << 32 | blockIdx.x) * 0xD1B54A32D192ED03ull);
    uint32_t poison = SHARED_POISON_BITS;
    for (size_t p = 0; p + 4 <= X.shared_bytes; p += 4)
        memcpy(X.shared + p, &poison, 4);
    memset(X.shared_state, UNSET, X.shared_bytes);
    memset(X.local, 0, X.local_bytes * (size_t)X.threads);
    memset(X.local_state, UNSET, X.local_bytes * (size_t)X.threads);
    memset(X.regs, 0, (size_t)X.k->nregs * (size_t)X.threads * sizeof *X.regs);
    memset(X.marks, 0xFF, (size_t)X.k->nregs * (size_t)X.warps * sizeof *X.marks); /* nothing written */
    X.shared_marks = 0;
    for (int t = 0; t < X.threads; t++) {
        X.pc[t] = 0;
        X.state[t] = READY;
        X.epoch[t] = 0;
        X.issued[t] = X.done[t] = X.in_flight[t] = 0;
        X.ncopies[t] = 0, X.committed[t] = 0, X.copy_bytes[t] = 0; /* (copies never waited for are dropped) */
    }
    X.unlanded = 0, X.unset_read = 0, X.copies_pending = 0;
    if (X.counting)
        memset(X.dep, 0, (size_t)X.k->nregs * (size_t)X.threads * sizeof *X.dep);
    for (;;) {
        next_order(order, &rnd);
        for (int k = 0; k < X.warps; k++) {
            int rc = run_warp(order[k]);
            if (rc)
                return rc;
        }
        emu_trace_interval_end(X.threads, 32);
        int waiting = 0;
        for (int t = 0; t < X.threads; t++)
            waiting += X.state[t] == AT_BARRIER;
        int rc = waiting ? check_barrier() : 0;
        if (rc)
            return rc;
        if (emu_report_race(X.error, sizeof X.error))
            return EMU_RACE;
        if (X.value_error) {
            snprintf(X.error, sizeof X.error, "%s", X.value_sentence);
            return EMU_UNSET_SHARED_READ;
        }
        int bad = emu_report_bad_access(X.error, sizeof X.error);
        if (bad)
            return bad;
        if (!waiting)
            return 0;
        int count = 0, all = 1, any = 0;
        for (int t = 0; t < X.threads; t++)
            if (X.state[t] == AT_BARRIER) {
                count += X.vote[t];
                all &= X.vote[t];
                any |= X.vote[t];
            }
        for (int t = 0; t < X.threads; t++)
            if (X.state[t] == AT_BARRIER) {
                const struct ptx_insn *in = &X.k->insns[X.pc[t]];
                if (in->sub >= BAR_RED_POPC) {
                    uint64_t r = in->sub == BAR_RED_POPC ? (uint64_t)count : in->sub == BAR_RED_AND ? (uint64_t)all : (uint64_t)any;
                    put(in->o[0].reg, t, r, in->type == T_PRED ? T_PRED : T_U32);
                    set_marks(in->o[0].reg, t / 32, 1u << (t % 32), 0);
                }
                X.state[t] = READY;
                X.pc[t]++;
            }
    }
}

int ptx_run(const struct ptx_launch *L)
{
    memset(X.error, 0, sizeof X.error);
    X.launch = *L;
    X.L = L = &X.launch;
    X.k = L->k;
    X.value_error = 0;
    X.unlanded = 0;
    X.unset_read = 0;
    unsigned threads = L->block[0] * L->block[1] * L->block[2];
    if (threads == 0 || threads > MAX_THREADS || !L->grid[0] || !L->grid[1] || !L->grid[2])
        return fail(EMU_BAD_LAUNCH, "invalid launch configuration");
    unsigned most = 1;
    const unsigned *req = X.k->reqntid;
    for (int d = 0; d < 3 && X.k->maxntid[d]; d++)
        most *= X.k->maxntid[d];
    if (X.k->maxntid[0] && threads > most)
        return fail(EMU_BAD_LAUNCH, "it promises blocks of at most %u threads (__launch_bounds__(%u) or .maxntid), "
                    "but the lesson launches blocks of %u: on a GPU the launch fails and the kernel never runs. Make "
                    "the first number at least %u, or leave __launch_bounds__ out",
                    most, most, threads, threads);
    if (req[0] && (req[0] != L->block[0] || (req[1] ? req[1] : 1) != L->block[1] || (req[2] ? req[2] : 1) != L->block[2]))
        return fail(EMU_BAD_LAUNCH, "it requires blocks of %u x %u x %u threads (.reqntid), but the lesson launches "
                    "%u x %u x %u: on a GPU the launch fails and the kernel never runs", req[0], req[1] ? req[1] : 1, req[2] ? req[2] : 1,
                    L->block[0], L->block[1], L->block[2]);
    /* The SM's register file (occupancy.h): a launch past it fails on the GPU before the kernel runs. */
    if (L->registers > 0 && occupancy_sm90((int)threads, L->registers, 0).blocks == 0)
        return fail(EMU_BAD_LAUNCH, "it cannot start with %u threads per block: it needs too many registers per "
                    "thread (%d, as ptxas compiled it for the GPU; %d of a block's 65536 where %u x %u threads "
                    "launch). On a GPU the launch fails (too many resources requested for launch) and the kernel "
                    "never runs. Keep fewer values live at once (a smaller array in registers), or give the "
                    "compiler the block's size with __launch_bounds__(%u)",
                    threads, L->registers, occupancy_block_registers((int)threads, L->registers), L->block[0],
                    L->block[1] * L->block[2], threads);
    if (X.k->shared_bytes > 48 * 1024)
        return fail(EMU_BAD_LAUNCH, "your kernel declares %zu bytes of static shared memory; a block may declare at "
                                    "most 49152 bytes statically (48 KB), on a GPU as here", X.k->shared_bytes);
    if (X.k->local_bytes > 64 * 1024)
        return fail(EMU_BAD_LAUNCH, "the kernel's local arrays take %zu bytes per thread, more than the "
                                    "interpreter gives (64 KiB)", X.k->local_bytes);
    X.threads = (int)threads;
    X.warps = (int)((threads + 31) / 32);
    free(X.regs);
    free(X.marks);
    free(X.shared);
    free(X.shared_state);
    free(X.local);
    free(X.local_state);
    free(X.dep);
    free(X.touches);
    X.counting = emu_trace_counting();
    X.touches = X.counting ? calloc((size_t)X.k->ninsns + 1, sizeof *X.touches) : NULL;
    X.dep = X.counting ? calloc((size_t)X.k->nregs * threads + 1, sizeof *X.dep) : NULL;
    X.regs = calloc((size_t)X.k->nregs * threads + 1, sizeof *X.regs);
    X.marks = calloc((size_t)X.k->nregs * (size_t)X.warps + 1, sizeof *X.marks);
    X.shared_bytes = X.k->shared_bytes;
    X.shared = aligned_alloc(256, (X.shared_bytes + 256) / 256 * 256);
    X.shared_state = calloc(X.shared_bytes + 1, 1);
    X.local_bytes = (X.k->local_bytes + 15) / 16 * 16;
    X.local = aligned_alloc(64, X.local_bytes * threads + 64);
    X.local_state = malloc(X.local_bytes * threads + 64);
    if (!X.regs || !X.marks || !X.shared || !X.shared_state || !X.local || !X.local_state || (X.counting && !X.dep))
        return fail(EMU_OUT_OF_MEMORY, "out of memory for the block's registers");
    blockDim = (struct emu_uint3){L->block[0], L->block[1], L->block[2]};
    gridDim = (struct emu_uint3){L->grid[0], L->grid[1], L->grid[2]};
    emu_trace_threads((uint64_t)threads * L->grid[0] * L->grid[1] * L->grid[2]);
    emu_trace_set_shared((const char *)X.shared, (const char *)X.shared + X.shared_bytes);
    const void *readable[] = {X.L->m->const_data, X.L->m->string_data};
    const size_t bytes[] = {X.L->m->const_bytes, X.L->m->string_bytes};
    emu_trace_set_readable(readable, bytes, 2);
    int nb;
    const struct emu_buffer *b = emu_buffers(&nb);
    X.ninputs = 0;
    for (int i = 0; i < nb && X.ninputs < 4; i++)
        if (b[i].read_only) {
            X.inputs[X.ninputs].begin = (const unsigned char *)b[i].begin;
            X.inputs[X.ninputs++].end = (const unsigned char *)b[i].end;
        }
    emu_trace_reset_races();
    emu_trace_launch_begin();
    size_t nblocks = (size_t)L->grid[0] * L->grid[1] * L->grid[2];
    uint32_t *drawn = S.order == 2 ? malloc(nblocks * sizeof *drawn) : NULL;
    if (S.order == 2 && !drawn)
        return fail(EMU_OUT_OF_MEMORY, "out of memory for the order of the grid's blocks");
    if (drawn) {
        uint64_t rnd = S.seed ^ 0xB10C5EEDull;
        for (size_t k = 0; k < nblocks; k++)
            drawn[k] = (uint32_t)k;
        for (size_t k = nblocks - 1; k > 0; k--) { /* Fisher-Yates */
            size_t j = (size_t)(splitmix(&rnd) % (uint64_t)(k + 1));
            uint32_t t = drawn[k];
            drawn[k] = drawn[j], drawn[j] = t;
        }
    }
    int rc = 0;
    for (size_t k = 0; k < nblocks && rc == 0; k++) {
        size_t id = S.order == 1 ? nblocks - 1 - k : drawn ? drawn[k] : k;
        blockIdx = (struct emu_uint3){(unsigned)(id % L->grid[0]), (unsigned)(id / L->grid[0] % L->grid[1]),
                                      (unsigned)(id / L->grid[0] / L->grid[1])};
        emu_trace_block((long)id);
        rc = run_block();
    }
    free(drawn);
    return rc;
}
