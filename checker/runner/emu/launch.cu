/* The one place where the emulator launches lesson kernels: compiled once per role (student,
 * solution, baseline) with that role's name, and linked with the role's kernel file
 * (kernel_file.cu) into a runner:
 *
 *   clang++ -DWB_ROLE=student -DWB_KERNEL=transpose_padded -DWB_FAMILY_NAME=transpose \
 *           -DWB_FAMILY_LAUNCH='"transpose_launch.h"' -c launch.cu
 *
 * It is the workbook's own code, so it is built without the tracer's instrumentation: only the
 * lesson file's accesses are traced. The GPU's runner needs no such file: it loads cubins
 * (checker/runner/gpu_runner.c). */
#include "cuda_emu.h"

extern "C" {
#include "emu.h"
#include "runner.h"
}

#define WB_CAT_(a, b) a##b
#define WB_CAT(a, b) WB_CAT_(a, b)
#define WB_STR_(a) #a
#define WB_STR(a) WB_STR_(a)

/* The kernel's signature is the family's contract (checker/families/NAME_launch.h, named by
 * WB_FAMILY_LAUNCH); a lesson file whose kernel differs fails the gate before it gets here. */
namespace WB_ROLE {
#include WB_FAMILY_LAUNCH
}

/* The bounds of this role's __shared__ variables (weak: a kernel may have none). */
extern "C" char WB_CAT(__start_wb_shared_, WB_ROLE)[] __attribute__((weak));
extern "C" char WB_CAT(__stop_wb_shared_, WB_ROLE)[] __attribute__((weak));
#define WB_SHARED_BEGIN WB_CAT(__start_wb_shared_, WB_ROLE)
#define WB_SHARED_END WB_CAT(__stop_wb_shared_, WB_ROLE)
/* And of its __constant__ data, which its kernel may read. */
extern "C" char WB_CAT(__start_wb_const_, WB_ROLE)[] __attribute__((weak));
extern "C" char WB_CAT(__stop_wb_const_, WB_ROLE)[] __attribute__((weak));

/* The block and the grid are those of the family the kernel is written for (family.h: a
 * baseline's may differ from the lesson's); rows and cols come from the job. */
static int launch(const struct kernel_entry *, const struct gpu_job *job, const float *in0, const float *in1, float *out)
{
    const struct family *fam = family_named(WB_STR(WB_FAMILY_NAME));
    int rows = job->rows, cols = job->cols;
    unsigned g[2];
    family_grid(fam, rows, cols, g);
    dim3 block(fam->block_x, fam->block_y), grid(g[0], g[1]);
    (void)in1;
    auto body = [&]() { WB_ROLE::WB_KERNEL(WB_ARGS); };
    emu_launch_constants(WB_CAT(__start_wb_const_, WB_ROLE), WB_CAT(__stop_wb_const_, WB_ROLE));
    return emu_launch(grid, block, WB_SHARED_BEGIN, WB_SHARED_END,
                      [](void *f) { (*static_cast<decltype(body) *>(f))(); }, &body);
}

static int attributes(const struct kernel_entry *, size_t *static_smem, int *regs)
{
    *static_smem = (size_t)(WB_SHARED_END - WB_SHARED_BEGIN);
    *regs = 0;
    return 0;
}

extern "C" const struct kernel_entry WB_CAT(WB_ROLE, _kernel) = {WB_STR(WB_KERNEL), launch, attributes, nullptr};
