/* The matmul_128 family's kernel (family.h): the matmul's contract, another launch. */
#include "matmul_launch.h"
