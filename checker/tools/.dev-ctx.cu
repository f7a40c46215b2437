// temporary: what a CUDA process costs to start and end on the lent GPU
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void k(float *p) { p[threadIdx.x] += 1.0f; }
int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? atoi(argv[1]) : 0;
    float *p;
    cudaMalloc(&p, mb ? mb << 20 : 4096);
    int launches = argc > 2 ? atoi(argv[2]) : 1;
    for (int i = 0; i < launches; i++) k<<<1, 32>>>(p);
    cudaDeviceSynchronize();
    return 0;
}
