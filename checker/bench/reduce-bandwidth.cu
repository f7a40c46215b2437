// The numbers behind lesson 9: block sums of a large matrix at the memory's speed, against CUB.
// Every variant has 256 threads per block, each block summing a slice of SLICE consecutive
// elements of one row (out[row][b]); they differ only in how a thread's SLICE/256 elements are
// loaded, so in how many bytes each thread has in flight. Timed with the L2 flushed before each
// launch, beside cudaMemcpy and cub::DeviceReduce::Sum of the same bytes. Then the memory's
// latency, by one thread chasing pointers (each load's address is the last load's value), and
// what Little's law makes of the two: the bytes that must be in flight. Last the L2's own rates,
// a hit's latency and the read bandwidth of a buffer that fits in it (the time model's, issue 46).
//
//   nvcc -O3 -arch=native -o build/reduce-bandwidth checker/bench/reduce-bandwidth.cu
//   build/reduce-bandwidth [--out DIR] [ROWS] [COLS] [REPS]      (default 8192 8192 15)
// With --out (make explore), also DIR/memory.csv and DIR/memory.svg: GB/s against bytes in
// flight per thread, beside the line Little's law draws from the latency measured alone.
#include <cmath>
#include <cstring>

#include <cub/device/device_reduce.cuh>

#include "block_sums.cuh"

// The block's sum of every thread's v, stored by thread 0.
__device__ __forceinline__ void store_total(float *out, int cols, int slice, float v)
{
    v = block_total(v);
    if (threadIdx.x == 0)
        store(out, cols, slice, v);
}

// A scalar loop over the slice, 256 apart; ROLLED keeps it one load per trip (the branch back
// waits for the add, which waits for the load: 4 bytes in flight).
template <int SLICE, bool ROLLED>
__global__ void scalar_loop(const float *in, float *out, int rows, int cols)
{
    const float *row = in + (size_t)blockIdx.y * cols;
    int first = blockIdx.x * SLICE, last = min(first + SLICE, cols);
    float v = 0.0f;
    if (ROLLED) {
#pragma unroll 1
        for (int c = first + threadIdx.x; c < last; c += THREADS)
            v += row[c];
    } else {
        for (int c = first + threadIdx.x; c < last; c += THREADS)
            v += row[c];
    }
    store_total(out, cols, SLICE, v);
}

// SLICE/256 scalar loads, every one issued before the first add (whole slices only).
template <int SLICE>
__global__ void scalar_all(const float *in, float *out, int rows, int cols)
{
    const float *row = in + (size_t)blockIdx.y * cols + blockIdx.x * SLICE;
    float x[SLICE / THREADS];
#pragma unroll
    for (int k = 0; k < SLICE / THREADS; k++)
        x[k] = row[k * THREADS + threadIdx.x];
    float v = 0.0f;
#pragma unroll
    for (int k = 0; k < SLICE / THREADS; k++)
        v += x[k];
    store_total(out, cols, SLICE, v);
}

// SLICE/1024 float4 loads (16 bytes each), consecutive threads on consecutive 16 bytes; ROLLED
// waits for each before the next, else all are issued first (whole slices, cols % 4 == 0).
template <int SLICE, bool ROLLED>
__global__ void vector_loads(const float *in, float *out, int rows, int cols)
{
    const float4 *row = (const float4 *)(in + (size_t)blockIdx.y * cols + blockIdx.x * SLICE);
    constexpr int N = SLICE / (4 * THREADS);
    float v = 0.0f;
    if (ROLLED) {
#pragma unroll 1
        for (int k = 0; k < N; k++) {
            float4 q = row[k * THREADS + threadIdx.x];
            v += (q.x + q.y) + (q.z + q.w);
        }
    } else {
        float4 q[N];
#pragma unroll
        for (int k = 0; k < N; k++)
            q[k] = row[k * THREADS + threadIdx.x];
#pragma unroll
        for (int k = 0; k < N; k++)
            v += (q[k].x + q[k].y) + (q[k].z + q[k].w);
    }
    store_total(out, cols, SLICE, v);
}

// One thread follows next[] for `hops` loads; the time per hop is the latency of a load that
// misses (the chain's stride and the buffer's size decide where it is served from).
__global__ void chase(const unsigned *next, int hops, unsigned *sink, long long *cycles)
{
    unsigned i = 0;
    long long t0 = clock64();
    for (int h = 0; h < hops; h++)
        i = next[i];
    *cycles = clock64() - t0;
    *sink = i;
}

// A full grid reads a buffer that fits in the L2 `passes` times, past L1 (ld.global.cg): after the
// first pass every load is an L2 hit, so bytes over time is the L2's read bandwidth (the time
// model's L2 rate, issue 46). Four loads in flight per thread, every thread resident.
__global__ void l2_reads(const float4 *buf, unsigned n, int passes, float *sink)
{
    float v = 0.0f;
    unsigned stride = gridDim.x * blockDim.x;
    for (int p = 0; p < passes; p++)
#pragma unroll 4
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            float4 q = __ldcg(buf + i);
            v += (q.x + q.y) + (q.z + q.w);
        }
    if (v == -1.0f) // never, for the zeros read; keeps the loads
        *sink = v;
}

static double l2_gbs(bench &b, size_t bytes, int passes)
{
    float4 *buf;
    float *sink;
    CHECK(cudaMalloc(&buf, bytes));
    CHECK(cudaMemset(buf, 0, bytes));
    CHECK(cudaMalloc(&sink, sizeof(float)));
    int blocks = b.prop.multiProcessorCount * (b.prop.maxThreadsPerMultiProcessor / 256);
    unsigned n = (unsigned)(bytes / sizeof(float4));
    float ms = b.median_ms([&] { l2_reads<<<blocks, 256>>>(buf, n, passes, sink); });
    double gbs = (double)bytes * passes / (ms * 1e6);
    printf("  L2 reads: a %zu MiB buffer read %d times by %d blocks of 256 threads: %.0f GB/s\n", bytes >> 20, passes,
           blocks, gbs);
    CHECK(cudaFree(buf));
    CHECK(cudaFree(sink));
    return gbs;
}

struct variant {
    const char *name;
    void (*kernel)(const float *, float *, int, int);
    int slice, bytes_in_flight; // per thread, before its first add
};

struct point {
    const char *name;
    int bytes; // in flight per thread
    double gbs;
};

// The plot: GB/s against bytes in flight per thread (a log scale, 2 to 256), each variant a
// dot; CUB's and the copy's rates as lines; and Little's law's line with the latency of a
// load alone: every resident thread (SMs x threads per SM) keeping B bytes in flight moves
// threads x B bytes per latency, until the memory is full.
static void svg(FILE *f, const std::vector<point> &pts, const char *gpu, double cub, double copy, double threads,
                double latency_ns)
{
    const int W = 720, H = 400, left = 70, right = 20, top = 40, bottom = 340;
    double top_gbs = copy;
    for (const point &p : pts)
        top_gbs = p.gbs > top_gbs ? p.gbs : top_gbs;
    double ymax = 1000 * (int)(top_gbs / 1000 + 1);
    auto px = [&](double b) { return left + (W - left - right) * (log2(b) - 1) / 7.0; };
    auto py = [&](double g) { return bottom - (bottom - top) * (g < ymax ? g : ymax) / ymax; };
    svg_begin(f, W, H, left, gpu, "Block sums: GB/s read against bytes in flight per thread",
              "GB/s read against bytes each thread has in flight");
    for (int g = 0; g <= (int)ymax; g += 1000)
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" "
                   "y=\"%.1f\" text-anchor=\"end\">%d</text>\n", left, W - right, py(g), py(g), left - 6, py(g) + 4, g);
    for (int b = 2; b <= 256; b *= 2)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", px(b), bottom + 16, b);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">bytes in flight per thread</text>\n",
            (left + W - right) / 2, bottom + 34);
    // Little's law with the unloaded latency: an upper bound on what B bytes per thread can give.
    fprintf(f, "<polyline fill=\"none\" stroke=\"#999\" stroke-dasharray=\"4 3\" points=\"");
    for (double b = 2; b <= 256; b *= 1.25)
        fprintf(f, "%.1f,%.1f ", px(b), py(threads * b / latency_ns));
    fprintf(f, "\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#777\">threads x bytes / %.0f ns</text>\n",
            px(2.3), py(threads * 6 / latency_ns) - 6, latency_ns);
    const double lines[2] = {copy, cub};
    const char *labels[2] = {"cudaMemcpy, read + write", "cub::DeviceReduce::Sum"};
    for (int i = 0; i < 2; i++)
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/><text x=\"%d\" "
                   "y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s %.0f</text>\n", left, W - right, py(lines[i]),
                py(lines[i]), i ? "#5cb85c" : "#aaa", W - right, py(lines[i]) - 4, i ? "#3d8b3d" : "#777",
                labels[i], lines[i]);
    for (const point &p : pts)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#4a90d9\"><title>%s: %.0f GB/s</title>"
                   "</circle>\n", px(p.bytes), py(p.gbs), p.name, p.gbs);
    fprintf(f, "<text x=\"%d\" y=\"%d\">Dots: the variants of checker/bench/reduce-bandwidth.cu (hover for "
               "each); 256 threads a block, 8192 x 8192 floats.</text>\n", left, H - 6);
    fprintf(f, "</svg>\n");
}

static double chase_ns(bench &b, size_t bytes, size_t stride_bytes, int hops)
{
    size_t n = bytes / sizeof(unsigned), step = stride_bytes / sizeof(unsigned), lines = n / step;
    // A random cycle over the lines: line order shuffled, each points to the next one.
    std::vector<unsigned> order(lines), next(n, 0);
    for (size_t i = 0; i < lines; i++)
        order[i] = (unsigned)i;
    srand(7);
    for (size_t i = lines - 1; i > 0; i--)
        std::swap(order[i], order[(size_t)rand() % (i + 1)]);
    for (size_t i = 0; i < lines; i++)
        next[order[i] * step] = (unsigned)(order[(i + 1) % lines] * step);
    unsigned *d_next, *sink;
    long long *cycles, host_cycles;
    CHECK(cudaMalloc(&d_next, bytes));
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    CHECK(cudaMalloc(&cycles, sizeof(long long)));
    CHECK(cudaMemcpy(d_next, next.data(), bytes, cudaMemcpyHostToDevice));
    chase<<<1, 1>>>(d_next, hops / 8, sink, cycles); // the TLB and L2 as they will be
    float ms = b.median_ms([&] { chase<<<1, 1>>>(d_next, hops, sink, cycles); });
    CHECK(cudaMemcpy(&host_cycles, cycles, sizeof host_cycles, cudaMemcpyDeviceToHost));
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    printf("  chase over %8zu KiB, %4zu-byte stride: %7.0f ns per load (%.0f cycles at %.0f MHz by clock64)\n",
           bytes >> 10, stride_bytes, ms * 1e6 / hops, (double)host_cycles / hops, khz / 1e3);
    CHECK(cudaFree(d_next));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(cycles));
    return ms * 1e6 / hops;
}

int main(int argc, char **argv)
{
    const char *dir = nullptr;
    if (argc > 2 && strcmp(argv[1], "--out") == 0) {
        dir = argv[2];
        argc -= 2, argv += 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("No GPU here: the memory's bandwidth and latency can only be measured on one.\n");
        return 0;
    }
    sum_bench b(argc, argv);
    float *total = device_floats(1);

    printf("%-40s %6s %8s %8s %7s  %s\n", "variant", "B/thr", "ms", "GB/s", "% CUB", "sums");
    float copy_ms = b.copy_ms(b.copy, b.in, b.bytes);
    double copy_gbs = 2 * b.gbs(copy_ms);
    std::vector<point> pts;
    size_t temp_bytes = 0;
    void *temp = nullptr;
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, b.in, total, (int)b.elems));
    CHECK(cudaMalloc(&temp, temp_bytes));
    float cub_ms = b.median_ms([&] { CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, b.in, total, (int)b.elems)); });
    double cub_gbs = b.gbs(cub_ms);
    printf("%-40s %6s %8.3f %8.0f %6.1f%%  -\n", "cudaMemcpy (read + write)", "-", copy_ms, copy_gbs,
           100.0 * 2.0 * cub_ms / copy_ms);
    printf("%-40s %6s %8.3f %8.0f %6.1f%%  -\n", "cub::DeviceReduce::Sum (whole array)", "-", cub_ms, cub_gbs, 100.0);

    const variant variants[] = {
        {"scalar loop, unroll 1, 4096/block", scalar_loop<4096, true>, 4096, 4},
        {"scalar loop, nvcc's unrolling, 4096", scalar_loop<4096, false>, 4096, 0},
        {"16 scalar loads issued first, 4096", scalar_all<4096>, 4096, 64},
        {"float4 loop, unroll 1, 4096", vector_loads<4096, true>, 4096, 16},
        {"1 float4 per thread, 1024/block", vector_loads<1024, false>, 1024, 16},
        {"2 float4 issued first, 2048", vector_loads<2048, false>, 2048, 32},
        {"4 float4 issued first, 4096", vector_loads<4096, false>, 4096, 64},
        {"8 float4 issued first, 8192", vector_loads<8192, false>, 8192, 128},
        {"16 float4 issued first, 16384", vector_loads<16384, false>, 16384, 256},
    };
    for (const variant &v : variants) {
        if (b.cols % v.slice) {
            printf("%-40s (skipped: cols %% %d != 0)\n", v.name, v.slice);
            continue;
        }
        block_sums_run r = b.time(v.kernel, v.slice);
        double gbs = b.gbs(r.ms);
        char inflight[16];
        snprintf(inflight, sizeof inflight, v.bytes_in_flight ? "%d" : "?", v.bytes_in_flight);
        printf("%-40s %6s %8.3f %8.0f %6.1f%%  %s\n", v.name, inflight, r.ms, gbs, 100.0 * gbs / cub_gbs,
               r.wrong ? "WRONG" : "right");
        if (v.bytes_in_flight)
            pts.push_back({v.name, v.bytes_in_flight, gbs});
    }
    printf("Latency of one thread's dependent loads (clock64 and the event timer agree when the clock\n"
           "runs at its base rate; the ns column is the event timer's):\n");
    chase_ns(b, 64 << 10, 128, 1 << 14);    // inside L1 (256 KiB per SM)
    // 2 MiB: past L1, inside L2. The L2 is flushed before each run, so the chain's first pass over
    // its 16384 lines comes from DRAM: the difference of a short and a long chain is L2's alone.
    double l2_short = chase_ns(b, 2u << 20, 128, 1 << 14), l2_long = chase_ns(b, 2u << 20, 128, 1 << 18);
    printf("  an L2 hit alone: %.0f ns (the two chains over 2 MiB, less their first pass)\n",
           (l2_long * (1 << 18) - l2_short * (1 << 14)) / ((1 << 18) - (1 << 14)));
    chase_ns(b, 1024u << 20, 4096, 1 << 14); // 1 GiB, a page apart: DRAM, TLB entries reused poorly
    double dram_ns = chase_ns(b, 256u << 20, 128, 1 << 14); // 256 MiB, lines in random order: DRAM
    l2_gbs(b, 16u << 20, 64);
    int sms = b.prop.multiProcessorCount, per_sm = b.prop.maxThreadsPerMultiProcessor;
    double need = cub_gbs * 1e9 * dram_ns * 1e-9, threads = (double)sms * per_sm;
    printf("%d SMs, %d threads per SM at most. Little's law: %.0f GB/s x %.0f ns = %.2f MB in flight, %.1f KB per SM,\n"
           "%.1f bytes per thread with every thread resident (a lower bound: under load each load takes longer).\n",
           sms, per_sm, cub_gbs, dram_ns, need / 1e6, need / sms / 1e3, need / threads);
    if (dir)
        write_results(
            dir, "memory.csv",
            [&](FILE *f) {
                fprintf(f, "gpu,variant,bytes_in_flight_per_thread,gbs_read,cub_gbs,dram_latency_ns\n");
                for (const point &p : pts)
                    fprintf(f, "\"%s\",\"%s\",%d,%.0f,%.0f,%.0f\n", b.prop.name, p.name, p.bytes, p.gbs, cub_gbs, dram_ns);
            },
            "memory.svg", [&](FILE *f) { svg(f, pts, b.prop.name, cub_gbs, copy_gbs, threads, dram_ns); });
    return 0;
}
