/* A lesson file as the emulator compiles it: alone, in the namespace of its role, so that the
 * object holds the student's code and nothing else, for the gate to inspect (checker/src/
 * objgate.c) before it is linked into a runner. Built with -DWB_ROLE=student (or solution,
 * baseline) -DWB_SOURCE='"path/to/file.cu"' and checker/runner/emu/cuda_emu.h force-included. */
/* Its code in a section of its own, so that the runner can tell where a hung kernel spins. */
#pragma clang section text = "wb_text_kernel"
namespace WB_ROLE {
#include WB_SOURCE
}
#pragma clang section text = ""
