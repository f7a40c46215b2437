/*
 * Lesson 10: the tensor-core tile, ldmatrix and the XOR swizzle   hgemm_swizzled.cu
 *
 * CONTRACT
 *   Computes   C = A * B, where A and B are N x N matrices of IEEE half-precision
 *              numbers (binary16) and C is N x N floats, all row-major: element
 *              (row, k) of A is A[row*N + k]. The products are summed in float.
 *   Signature  __global__ void hgemm_swizzled(const unsigned short *A,
 *                                             const unsigned short *B,
 *                                             float *C, int N);
 *              A half is passed as its 16 bits (unsigned short): the kernel only
 *              moves them, and the tensor cores multiply them.
 *   Launch     done by the harness, never by this file:
 *                block = dim3(256)                        (256 threads, 8 warps)
 *                grid  = dim3(ceil(N/128), ceil(N/128))
 *              one block per 128 x 128 block of C, blockIdx.x along its
 *              columns: each warp computes 64 x 32 of it with mma.sync.
 *   Edges      N is arbitrary (1, 100, 1000, ...), so the last blocks reach
 *              past the matrix: what a tile holds outside A or B must be 0,
 *              stores outside C must be skipped. A 16-byte copy (8 halves) needs
 *              a 16-byte aligned address, which a row start has only when
 *              N % 8 == 0: for other N, copy half by half.
 *   Rules      Exactly one __global__ kernel, hgemm_swizzled, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls (cuBLAS...).
 *   Passing    1. Correct: on every tested size, C matches the reference
 *                 solution and a CPU reference within a floating-point
 *                 tolerance. The inputs are chosen so that every sum is
 *                 exact in float: a right kernel gives the very bits.
 *              2. Fast: on a GPU, at least the speed-up over lesson 8's SGEMM
 *                 (float inputs, its own launch) and the share of cuBLAS's
 *                 half-precision GEMM (cublasGemmEx) that
 *                 lessons/10_tensor_cores/thresholds sets, all timed in the
 *                 same run. In the emulator: no shared-memory bank conflicts
 *                 (ldmatrix's included), every multiply-add on the tensor cores
 *                 (and float multiplies elsewhere at most 1% of them), global
 *                 sectors and warp instructions issued at most the fractions
 *                 of lesson 8's that the thresholds file sets, and at least
 *                 its bytes of loads (the copies) in flight per thread each
 *                 time a thread waits for them.
 *   Running    make lesson10  copies this stub to work/10_tensor_cores/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

/*
 * This stub gives what the tensor-core tile is built from: the instructions, each
 * in a small function of inline PTX (docs/ptx.md explains the asm syntax, the
 * constraint letters and the "memory" clobber), the two tiles and the warp's
 * place in the block. Inside the TODO regions it holds a stand-in that is right
 * and slow: it copies the tiles one half at a time and multiplies on the ordinary
 * cores, one float multiply-add at a time, reading A's tile down its columns (the
 * check draws that read's bank conflict). Replace each stand-in with what its TODO
 * says: where a chunk of a tile row is stored, the copies that fill the tiles,
 * each warp's fragments and its mma.sync loop, and the store of its part of C.
 */

#define BM 128   // rows of C per block
#define BN 128   // columns of C per block
#define BK 64    // the K-step: 64 halves, so a row of A's tile is 128 bytes
#define CHUNK 8  // halves in 16 bytes: what one cp.async, and one ldmatrix row, moves

// Where chunk `chunk` (16 bytes, 8 halves) of tile row `row` is stored, as a chunk of the same
// row. The copies into a tile and the ldmatrix reads of it must both ask this function, so that
// they agree.
// TODO: return a chunk of the same row such that the eight rows one ldmatrix matrix reads (one
//       chunk of eight consecutive rows) land in eight different 16-byte bank groups, and the
//       chunks of one row stay all different (the README's "The swizzle" derives it).
__device__ __forceinline__ int swizzle(int row, int chunk)
{
    (void)row;
    return chunk;
    // END TODO
}

// 16 bytes from global memory into shared memory without a register on the way (cp.async);
// `bytes` of them read (16 or 0: 0 fills the 16 with zeros). The shared side is an address in
// the block's shared memory (32 bits, "r"), the global side a 64-bit pointer ("l"). The copy is
// in flight when this returns: a cp.async.wait_all in the thread that issued it, then a barrier,
// must come before anyone reads the 16 bytes.
__device__ __forceinline__ void copy16(void *smem, const void *gmem, int bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(bytes));
}

// Eight halves M[r][c..c+7] of an N x N matrix into dst (16 bytes of shared memory), 0 outside it:
// one copy16 where the row's start is 16-byte aligned (N % 8 == 0), else half by half through
// registers (those need no wait, only the barrier).
__device__ __forceinline__ void load_chunk(unsigned short *dst, const unsigned short *M, int r, int c, int N)
{
    if (N % CHUNK == 0) { // row starts are 16-byte aligned: one copy, or zeros
        int inside = r < N && c < N;
        copy16(dst, inside ? M + (size_t)r * N + c : M, inside ? 16 : 0);
        return;
    }
    unsigned w[4];
    for (int j = 0; j < 4; j++) {
        unsigned lo = r < N && c + 2 * j < N ? M[(size_t)r * N + c + 2 * j] : 0;
        unsigned hi = r < N && c + 2 * j + 1 < N ? M[(size_t)r * N + c + 2 * j + 1] : 0;
        w[j] = lo | hi << 16;
    }
    *reinterpret_cast<uint4 *>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
}

// ldmatrix: four 8 x 8 matrices of halves; lane l gives the shared address of one 16-byte row,
// lanes 8j..8j+7 the rows 0-7 of matrix j. r[j] of every lane receives its two halves of matrix
// j: lane l those of row l / 4, columns 2 (l % 4) (low half) and 2 (l % 4) + 1 (high half).
__device__ __forceinline__ void ldmatrix_x4(unsigned r[4], const unsigned short *row)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
// The same, each matrix dealt out transposed: lane l receives column l / 4, rows 2 (l % 4) (low
// half) and 2 (l % 4) + 1 (high half). For B, whose tile is stored k-major (row = k).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned r[4], const unsigned short *row)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

// d (16 x 8 floats) += a (16 x 16 halves) b (16 x 8 halves) on the tensor cores, for the whole
// warp at once. With g = lane / 4 and t = lane % 4, a lane holds
//   a[0]: A's row g, k 2t and 2t + 1      a[1]: row g + 8, k 2t and 2t + 1
//   a[2]: row g, k 2t + 8 and 2t + 9      a[3]: row g + 8, k 2t + 8 and 2t + 9
//   b0:   B's k 2t and 2t + 1, column g   b1:   k 2t + 8 and 2t + 9, column g
//   d[0], d[1]: row g, columns 2t and 2t + 1      d[2], d[3]: row g + 8, the same columns
// (two halves a register, the lower k in the low half). "+f": d is read and written back.
__device__ __forceinline__ void mma16816(float d[4], const unsigned a[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Stores C[r][c] and C[r][c+1], skipping what lies outside C.
__device__ __forceinline__ void store2(float *C, int r, int c, int N, float x, float y)
{
    if (r >= N)
        return;
    float *p = C + (size_t)r * N + c;
    if (N % 2 == 0 && c + 1 < N) {
        *reinterpret_cast<float2 *>(p) = make_float2(x, y);
        return;
    }
    if (c < N)
        p[0] = x;
    if (c + 1 < N)
        p[1] = y;
}

// A half (its 16 bits) as a float, by PTX's cvt: the stand-in's arithmetic. The tensor cores
// take halves as they are, so the kernel you write needs none of it: delete this and half_at
// with the stand-ins.
__device__ __forceinline__ float half_to_float(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

// The stand-in's element (r, c) of a tile of M, an N x N matrix: 0 outside it.
__device__ __forceinline__ unsigned short half_at(const unsigned short *M, int r, int c, int N)
{
    return r < N && c < N ? M[(size_t)r * N + c] : 0;
}

// __launch_bounds__(256, 2): blocks of 256 threads, and at least 2 of them on an SM at once, so
// ptxas keeps each thread to 65536 / (2 * 256) = 128 registers (a warp's 64 x 32 of C alone takes
// 64 of them): while one block waits at a barrier, the other's warps keep the tensor cores busy.
__global__ void __launch_bounds__(256, 2) hgemm_swizzled(const unsigned short *A, const unsigned short *B, float *C,
                                                         int N)
{
    // [BM][BK]: A's tile, As[m][k] = A[row0 + m][k0 + k], each row's chunks where swizzle puts
    // them. 16 KB, rows of 128 bytes.
    __shared__ __align__(128) unsigned short As[BM][BK];
    // [BK][BN]: B's tile, Bs[k][n] = B[k0 + k][col0 + n], the same. 16 KB, rows of 256 bytes.
    __shared__ __align__(128) unsigned short Bs[BK][BN];

    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int wm = (warp % 2) * 64, wn = (warp / 2) * 32; // the warp's 64 x 32 of the block's C

    // [4][4][4]: the warp's C as 4 x 4 mma tiles of 16 x 8; a lane holds 4 floats of each.
    float acc[4][4][4] = {};

    for (int k0 = 0; k0 < N; k0 += BK) {
        // TODO: fill the tiles for this K-step: the 256 threads share A's 1024 chunks (8 a row)
        //       and B's 1024 (16 a row), each copied by load_chunk into the place swizzle gives it, the
        //       threads of a warp on consecutive chunks. Then wait for this thread's copies and
        //       let the block's barrier make everyone's visible.
        //       The stand-in: a half at a time, through a register.
        for (int q = threadIdx.x; q < BM * BK; q += blockDim.x) {
            int m = q / BK, k = q % BK;
            As[m][swizzle(m, k / CHUNK) * CHUNK + k % CHUNK] = half_at(A, row0 + m, k0 + k, N);
        }
        for (int q = threadIdx.x; q < BK * BN; q += blockDim.x) {
            int k = q / BN, n = q % BN;
            Bs[k][swizzle(k, n / CHUNK) * CHUNK + n % CHUNK] = half_at(B, k0 + k, col0 + n, N);
        }
        __syncthreads();
        // END TODO

        // TODO: the warp's multiply-adds on this tile, 16 of k at a time: A's four 16 x 16
        //       fragments (one ldmatrix_x4 each) and B's four 16 x 8 (two per ldmatrix_x4_trans),
        //       each lane naming the row the README's "Which lane names which row" derives, at
        //       the chunk swizzle gives; then an mma16816 for each of the warp's 4 x 4 tiles,
        //       into acc. Last, a barrier: the tiles are refilled next.
        //       The stand-in: lane l sums rows wm + l and wm + 32 + l of the warp's 64 x 32 in
        //       acc, float by float on the ordinary cores. Its read of A's tile goes down a column:
        //       32 rows, one bank (the check's map of it).
        // (A warp whose part of C lies outside it skips the work, and so does the k past N.)
        for (int k = 0; k < BK && k0 + k < N && row0 + wm < N && col0 + wn < N; k++) {
            int m0 = wm + lane, m1 = wm + 32 + lane, c = k / CHUNK, e = k % CHUNK;
            float a0 = half_to_float(As[m0][swizzle(m0, c) * CHUNK + e]);
            float a1 = half_to_float(As[m1][swizzle(m1, c) * CHUNK + e]);
#pragma unroll
            for (int n = 0; n < 32; n++) {
                int col = wn + n;
                float b = half_to_float(Bs[k][swizzle(k, col / CHUNK) * CHUNK + col % CHUNK]);
                acc[n / 16][n / 4 % 4][n % 4] += a0 * b; // acc's 64 floats as two rows of 32
                acc[2 + n / 16][n / 4 % 4][n % 4] += a1 * b;
            }
        }
        __syncthreads();
        // END TODO
    }

    // TODO: store the warp's C: acc[i][j] is the 16 x 8 tile at rows 16i and columns 8j of the
    //       warp's 64 x 32, its four floats where mma16816's d says (store2 writes two).
    //       The stand-in stores its own layout: lane l's row wm + 32 h + l, columns wn + 0..31, in
    //       acc[2h] and acc[2h + 1].
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int n = 0; n < 32; n++) {
            int r = row0 + wm + 32 * h + lane, c = col0 + wn + n;
            if (r < N && c < N)
                C[(size_t)r * N + c] = acc[2 * h + n / 16][n / 4 % 4][n % 4];
        }
    // END TODO
}
