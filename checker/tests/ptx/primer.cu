/* The examples of the PTX primer (docs/ptx.md), each as the page shows it: every ```cuda block
 * of the page is a run of lines of this file (checker/tests/test_ptx_primer.c holds them to it),
 * and the test runs the kernels below in the PTX interpreter, one warp each, against what the
 * page says they compute, its pictures of the fragments included. nvcc makes PTX of it as of
 * checker/tests/ptx/kernels.cu (make build/tests/ptx_primer.ptx). */

/* ---- inline assembly: operands and constraints ---- */

__device__ int add(int a, int b)
{
    int sum;
    asm("add.s32 %0, %1, %2;" : "=r"(sum) : "r"(a), "r"(b));
    return sum;
}

__device__ void accumulate(float &acc, float x, float y)
{
    asm("fma.rn.f32 %0, %1, %2, %0;" : "+f"(acc) : "f"(x), "f"(y));
}

__device__ unsigned pack(unsigned short lo, unsigned short hi)
{
    unsigned both;
    asm("mov.b32 %0, {%1, %2};" : "=r"(both) : "h"(lo), "h"(hi));
    return both;
}

__device__ int load_global(const int *p)
{
    int v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(__cvta_generic_to_global(p)));
    return v;
}

/* Lane t: out[t] = in[t] + in[32 + t]; out[32 + t], the bits of 1.5 t + 2 (an fma); out[64 + t],
 * halves t (low) and 100 + t (high) packed; out[96 + t] = in[64 + t], read by ld.global. */
__global__ void operands(const int *in, int *out)
{
    int t = threadIdx.x;
    out[t] = add(in[t], in[32 + t]);
    float acc = 2.0f;
    accumulate(acc, 1.5f, (float)t);
    out[32 + t] = __float_as_int(acc);
    out[64 + t] = (int)pack((unsigned short)t, (unsigned short)(100 + t));
    out[96 + t] = load_global(in + 64 + t);
}

/* ---- state spaces: a shared address, and the "memory" clobber ---- */

__global__ void shared_store(int *out)
{
    __shared__ int s[32];
    unsigned at = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(at), "r"(10 * (int)threadIdx.x) : "memory");
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

/* ---- cp.async: commit groups and wait for them ---- */

// 4 bytes from global memory into shared memory, without a register on the way.
__device__ void copy4(float *dst, const float *src)
{
    unsigned at = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(at), "l"(src));
}

// One warp adds up `chunks` chunks of 32 floats; lane t ends with the sum of element t + 1 of each
// (a neighbour's, to need the barrier). Two buffers: chunk i + 1 is copied while chunk i is read.
__global__ void double_buffer(const float *in, float *out, int chunks)
{
    __shared__ float buf[2][32];
    int t = threadIdx.x;
    float sum = 0.0f;
    copy4(&buf[0][t], in + t);
    asm volatile("cp.async.commit_group;");                       // group 0: chunk 0
    for (int i = 0; i < chunks; i++) {
        if (i + 1 < chunks) {
            copy4(&buf[(i + 1) % 2][t], in + 32 * (i + 1) + t);
            asm volatile("cp.async.commit_group;");               // group i + 1: chunk i + 1
            asm volatile("cp.async.wait_group 1;" ::: "memory");  // all but the newest: chunk i is here
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");  // the last chunk: wait for all
        }
        __syncthreads();                                          // everyone's copies of chunk i
        sum += buf[i % 2][(t + 1) % 32];
        __syncthreads();                                          // read before chunk i + 2 lands here
    }
    out[t] = sum;
}

/* ---- ldmatrix ---- */

// Four 8 x 8 matrices of halves, stored one under the other: rows 8j..8j+7 of m are matrix j.
// Lane l gives the address of row l; register j of each lane receives its part of matrix j.
__global__ void ldmatrix_four(const unsigned short *m, unsigned *out)
{
    __shared__ __align__(16) unsigned short s[32 * 8];
    for (int i = threadIdx.x; i < 32 * 8; i += 32)
        s[i] = m[i];
    __syncthreads();
    unsigned at = (unsigned)__cvta_generic_to_shared(&s[8 * threadIdx.x]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(at));
    unsigned *o = out + 4 * threadIdx.x;
    o[0] = r0, o[1] = r1, o[2] = r2, o[3] = r3;
}

/* The same with .trans: each matrix dealt out transposed. */
__global__ void ldmatrix_four_trans(const unsigned short *m, unsigned *out)
{
    __shared__ __align__(16) unsigned short s[32 * 8];
    for (int i = threadIdx.x; i < 32 * 8; i += 32)
        s[i] = m[i];
    __syncthreads();
    unsigned at = (unsigned)__cvta_generic_to_shared(&s[8 * threadIdx.x]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(at));
    unsigned *o = out + 4 * threadIdx.x;
    o[0] = r0, o[1] = r1, o[2] = r2, o[3] = r3;
}

/* ---- mma.sync m16n8k16 ---- */

// D (16 x 8 floats) = A (16 x 16 halves, row-major) B (16 x 8 halves, row-major), one warp. Each
// lane packs its fragments from global memory with plain loads, where the fragment layout says.
__global__ void mma_fragments(const unsigned short *A, const unsigned short *B, float *D)
{
    int g = threadIdx.x / 4, t = threadIdx.x % 4;
    unsigned a[4], b[2];
    a[0] = pack(A[g * 16 + 2 * t], A[g * 16 + 2 * t + 1]);                   // row g,     k 2t, 2t+1
    a[1] = pack(A[(g + 8) * 16 + 2 * t], A[(g + 8) * 16 + 2 * t + 1]);       // row g + 8, k 2t, 2t+1
    a[2] = pack(A[g * 16 + 2 * t + 8], A[g * 16 + 2 * t + 9]);               // row g,     k 2t+8, 2t+9
    a[3] = pack(A[(g + 8) * 16 + 2 * t + 8], A[(g + 8) * 16 + 2 * t + 9]);   // row g + 8, k 2t+8, 2t+9
    b[0] = pack(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);                 // k 2t, 2t+1,     column g
    b[1] = pack(B[(2 * t + 8) * 8 + g], B[(2 * t + 9) * 8 + g]);             // k 2t+8, 2t+9,   column g
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    D[g * 8 + 2 * t] = d[0], D[g * 8 + 2 * t + 1] = d[1];                    // row g,     columns 2t, 2t+1
    D[(g + 8) * 8 + 2 * t] = d[2], D[(g + 8) * 8 + 2 * t + 1] = d[3];        // row g + 8, columns 2t, 2t+1
}
