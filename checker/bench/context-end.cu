// What a CUDA process's end costs, and whether one beside a timing moves it: the numbers behind
// the GPU lock's turn alone ending at the runner's word (TURN_DONE, checker/include/gpu_turn.h),
// its context destroyed, rather than at its exit (docs/measurements.md, 2026-12-03).
//
//   nvcc -O2 -arch=native -o build/context-end checker/bench/context-end.cu
//   build/context-end end [reset]   a context, 1 GiB in four buffers, a copy timed; then (reset)
//                                   cudaDeviceReset. Prints each step's seconds and the end's
//                                   wall-clock time (END), for the caller to time the exit.
//   build/context-end churn         a context and 1 GiB allocated, then the exit: no kernel
//   build/context-end time [N]      a copy of 8192² floats timed N times (3000): median, p10, p90
// checker/bench/context-end.sh runs them as the measurements did.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <cuda_runtime.h>

static const size_t ELEMS = (size_t)8192 * 8192; // 256 MiB of floats

static double wall_s()
{
    timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__global__ void copy(const float *in, float *out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

static void launch(const float *in, float *out) { copy<<<(unsigned)((ELEMS + 255) / 256), 256>>>(in, out, ELEMS); }

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

// A runner's life in short: its context, its buffers, its timed launches, then its end.
static int end(int reset)
{
    double t0 = wall_s();
    if (!check(cudaFree(0), "making the context"))
        return 1;
    double t1 = wall_s();
    float *buf[4];
    for (float *&b : buf)
        if (!check(cudaMalloc(&b, ELEMS * sizeof(float)), "cudaMalloc") ||
            !check(cudaMemset(b, 0, ELEMS * sizeof(float)), "cudaMemset"))
            return 1;
    cudaDeviceSynchronize();
    double t2 = wall_s();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    for (int k = 0; k < 15; k++)
        launch(buf[0], buf[1]);
    cudaEventRecord(b);
    if (!check(cudaEventSynchronize(b), "the copies"))
        return 1;
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    double t3 = wall_s();
    if (reset)
        cudaDeviceReset();
    double t4 = wall_s();
    printf("context %.3f s, buffers %.3f s, copies %.3f s (%.3f ms each), reset %.3f s, END %.6f\n", t1 - t0,
           t2 - t1, t3 - t2, ms / 15, t4 - t3, t4);
    return 0;
}

static int churn()
{
    float *b;
    for (int k = 0; k < 4; k++)
        if (!check(cudaMalloc(&b, ELEMS * sizeof(float)), "cudaMalloc"))
            return 1;
    return 0;
}

static int timed(int n)
{
    float *in, *out;
    if (!check(cudaMalloc(&in, ELEMS * sizeof(float)), "cudaMalloc") ||
        !check(cudaMalloc(&out, ELEMS * sizeof(float)), "cudaMalloc"))
        return 1;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    for (int k = 0; k < n; k++) {
        cudaEventRecord(a);
        launch(in, out);
        cudaEventRecord(b);
        if (!check(cudaEventSynchronize(b), "the copy"))
            return 1;
        float t;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("%d copies of 8192x8192 floats: median %.4f ms, p10 %.4f, p90 %.4f, max %.4f\n", n, ms[n / 2],
           ms[n / 10], ms[n * 9 / 10], ms[n - 1]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "end") == 0)
        return end(argc > 2 && strcmp(argv[2], "reset") == 0);
    if (strcmp(mode, "churn") == 0)
        return churn();
    if (strcmp(mode, "time") == 0)
        return timed(argc > 2 && atoi(argv[2]) > 10 ? atoi(argv[2]) : 3000);
    fprintf(stderr, "usage: context-end end [reset] | churn | time [N]\n");
    return 2;
}
