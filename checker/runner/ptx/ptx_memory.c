/* The PTX interpreter's memory (ptx_engine.h): where an access lands, checked before it happens;
 * loads, stores and cp.async copies, each lane through the tracer and each warp instruction priced
 * in banks and sectors (bank_model.h); a kernel's printf; and the bytes a thread has in flight. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_engine.h"
#include "tensor_map.h"

/* ---- memory ---- */

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
    ptx_fail(EMU_WILD_ACCESS,
         "block (%u,%u): %s %s %s through a global address (%s): a .global access of an address that is not in "
         "global memory, which stops the kernel on a GPU (a generic pointer to it converted with cvta.to.global, "
         "or handed to ld.global?)",
         blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), write ? "writes" : "reads", what,
         ptx_where(insn, where, sizeof where));
    return 1;
}

/* Whether parameter bytes [a, a + size) lie in one of the launch's tensor maps (tensor_map.h). */
static int reads_tensor_map(uint64_t a, int size)
{
    for (int p = 0; p < X.k->nparams; p++) {
        const struct ptx_param *q = &X.k->params[p];
        struct wb_tensor_map m;
        if (q->bytes == WB_TENSOR_MAP_BYTES && a < (uint64_t)q->offset + (uint64_t)q->bytes &&
            a + (uint64_t)size > (uint64_t)q->offset && wb_tensor_map_get(X.L->params + q->offset, &m) == 0)
            return 1;
    }
    return 0;
}

/* Where an access of `size` bytes at address a in space sp lands, for thread t: a pointer the
 * interpreter may use, or NULL after the error is set; *land says where, and *shared_off is the
 * offset in shared memory where it is there. */
/* A local access of `size` bytes at offset a of the thread's local memory that is not a multiple
 * of its size: on a GPU the kernel stops with "misaligned address" (the tracer checks shared and
 * global accesses; a thread's local memory is the interpreter's own). Returns it failed. */
static int local_misaligned(int insn, int t, uint64_t a, int size, int write)
{
    char where[160], who[40];
    if (size <= 1 || a % (uint64_t)size == 0)
        return 0;
    ptx_fail(EMU_MISALIGNED, "block (%u,%u): %s %s %d bytes of a local array (%s) at an address %llu bytes past a "
             "multiple of %d: a float2 or float4 access needs an address that is a multiple of its size (on a GPU the "
             "kernel stops with \"misaligned address\"); does its index keep it one?",
             blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), write ? "writes" : "reads", size,
             ptx_where(insn, where, sizeof where), (unsigned long long)(a % (uint64_t)size), size);
    return 1;
}

unsigned char *ptx_locate(int insn, int t, int sp, uint64_t a, int size, int write, int *land, size_t *shared_off)
{
    char where[160], who[40];
    const struct ptx_module *m = X.L->m;
    *shared_off = (size_t)-1;
    switch (sp) {
    case S_SHARED:
        *land = IN_SHARED;
        if (!fits(a, (uint64_t)size, X.shared_bytes)) {
            ptx_fail(EMU_OUT_OF_BOUNDS,
                 "block (%u,%u): %s %s shared memory at byte %lld, outside the block's %zu bytes of shared arrays "
                 "(%s): an index outside its tile?",
                 blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), write ? "writes" : "reads", (long long)a,
                 X.shared_bytes, ptx_where(insn, where, sizeof where));
            return NULL;
        }
        *shared_off = (size_t)a;
        return X.shared + a;
    case S_LOCAL:
        *land = IN_LOCAL;
        if (!fits(a, (uint64_t)size, X.local_bytes)) {
            ptx_fail(EMU_OUT_OF_BOUNDS,
                 "block (%u,%u): %s indexes a local array outside its bounds (%s): on a GPU it would %s memory "
                 "that is not the array's",
                 blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where),
                 write ? "write" : "read");
            return NULL;
        }
        if (local_misaligned(insn, t, a, size, write))
            return NULL;
        return local_of(t) + a;
    case S_CONST:
        *land = IN_CONST;
        if (write || !fits(a, (uint64_t)size, m->const_bytes)) {
            ptx_fail(EMU_OUT_OF_BOUNDS, "block (%u,%u): %s %s __constant__ data outside its bounds, past its end (%s): an "
                 "index outside the table?",
                 blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), write ? "writes" : "reads",
                 ptx_where(insn, where, sizeof where));
            return NULL;
        }
        return m->const_data + a;
    case S_PARAM:
        *land = IN_PARAM;
        if (write || !fits(a, (uint64_t)size, (uint64_t)X.k->param_bytes)) {
            ptx_fail(EMU_BAD_LAUNCH, "a parameter access outside the kernel's parameters (%s)",
                 ptx_where(insn, where, sizeof where));
            return NULL;
        }
        if (reads_tensor_map(a, size)) {
            ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s reads the bytes of a tensor map (%s): they are the driver's "
                     "on a GPU and the emulator's here, and mean nothing to a kernel; give the map to "
                     "cp.async.bulk.tensor alone", blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who),
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
            if (local_misaligned(insn, t, (uint64_t)(p - local_of(t)), size, write))
                return NULL;
        } else if (sp != S_GLOBAL && inside_window(p, (uint64_t)size, m->const_data, m->const_bytes)) {
            *land = IN_CONST;
            if (write) {
                ptx_fail(EMU_WILD_ACCESS, "block (%u,%u): %s writes __constant__ data (%s)", blockIdx.x, blockIdx.y,
                     ptx_thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where));
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

/* The same for an atomic's lane (never a race with another atomic): it joins its warp
 * instruction's price where it reached shared or global memory. float_add: a step of a
 * compare-and-swap loop, where warps on one shared word take turns: an f32 add, which on shared
 * memory the GPU runs as one (sm_90's SASS: LDS, ATOMS.CAST.SPIN), or a compare-and-swap or an
 * exchange in a loop of the kernel's own (on an H100 eight warps a word by such a loop ran at
 * 0.71x lesson 7's baseline, the float atomicAdd at 1.19x). */
void ptx_trace_atomic(int insn, int t, void *p, int size, int land, int float_add)
{
    emu_trace_switch_to(t, X.epoch[t], (const char *)local_of(t), (const char *)local_of(t) + X.local_bytes);
    emu_trace_atomic_access(p, (uint32_t)size, (uintptr_t)insn + 1, float_add && land == IN_SHARED);
    int g = land == IN_GLOBAL;
    if (X.counting && (land == IN_SHARED || land == IN_GLOBAL) && W.n[g] < 32)
        W.lanes[g][W.n[g]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)size, t % 32};
}

/* Prices the warp instruction whose lanes trace() gathered: one request per kind of memory it
 * touched (an atomic: a read and a write). */
void ptx_price_warp(int insn, int write, int atomic)
{
    for (int g = 0; g < 2; g++) {
        if (!W.n[g])
            continue;
        if (X.touches && !X.touches[insn])
            X.touches[insn] = g ? emu_trace_buffer_name((const void *)W.lanes[g][0].addr)
                                : ptx_shared_array((size_t)((const unsigned char *)W.lanes[g][0].addr - X.shared));
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

static void stored_then_loaded(int t, const unsigned char *p, int bytes);
static void note_store(int t, const unsigned char *p, int bytes, const struct ptx_operand *value);

/* Reads n elements of `size` bytes for a load; marked[e] when any byte of element e came from
 * unwritten shared memory (each element of a vector load on its own: a float4 at a tile's
 * edge may hold words nobody wrote beside the one the kernel uses). */
int ptx_load(int insn, int t, int sp, uint64_t a, int size, int n, void *dst, int *marked, int *landed)
{
    size_t off;
    int land;
    unsigned char *p = ptx_locate(insn, t, sp, a, size * n, 0, &land, &off);
    if (!p)
        return -1;
    if (land == IN_SHARED || (land == IN_GLOBAL && !plain_input_read(p, size * n)))
        trace(insn, t, p, size * n, 0, land);
    if (X.counting)
        stored_then_loaded(t, p, size * n);
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
            ptx_note_unlanded(insn, off + (size_t)(e * size));
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
 * ptx_load(), without its search for where each lane's access lands. */
int ptx_load_shared(const struct ptx_insn *in, int i, int w, uint32_t exec)
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
        if (X.counting) {
            if (W.n[0] < 32)
                W.lanes[0][W.n[0]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)bytes, (int)l};
            stored_then_loaded(t, p, bytes);
        }
        int written = all_set(state, bytes);
        for (int e = 0; !written && e < n; e++) {
            int mk = 0;
            for (int b = 0; b < size; b++)
                mk |= state[e * size + b] != SET;
            if (mk && state[e * size] == UNSET) {
                emu_trace_note_unset_read((uintptr_t)i + 1);
                ptx_note_unlanded(i, at[l] + (size_t)(e * size));
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
    ptx_price_warp(i, 0, 0);
    return 1;
}

/* ld.global of the lanes of exec when every one reads inside an input while nothing is counted:
 * what the tracer would only let through (plain_input_read), so it is not asked; else 0. */
int ptx_load_inputs(const struct ptx_insn *in, int w, uint32_t exec)
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

/* st.shared likewise (ptx_store()). */
int ptx_store_shared(const struct ptx_insn *in, int i, int w, uint32_t exec, uint32_t value_marks)
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
        if (X.counting) {
            if (W.n[0] < 32)
                W.lanes[0][W.n[0]++] = (struct emu_lane_access){(uintptr_t)p, (uint32_t)bytes, (int)l};
            note_store(t, p, bytes, &o[1]);
        }
        for (int e = 0; e < n; e++) {
            uint64_t v = o[1].kind == K_VEC ? (o[1].vec[e] >= 0 ? *reg(o[1].vec[e], t) : 0) : val(&o[1], in->type, t);
            memcpy(p + e * size, &v, (size_t)size);
        }
        memset(X.shared_state + at[l], (value_marks >> l) & 1 ? MARKED : SET, (size_t)bytes);
        ptx_generic_wrote(t, at[l], (size_t)bytes);
    }
    ptx_price_warp(i, 1, 0);
    return 1;
}

int ptx_store(int insn, int t, int sp, uint64_t a, int size, const void *src, int marked, const struct ptx_operand *value)
{
    size_t off;
    int land;
    unsigned char *p = ptx_locate(insn, t, sp, a, size, 1, &land, &off);
    if (!p)
        return -1;
    if (X.counting && value)
        note_store(t, p, size, value);
    if (land == IN_SHARED || land == IN_GLOBAL)
        trace(insn, t, p, size, 1, land);
    if (off != (size_t)-1) {
        memset(X.shared_state + off, marked ? MARKED : SET, (size_t)size);
        ptx_generic_wrote(t, off, (size_t)size);
    } else if (land == IN_LOCAL)
        memset(X.local_state + (p - X.local), marked ? MARKED : SET, (size_t)size);
    else if (marked && land == IN_GLOBAL)
        ptx_value_used(insn, t, "stores to global memory");
    memcpy(p, src, (size_t)size);
    return 0;
}

/* ---- printf ---- */
/* A kernel's printf (call vprintf): the format from the module's string literals, the arguments
 * from the thread's own memory, as nvcc lays them out (each at its size's alignment; floats
 * passed as doubles). %s and %n are refused: they would read or write memory by a pointer. */
int ptx_print(int insn, int t)
{
    const struct ptx_insn *in = &X.k->insns[insn];
    const struct ptx_module *m = X.L->m;
    char where[160], who[40];
    uint64_t fmt_at, args_at;
    memcpy(&fmt_at, local_of(t) + m->vars[in->o[1].sym].offset, 8);
    memcpy(&args_at, local_of(t) + m->vars[in->o[2].sym].offset, 8);
    const char *fmt = (const char *)(uintptr_t)fmt_at;
    if (!m->string_bytes || fmt < (const char *)m->string_data || fmt >= (const char *)m->string_data + m->string_bytes)
        return ptx_fail(EMU_WILD_ACCESS, "block (%u,%u): %s calls printf with a format that is not a string literal (%s)",
                    blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where));
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
            return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s calls printf with %%%c (%s): printf's %%%c is not available "
                                        "to kernels in the emulator, since it would %s memory through a pointer "
                                        "(print numbers instead)",
                        blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), *conv,
                        ptx_where(insn, where, sizeof where), *conv, *conv == 'n' ? "write" : "read");
        int longs = 0;
        for (const char *q = p + 1; q < conv; q++)
            longs += *q == 'l' || *q == 'j' || *q == 'z' || *q == 't' || *q == 'q';
        int size = strchr("feEgGaA", *conv) || *conv == 'p' || longs ? 8 : 4;
        used = (used + (size_t)size - 1) / (size_t)size * (size_t)size;
        if (!args || args < local_of(t) || args + used + (size_t)size > end)
            return ptx_fail(EMU_WILD_ACCESS, "block (%u,%u): %s calls printf with arguments outside its own memory (%s)",
                        blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), ptx_where(insn, where, sizeof where));
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
            return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s calls printf with %%%c (%s), a conversion the emulator "
                                        "does not know", blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), *conv,
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
    X.nstored[t] = 0;
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

/* Thread t stores `bytes` at p, operand value's: kept while that value derives from a load in
 * flight; a store of a value at hand drops what it overwrites whole. */
static void note_store(int t, const unsigned char *p, int bytes, const struct ptx_operand *value)
{
    if (X.issued[t] == X.done[t])
        return;
    if (!derives(value, t)) {
        int kept = 0;
        for (int j = 0; j < X.nstored[t]; j++)
            if (X.stored[t][j].p < p || X.stored[t][j].p + X.stored[t][j].bytes > p + bytes)
                X.stored[t][kept++] = X.stored[t][j];
        X.nstored[t] = (uint8_t)kept;
        return;
    }
    if (X.nstored[t] == MAX_STORED) { /* the oldest forgotten: a chain hidden behind this many stores has
                                        * this many loads in flight beside it, what the rule asks for */
        memmove(&X.stored[t][0], &X.stored[t][1], (MAX_STORED - 1) * sizeof X.stored[t][0]);
        X.nstored[t]--;
    }
    X.stored[t][X.nstored[t]++] = (struct stored_on_way){p, (uint32_t)bytes};
}

/* Before thread t loads `bytes` at p: where it stored there a value still on its way, it waits. */
static void stored_then_loaded(int t, const unsigned char *p, int bytes)
{
    for (int j = 0; j < X.nstored[t]; j++)
        if (p < X.stored[t][j].p + X.stored[t][j].bytes && X.stored[t][j].p < p + bytes) {
            wait_loads(t);
            return;
        }
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
void ptx_follow_loads(const struct ptx_insn *in, int i, int w, uint32_t active, uint32_t exec)
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
void ptx_issue_load(int t, const struct ptx_operand *d, int bytes)
{
    X.in_flight[t] += (uint32_t)bytes;
    set_dep(d, t, ++X.issued[t]);
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
    ptx_generic_wrote(t, c->dst, c->bytes);
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
int ptx_cp_async(const struct ptx_insn *in, int i, int w, uint32_t exec)
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
                ptx_value_used(i, t, "uses as an address");
        ptx_thread_name(t, who, sizeof who);
        ptx_where(i, where, sizeof where);
        if (bytes != 4 && bytes != 8 && bytes != 16)
            return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s copies %d bytes with cp.async (%s): 4, 8 or 16",
                        blockIdx.x, blockIdx.y, who, bytes, where);
        if (from < 0 || from > bytes)
            return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s asks cp.async (%s) to read %d of its %d bytes",
                        blockIdx.x, blockIdx.y, who, where, from, bytes);
        if (dst % (uint64_t)bytes || src % (uint64_t)bytes)
            return ptx_fail(EMU_MISALIGNED,
                        "block (%u,%u): %s copies %d bytes with cp.async (%s) %s an address not a multiple of %d",
                        blockIdx.x, blockIdx.y, who, bytes, where, dst % (uint64_t)bytes ? "to" : "from", bytes);
        if (strstr(in->text, ".cg") && bytes != 16)
            return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s copies %d bytes with cp.async.cg (%s): .cg copies 16",
                        blockIdx.x, blockIdx.y, who, bytes, where);
        size_t off;
        int land_at;
        unsigned char *d = ptx_locate(i, t, S_SHARED, dst, bytes, 1, &land_at, &off);
        if (!d)
            return EMU_OUT_OF_BOUNDS;
        const unsigned char *p = NULL;
        if (from > 0) {
            p = (const unsigned char *)(uintptr_t)src;
            if (touches_window(p, (uint64_t)from, X.shared, X.shared_bytes) ||
                touches_window(p, (uint64_t)from, X.local, X.local_bytes * (size_t)X.threads))
                return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s copies with cp.async (%s) from shared or local "
                            "memory: its source must be global memory", blockIdx.x, blockIdx.y, who, where);
            if (!(p = ptx_locate(i, t, S_GLOBAL, src, from, 0, &land_at, &off)))
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
            return ptx_fail(EMU_BAD_LAUNCH,
                        "block (%u,%u): %s has %d cp.async copies in flight at %s, more than the interpreter holds: a "
                        "cp.async.wait_group missing from a loop?", blockIdx.x, blockIdx.y, who, MAX_COPIES, where);
        X.copies[t][X.ncopies[t]++] =
            (struct pending_copy){p, (uint32_t)dst, X.committed[t], (uint8_t)bytes, (uint8_t)from, i};
        X.copies_pending++;
        X.copy_bytes[t] += (uint32_t)bytes;
    }
    int stores = W.n[0]; /* the global side priced as a load, then the shared side as a store */
    W.n[0] = 0;
    ptx_price_warp(i, 0, 0);
    W.n[0] = stores;
    ptx_price_warp(i, 1, 0);
    return 0;
}

