// How the GPU splits one warp's 32-, 64- and 128-bit shared-memory accesses into wavefronts,
// measured: one warp, one access, one pattern per launch. Each pattern gives every lane an
// index in units of the access's width (negative: the lane does not take part). Run under
// Nsight Compute by checker/bench/shared-wavefronts.sh, which joins the printed patterns with
// the counters into checker/tests/data/h200-shared-wavefronts.csv; test_emu_cost.c holds the
// emulator's cost model to every row of that file.
//   nvcc -O3 -arch=sm_90 -o shared-wavefronts checker/bench/shared-wavefronts.cu
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int SHARED_FLOATS = 8192; // 32 KB: every pattern's bytes stay below this

// ---- kernels: the measured access is the only one of its direction (load or store) ----
template <typename V>
__global__ void load_pattern(const int *index, float *out)
{
    __shared__ __align__(16) float s[SHARED_FLOATS];
    int lane = threadIdx.x;
    for (int i = lane; i < SHARED_FLOATS; i += 32)
        s[i] = (float)i; // stores: counted apart from the loads
    __syncwarp();
    int k = index[lane];
    if (k >= 0) {
        V v = reinterpret_cast<const V *>(s)[k];
        reinterpret_cast<V *>(out)[lane] = v;
    }
}

template <typename V>
__global__ void store_pattern(const int *index, float *out)
{
    __shared__ __align__(16) float s[SHARED_FLOATS];
    int lane = threadIdx.x;
    V v;
    float *f = reinterpret_cast<float *>(&v);
    for (unsigned j = 0; j < sizeof(V) / 4; j++)
        f[j] = (float)(lane * 4 + j);
    int k = index[lane];
    if (k >= 0)
        reinterpret_cast<V *>(s)[k] = v;
    __syncwarp();
    out[lane] = s[(k < 0 ? 0 : k) * (int)(sizeof(V) / 4)]; // keeps the store (a 32-bit load, counted apart)
}

// ---- patterns: lane -> index in units of the width W bytes ----
struct pattern {
    const char *name;
    int (*index)(int lane, int w); // w: elements of W bytes per 128-byte row
};

static unsigned rng = 12345;
static int random_below(int n)
{
    rng = rng * 1103515245u + 12345u;
    return (int)((rng >> 8) % (unsigned)n);
}
static int random_perm[32];

static const pattern patterns[] = {
    {"linear", [](int i, int) { return i; }},
    {"stride2", [](int i, int) { return 2 * i; }},
    {"stride3", [](int i, int) { return 3 * i; }},
    {"stride4", [](int i, int) { return 4 * i; }},
    {"stride8", [](int i, int) { return 8 * i; }},
    {"stride16", [](int i, int) { return 16 * i; }},
    {"row_stride", [](int i, int w) { return i * w; }},           // a tile's column: 128 bytes apart
    {"row_stride_padded", [](int i, int w) { return i * (w + 1); }}, // the same, rows padded by one element
    {"all_same", [](int, int) { return 0; }},
    {"pairs_n_n1", [](int i, int) { return i / 2; }},               // lanes n and n^1 share an address
    {"pairs_n_n2", [](int i, int) { return (i / 4) * 2 + (i & 1); }}, // lanes n and n^2 share one
    {"fours", [](int i, int) { return i / 4; }},
    {"halves_same", [](int i, int) { return i % 16; }},
    {"quarters_same", [](int i, int) { return i % 8; }},
    {"eighths_same", [](int i, int) { return i % 4; }},
    {"reverse", [](int i, int) { return 31 - i; }},
    {"swap_halves", [](int i, int) { return i ^ 16; }},
    {"swap_quarters", [](int i, int) { return i ^ 8; }},
    {"halves_next_row", [](int i, int w) { return i % 16 + (i / 16) * 2 * w; }},
    {"quarters_rows", [](int i, int w) { return i % 8 + (i / 8) * w; }},
    {"quarter_pairs_clash", [](int i, int w) { return (i % 8) % 4 + ((i % 8) / 4) * w + (i / 8) * 4; }},
    {"swizzled_column", [](int i, int w) { return i * w + (i % w); }},
    {"first8_linear", [](int i, int) { return i < 8 ? i : -1; }},
    {"first16_linear", [](int i, int) { return i < 16 ? i : -1; }},
    {"odd_lanes", [](int i, int) { return i & 1 ? i : -1; }},
    {"odd_lanes_stride2", [](int i, int) { return i & 1 ? 2 * i : -1; }},
    {"lane0_only", [](int i, int) { return i == 0 ? 0 : -1; }},
    {"random_perm", [](int i, int) { return random_perm[i]; }},
    {"random_2k", [](int i, int w) { return random_below(16 * w); }},
    {"random_narrow", [](int i, int w) { return random_below(2 * w); }},
};

template <typename V>
static void run(int *d_index, float *d_out, bool store)
{
    const int width = (int)sizeof(V), per_row = 128 / width;
    for (const pattern &p : patterns) {
        rng = 12345;
        for (int i = 0; i < 32; i++)
            random_perm[i] = i;
        for (int i = 31; i > 0; i--) {
            int j = random_below(i + 1), t = random_perm[i];
            random_perm[i] = random_perm[j];
            random_perm[j] = t;
        }
        int index[32];
        for (int lane = 0; lane < 32; lane++) {
            index[lane] = p.index(lane, per_row);
            if ((index[lane] + 1) * width > SHARED_FLOATS * 4) {
                fprintf(stderr, "pattern %s leaves shared memory\n", p.name);
                exit(1);
            }
        }
        cudaMemcpy(d_index, index, sizeof index, cudaMemcpyHostToDevice);
        if (store)
            store_pattern<V><<<1, 32>>>(d_index, d_out);
        else
            load_pattern<V><<<1, 32>>>(d_index, d_out);
        if (cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
            exit(1);
        }
        printf("%d,%s,%s,", width, store ? "st" : "ld", p.name);
        for (int lane = 0; lane < 32; lane++)
            printf("%d%s", index[lane], lane < 31 ? " " : "\n");
    }
}

int main()
{
    int *d_index;
    float *d_out;
    cudaMalloc(&d_index, 32 * sizeof(int));
    cudaMalloc(&d_out, 32 * 16);
    printf("width,op,pattern,indices\n");
    for (int store = 0; store < 2; store++) {
        run<float>(d_index, d_out, store);
        run<float2>(d_index, d_out, store);
        run<float4>(d_index, d_out, store);
    }
    return 0;
}
