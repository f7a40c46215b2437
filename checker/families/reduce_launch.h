/* The reduce family's kernel as the emulator's launch.cu declares and calls it (family.h). */
void WB_KERNEL(const float *in, float *out, int rows, int cols);
#define WB_ARGS in0, out, rows, cols
