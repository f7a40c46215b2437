/*
 * Lesson 11: Hopper's own swizzle, TMA copies and wgmma   hgemm_tma.cu
 *
 * CONTRACT
 *   Computes   C = A * B, where A and B are N x N matrices of IEEE half-precision
 *              numbers (binary16) and C is N x N floats, all row-major. The
 *              products are summed in float.
 *   Signature  __global__ void hgemm_tma(const __grid_constant__ CUtensorMap A,
 *                                        const __grid_constant__ CUtensorMap B,
 *                                        float *C, int N);
 *              A and B come as tensor maps, which the harness builds on the host
 *              (cuTensorMapEncodeTiled): the kernel reaches them only through
 *              cp.async.bulk.tensor (tma_load below). Each map copies a box of
 *              halves into shared memory, rows of 128 bytes, swizzled 128 bytes
 *              (CU_TENSOR_MAP_SWIZZLE_128B), zeros where the box lies outside
 *              the matrix:
 *                A: 64 columns (k) x 128 rows (m): one 128 x 64 tile, 16 KiB
 *                B: 64 columns (n) x  64 rows (k): one 64 x 64 tile,   8 KiB
 *              Coordinates are (column, row) in elements.
 *   Launch     done by the harness, never by this file:
 *                block = dim3(288)     (9 warps: two warpgroups and one more)
 *                grid  = dim3(ceil(N/256), ceil(N/128))
 *                dynamic shared memory: 204,800 bytes (extern __shared__)
 *              one block per 128 x 256 block of C, blockIdx.x along its columns.
 *   Edges      N is a multiple of 8 (a tensor map's rows are whole 16-byte
 *              units), and otherwise arbitrary (8, 264, 1000, ...): the copies
 *              fill what lies outside A and B with zeros; stores outside C must
 *              be skipped.
 *   Rules      Exactly one __global__ kernel, hgemm_tma, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls.
 *   Passing    1. Correct: on every tested size, C matches the reference
 *                 solution and a CPU reference; every sum is exact in float,
 *                 so a right kernel gives the very bits.
 *              2. Fast: on a GPU of compute capability 9.0 (H100, H200), at
 *                 least the speed-up over lesson 10's kernel and the share of
 *                 cuBLAS's half-precision GEMM (cublasGemmEx) that
 *                 lessons/11_tma_wgmma/thresholds sets, timed in the same run.
 *                 In the emulator: every multiply-add on the tensor cores, global
 *                 sectors and warp instructions at most the thresholds' fractions
 *                 of lesson 10's, and the copies running ahead of the products
 *                 (a pipeline of two stages or more).
 *   Running    make lesson11  copies this stub to work/11_tma_wgmma/;
 *                             edit that copy, not this file.
 *              make check     checks your copy (EMU=1: in the emulator, the
 *                             only judge where the GPU is not a Hopper).
 *              make hint      shows the lesson's hints, weakest first.
 */

/*
 * This stub gives the instructions (inline PTX, each in a small function), the stages' layout,
 * the barriers' set-up and the store of the accumulators. It computes nothing yet: C stays 0.
 * Write the three TODO regions: the descriptor, the copier's ring, the consumers' loop.
 */

#define BM 128                     // rows of C per block: two m64 halves, one per consumer warpgroup
#define BN 256                     // columns of C per block: each product's n
#define BK 64                      // the K-step: 64 halves, one 128-byte swizzled row per tile row
#define STAGES 4                   // stages of the ring: the copier runs up to STAGES K-steps ahead
#define A_BYTES (BM * BK * 2)      // 16 KiB: A's 128 x 64 tile
#define B_BOX_BYTES (BK * 64 * 2)  // 8 KiB: one box of B, 64 rows of k x 64 columns of n
#define B_BYTES (BN / 64 * B_BOX_BYTES)
#define STAGE_BYTES (A_BYTES + B_BYTES) // 48 KiB; four stages and 1 KiB to align them: 193 KiB
#define CONSUMERS 256              // threads of the two warpgroups that multiply

// ---- the instructions, as inline PTX ----

// A generic pointer into shared memory as the 32-bit shared address the instructions take.
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// mbarrier: a counter in 8 bytes of shared memory. Its phase completes when `count` arrivals and
// every byte it was told to expect have come; then it starts the next phase.
__device__ __forceinline__ void bar_init(unsigned long long *bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
// One arrival that also tells the barrier to expect `bytes` more (the copier's, before its copies).
__device__ __forceinline__ void bar_arrive_expect(unsigned long long *bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// Waits until the phase of this parity (0 or 1: phases alternate) has completed.
__device__ __forceinline__ void bar_wait(unsigned long long *bar, int parity)
{
    asm volatile("{\n .reg .pred done;\n WAIT:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 " @!done bra WAIT;\n}" ::"r"(smem_addr(bar)), "r"(parity) : "memory");
}

// The tensor memory accelerator: one box of `map` at (x, y) (column, row, in elements) into
// shared memory at dst (1024-byte aligned), swizzled as the map says; its bytes complete on bar.
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, int x, int y, unsigned long long *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar)) : "memory");
}

// wgmma's fences: before the first product that reads registers or shared memory others wrote,
// and after the products: close the group issued so far, then wait until none is in flight.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// d (64 x 256 floats over the warpgroup's 128 threads, 128 each) += A (64 x 16, k-major) *
// B (16 x 256, n-major), both read from shared memory through the descriptors da and db. The
// four warps of a warpgroup issue it together. Thread t's d[i] is row 16 (t / 32 % 4) + t % 32 / 4
// + 8 (i / 2 % 2), column 8 (i / 4) + 2 (t % 4) + i % 2 of the 64 x 256.
#define D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
              "+f"(d[i + 6]), "+f"(d[i + 7])
__device__ __forceinline__ void wgmma_64x256x16(float *d, unsigned long long da, unsigned long long db)
{
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "%128, %129, p, 1, 1, 0, 1;\n}"
                 : D8(0), D8(8), D8(16), D8(24), D8(32), D8(40), D8(48), D8(56), D8(64), D8(72), D8(80), D8(88),
                   D8(96), D8(104), D8(112), D8(120)
                 : "l"(da), "l"(db));
}

// ---- the layout ----

// A matrix descriptor: where wgmma finds an operand in shared memory, 64 bits.
//   bits  0-13  the start address / 16          bits 32-45  SBO / 16: from one 8-row group to the next
//   bits 16-29  LBO / 16: from one swizzle span of the other dimension to the next
//   bits 62-63  the swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
// TODO: build the descriptor from addr, lbo and sbo (each a byte count: keep the bits the fields
//       hold), and name the swizzle the copies made (the README's "The descriptor").
__device__ __forceinline__ unsigned long long descriptor(unsigned addr, unsigned lbo, unsigned sbo)
{
    (void)addr, (void)lbo, (void)sbo;
    return 0;
    // END TODO
}

__global__ void __launch_bounds__(288) hgemm_tma(const __grid_constant__ CUtensorMap A,
                                                 const __grid_constant__ CUtensorMap B, float *C, int N)
{
    // The stages, a ring: stage s is A's tile [128 m][64 k] (16 KiB, rows of 128 bytes), then B's
    // four boxes [64 k][64 n] (8 KiB each, rows of 128 bytes), all 128-byte swizzled. The swizzle
    // repeats every 8 rows (1 KiB), so each box starts at a multiple of 1024: raw rounded up.
    extern __shared__ __align__(1024) unsigned char raw[];
    unsigned char *stages = (unsigned char *)(((unsigned long long)raw + 1023) & ~1023ull);
    // full[s]: stage s's bytes have landed (one arrival, the copier's, and STAGE_BYTES).
    // empty[s]: the 256 consumer threads are done reading stage s (256 arrivals).
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];

    int t = threadIdx.x, ksteps = (N + BK - 1) / BK;
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    if (t == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], CONSUMERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); // the inits, seen by the copies
    }
    __syncthreads();

    if (t >= CONSUMERS) { // warp 8, the copier: one thread runs the ring ahead of the products
        if (t == CONSUMERS)
            for (int k = 0; k < ksteps; k++) {
                // TODO: K-step k into stage k % STAGES: once the stage is free (its previous
                //       K-step read: wait on its empty barrier, with the parity of that phase),
                //       tell its full barrier the bytes to expect, then copy A's tile (the 128 rows
                //       of this block, k's 64 columns) and B's four boxes (k's 64 rows, the
                //       block's 256 columns, 64 at a time), each to its place in the stage.
                (void)k;
                // END TODO
            }
        return;
    }

    // Warpgroup g (warps 4g..4g+3) makes rows 64g..64g+63 of the block's C.
    int g = t / 128;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++)
        d[i] = 0.0f;
    for (int k = 0; k < ksteps; k++) {
        // TODO: wait until stage k % STAGES has landed (its full barrier, the parity of this
        //       K-step's phase); then wgmma's fence, the four products of the K-step (16 of k
        //       each: this warpgroup's 64 rows of A's tile, all of B's, each through its
        //       descriptor), commit them, wait for them, and say the stage may be copied over.
        (void)k;
        // END TODO
    }

    // The store: d[i] and d[i + 1] (i even) are two neighbours in a row, as wgmma_64x256x16 lays
    // them out: one 8-byte store (N is a multiple of 8, so col + 1 < N where col < N).
    int w = t / 32 % 4, l = t % 32;
#pragma unroll
    for (int i = 0; i < 128; i += 2) {
        int row = m0 + 64 * g + 16 * w + l / 4 + 8 * (i / 2 % 2), col = n0 + 8 * (i / 4) + 2 * (l % 4);
        if (row < N && col < N)
            *reinterpret_cast<float2 *>(&C[(size_t)row * N + col]) = make_float2(d[i], d[i + 1]);
    }
}
