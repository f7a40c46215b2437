// The PTX of Hopper's machinery as CUDA helpers (inline assembly), shared by the interpreter's test
// kernels (hopper.cu) and the GPU measurements of lesson 11's kernel (checker/bench/hgemm-wgmma.cu):
// a shared address, a wgmma matrix descriptor, an mbarrier's init, arrivals and wait, a 2-D tensor
// copy, one m64n128k16 product into 64 floats a thread.
#ifndef WB_HOPPER_ASM_CUH
#define WB_HOPPER_ASM_CUH
#include <cuda.h>
#include <stdint.h>

__device__ static inline uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// A descriptor: start, leading and stride byte offsets (16-byte units), and the swizzle mode in bits
// 62-63 (0 none, 1 128-byte, 2 64-byte, 3 32-byte).
__device__ static inline uint64_t desc(uint32_t addr, uint32_t lbo, uint32_t sbo, uint64_t swizzle)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)((lbo >> 4) & 0x3FFF) << 16 |
           (uint64_t)((sbo >> 4) & 0x3FFF) << 32 | swizzle << 62;
}
__device__ static inline void bar_init(uint64_t *b, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(b)), "r"(count));
}
__device__ static inline void bar_expect(uint64_t *b, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(b)), "r"(bytes) : "memory");
}
__device__ static inline void bar_arrive(uint64_t *b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(b)) : "memory");
}
__device__ static inline void bar_wait(uint64_t *b, int parity)
{
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(smem(b)), "r"(parity) : "memory");
}
__device__ static inline void tma_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *b)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smem(dst)), "l"(map), "r"(x), "r"(y), "r"(smem(b)) : "memory");
}

#define D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
__device__ static inline void wgmma_64x128x16(float *d, uint64_t da, uint64_t db)
{
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 0, 1;\n}"
                 : D8(0), D8(8), D8(16), D8(24), D8(32), D8(40), D8(48), D8(56)
                 : "l"(da), "l"(db));
}

#endif
