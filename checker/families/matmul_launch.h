/* The matmul family's kernel as the emulator's launch.cu declares and calls it (family.h). */
void WB_KERNEL(const float *A, const float *B, float *C, int N);
#define WB_ARGS in0, in1, out, rows
