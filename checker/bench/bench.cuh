// What the measuring tools in checker/bench/ share (sgemm-, transpose- and reduce-variants.cu,
// reduce-bandwidth.cu, bank-explore.cu): error checks, the command line's numbers, the GPU's name
// line, a median of launches each timed after an L2 flush, cudaMemcpy's time as the yardstick,
// inputs on the GPU, and the files written for make explore.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct bench {
    cudaDeviceProp prop;
    char *flush = nullptr;
    size_t flush_bytes = 0;
    cudaEvent_t t0, t1;
    int reps;

    explicit bench(int reps_) : reps(reps_)
    {
        CHECK(cudaGetDeviceProperties(&prop, 0));
        flush_bytes = 4 * (size_t)prop.l2CacheSize;
        CHECK(cudaMalloc(&flush, flush_bytes));
        CHECK(cudaEventCreate(&t0));
        CHECK(cudaEventCreate(&t1));
    }
    // The run's first line: "NVIDIA H200, 132 SMs, L2 60 MiB, driver API 13000; " and what is
    // measured, printf's format and arguments.
    void describe(const char *format, ...) const
    {
        int driver = 0;
        CHECK(cudaDriverGetVersion(&driver));
        printf("%s, %d SMs, L2 %d MiB, driver API %d; ", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
               driver);
        va_list ap;
        va_start(ap, format);
        vprintf(format, ap);
        va_end(ap);
    }
    // Median ms of `reps` runs of f, each after the L2 was overwritten.
    template <class F> float median_ms(F f)
    {
        std::vector<float> ms(reps);
        for (int i = 0; i < reps; i++) {
            CHECK(cudaMemset(flush, i, flush_bytes));
            CHECK(cudaEventRecord(t0));
            f();
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            CHECK(cudaGetLastError());
            CHECK(cudaEventElapsedTime(&ms[i], t0, t1));
        }
        std::sort(ms.begin(), ms.end());
        return ms[reps / 2];
    }
    // Median ms of cudaMemcpy of bytes from src to dst on the GPU: what a kernel that moves them
    // all is measured against.
    float copy_ms(void *dst, const void *src, size_t bytes)
    {
        return median_ms([&] { CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
    }
};

// argv[i] as a number, or fallback where the command line stops before it.
inline int arg_int(int argc, char **argv, int i, int fallback)
{
    return argc > i ? atoi(argv[i]) : fallback;
}

// n floats on the GPU, not initialised.
inline float *device_floats(size_t n)
{
    float *p;
    CHECK(cudaMalloc(&p, n * sizeof(float)));
    return p;
}

// A copy of host on the GPU.
inline float *on_device(const std::vector<float> &host)
{
    float *p = device_floats(host.size());
    CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    return p;
}

// A rows x cols matrix of floats in [-1, 1), the same for every run with the same seed.
inline std::vector<float> random_matrix(size_t elems, unsigned seed = 1)
{
    std::vector<float> host(elems);
    srand(seed);
    for (size_t i = 0; i < elems; i++)
        host[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
    return host;
}

// make explore's files: DIR/CSV and DIR/SVG, each written by its function given the open file;
// says where they went (or why one could not be written, on stderr).
template <class CsvWriter, class SvgWriter>
inline void write_results(const char *dir, const char *csv, CsvWriter write_csv, const char *svg, SvgWriter write_svg)
{
    const char *names[2] = {csv, svg};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            continue;
        }
        if (i == 0)
            write_csv(f);
        else
            write_svg(f);
        fclose(f);
    }
    printf("Written: %s/%s and %s/%s\n", dir, csv, dir, svg);
}

// An SVG plot's frame: its size, the title a browser shows and the heading drawn at x = left,
// both naming the GPU.
inline void svg_begin(FILE *f, int width, int height, int left, const char *gpu, const char *title,
                      const char *heading)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<title>%s (%s)</title>\n", width, height, title, gpu);
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">%s: %s</text>\n", left, gpu, heading);
}
