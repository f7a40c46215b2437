// Test kernels for the interpreter's Hopper machinery (test_ptx_hopper.c): a GEMM of halves as
// lesson 11 makes it (tensor copies into 128-byte-swizzled stages, a full and an empty mbarrier per
// stage, wgmma reading the stages through descriptors), with a switch for each mistake the
// interpreter must name; and a tile written by ordinary stores that wgmma reads, with and without
// the proxy fence. Compiled for sm_90a (wgmma needs the architecture's own features):
//   nvcc -ptx -lineinfo -arch=sm_90a -o build/tests/ptx_hopper.ptx checker/tests/ptx/hopper.cu
#include <cuda.h>
#include <stdint.h>

#include "hopper_asm.cuh"

#define BM 128
#define BN 128
#define BK 64
#define STAGES 3
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_BYTES + B_BYTES)

// The mistakes (gemm's `bug`).
enum { RIGHT, WRONG_PARITY, NO_EMPTY_WAIT, NO_WGMMA_FENCE, B_SWIZZLE_64, SHORT_EXPECT, NO_WAIT_GROUP,
       ARRIVE_BEFORE_WAIT, WAIT_ONE, ISSUE_BEFORE_WAIT, OTHER_HALF_IN_ODD_WARPS };

// C = A B, N a multiple of 128: A (N x N, row-major, k-major for wgmma) in boxes of 64 x 128, B
// (row-major: n-major, wgmma's transposed B) in boxes of 64 x 64; warps 0-3 multiply, warp 4's
// first lane copies. Dynamic shared memory: STAGES x STAGE_BYTES and 1024 to align them.
__global__ void __launch_bounds__(160) gemm(const __grid_constant__ CUtensorMap mapA,
                                            const __grid_constant__ CUtensorMap mapB, float *C, int N, int bug)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    unsigned char *buf = (unsigned char *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    int t = threadIdx.x, ktiles = N / BK;
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    if (t == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], bug == WAIT_ONE ? 4 : 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t >= 128) {
        if (t == 128)
            for (int kt = 0; kt < ktiles; kt++) {
                int s = kt % STAGES;
                if (kt >= STAGES && bug != NO_EMPTY_WAIT)
                    bar_wait(&empty[s], ((kt / STAGES) - 1) & 1);
                unsigned char *a = buf + s * STAGE_BYTES, *b = a + A_BYTES;
                bar_expect(&full[s], bug == SHORT_EXPECT ? STAGE_BYTES / 2 : STAGE_BYTES);
                tma_2d(a, &mapA, kt * BK, m0, &full[s]);
                tma_2d(b, &mapB, n0, kt * BK, &full[s]);
                tma_2d(b + B_BYTES / 2, &mapB, n0 + 64, kt * BK, &full[s]);
            }
        return;
    }
    float acc[2][64];
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 64; i++)
            acc[h][i] = 0.0f;
    for (int kt = 0; kt < ktiles; kt++) {
        int s = kt % STAGES;
        if (bug != ISSUE_BEFORE_WAIT)
            bar_wait(&full[s], ((kt / STAGES) & 1) ^ (bug == WRONG_PARITY));
        uint32_t a = smem(buf + s * STAGE_BYTES), b = a + A_BYTES;
        if (bug != NO_WGMMA_FENCE)
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int k = 0; k < BK / 16; k++)
            for (int h = 0; h < 2; h++) {
                int half = bug == OTHER_HALF_IN_ODD_WARPS && t / 32 % 2 ? 1 - h : h;
                wgmma_64x128x16(acc[h], desc(a + half * 64 * 128 + k * 32, 16, 1024, 1),
                                desc(b + k * 16 * 128, BK * 128, 1024, bug == B_SWIZZLE_64 ? 2 : 1));
            }
        if (bug == ISSUE_BEFORE_WAIT)
            bar_wait(&full[s], (kt / STAGES) & 1);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        if (bug == WAIT_ONE) { // right too: this K-step's products overlap the next one's wait; the stage
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); // before it is free once its
            if (kt > 0 && t % 32 == 0)                                     // products are waited for: a
                bar_arrive(&empty[(kt - 1) % STAGES]);                     // warp's first lane says so
            continue;
        }
        if (bug == ARRIVE_BEFORE_WAIT)
            bar_arrive(&empty[s]);
        if (bug != NO_WAIT_GROUP || kt + 1 < ktiles)
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (bug != ARRIVE_BEFORE_WAIT)
            bar_arrive(&empty[s]);
    }
    if (bug == WAIT_ONE)
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    int w = t / 32, l = t % 32;
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 64; i++) {
            int row = m0 + h * 64 + 16 * w + l / 4 + 8 * ((i / 2) % 2);
            int col = n0 + 8 * (i / 4) + 2 * (l % 4) + i % 2;
            C[(size_t)row * N + col] = acc[h][i];
        }
}

// One m64n8k16 product of tiles that the block's threads store in shared memory (A 64 x 16, k-major,
// unswizzled core matrices; B 16 x 8, k-major), with the proxy fence between or not: C (64 x 8).
__global__ void stored_tiles(const unsigned short *A, const unsigned short *B, float *C, int fence)
{
    __shared__ __align__(128) unsigned short a[64 * 16], b[8 * 16];
    int t = threadIdx.x;
    // core matrix (m / 8, k / 8) of A: 8 rows of 16 bytes, at 128 (m / 8) + 1024 (k / 8)... in halves:
    for (int i = t; i < 64 * 16; i += 128) {
        int m = i / 16, k = i % 16;
        a[(k / 8) * 512 + (m / 8) * 64 + (m % 8) * 8 + k % 8] = A[i];
    }
    for (int i = t; i < 16 * 8; i += 128) {
        int k = i / 8, n = i % 8;
        b[(k / 8) * 64 + n * 8 + k % 8] = B[i];
    }
    if (fence)
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[4] = {0, 0, 0, 0};
    uint64_t da = desc(smem(a), 1024, 128, 0), db = desc(smem(b), 128, 128, 0);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 0, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    int w = t / 32, l = t % 32;
    for (int i = 0; i < 4; i++)
        C[(16 * w + l / 4 + 8 * (i / 2)) * 8 + 2 * (l % 4) + i % 2] = d[i];
}

// ---- probes the conformance record holds the GPU's answers to (hopper-conform.cu, test_ptx_hopper.c) ----

// One tensor copy of a box at (x, y) into 1024-aligned shared memory, then the box's bytes as they
// lie there (the swizzle's places, the fill outside the tensor) copied out: out[bytes / 4].
__global__ void tma_probe(const __grid_constant__ CUtensorMap map, unsigned *out, int x, int y, int bytes)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    unsigned *box = (unsigned *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
    __shared__ __align__(8) uint64_t full;
    int t = threadIdx.x;
    for (int i = t; i < bytes / 4; i += blockDim.x)
        box[i] = 0xEEEEEEEE; // what a copy that misses a byte leaves
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (t == 0) {
        bar_init(&full, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        bar_expect(&full, bytes);
        tma_2d(box, &map, x, y, &full);
    }
    bar_wait(&full, 0);
    for (int i = t; i < bytes / 4; i += blockDim.x)
        out[i] = box[i];
}

// One m64n16k16 product, A and B read through descriptors (offsets into a 32 KiB tile that the
// block stores from `tile`, start addresses added here), C from cin; trans_b: B mn-major. D (64 x
// 16 floats, row-major) into out.
__global__ void wgmma_probe(const unsigned short *tile, const float *cin, float *out, unsigned long long da,
                            unsigned long long db, int trans_b)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    unsigned short *s = (unsigned short *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
    int t = threadIdx.x, w = t / 32, l = t % 32;
    for (int i = t; i < 16384; i += 128)
        s[i] = tile[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    uint64_t base = (smem(s) >> 4) & 0x3FFF;
    da += base, db += base;
    float d[8];
    for (int j = 0; j < 8; j++)
        d[j] = cin[(16 * w + l / 4 + 8 * ((j / 2) % 2)) * 16 + 8 * (j / 4) + 2 * (l % 4) + j % 2];
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    if (trans_b)
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 1;\n}"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                     : "l"(da), "l"(db));
    else
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n}"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                     : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < 8; j++)
        out[(16 * w + l / 4 + 8 * ((j / 2) % 2)) * 16 + 8 * (j / 4) + 2 * (l % 4) + j % 2] = d[j];
}

// A kernel that reads its tensor map's bytes, as a kernel telling the judges apart would.
__global__ void map_peek(const __grid_constant__ CUtensorMap map, unsigned long long *out)
{
    out[threadIdx.x] = ((const unsigned long long *)&map)[threadIdx.x % 16];
}
