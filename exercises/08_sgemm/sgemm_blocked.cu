/*
 * Lesson 8 (capstone): a register-blocked SGEMM                   sgemm_blocked.cu
 *
 * CONTRACT
 *   Computes   C = A * B, where A, B and C are N x N float matrices stored
 *              row-major: element (row, k) of A is A[row*N + k].
 *   Signature  __global__ void sgemm_blocked(const float *A, const float *B,
 *                                            float *C, int N);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(256)                        (256 threads)
 *                grid  = dim3(ceil(N/128), ceil(N/128))
 *              one block per 128 x 128 block of C, blockIdx.x along its
 *              columns: each thread computes 64 elements of C.
 *   Edges      N is arbitrary (1, 100, 1000, ...), so the last blocks reach
 *              past the matrix: loads outside A or B must give 0, stores
 *              outside C must be skipped. A float4 access needs a 16-byte
 *              aligned address, which a row start has only when N % 4 == 0:
 *              for other N, or a float4 that would cross the edge, load and
 *              store float by float.
 *   Rules      Exactly one __global__ kernel, sgemm_blocked, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls (cuBLAS...).
 *              Read the shared tiles with explicit float4 loads: the emulator
 *              counts each access as the source writes it (nvcc may fuse
 *              scalar loads; the emulator does not).
 *   Passing    1. Correct: on every tested size, C matches the reference
 *                 solution and a CPU reference within a floating-point
 *                 tolerance.
 *              2. Fast: on a GPU, at least the speed-up over lesson 2's
 *                 solution (launched with its own 32 x 32 threads) and the
 *                 share of cuBLAS's SGEMM that lessons/08_sgemm/thresholds
 *                 sets, all timed in the same run. In the emulator: no
 *                 shared-memory bank conflicts, and global sectors at most
 *                 the fraction of lesson 2's that the thresholds file sets.
 *   Running    make lesson8   copies this stub to work/08_sgemm/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

/*
 * This stub is correct and already blocked in registers (8 x 8 of C per thread),
 * but it reads both tiles of shared memory one float at a time and loads them
 * from global memory one float at a time. The TODOs say what to change.
 */

#define BM 128   // rows of C per block
#define BN 128   // columns of C per block
#define BK 8     // the K-step: columns of A's tile, rows of B's

// Four consecutive elements M[r][c..c+3] of an N x N matrix, 0 outside it: one 16-byte load
// where the row's start is 16-byte aligned (N % 4 == 0) and all four are inside, else four.
__device__ __forceinline__ float4 load4(const float *M, int r, int c, int N)
{
    if (r >= N)
        return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float *p = M + (size_t)r * N + c;
    if (N % 4 == 0 && c + 3 < N)
        return *reinterpret_cast<const float4 *>(p);
    return make_float4(c < N ? p[0] : 0.0f, c + 1 < N ? p[1] : 0.0f, c + 2 < N ? p[2] : 0.0f,
                       c + 3 < N ? p[3] : 0.0f);
}

// Stores v into C[r][c..c+3], skipping what lies outside C.
__device__ __forceinline__ void store4(float *C, int r, int c, int N, float4 v)
{
    if (r >= N)
        return;
    float *p = C + (size_t)r * N + c;
    if (N % 4 == 0 && c + 3 < N) {
        *reinterpret_cast<float4 *>(p) = v;
        return;
    }
    if (c < N) p[0] = v.x;
    if (c + 1 < N) p[1] = v.y;
    if (c + 2 < N) p[2] = v.z;
    if (c + 3 < N) p[3] = v.w;
}

__global__ void __launch_bounds__(256) sgemm_blocked(const float *A, const float *B, float *C, int N)
{
    // [BM][BK]: A's tile as it is, As[m][k] = A[(row0 + m)*N + k0 + k].
    // TODO: store it transposed, [BK][BM + PAD], so that a thread's 8 values of A for one k
    //       are 8 consecutive words (two float4 reads), and choose PAD so that the transposed
    //       stores of a warp meet 32 different banks while each row stays 16-byte aligned.
    __shared__ __align__(16) float As[BM][BK];
    // END TODO
    // [BK][BN]: B's tile as it is, Bs[k][n] = B[(k0 + k)*N + col0 + n].
    __shared__ __align__(16) float Bs[BK][BN];

    int t = threadIdx.x;
    int tx = t % 16, ty = t / 16;               // the thread's place in a 16 x 16 grid
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int a_m = t / 2, a_k = (t % 2) * 4;         // A: row a_m of the tile, columns a_k..a_k+3
    int b_k = t / 32, b_n = (t % 32) * 4;       // B: row b_k of the tile, columns b_n..b_n+3
    // The thread's 8 x 8 of C: rows {4ty..4ty+3, 64+4ty..} and columns {4tx..4tx+3, 64+4tx..}.
    float acc[8][8] = {};

    // TODO (last): load the next tiles into registers before the multiply-adds of this one, so
    //       that their loads are in flight while this tile is multiplied.
    for (int k0 = 0; k0 < N; k0 += BK) {
        // TODO: load4 gives the same four values with one 16-byte load where it can.
        for (int j = 0; j < 4; j++) {
            int r = row0 + a_m, c = k0 + a_k + j;
            As[a_m][a_k + j] = r < N && c < N ? A[(size_t)r * N + c] : 0.0f;
            r = k0 + b_k, c = col0 + b_n + j;
            Bs[b_k][b_n + j] = r < N && c < N ? B[(size_t)r * N + c] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            // TODO: two float4 reads for each of A and B instead of eight floats.
            float ar[8], br[8];
            for (int i = 0; i < 4; i++) {
                ar[i] = As[4 * ty + i][k];
                ar[4 + i] = As[64 + 4 * ty + i][k];
                br[i] = Bs[k][4 * tx + i];
                br[4 + i] = Bs[k][64 + 4 * tx + i];
            }
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] += ar[i] * br[j];
        }
        // Everyone is done reading the tiles before they are overwritten.
        __syncthreads();
    }
    // END TODO

#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = row0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4);
        store4(C, r, col0 + 4 * tx, N, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        store4(C, r, col0 + 64 + 4 * tx, N, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    }
}
