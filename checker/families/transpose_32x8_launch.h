/* The transpose_32x8 family's kernel (family.h): the transpose's contract, another launch. */
#include "transpose_launch.h"
