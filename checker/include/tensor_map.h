/* The tensor maps a kernel is given (lesson 11's `const __grid_constant__ CUtensorMap`): on a GPU
 * the driver's opaque 128 bytes, made by cuTensorMapEncodeTiled; in the emulator these, in the
 * same parameter. A kernel uses either only as cp.async.bulk.tensor's operand: the interpreter
 * refuses any other read of them, so no kernel can tell the two apart. */
#ifndef WB_TENSOR_MAP_H
#define WB_TENSOR_MAP_H
#include <stdint.h>
#include <string.h>

#define WB_TENSOR_MAP_MAGIC "WBTMAP1"
#define WB_TENSOR_MAP_BYTES 128 /* sizeof(CUtensorMap), aligned as the parameter: 64 */

struct wb_tensor_map {
    char magic[8];
    uint64_t base;      /* the global address of element (0, 0), a buffer the runner gave */
    uint64_t dims[2];   /* elements along a row (x), then rows (y) */
    uint64_t row_bytes; /* from one row to the next */
    uint32_t box[2];    /* what one copy moves: box[0] elements of box[1] rows, densely, row after row */
    uint32_t elem_bytes;
    uint32_t swizzle;   /* 0, or the span of the XOR in bytes: 32, 64, 128 (CU_TENSOR_MAP_SWIZZLE_*) */
};
_Static_assert(sizeof(struct wb_tensor_map) <= WB_TENSOR_MAP_BYTES, "a tensor map fits its parameter");

/* The map into a parameter's 128 bytes. */
static inline void wb_tensor_map_put(unsigned char *param, const struct wb_tensor_map *m)
{
    memset(param, 0, WB_TENSOR_MAP_BYTES);
    memcpy(param, m, sizeof *m);
    memcpy(param, WB_TENSOR_MAP_MAGIC, sizeof WB_TENSOR_MAP_MAGIC);
}

/* The map a parameter's bytes hold: 0, or -1 where they hold none. */
static inline int wb_tensor_map_get(const unsigned char *param, struct wb_tensor_map *m)
{
    memcpy(m, param, sizeof *m);
    return memcmp(m->magic, WB_TENSOR_MAP_MAGIC, sizeof WB_TENSOR_MAP_MAGIC) ? -1 : 0;
}

#endif
