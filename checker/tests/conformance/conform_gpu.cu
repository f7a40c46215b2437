/* The conformance suite's GPU side (checker/tests/conformance/README.md): every form that forms.py
 * wrote, assembled by the driver for this GPU and run on the same inputs as conform_emu.c runs
 * them, its outputs written for conform.py to compare bit for bit and record.
 *
 * Usage: conform-gpu DIR     (DIR: forms.py's folder; writes DIR/gpu.bin, DIR/gpu.tsv, a line a
 *                             form: id, "ran", "refused" (the driver's assembler) or "failed" (the
 *                             launch), and why; and DIR/gpu.txt: the GPU, its driver, CUDA's) */
#include <cuda.h>

#include "conform_forms.h"

static const char *error_text(CUresult r)
{
    const char *s = NULL;
    cuGetErrorString(r, &s);
    return s ? s : "an error the driver does not name";
}

static CUcontext ctx;
static CUdevice dev;

/* A launch that faulted leaves the context unusable: a fresh one for the next form. */
static int fresh_context(void)
{
    if (ctx) {
        cuDevicePrimaryCtxRelease(dev);
        cuDevicePrimaryCtxReset(dev);
    }
    return cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS ? 0 : -1;
}

/* One form: 0 ran, 1 refused by the assembler, 2 failed when launched; why, into why. */
static int run_form(const char *ptx, const unsigned char *in, size_t in_bytes, unsigned char *out, size_t out_bytes,
                    unsigned cases, char *why, size_t len)
{
    static char log[8192];
    log[0] = '\0';
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(size_t)sizeof log};
    CUmodule mod;
    CUresult r = cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "%s: %s", error_text(r), log);
        return 1;
    }
    CUfunction fn;
    CUdeviceptr din = 0, dout = 0;
    int result = 0;
    if ((r = cuModuleGetFunction(&fn, mod, "conform")) != CUDA_SUCCESS || (r = cuMemAlloc(&din, in_bytes)) ||
        (r = cuMemAlloc(&dout, out_bytes)) || (r = cuMemcpyHtoD(din, in, in_bytes)) ||
        (r = cuMemsetD8(dout, 0, out_bytes))) {
        snprintf(why, len, "setting up: %s", error_text(r));
        result = 2;
    } else {
        unsigned n = cases;
        void *args[] = {&din, &dout, &n};
        r = cuLaunchKernel(fn, (cases + CONFORM_THREADS - 1) / CONFORM_THREADS, 1, 1, CONFORM_THREADS, 1, 1, 0, NULL, args, NULL);
        if (r == CUDA_SUCCESS)
            r = cuCtxSynchronize();
        if (r == CUDA_SUCCESS)
            r = cuMemcpyDtoH(out, dout, out_bytes);
        if (r != CUDA_SUCCESS) {
            snprintf(why, len, "%s", error_text(r));
            result = 2;
            memset(out, 0, out_bytes);
            fresh_context();
            return result;
        }
    }
    if (din)
        cuMemFree(din);
    if (dout)
        cuMemFree(dout);
    cuModuleUnload(mod);
    return result;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: conform-gpu DIR (forms.py's folder)\n");
        return 2;
    }
    const char *dir = argv[1];
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS || fresh_context()) {
        fprintf(stderr, "conform-gpu: no GPU to run on (%s)\n", error_text(r));
        return 3;
    }
    char path[4096], name[256] = "";
    int driver = 0, major = 0, minor = 0;
    cuDeviceGetName(name, sizeof name, dev);
    cuDriverGetVersion(&driver);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    snprintf(path, sizeof path, "%s/gpu.txt", dir);
    FILE *about = fopen(path, "w");
    if (about) {
        fprintf(about, "%s, compute capability %d.%d, CUDA driver API %d.%d\n", name, major, minor, driver / 1000,
                driver % 1000 / 10);
        fclose(about);
    }
    int counts[3] = {0, 0, 0};
    if (conform_each(dir, "gpu", run_form, counts))
        return 2;
    fprintf(stderr, "conform-gpu: %s: %d forms: %d ran, %d refused by the assembler, %d failed when launched\n", name,
            counts[0] + counts[1] + counts[2], counts[0], counts[1], counts[2]);
    return 0;
}
