/* What a lesson's check runs. Each lessons/NN_topic/check.c defines one `lesson` with its test
 * cases; checker/judge/main.c runs them as cmocka tests.
 * Which kernel, family and baseline come from lessons/registry. */
#ifndef WB_CHECK_H
#define WB_CHECK_H
#include <stddef.h>

enum case_kind {
    CASE_CORRECT,       /* every output element against the solution and a CPU reference */
    CASE_SPEED,         /* correct, then timed against solution and baseline, then correct again;
                           in the emulator: correct, and the memory traffic counted against the rules */
    CASE_SHARED_BYTES,  /* the kernel's static shared memory is exactly `bytes` */
    CASE_RESIDUES,      /* CASE_CORRECT at each shape the family's grains call for (residues.h):
                           every residue class of the sizes, small enough for both judges */
    /* Added by the checker on a GPU, not declared by lessons (SANITIZE=1, PROFILE=1, make grade): */
    CASE_SANITIZER,     /* compute-sanitizer's racecheck, synccheck and memcheck find nothing */
    CASE_PROFILE,       /* Nsight Compute's counters obey the lesson's traffic rules, as ratios */
};

struct check_case {
    const char *name;  /* the cmocka test name */
    enum case_kind kind;
    int rows, cols;    /* the input's shape; matmul uses rows = cols = N */
    size_t bytes;      /* CASE_SHARED_BYTES only */
    const char *why;   /* CASE_SHARED_BYTES only: the rule, said to the student on failure */
    int points;        /* what passing it earns in make grade (check_record.h says when it counts);
                          the cases' points add up to the lesson's in lessons/registry */
};

#define CORRECT_N(n, pts) {"correct N=" #n, CASE_CORRECT, n, n, 0, NULL, pts}
#define SPEED_N(n, pts) {"speed N=" #n, CASE_SPEED, n, n, 0, NULL, pts}
#define CORRECT_RC(r, c, pts) {"correct " #r "x" #c, CASE_CORRECT, r, c, 0, NULL, pts}
#define SPEED_RC(r, c, pts) {"speed " #r "x" #c, CASE_SPEED, r, c, 0, NULL, pts}
#define RESIDUES(pts) {"correct at every residue class", CASE_RESIDUES, 0, 0, 0, NULL, pts}
/* A rule of the lesson: worth nothing itself, but the speed case earns nothing while it fails. */
#define SHARED_BYTES(b, why) {"shared memory is " #b " bytes", CASE_SHARED_BYTES, 0, 0, b, why, 0}

/* The sizes every lesson of a family is checked at: tiny, one short of and one past the tile,
 * an odd shape that leaves partial tiles at every edge (matmul's 112: a multiple of 16 and of no
 * larger grain, so partial tiles and every path a vector width or a small tile takes; the GPU's
 * compute-sanitizer runs at this size), every residue class the family's grains
 * make (RESIDUES), each case worth pts; and one large size, worth nothing itself (the emulator
 * leaves it to the GPU judge, and the points of a lesson are the same in both judges; its
 * classes are among the residues) but, as every case, needed for the speed case's points.
 * Where the stub is already correct (it only needs to become faster), pts is 0: a case the
 * unchanged stub passes earns nothing (make test grades the stubs and demands 0 points). */
#define MATMUL_CORRECTNESS(pts)                                                                   \
    CORRECT_N(1, pts), CORRECT_N(31, pts), CORRECT_N(33, pts), CORRECT_N(112, pts), RESIDUES(pts), \
        CORRECT_N(1000, 0)
#define TRANSPOSE_CORRECTNESS(pts) TRANSPOSE_CORRECTNESS_1X1(pts, pts)
/* The same with the 1 x 1 case worth pts_1x1: a stub that is right there alone (lesson 6's). */
#define TRANSPOSE_CORRECTNESS_1X1(pts_1x1, pts)                                                             \
    CORRECT_RC(1, 1, pts_1x1), CORRECT_RC(31, 33, pts), CORRECT_RC(33, 31, pts), CORRECT_RC(100, 257, pts), \
        RESIDUES(pts), CORRECT_RC(4000, 3000, 0)
/* A matmul by 128 x 128 blocks of C (lessons 8 and 10): tiny, a size below the float4 and the
 * K-step (7), 112 (as above), every residue class, one past two blocks (257) and the large size.
 * Their stubs are already correct, so the cases are worth nothing (they must become faster). */
#define MATMUL_128_CORRECTNESS                                                                     \
    CORRECT_N(1, 0), CORRECT_N(7, 0), CORRECT_N(112, 0), RESIDUES(0), CORRECT_N(257, 0), CORRECT_N(1000, 0)

/* A lesson's cases. Its thresholds, what the speed case demands, live in lessons/NN_topic/thresholds
 * (thresholds.h), which the judge reads. */
struct lesson_spec {
    const char *baseline_is;  /* what the baseline kernel is, for the report */
    const struct check_case *cases;
    size_t ncases;
};

/* A lesson's cases, listed inside its lesson_spec: .cases and their count from the one list. */
#define LESSON_CASES(...)                                   \
    .cases = (const struct check_case[]){__VA_ARGS__},      \
    .ncases = sizeof((const struct check_case[]){__VA_ARGS__}) / sizeof(struct check_case)

/* Defined by each lesson's check.c. */
extern const struct lesson_spec lesson;

#endif
