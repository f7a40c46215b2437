// make explore: what an N-way bank conflict costs on this GPU, measured, beside what the bank
// model (the one the emulator grades with) predicts for the same accesses.
//
// Each stride s is one warp-wide 4-byte shared load in which lane i reads word i*s: bank
// (i*s) % 32, so gcd(s, 32) lanes share a bank at different words ("ways"); s = 0 is a
// broadcast (one word for all). Two measurements per stride, both with clock64():
//   latency     one warp alone, each load's address taken from the previous load's value, so
//               the loads wait for each other: cycles from issue to data, per load;
//   throughput  32 warps of one block, independent loads: cycles the block needs per warp-load,
//               i.e. how long the shared-memory pipe is busy with one request.
// Prints a table and a bar chart, writes CSV and an SVG plot into the folder given (default
// build/explore). Without a GPU it prints the model's side and says what the GPU would add.
//   Usage: bank-explore [OUTDIR]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "bank_model.h"
}

#include "bench.cuh"

static const int STRIDES[] = {0, 1, 2, 3, 4, 8, 16, 17, 32, 33, 64};
static const int NSTRIDES = sizeof STRIDES / sizeof STRIDES[0];
constexpr int WORDS = 32 * 64 + 32; // every lane's word for stride 64 lies inside
constexpr int CHAIN = 1024;         // dependent loads timed per stride
constexpr int ROUNDS = 256;         // independent loads per warp in the throughput kernel

// ---- kernels ---------------------------------------------------------------------------------

// One warp. Word a holds a, so idx = s[idx] reloads the same word: the address pattern stays
// i*stride on every load, and each load needs the one before it.
__global__ void latency_kernel(int stride, long long *cycles, int *sink)
{
    __shared__ int s[WORDS];
    for (int i = threadIdx.x; i < WORDS; i += 32)
        s[i] = i;
    __syncwarp();
    int idx = threadIdx.x * stride;
    idx = s[idx]; // warm-up
    long long t0 = clock64();
#pragma unroll 16
    for (int k = 0; k < CHAIN; k++)
        idx = s[idx];
    long long t1 = clock64();
    sink[threadIdx.x] = idx; // keeps the chain alive
    if (threadIdx.x == 0)
        *cycles = t1 - t0;
}

// 32 warps, each lane loading its word ROUNDS times (volatile: every load is issued).
__global__ void throughput_kernel(int stride, long long *cycles, int *sink)
{
    __shared__ int s[WORDS];
    __shared__ long long start, end;
    for (int i = threadIdx.x; i < WORDS; i += blockDim.x)
        s[i] = i;
    volatile int *vs = s;
    int idx = (threadIdx.x % 32) * stride, acc = 0;
    __syncthreads();
    if (threadIdx.x == 0)
        start = clock64();
    __syncthreads();
#pragma unroll 16
    for (int k = 0; k < ROUNDS; k++)
        acc += vs[idx];
    __syncthreads();
    if (threadIdx.x == 0) {
        end = clock64();
        *cycles = end - start;
    }
    sink[threadIdx.x] = acc;
}

// ---- the model's side --------------------------------------------------------------------------

static int model_wavefronts(int stride)
{
    struct emu_lane_access lanes[32];
    for (int i = 0; i < 32; i++)
        lanes[i] = {(uintptr_t)(0x10000 + 4 * i * stride), 4, i};
    struct op_counts c = {};
    emu_price(lanes, 32, SHARED_LD, &c);
    return (int)c.wavefronts;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

// ---- output ------------------------------------------------------------------------------------

struct row {
    int stride, ways;
    double latency, throughput; // cycles; 0 without a GPU
};

static void svg(FILE *f, const std::vector<row> &rows, const char *gpu, double a, double b)
{
    const int W = 720, H = 360, left = 60, bottom = 300, top = 40, bar = 22;
    double ymax = 10;
    for (const row &r : rows)
        ymax = r.latency > ymax ? r.latency : ymax;
    ymax = 20 * (int)(ymax / 20 + 1);
    svg_begin(f, W, H, left, gpu, "Cycles per dependent shared load of one warp, by stride",
              "one warp's dependent 4-byte shared loads, cycles per load");
    for (int y = 0; y <= (int)ymax; y += 20) {
        double py = bottom - (bottom - top) * y / ymax;
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", left, W - 10, py, py, left - 6, py + 4, y);
    }
    double step = (double)(W - left - 20) / rows.size();
    for (size_t i = 0; i < rows.size(); i++) {
        const row &r = rows[i];
        double x = left + 10 + i * step, h = (bottom - top) * r.latency / ymax;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n", x, bottom - h, bar, h,
                r.ways == 1 ? "#4a90d9" : "#d9534f");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x + bar / 2.0, bottom - h - 4,
                r.latency);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s%d</text>\n", x + bar / 2.0, bottom + 16,
                r.stride ? "" : "b", r.stride);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n", x + bar / 2.0,
                bottom + 32, r.ways);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">stride</text><text x=\"%d\" y=\"%d\" "
               "text-anchor=\"end\" fill=\"#555\">ways</text>\n", left + 4, bottom + 16, left + 4, bottom + 32);
    fprintf(f, "<text x=\"%d\" y=\"%d\">b0: broadcast (every lane one word). Fit: %.1f + %.2f x ways cycles. "
               "Red: a bank conflict.</text>\n", left, H - 8, a, b);
    fprintf(f, "</svg>\n");
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/explore";
    std::vector<row> rows;
    int wrong = 0;
    for (int i = 0; i < NSTRIDES; i++) {
        int s = STRIDES[i], ways = model_wavefronts(s), expected = s ? gcd(s, 32) : 1;
        if (ways != expected) { // the model must agree with the arithmetic of 32 banks
            fprintf(stderr, "the bank model gives %d wavefronts for stride %d, where gcd(%d, 32) = %d\n", ways, s, s,
                    expected);
            wrong = 1;
        }
        rows.push_back({s, ways, 0, 0});
    }
    if (wrong)
        return 1;

    int devices = 0;
    char gpu[256] = "";
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        snprintf(gpu, sizeof gpu, "%s", p.name);
        long long *cycles;
        int *sink;
        cudaMalloc(&cycles, sizeof *cycles);
        cudaMalloc(&sink, 1024 * sizeof *sink);
        for (row &r : rows) {
            long long best = -1, c;
            for (int rep = 0; rep < 5; rep++) { // the fastest of five: the least disturbed
                latency_kernel<<<1, 32>>>(r.stride, cycles, sink);
                cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
                best = best < 0 || c < best ? c : best;
            }
            r.latency = (double)best / CHAIN;
            best = -1;
            for (int rep = 0; rep < 5; rep++) {
                throughput_kernel<<<1, 1024>>>(r.stride, cycles, sink);
                cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
                best = best < 0 || c < best ? c : best;
            }
            r.throughput = (double)best / (32.0 * ROUNDS);
        }
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            fprintf(stderr, "the GPU run failed: %s\n", cudaGetErrorString(e));
            return 1;
        }
    }

    printf("Shared-memory bank conflicts%s%s: one warp-wide 4-byte load in which lane i reads word i*stride.\n",
           *gpu ? " on " : ", as the bank model predicts them", gpu);
    printf("%8s %6s %12s %14s  %s\n", "stride", "ways", "wavefronts", *gpu ? "latency (cyc)" : "",
           *gpu ? "one warp, cycles per dependent load" : "(the bank model's, which the emulator counts)");
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const row &r : rows) {
        char bars[80] = "";
        int n = *gpu ? (int)(r.latency / 2 + 0.5) : r.ways * 2;
        for (int k = 0; k < n && k < 60; k++)
            strcat(bars, "#");
        char label[16];
        snprintf(label, sizeof label, "%s%d", r.stride ? "" : "b", r.stride);
        int ways = r.stride ? gcd(r.stride, 32) : 1;
        if (*gpu)
            printf("%8s %6d %12d %14.1f  %s\n", label, ways, r.ways, r.latency, bars);
        else
            printf("%8s %6d %12d  %s\n", label, ways, r.ways, bars);
        sx += r.ways, sy += r.latency, sxx += (double)r.ways * r.ways, sxy += r.ways * r.latency;
    }
    int n = (int)rows.size();
    double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
    if (!*gpu) {
        printf("(b0: a broadcast. No GPU here: these are the bank model's wavefronts, what the emulator counts.\n"
               " On an NVIDIA GPU, make explore also times each stride with clock64(): the latency of one warp's\n"
               " dependent loads and the throughput of 32 warps, and draws the plot; docs/measurements.md has an H200's.)\n");
        return 0;
    }
    printf("(b0: a broadcast.) Latency fit over the strides: %.1f + %.2f x ways cycles.\n", a, b);
    printf("Throughput, 32 warps of one block, independent loads: cycles per warp-load:\n");
    for (const row &r : rows)
        printf("  stride %s%-3d %2d wavefronts: %5.2f cycles\n", r.stride ? "" : "b", r.stride, r.ways, r.throughput);

    write_results(
        dir, "bank-explore.csv",
        [&](FILE *f) {
            fprintf(f, "gpu,stride,ways,model_wavefronts,latency_cycles,throughput_cycles\n");
            for (const row &r : rows)
                fprintf(f, "%s,%d,%d,%d,%.2f,%.3f\n", gpu, r.stride, r.stride ? gcd(r.stride, 32) : 1, r.ways,
                        r.latency, r.throughput);
        },
        "bank-latency.svg", [&](FILE *f) { svg(f, rows, gpu, a, b); });
    return 0;
}
