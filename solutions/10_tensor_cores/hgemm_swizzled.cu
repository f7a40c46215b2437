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

#define BM 128   // rows of C per block
#define BN 128   // columns of C per block
#define BK 64    // the K-step: 64 halves, so a row of A's tile is 128 bytes
#define CHUNK 8  // halves in 16 bytes: what one cp.async, and one ldmatrix row, moves

// The swizzle. A tile row is cut into 16-byte chunks; chunk c of row r is stored at chunk
// c ^ (r % 8). Only the low three bits of the chunk index change, so a chunk stays in its row
// and in its 128-byte half of the row:
//
//   offset bits (in halves):  ... r2 r1 r0 | ... c2 c1 c0 | h2 h1 h0
//                                  row       16-byte chunk   half in it
//   stored chunk = c ^ r:            c2^r2  c1^r1  c0^r0
//
// Eight rows of one chunk column, which ldmatrix reads at once, then land in eight different
// chunks, that is in all 32 banks once.
__device__ __forceinline__ int swizzle(int row, int chunk)
{
    return chunk ^ (row & 7);
}

// 16 bytes from global memory into shared memory without a register on the way (cp.async);
// `bytes` of them read (16 or 0: 0 fills the 16 with zeros).
__device__ __forceinline__ void copy16(void *smem, const void *gmem, int bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(bytes));
}

// Eight halves M[r][c..c+7] of an N x N matrix into dst (16 bytes of shared memory), 0 outside it.
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

// ldmatrix: four 8 x 8 matrices of halves, matrix j's rows at the addresses of lanes 8j..8j+7.
__device__ __forceinline__ void ldmatrix_x4(unsigned r[4], const unsigned short *row)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
// The same, each matrix transposed: for B, whose tile is stored k-major (row = k).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned r[4], const unsigned short *row)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

// d (16 x 8 floats) += a (16 x 16 halves) b (16 x 8 halves) on the tensor cores.
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

// __launch_bounds__(256, 2): blocks of 256 threads, and at least 2 of them on an SM at once, so
// ptxas keeps each thread to 65536 / (2 * 256) = 128 registers (a warp's 64 x 32 of C alone takes
// 64 of them): while one block waits at a barrier, the other's warps keep the tensor cores busy.
__global__ void __launch_bounds__(256, 2) hgemm_swizzled(const unsigned short *A, const unsigned short *B, float *C,
                                                         int N)
{
    // [BM][BK]: A's tile, As[m][k] = A[row0 + m][k0 + k], each row's chunks swizzled. 16 KB.
    __shared__ __align__(128) unsigned short As[BM][BK];
    // [BK][BN]: B's tile, Bs[k][n] = B[k0 + k][col0 + n], rows of 256 bytes, swizzled the same
    // way (the XOR touches the low three bits of the 16 chunks). 16 KB.
    __shared__ __align__(128) unsigned short Bs[BK][BN];

    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int wm = (warp % 2) * 64, wn = (warp / 2) * 32; // the warp's 64 x 32 of the block's C

    // [4][4][4]: the warp's C as 4 x 4 mma tiles of 16 x 8; a lane holds 4 floats of each.
    float acc[4][4][4] = {};

    for (int k0 = 0; k0 < N; k0 += BK) {
        // Filling: 1024 chunks of each tile, 4 a thread; a warp writes 512 consecutive bytes of
        // a tile (4 rows of A, 2 of B) in any order of its chunks: 4 passes through the banks, the
        // least 512 bytes take, swizzled or not.
        for (int q = threadIdx.x; q < BM * BK / CHUNK; q += blockDim.x) {
            int m = q / (BK / CHUNK), c = q % (BK / CHUNK);
            load_chunk(&As[m][swizzle(m, c) * CHUNK], A, row0 + m, k0 + c * CHUNK, N);
        }
        for (int q = threadIdx.x; q < BK * BN / CHUNK; q += blockDim.x) {
            int k = q / (BN / CHUNK), c = q % (BN / CHUNK);
            load_chunk(&Bs[k][swizzle(k, c) * CHUNK], B, k0 + k, col0 + c * CHUNK, N);
        }
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            // A's fragments, one 16 x 16 per mma row: lane l names row l % 16 of it, at k + 8 for
            // lanes 16-31 (matrices 2 and 3 are the right half).
            unsigned a[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                int m = wm + 16 * i + lane % 16, c = (kk + 8 * (lane / 16)) / CHUNK;
                ldmatrix_x4(a[i], &As[m][swizzle(m, c) * CHUNK]);
            }
            // B's fragments, two n8 tiles per ldmatrix: lane l names row k = l % 8 (+ 8 for
            // lanes 8-15 and 24-31) at column n (+ 8 for lanes 16-31); .trans turns each 8 x 8.
            unsigned b[4][2];
#pragma unroll
            for (int j = 0; j < 2; j++) {
                unsigned r[4];
                int k = kk + lane % 8 + 8 * ((lane / 8) % 2), c = (wn + 16 * j + 8 * (lane / 16)) / CHUNK;
                ldmatrix_x4_trans(r, &Bs[k][swizzle(k, c) * CHUNK]);
                b[2 * j][0] = r[0], b[2 * j][1] = r[1], b[2 * j + 1][0] = r[2], b[2 * j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    mma16816(acc[i][j], a[i], b[j][0], b[j][1]);
        }
        __syncthreads(); // the tiles are refilled next
    }

    // A lane's 4 floats of an mma tile: rows g and g + 8, columns 2t and 2t + 1 (g = lane / 4,
    // t = lane % 4).
    int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int r = row0 + wm + 16 * i + g, c = col0 + wn + 8 * j + 2 * t;
            store2(C, r, c, N, acc[i][j][0], acc[i][j][1]);
            store2(C, r + 8, c, N, acc[i][j][2], acc[i][j][3]);
        }
}
