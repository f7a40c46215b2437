/* A kind of problem a lesson poses (the family column of lessons/registry): what its kernel
 * takes and gives, how it is launched, judged and counted. Each family is one file in
 * checker/families/ defining one `struct family` (the PTX interpreter finds the kernel by its
 * mangled name and parameters, so no header is needed); the judge, the runners and the gates
 * ask the descriptor and know no family by name. A job names its family (the runners
 * find the same descriptor by that name). */
#ifndef WB_FAMILY_H
#define WB_FAMILY_H
#include <stddef.h>
#include <stdint.h>

#include "tolerance.h"
#include "residues.h"

#define FAMILY_MISTAKES 4

struct family {
    const char *name;                 /* the registry's word */
    /* The kernel: `kernel(inputs..., output, scalars...)`, row-major; the output is floats. */
    int ninputs;                      /* 1 or 2 */
    int input_half;                   /* the inputs are IEEE halves (unsigned short bits), else floats:
                                         the judge's are floats all the same (exact halves: input_bits),
                                         and the runners convert them for the kernel */
    const char *input_names[2];       /* as reports name the buffers: "A", "B"; "in" */
    const char *output_name;          /* "C"; "out" */
    const char *params;               /* the contract's parameters as C spells them: messages say
                                         them, and the kernel's symbol is made of them
                                         (family_kernel_symbol) */
    int nscalars;                     /* scalars after the output: 1 = (rows), 2 = (rows, cols) */
    /* The launch: block_x x block_y threads per block, one block per tile_x x tile_y elements of
     * the input (rows x cols), blockIdx.x along the columns, partial tiles rounded up. */
    int block_x, block_y, tile_x, tile_y;
    /* Shapes: inputs are rows x cols each; the output's shape: */
    void (*output_shape)(int rows, int cols, int *orows, int *ocols);
    /* "N=100" or "100x257". */
    const char *(*size_text)(int rows, int cols, char *buf, size_t len);
    /* Judging: how far an element may be from the double-precision CPU reference, and that
     * reference at output element i (row-major). */
    struct tolerance (*tolerance)(int rows, int cols);
    double (*reference_at)(const float *in0, const float *in1, int rows, int cols, size_t i);
    /* The elements of input k that output element i is made of: *count of them from *first,
     * *stride apart. What the judge makes of an input it never held whole (a sample's, at the
     * timed size) before it asks reference_at. Needed where timed_sample or timed_output_blocks
     * is set. */
    void (*input_run)(int rows, int cols, size_t i, int k, size_t *first, size_t *count, size_t *stride);
    /* Optional: reference_at of the n elements of order, bit for bit, into want[] (order sorted
     * by element), where one element at a time is slow: a sampled matmul block's 32768 elements
     * each read a column of B, 4096 floats N apart. */
    void (*reference_each)(const float *in0, const float *in1, int rows, int cols, const uint64_t *order, size_t n,
                           double *want);
    /* The likely mistakes, for the diagnosis: what each would have produced (it fills out, the
     * output's shape, and returns 0, or -1 when too large to compute) and the sentence that names
     * it (matmul's B*A: "A and B are swapped"). The first NULL ends the list. */
    struct family_mistake {
        int (*compute)(const float *in0, const float *in1, int rows, int cols, float *out);
        const char *what;
    } mistakes[FAMILY_MISTAKES];
    int output_is_sum;                /* elements are sums (C += ... shows as NaN everywhere) */
    int output_tile;                  /* the output's tiles, edge in elements, for telling mistakes at
                                         the edge from those inside (0: its elements form no tiles) */
    int output_is_input_moved;        /* elements are input elements moved (a copy shows as the input) */
    int input_bits;                   /* inputs drawn with this many random bits (rng_fill_grid), so that
                                         sums are exact; 0: the full 24 */
    /* The GPU judge's yardstick: a routine that does the same work, timed beside the kernels in
     * the same run, and the throughput both are shown in (NULL routine: none). */
    struct limit {
        const char *routine;                 /* "cudaMemcpy" (of the input), "cublasSgemm" */
        double (*amount)(int rows, int cols);/* the work of one launch, e.g. bytes moved */
        const char *unit;                    /* "GB/s", "TFLOP/s" */
        double scale;                        /* amount per unit: 1e9 bytes, 1e12 operations */
        const char *what;                    /* "bytes read and written per second" */
    } limit;
    /* The emulator: its cost of a rows x cols case in multiply-adds' worth of work, and the
     * size memory traffic is counted at (every tile pattern shows there). */
    double (*work)(int rows, int cols);
    int count_rows, count_cols;
    /* ... and a second size, drawn from the run's seed so that no kernel can expect it: each
     * dimension step * k for k in [lo, hi], never the fixed size (a square family: the rows'). */
    struct count_draw {
        int step, lo, hi;
    } count_draw[2];
    /* ... and at the size the GPU times (the speed case's), this many of each launch's blocks (its
     * four corners, the rest drawn from the seed), their counts scaled to the whole grid: a kernel
     * that behaves otherwise at that size is seen there. 0: not there, where a block's work grows
     * with the size (a matmul block's K loop: 8 blocks at N = 4096 take tens of seconds). Their
     * output is judged where they wrote it (input_run). */
    int timed_sample;
    /* Where timed_sample is 0: this many blocks of the student's launch at that size, drawn from
     * the check's seed, their output judged where they wrote it, nothing counted (a kernel that
     * takes another path at the size a GPU times, wrong there, is seen). */
    int timed_output_blocks;
    /* The tile edges a kernel may work in along the rows and along the cols (its launch's tile,
     * smaller tiles, its vector width; ascending, 0-terminated): the RESIDUES case (check.h)
     * covers every residue class they make (residues.h). */
    int grains[2][MAX_GRAINS];
    /* Lesson 11's: the inputs given as tensor maps (`const __grid_constant__ CUtensorMap`, the
     * kernel's only way to them), which the runners build over the input buffers (on a GPU with
     * cuTensorMapEncodeTiled, in the emulator its own, tensor_map.h): what one copy moves, box
     * columns x rows of input k, and the swizzle, in bytes (128: CU_TENSOR_MAP_SWIZZLE_128B).
     * box_cols 0: the inputs are pointers. */
    struct tensor_box {
        int cols, rows;
    } input_box[2];
    int tensor_swizzle;
    int size_step;      /* the sizes are multiples of this (a tensor map's rows are whole 16-byte
                           units: 8 halves); 0: any */
    int dynamic_shared; /* the bytes of `extern __shared__` each block gets */
    int sm_90a;         /* the kernel is built for sm_90a (wgmma): it runs on a GPU of compute
                           capability 9.0 alone, or in the emulator */
    int reordered_elems; /* the emulator runs the student's kernel again in other warp orders up to
                            inputs of this many elements (0: emu_job.c's default, a matmul's N =
                            128): lesson 11's ring reuses its stages from N = 320 on */
    double emu_cost;    /* the emulator's cost of one multiply-add of work() against the ordinary
                           cores' (0: 1), for the sizes it runs (check_run.h's EMU_MAX_WORK): a
                           wgmma's are summed natively, a warpgroup's product at once */
};

/* Each family file registers its descriptor: WB_FAMILY(family_matmul); the families are then
 * found by name, with no list of them anywhere else. */
#define WB_FAMILY(var) \
    __attribute__((used, section("wb_families"))) const struct family *const var##_registered = &var

/* The grid of a launch: one block per tile of the input, blockIdx.x along its columns. */
static inline void family_grid(const struct family *f, int rows, int cols, unsigned grid[2])
{
    grid[0] = (unsigned)((cols + f->tile_x - 1) / f->tile_x);
    grid[1] = (unsigned)((rows + f->tile_y - 1) / f->tile_y);
}

/* The family of this registry word; NULL when there is none. */
const struct family *family_named(const char *name);
/* The families' names, comma-separated, for messages. */
const char *family_names(void);
/* The symbol nvcc gives `__global__ void KERNEL(f->params)` at file scope (the Itanium C++ ABI's
 * mangling: _Z, the name's length and itself, each parameter's type with its back-references),
 * made from the parameters as the contract spells them, so that no family types it twice. Types
 * a contract may use: the arithmetic ones, one level of pointer, const. Returns 0, or -1 where
 * a parameter is none of those (buf then holds what could not be read). */
int family_kernel_symbol(const struct family *f, const char *kernel, char *buf, size_t len);

#endif
