/* Small kernels with known behaviour for the PTX interpreter's tests (test_ptx_run.c): the
 * kernels of checker/tests/emu/kernels.cu as plain CUDA, which nvcc turns into PTX
 * (nvcc -ptx -lineinfo -arch=sm_90); the test launches each with the grid, block and arguments
 * its comment names. Lines the tests name carry a mark, `L:name`, in a comment: the test finds
 * the mark's line here and expects the interpreter's sentence to name it. */

#include <cuda_fp16.h>

/* One warp (grid 1, block 32) reads a [32][33] tile down a column with the given row stride
 * (in words). */
__global__ void column_read(float *out, int stride)
{
    __shared__ float tile[32 * 33];
    for (int i = threadIdx.x; i < 32 * 33; i += 32) /* 33 row stores, each conflict-free */
        tile[i] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x * stride) % (32 * 33)];
}

/* 64 threads (grid 1) each store a word, then read their neighbour's, with or without the
 * barrier. */
__global__ void neighbour(float *out, int with_barrier)
{
    __shared__ float s[64];
    s[threadIdx.x] = (float)threadIdx.x; /* L:neighbour_write */
    if (with_barrier)
        __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64]; /* L:neighbour_read */
}

/* Two rounds through one buffer; the second barrier (after the read) is optional. Each block
 * (grid 2, block 64) writes its own 64 elements of out. */
__global__ void two_rounds(float *out, int with_second_barrier)
{
    __shared__ float s[64];
    float acc = 0.0f;
    for (int round = 0; round < 2; round++) {
        s[threadIdx.x] = (float)(threadIdx.x + 100 * round); /* L:two_rounds_write */
        __syncthreads();
        acc += s[(threadIdx.x + 1) % 64]; /* L:two_rounds_read */
        if (with_second_barrier)
            __syncthreads();
    }
    out[blockIdx.x * 64 + threadIdx.x] = acc;
}

/* Reads a word of shared memory that no thread wrote (grid 1, block 32), and stores it to
 * global memory. */
__global__ void unset_read(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 32]; /* L:unset_read */ /* only the first 32 words were written */
}

/* Every thread (grid 1, block 32) reads a word, whatever happens to it: lanes below 16 one the
 * block wrote, the others one nobody wrote. The volatile keeps the read before the branch, as a
 * compiler's speculative load would be (without it nvcc moves the load into the `if`). Only
 * lanes below `limit` store what they read: with 16, the unwritten values are dropped, which is
 * no error; with 32 they reach out. */
__global__ void dropped_read(float *out, int limit)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float v = ((volatile float *)s)[threadIdx.x < 16 ? threadIdx.x : threadIdx.x + 32]; /* L:dropped_load */
    if ((int)threadIdx.x < limit)
        out[threadIdx.x] = v; /* L:dropped_store */
}

/* A full warp (grid 1, block 32) chooses with selp between a word the block wrote and one nobody
 * wrote: the odd lanes take the unwritten one when odd_unset is 1. selp of all 32 lanes runs on
 * the interpreter's whole-warp path, which must carry the chosen operand's mark as the lane by
 * lane path does. */
__global__ void selp_mark(float *out, int odd_unset)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float w = ((volatile float *)s)[threadIdx.x], u = ((volatile float *)s)[threadIdx.x + 32], v;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %3, 0;\n\tselp.f32 %0, %1, %2, p;\n\t}"
        : "=f"(v) : "f"(u), "f"(w), "r"(odd_unset & (int)threadIdx.x));
    out[threadIdx.x] = v; /* L:selp_mark */
}

/* A value decided by a word nobody wrote (grid 1, block 32; `unset`: the word read is s[32], which
 * no thread writes): through a guard (a predicated mov) or through __syncthreads_or, each an
 * answer the unwritten word chose, stored. With unset 0 the word read is s[0], written. */
__global__ void guard_mark(float *out, int unset, int through_barrier)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float flag = ((volatile float *)s)[unset ? 32 : 0], v = 2.0f;
    if (through_barrier)
        v = __syncthreads_or(flag > 0.5f) ? 3.0f : 4.0f;
    else
        asm("{\n\t.reg .pred q;\n\tsetp.gt.f32 q, %1, 0f3F000000;\n\t@q mov.f32 %0, 0f40400000;\n\t}"
            : "+f"(v) : "f"(flag));
    out[threadIdx.x] = v; /* L:guard_mark */
}

/* Twenty loads a thread (volatile: each stays a load), each value stored to shared memory as it
 * comes, then one barrier: all 80 bytes in flight at once, however many stores wait for them. */
__global__ void burst_many_stored(const float *in, float *out)
{
    __shared__ float s[20 * 32];
#pragma unroll
    for (int k = 0; k < 20; k++)
        s[threadIdx.x + 32 * k] = ((volatile const float *)in)[threadIdx.x + 32 * (k % 4)];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < 20; k++)
        sum += s[threadIdx.x + 32 * k];
    out[threadIdx.x] = sum;
}

/* A warp (grid 1, block 32) where half the lanes first meet at a __syncwarp of their own half
 * (the lower half, or with `upper` the upper), then all 32 at one shuffle: right, as on a GPU.
 * With `apart`, the lower half calls a full-warp shuffle and the upper half a full-warp vote. */
__global__ void half_then_whole(float *out, int upper, int apart)
{
    float v = (float)threadIdx.x;
    if (apart) {
        if (threadIdx.x < 16)
            v += __shfl_down_sync(0xffffffffu, v, 1);
        else
            v += (float)__ballot_sync(0xffffffffu, v > 20.0f); /* L:apart_vote */
    } else {
        if (upper ? threadIdx.x >= 16 : threadIdx.x < 16)
            __syncwarp(upper ? 0xffff0000u : 0x0000ffffu);
        v += __shfl_down_sync(0xffffffffu, v, 1);
    }
    out[threadIdx.x] = v;
}

/* The last thread (grid 1, block 64) also writes one element past the end of out (64
 * elements). */
__global__ void store_past_end(float *out)
{
    out[threadIdx.x] = 1.0f;
    if (threadIdx.x == 63)
        out[64] = 2.0f; /* L:store_past_end */
}

/* Threads from `first_out` on return before the barrier (grid 1, block 64). */
__global__ void early_return(float *out, int first_out)
{
    __shared__ float s[64];
    if ((int)threadIdx.x >= first_out)
        return;
    s[threadIdx.x] = 1.0f;
    __syncthreads(); /* L:early_return_barrier */
    out[threadIdx.x] = s[0];
}

/* ---- the warp's and the block's collective operations (grid 1, 64 threads: two warps) ---- */

/* out[t]: the sum of t over the warp (butterfly); out[64 + t]: the reversed lane's t, plus
 * 1000 times the lane below's t (lane 0 keeps its own); out[128 + t]: lane 0's shuffle-down sum. */
__global__ void shuffles(float *out)
{
    int t = threadIdx.x, lane = t & 31;
    int all = t, down = t;
    for (int d = 16; d; d >>= 1) {
        all += __shfl_xor_sync(0xffffffffu, all, d);
        down += __shfl_down_sync(0xffffffffu, down, d);
    }
    int reversed = __shfl_sync(0xffffffffu, t, 31 - lane);
    int below = __shfl_up_sync(0xffffffffu, t, 1);
    float f = __shfl_sync(0xffffffffu, 0.5f * (float)t, 0); /* floats too */
    out[t] = (float)all;
    out[64 + t] = (float)(reversed + 1000 * below);
    out[128 + t] = lane == 0 ? (float)down : f;
}

/* out[t]: the ballot's lanes; out[64 + t]: any, all and the block's count and and/or votes. */
__global__ void votes(float *out)
{
    int t = threadIdx.x, lane = t & 31;
    unsigned ballot = __ballot_sync(0xffffffffu, lane % 3 == 0);
    int any = __any_sync(0xffffffffu, lane == 5), all = __all_sync(0xffffffffu, lane < 31);
    int count = __syncthreads_count(t < 10), some = __syncthreads_or(t == 63), every = __syncthreads_and(t < 64);
    int sum = __reduce_add_sync(0xffffffffu, lane), most = __reduce_max_sync(0xffffffffu, -lane);
    out[t] = (float)__popc(ballot) + 100.0f * (float)(sum + most); /* 11 + 100 * 496 */
    out[64 + t] = (float)(any * 1 + all * 10 + count * 100 + some * 10000 + every * 100000);
}

/* Lanes swap words through shared memory, with or without a __syncwarp() between. */
__global__ void warp_exchange(float *out, int with_syncwarp)
{
    __shared__ float s[64];
    s[threadIdx.x] = (float)threadIdx.x; /* L:exchange_write */
    if (with_syncwarp)
        __syncwarp();
    out[threadIdx.x] = s[threadIdx.x ^ 1]; /* L:exchange_read */
}

/* Every thread (grid 2, block 64) adds one to a shared counter, atomically or not; thread 0 of
 * each block also adds to out[128] atomically, across blocks. */
__global__ void counter(float *out, int atomically)
{
    __shared__ int n;
    if (threadIdx.x == 0)
        n = 0;
    __syncthreads();
    if (atomically)
        atomicAdd(&n, 1);
    else
        n += 1; /* L:counter_plain */
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = (float)n;
    if (threadIdx.x == 0)
        atomicAdd(&out[128], 1.0f);
}

/* Both blocks (grid 2, block 64) write out[threadIdx.x]: a race between blocks. */
__global__ void same_output(float *out)
{
    out[threadIdx.x] = (float)blockIdx.x; /* L:same_output */
}

/* A float4 read of shared memory from an address 4 bytes past a 16-byte boundary (grid 1,
 * block 32; s itself starts at a multiple of 16). Lane 7's float4 also takes s[32], which
 * nobody wrote: the misaligned read comes first. */
__global__ void misaligned(float *out)
{
    __shared__ __align__(16) float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float4 v = *reinterpret_cast<const float4 *>(&s[4 * (threadIdx.x % 8) + 1]); /* L:misaligned */
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

/* Lanes from `first_out` return (grid 1, block 32); the rest shuffle with mask (a full one
 * names lanes that left). */
__global__ void partial_shuffle(float *out, unsigned mask, int first_out, int source)
{
    if ((int)(threadIdx.x & 31) >= first_out)
        return;
    out[threadIdx.x] = __shfl_sync(mask, (float)threadIdx.x, source); /* L:partial_shuffle */
}

/* ---- what the PTX ISA defines beyond plain arithmetic (grid 1, block 32 unless said) ---- */

/* The rounding modes, each where it differs from the nearest: in[0] = 1, in[1] = 1e-8, in[2] = 3,
 * in[3] = 2, in[4] = 1 + 2^-23, in[5] = 1e-40 (subnormal); i = 16777217, u = 0xffffffff,
 * ll = 2^60 + 1, d = 1 + 1e-10. out[k] as rounding_expected() in test_ptx_run.c; the doubles at
 * out + 32. */
__global__ void rounding(const float *in, float *out, int i, unsigned u, long long ll, double d)
{
    float r[20];
    r[0] = __fadd_ru(in[0], in[1]), r[1] = __fadd_rd(in[0], in[1]), r[2] = __fadd_rz(-in[0], -in[1]);
    r[3] = __fsub_rd(-in[0], in[1]), r[4] = __fdiv_rd(in[0], in[2]), r[5] = __fdiv_ru(in[0], in[2]);
    r[6] = __fmul_ru(in[4], in[4]), r[7] = __fmul_rz(in[4], in[4]), r[8] = __fmaf_rd(in[4], in[4], -in[0]);
    r[9] = __fmaf_ru(in[4], in[4], -in[0]), r[10] = __fsqrt_rd(in[3]), r[11] = __fsqrt_ru(in[3]);
    r[12] = __frcp_rz(in[2]), r[13] = __int2float_rz(i), r[14] = __int2float_ru(i), r[15] = __uint2float_rd(u);
    r[16] = __ll2float_ru(ll), r[17] = __double2float_rd(d), r[18] = __double2float_ru(d);
    asm("add.ftz.f32 %0, %1, %2;" : "=f"(r[19]) : "f"(in[5]), "f"(0.0f));
    if (threadIdx.x < 20)
        out[threadIdx.x] = r[threadIdx.x];
    if (threadIdx.x == 0)
        *(double *)(out + 32) = __dadd_ru((double)in[0], (double)in[1] * (double)in[1]);
}

/* __saturatef (cvt.sat) of in[0..5], __ffs (bfind.shiftamt) of the bits of in[6..9], %nsmid. */
__global__ void saturate_ffs_nsmid(const float *in, float *out)
{
    int t = threadIdx.x;
    unsigned nsmid;
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    if (t < 6)
        out[t] = __saturatef(in[t]);
    else if (t < 10)
        out[t] = (float)__ffs(__float_as_int(in[t]));
    else if (t == 10)
        out[t] = (float)nsmid;
}

/* The sink `_` as a destination, as ptxas allows it: setp's result (its complement kept), an atomic's
 * old value, a shuffle's predicate, half a mov's unpacking. out[t] = (t != 5), out[32 + t] = 7, the
 * word at out + 64 counts the threads. */
__global__ void sinks(float *out)
{
    unsigned p, lane0, low;
    asm volatile("{\n\t.reg .pred q;\n\tsetp.eq.s32 _|q, %1, 5;\n\tselp.u32 %0, 1, 0, q;\n\t}"
                 : "=r"(p) : "r"((int)threadIdx.x));
    asm volatile("atom.global.add.u32 _, [%0], 1;" ::"l"((unsigned *)out + 64) : "memory");
    asm volatile("shfl.sync.idx.b32 %0|_, %1, 0, 31, -1;" : "=r"(lane0) : "r"(7u + threadIdx.x));
    asm volatile("mov.b64 {%0, _}, %1;" : "=r"(low) : "l"(((unsigned long long)threadIdx.x << 32) | 7u));
    out[threadIdx.x] = (float)p;
    out[32 + threadIdx.x] = (float)(lane0 == low ? low : 0u);
}

/* A parameter read at a byte offset from the first parameter's address (offset 8: the second
 * parameter, itself; -8: before the parameters, which the interpreter must refuse). */
__global__ void param_at(float *out, long long offset)
{
    unsigned long long v;
    asm volatile("{\n\t.reg .u64 a;\n\tmov.u64 a, _Z8param_atPfx_param_0;\n\tadd.s64 a, a, %1;\n\t"
                 "ld.param.u64 %0, [a];\n\t}"
                 : "=l"(v) : "l"(offset));
    out[threadIdx.x] = (float)(long long)v;
}

/* A barrier for `count` threads (grid 1, block 64: two warps), then a neighbour's word. */
__global__ void named_barrier(float *out, int count)
{
    __shared__ float s[64];
    s[threadIdx.x] = (float)threadIdx.x;
    asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory"); /* L:named_barrier */
    out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

/* Warps 0 and 1 at a barrier for `count` threads, then each reads the other's words; warps from
 * `skip` on return first (grid 1, block 96 or 128). */
__global__ void named_barrier_some(float *out, int count, int skip)
{
    __shared__ float s[64];
    int w = threadIdx.x / 32;
    if (w >= skip) {
        out[threadIdx.x] = -1.0f;
        return;
    }
    s[threadIdx.x % 64] = (float)threadIdx.x;
    asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory"); /* L:named_barrier_some */
    out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

/* Barriers for some warps gone wrong (grid 1, block 128): `kind` 0, warps 0 and 1 write and
 * return while warps 2 and 3 meet at a barrier for 64 and read what they wrote (on a GPU the
 * writers may not have run yet); 1, every warp at one barrier for 64, pairs as they arrive; 2,
 * warps 0-1 and 2-3 at barriers 1 and 0, each counting the whole block; 3, warps 0-1 meet at
 * barrier 1, then warps 1-2 at barrier 2 (sets that overlap, which the emulator does not order). */
__global__ void named_barrier_wrong(float *out, int kind)
{
    __shared__ float s[128];
    int w = threadIdx.x / 32;
    s[threadIdx.x] = (float)threadIdx.x;
    if ((kind == 0 && w < 2) || (kind == 3 && w == 3))
        return;
    if (kind == 3) {
        if (w < 2)
            asm volatile("bar.sync 1, 64;" ::: "memory");
        if (w > 0)
            asm volatile("bar.sync 2, 64;" ::: "memory"); /* L:named_barrier_overlap */
        out[threadIdx.x] = s[threadIdx.x];
        return;
    }
    if (kind == 2)
        asm volatile("bar.sync %0, 128;" ::"r"(w < 2 ? 1 : 0) : "memory"); /* L:named_barrier_wrong */
    else
        asm volatile("bar.sync 1, 64;" ::: "memory");
    out[threadIdx.x] = s[(threadIdx.x + 64) % 128];
}

/* ld.global of a generic address of shared memory: on a GPU a fault. */
__global__ void global_of_shared(float *out)
{
    __shared__ float s[32];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(&s[threadIdx.x])); /* L:global_of_shared */
    out[threadIdx.x] = v;
}

/* ---- bytes in flight (grid 1, block 32) ---- */

/* Each thread loads 4 floats of in, 32 apart, into registers and stores them to shared memory:
 * the loads are independent, so all 16 bytes are in flight at once. */
__global__ void burst_unrolled(const float *in, float *out)
{
    __shared__ float s[4 * 32];
#pragma unroll
    for (int k = 0; k < 4; k++)
        s[threadIdx.x + 32 * k] = in[threadIdx.x + 32 * k];
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 32] + s[32 + threadIdx.x] + s[64 + threadIdx.x] + s[96 + threadIdx.x];
}

/* The same loop not unrolled: its branch back waits for the iteration's load, so 4 bytes are
 * in flight at a time. */
__global__ void burst_rolled(const float *in, float *out)
{
    __shared__ float s[4 * 32];
#pragma unroll 1
    for (int k = 0; k < 4; k++)
        s[threadIdx.x + 32 * k] = in[threadIdx.x + 32 * k];
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 32] + s[32 + threadIdx.x] + s[64 + threadIdx.x] + s[96 + threadIdx.x];
}

/* Four loads unrolled, each value stored to the thread's own shared word and read back from
 * it (volatile: both stay in the PTX), the read times zero added to the next load's index
 * (chained: 4 bytes in flight at a time, the chain running through memory) or a word it did not
 * store read instead (not chained: 16). */
__global__ void burst_through_shared(const float *in, float *out, int chained)
{
    volatile __shared__ float s[2 * 32];
    s[32 + threadIdx.x] = 0.0f;
    int step = 0;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        float v = in[threadIdx.x + 32 * k + step];
        s[threadIdx.x] = v;
        float back = chained ? s[threadIdx.x] : s[32 + threadIdx.x];
        step = (int)(back * 0.0f);
        sum += v;
    }
    out[threadIdx.x] = sum;
}

/* One warp's float arithmetic by unit: an f32 add, an f64 fma on the value widened (a conversion),
 * and the f64 result narrowed back (another). */
__global__ void float_units(const float *in, float *out)
{
    float x = in[threadIdx.x] + 1.0f;
    double d = fma((double)x, 3.0, 0.5);
    out[threadIdx.x] = (float)d;
}

/* Each thread of each block (grid 2, block 32) reads in[threadIdx.x] `times` times (volatile: each
 * a load), both blocks the same 128 bytes: 4 sectors a read, the block's first read of each new. */
__global__ void reread(const float *in, float *out, int times)
{
    const volatile float *v = in;
    float sum = 0.0f;
    for (int k = 0; k < times; k++)
        sum += v[threadIdx.x];
    out[blockIdx.x * 32 + threadIdx.x] = sum;
}

/* ---- the tensor cores ---- */

/* One warp (grid 1, block 32) loads four 8x8 matrices of 16-bit elements with ldmatrix (.x4,
 * with .trans when trans is set): 32 rows of 8 elements, element (r, c) = 8r + c, row r at half
 * r * stride; with swizzle, at chunk r % 8 of that 128-byte row instead of chunk 0 (the XOR of
 * the chunk index with the row). Lane L gives the address of row L; out, as 32-bit words,
 * gets lane L's four registers at 4L. */
__global__ void ldmatrix_tile(float *out, int stride, int trans, int swizzle)
{
    __shared__ __align__(16) unsigned short tile[32 * 64];
    for (int i = threadIdx.x; i < 32 * 8; i += 32) {
        int r = i / 8, c = i % 8;
        tile[r * stride + (swizzle ? 8 * (r % 8) : 0) + c] = (unsigned short)(8 * r + c);
    }
    __syncthreads();
    int r = threadIdx.x;
    unsigned at = (unsigned)__cvta_generic_to_shared(&tile[r * stride + (swizzle ? 8 * (r % 8) : 0)]);
    unsigned d0, d1, d2, d3;
    if (trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(at));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(at));
    unsigned *o = (unsigned *)out + 4 * threadIdx.x;
    o[0] = d0, o[1] = d1, o[2] = d2, o[3] = d3;
}

/* One warp (grid 1, block 32): D = A B + C on the tensor cores (mma m16n8k16, halves in, floats
 * out), each lane's fragments built from formulas the test knows: A(m, k) = (m + 2k) % 7 - 3,
 * B(k, n) = (3k + n) % 5 - 2, C(m, n) = m - n, all exact in halves. out gets lane L's four
 * results at 4L. */
__device__ unsigned two_halves(float lo, float hi)
{
    return (unsigned)__half_as_ushort(__float2half_rn(lo)) | (unsigned)__half_as_ushort(__float2half_rn(hi)) << 16;
}

__device__ void mma_body(float *out)
{
    int g = threadIdx.x / 4, q = threadIdx.x % 4;
    unsigned a[4], b[2];
    float c[4], d[4];
    for (int i = 0; i < 8; i += 2) {
        int m = i < 2 || (i >= 4 && i < 6) ? g : g + 8, k = 2 * q + (i >= 4 ? 8 : 0);
        a[i / 2] = two_halves((float)((m + 2 * k) % 7 - 3), (float)((m + 2 * (k + 1)) % 7 - 3));
    }
    for (int i = 0; i < 4; i += 2) {
        int k = 2 * q + (i >= 2 ? 8 : 0);
        b[i / 2] = two_halves((float)((3 * k + g) % 5 - 2), (float)((3 * (k + 1) + g) % 5 - 2));
    }
    for (int i = 0; i < 4; i++)
        c[i] = (float)((i < 2 ? g : g + 8) - (2 * q + (i & 1)));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
                   "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++)
        out[4 * threadIdx.x + i] = d[i];
}

__global__ void mma_tile(float *out)
{
    mma_body(out);
}

/* The same in the first 16 lanes alone: a warp instruction not every lane reaches. */
__global__ void mma_half_warp(float *out)
{
    if (threadIdx.x < 16)
        mma_body(out);
}

/* One warp (grid 1, block 32): inline PTX in blocks of its own, as a helper inlined twice writes
 * it (lesson 10's kind of file). keep() defines its label KEEP once per copy, in its own block; the
 * kernel's `shadow` is shadowed by an inner block's, whose write must not reach the outer one.
 * out[l] = l, out[32 + l] = 2 l + 1 (one fma per lane). */
__device__ float keep(float x)
{
    float r;
    asm volatile("{\n\t.reg .pred p;\n\tmov.f32 %0, %1;\n\tsetp.eq.f32 p, %1, %1;\n\t@p bra KEEP;\n\t"
                 "mov.f32 %0, 0f00000000;\nKEEP:\n\t}"
                 : "=f"(r)
                 : "f"(x));
    return r;
}

__global__ void scoped_asm(float *out)
{
    float x = (float)threadIdx.x, y;
    asm volatile(".reg .f32 shadow;");
    asm volatile("mov.f32 shadow, %0;" ::"f"(x));
    asm volatile("{ .reg .f32 shadow; mov.f32 shadow, 0f42C80000; }"); /* 100 into the inner one */
    asm volatile("mov.f32 %0, shadow;" : "=f"(y));
    out[threadIdx.x] = keep(y);
    out[32 + threadIdx.x] = keep(fmaf(y, 2.0f, 1.0f));
}

/* Two threads (grid 1, block 32): thread 0 stores a float4 to words 0-3, thread 1 reads word 2
 * with no barrier between them: a race on the third word of the vector store. */
__global__ void vector_store_race(float *out)
{
    __shared__ __align__(16) float s[8];
    if (threadIdx.x == 0)
        *(float4 *)s = make_float4(1, 2, 3, 4); /* L:vector_store_race_write */
    if (threadIdx.x == 1)
        out[0] = s[2]; /* L:vector_store_race_read */
}

/* One warp (grid 1, block 32) copies two groups with cp.async, 8 bytes a thread each: group A,
 * in[0..63] into s[0..63], then group B, in[64..127] into s[64..127]; then reads a neighbour's
 * words into out[t]: s[2j + 1] (j = t + 1 mod 32), or in mode 5 s[64 + 2j]. Modes: 0 waits for
 * every group and has a barrier; 1 has no wait; 2 no barrier; 3 copies 4 of A's 8 bytes a
 * thread (the rest zeros); 4 waits for all but the newest group (A lands, B does not) and reads
 * A; 5 the same and reads B. */
__global__ void async_copy(const float *in, float *out, int mode)
{
    __shared__ __align__(16) float s[128];
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[2 * threadIdx.x]);
    unsigned b = (unsigned)__cvta_generic_to_shared(&s[64 + 2 * threadIdx.x]);
    int from = mode == 3 ? 4 : 8;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(a), "l"(in + 2 * threadIdx.x), "r"(from)); /* L:async_copy_a */
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(b), "l"(in + 64 + 2 * threadIdx.x));
    asm volatile("cp.async.commit_group;");
    if (mode == 0 || mode == 2 || mode == 3)
        asm volatile("cp.async.wait_group 0;" ::: "memory");
    if (mode == 4 || mode == 5)
        asm volatile("cp.async.wait_group 1;" ::: "memory");
    if (mode != 2)
        __syncthreads();
    int j = (threadIdx.x + 1) % 32;
    out[threadIdx.x] = mode == 5 ? s[64 + 2 * j] : s[2 * j + 1]; /* L:async_copy_read */
}

/* mma_tile's product after the warp came apart: lanes 0-15 meet at a shuffle the others skip,
 * so the lanes reach the mma in two groups (a correct kernel: they meet there). */
__global__ void mma_after_divergence(float *out)
{
    float v = (float)threadIdx.x;
    if (threadIdx.x < 16)
        v = __shfl_xor_sync(0xffffu, v, 1);
    out[128 + threadIdx.x] = v;
    mma_body(out);
}

/* One warp copies 16 bytes a thread with cp.async.cg, of which `from` come from in (the rest
 * zeros), then reads element `e` of its neighbour's four into out[t]. */
__global__ void async_copy16(const float *in, float *out, int from, int e)
{
    __shared__ __align__(16) float s[128];
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[4 * threadIdx.x]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(a), "l"(in + 4 * threadIdx.x), "r"(from));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    out[threadIdx.x] = s[4 * ((threadIdx.x + 1) % 32) + e];
}

/* One warp copies 16 bytes a thread with cp.async into s, lane t's at word 4 * stride * t (stride
 * 8: rows 128 bytes apart, a phase's eight lanes in the same four banks), and reads its own back. */
__global__ void async_copy_strided(const float *in, float *out, int stride)
{
    __shared__ __align__(16) float s[32 * 32];
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[4 * stride * threadIdx.x]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(in + 4 * threadIdx.x));
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[threadIdx.x] = s[4 * stride * threadIdx.x + 1];
}

/* Two stages through one buffer: each thread copies 2 floats into s[2t], reads its neighbour's,
 * then copies the next 2 over its own; without the barrier between the read and the next copy,
 * the neighbour's copy overwrites what is still being read (a write-after-read race). */
__global__ void async_reuse(const float *in, float *out, int barrier)
{
    __shared__ __align__(16) float s[64];
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[2 * threadIdx.x]);
    int j = (threadIdx.x + 1) % 32;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(in + 2 * threadIdx.x));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    float v = s[2 * j]; /* L:async_reuse_read */
    if (barrier)
        __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(in + 64 + 2 * threadIdx.x)); /* L:async_reuse_copy */
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    out[threadIdx.x] = v + s[2 * j];
}

/* Four warps (block 128): each warp's lane 0 swaps its warp's number into out[0], and after a
 * barrier into out[1]; atomics against atomics, no race, so what stays is the last warp's to run
 * in each phase: the interpreter's order of warps, seen. */
__global__ void warp_order(float *out)
{
    if (threadIdx.x % 32 == 0)
        atomicExch(&out[0], (float)(threadIdx.x / 32)); /* L:warp_order_swap */
    __syncthreads();
    if (threadIdx.x % 32 == 0)
        atomicExch(&out[1], (float)(threadIdx.x / 32));
}

/* Four warps (block 128): each warp's lane 0 adds its warp's number + 1 to out[0] by reading it
 * atomically and swapping in the sum with atomicCAS, again while another warp got there first
 * (retry) or once. Without the retry a warp whose read another warp's swap overtook loses its
 * addend: 10 with it, under every order; less without, where the warps interleave. */
__global__ void cas_add(float *out, int retry)
{
    if (threadIdx.x % 32 != 0)
        return;
    int *word = (int *)out, seen = atomicOr(word, 0), assumed;
    do {
        assumed = seen;
        seen = atomicCAS(word, assumed, __float_as_int(__int_as_float(assumed) + (float)(threadIdx.x / 32 + 1)));
    } while (retry && seen != assumed);
}

/* Four warps (block 128): each warp's lane 0 publishes its warp's number + 1 into its own shared
 * word and takes a ticket; the warp with the last ticket adds the four words into out[0]. Published
 * before the ticket (fenced), every word is in by the last ticket: 10 under every order. The
 * ticket first, a warp that took an early one may not have published when the last reads. */
__global__ void ticket_sum(float *out, int publish_first)
{
    __shared__ int words[4], arrived;
    if (threadIdx.x < 4)
        words[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        arrived = 0;
    __syncthreads();
    if (threadIdx.x % 32 != 0)
        return;
    int w = threadIdx.x / 32, ticket;
    if (publish_first) {
        atomicExch(&words[w], w + 1);
        __threadfence_block();
        ticket = atomicAdd(&arrived, 1);
    } else {
        ticket = atomicAdd(&arrived, 1);
        atomicExch(&words[w], w + 1);
    }
    if (ticket == 3) {
        __threadfence_block();
        int sum = 0;
        for (int i = 0; i < 4; i++)
            sum += atomicOr(&words[i], 0);
        out[0] = (float)sum;
    }
}

/* Two warps (block 64): warp 0's lane 0 stores a word, fences and takes a ticket; warp 1's lane 0
 * takes one, fences and, with the second ticket, reads the word: right by the PTX memory model
 * (the fences and the atomic order the two), which the race check, following barriers only, does
 * not see: its sentence says so. */
__global__ void fenced_handover(float *out)
{
    __shared__ float word;
    __shared__ int tickets;
    if (threadIdx.x == 0)
        tickets = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        word = out[1];
        __threadfence_block();
        atomicAdd(&tickets, 1);
    } else if (threadIdx.x == 32 && atomicAdd(&tickets, 1) == 1) {
        __threadfence_block();
        out[0] = word; /* L:fenced_handover_read */
    }
}

/* Four warps (block 128): warp 0's lane 0 adds 1 to out[0] by an atomic read and atomicCAS (again
 * while another got there first: retry), the other warps' lane 0 add their number + 1 by `red`
 * (inline PTX: nvcc emits atom for an atomicAdd whose result is unused). */
__global__ void cas_beside_red(float *out, int retry)
{
    if (threadIdx.x % 32 != 0)
        return;
    if (threadIdx.x == 0) {
        int *word = (int *)out, seen = atomicOr(word, 0), assumed;
        do {
            assumed = seen;
            seen = atomicCAS(word, assumed, __float_as_int(__int_as_float(assumed) + 1.0f));
        } while (retry && seen != assumed);
    } else {
        asm volatile("red.global.add.f32 [%0], %1;" ::"l"(out), "f"((float)(threadIdx.x / 32 + 1)) : "memory");
    }
}

/* Four warps (block 128): each warp's lane 0 swaps into one shared word, by a compare-and-swap
 * loop that adds its warp's number + 1 (loop), or by one compare-and-swap that elects the first
 * warp to come (a leader). The loop's warps take turns on the word, as float atomicAdds do. */
__global__ void shared_cas(float *out, int loop)
{
    __shared__ int word;
    if (threadIdx.x == 0)
        word = 0;
    __syncthreads();
    if (threadIdx.x % 32 == 0) {
        int w = threadIdx.x / 32;
        if (loop) {
            int seen = atomicOr(&word, 0), assumed;
            do {
                assumed = seen;
                seen = atomicCAS(&word, assumed, assumed + w + 1);
            } while (seen != assumed);
        } else {
            atomicCAS(&word, 0, w + 1);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0)
        out[0] = (float)word;
}

/* At most 32 threads a block (.maxntid 32): a launch of more is refused, as a GPU refuses it. */
__global__ void __launch_bounds__(32) bounded(float *out)
{
    out[threadIdx.x] = 1.0f;
}

/* Each block's thread 0 leaves its block's index in out[0]: the last block run wins. */
/* Each block marks its own element: which blocks a sampled launch ran. */
__global__ void block_mark(float *out)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 1.0f;
}

__global__ void block_order(float *out)
{
    if (threadIdx.x == 0)
        atomicExch(&out[0], (float)blockIdx.x); /* L:block_order_last */
}

/* Four warps: thread 0 zeroes out[0], then each warp's lane 0 adds 1 with an atomic; without the
 * barrier between, the plain store and the other warps' atomics race (global memory, one block). */
__global__ void global_zero_then_add(float *out, int barrier)
{
    if (threadIdx.x == 0)
        out[0] = 0.0f; /* L:global_zero */
    if (barrier)
        __syncthreads();
    if (threadIdx.x % 32 == 0)
        atomicAdd(&out[0], 1.0f); /* L:global_add */
}
