/* The GPU's half of checker/bench/tensor-core-check.sh: the same cases as
 * tensor-core-check-emu.c (one a line on stdin, `kernel case mangled-name words arg...`, `in`
 * and `out` the buffers, numbers 32-bit integers), launched on one block of 32 threads from the
 * cubin named first, which ptxas made of the very PTX the interpreter runs. The buffers are
 * filled as there (in[k] = k + 1 as floats, out 0xcdcdcdcd a word); prints each case's first
 * `words` words of out as "kernel case index hex". Host code alone, on the driver API (-lcuda).
 *   Usage: tensor-core-check-gpu CUBIN < cases > dump */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor-core-cases.h"

/* Stops at the first failing driver call, naming it. */
static void check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return;
    const char *name = "?", *said = "?";
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &said);
    fprintf(stderr, "tensor-core-check-gpu: %s failed: %s (%s)\n", what, name, said);
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CUBIN < cases > dump\n", argv[0]);
        return 2;
    }
    int ndev = 0;
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&ndev);
    if (r != CUDA_SUCCESS || ndev == 0) {
        const char *name = "no device";
        if (r != CUDA_SUCCESS)
            cuGetErrorName(r, &name);
        fprintf(stderr, "tensor-core-check-gpu: no GPU to run on (%s)\n", name);
        return 3;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    check(cuModuleLoad(&mod, argv[1]), "cuModuleLoad");
    CUdeviceptr in, out;
    check(cuMemAlloc(&in, IN_WORDS * 4), "cuMemAlloc");
    check(cuMemAlloc(&out, OUT_WORDS * 4), "cuMemAlloc");
    float in_host[IN_WORDS];
    uint32_t out_host[OUT_WORDS];
    struct tc_case tc;
    int got;
    while ((got = tc_next_case(stdin, &tc)) > 0) {
        CUfunction f;
        check(cuModuleGetFunction(&f, mod, tc.mangled), tc.mangled);
        /* The arguments: each its own slot, pointers 8 bytes and integers 4, as the kernel
         * declares them (the interpreter's half checks that against the PTX). */
        uint64_t pointers[8];
        int32_t numbers[8];
        void *args[8];
        int n = 0;
        char arg[64];
        for (const char *p = tc.args; n < 8 && tc_next_arg(&p, arg); n++) {
            if (!strcmp(arg, "in") || !strcmp(arg, "out")) {
                pointers[n] = !strcmp(arg, "in") ? (uint64_t)in : (uint64_t)out;
                args[n] = &pointers[n];
            } else {
                numbers[n] = (int32_t)strtol(arg, NULL, 0);
                args[n] = &numbers[n];
            }
        }
        tc_fill(in_host, out_host);
        check(cuMemcpyHtoD(in, in_host, sizeof in_host), "cuMemcpyHtoD");
        check(cuMemcpyHtoD(out, out_host, sizeof out_host), "cuMemcpyHtoD");
        check(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL), tc.mangled);
        check(cuCtxSynchronize(), tc.mangled);
        check(cuMemcpyDtoH(out_host, out, sizeof out_host), "cuMemcpyDtoH");
        tc_print(&tc, out_host);
    }
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    return got < 0;
}
