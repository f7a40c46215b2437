/* Tests of gates.c: reading compute-sanitizer's logs and Nsight Compute's CSV (as those tools
 * wrote them on the H200, CUDA 13.0), finding tools and running them. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gates.h"
#include "textfile.h"
#include "traffic.h"
#include "text.h"

/* A line of the digest, printed when a test fails. */
static char *logged(const char *path)
{
    char *text = read_text_file(path);
    assert_non_null(text);
    return text;
}

/* memcheck on the H200: store_far_away's writes land 256 MiB past `out`. */
static void digests_memcheck_with_buffer_names(void **state)
{
    (void)state;
    char *log = logged("checker/tests/data/memcheck-store-far-away.log");
    struct named_buffer b[4];
    assert_int_equal(parse_buffers(log, b, 4), 2);
    assert_string_equal(b[1].name, "out");
    assert_true(b[1].address == 0x7fc4bc809e00ULL && b[1].bytes == 40000);
    char digest[4096];
    assert_int_equal(sanitizer_digest(log, b, 2, digest, sizeof digest), 10000);
    free(log);
    assert_contains(digest, "Invalid __global__ write of size 4 bytes");
    assert_contains(digest, "at transpose_shared.cu:72");
    assert_lacks(digest, "student::");
    /* 0x7fc4cc809e00 is 0x10000000 bytes after out's start, 40000 of them inside it. */
    assert_contains(digest, "(268395456 bytes, 67098864 floats, past the end of out, which holds 10000 floats)");
    assert_lacks(digest, "=========");
    assert_lacks(digest, "29,400,065");
}

/* racecheck on the H200: no_barrier_1's 32 lines about one read differ only in code offsets. */
static void digests_races_and_counts_errors(void **state)
{
    (void)state;
    char *log = logged("checker/tests/data/racecheck-no-barrier.log");
    char digest[4096];
    assert_int_equal(sanitizer_digest(log, NULL, 0, digest, sizeof digest), 1); /* its summary: 1 error, 1 warning */
    free(log);
    assert_contains(digest, "Error: Race reported between Write access at matmul_tiled.cu:63\n");
    assert_contains(digest, "and Read access at matmul_tiled.cu:73 [");
    int lines = 0;
    for (const char *p = digest; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 4); /* an error and a warning, each with its merged reads */
    assert_int_equal(sanitizer_digest("========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n", NULL, 0,
                                      digest, sizeof digest),
                     1);
    assert_int_equal(sanitizer_digest("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", NULL, 0,
                                      digest, sizeof digest),
                     0);
    assert_string_equal(digest, "");
    /* A digest that does not fit stays a valid string. */
    char small[40];
    log = logged("checker/tests/data/racecheck-no-barrier.log");
    sanitizer_digest(log, NULL, 0, small, sizeof small);
    free(log);
    assert_true(strlen(small) < sizeof small);
}

static const char NCU_CSV[] =
    "==PROF== Connected to process 1234 (/w/build/solutions/04_padding/check)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\","
    "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\","
    "\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\","
    "\"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\","
    "\"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum\",\"smsp__inst_executed_op_shared_ld.sum\","
    "\"smsp__inst_executed_op_shared_st.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"request\",\"request\",\"sector\","
    "\"sector\",\"inst\",\"inst\"\n"
    "\"0\",\"1234\",\"check\",\"127.0.0.1\",\"student::transpose_padded(const float *, float *, int, int)\",\"1\","
    "\"7\",\"(32, 32, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"12\",\"0\",\"2,060\",\"2048\",\"2048\",\"2048\",\"8192\","
    "\"8,192\",\"2048\",\"2048\"\n"
    "\"1\",\"1234\",\"check\",\"127.0.0.1\",\"baseline::transpose_shared(const float *, float *, int, int)\",\"1\","
    "\"7\",\"(32, 32, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"63488\",\"0\",\"65536\",\"2048\",\"2048\",\"2048\",\"8192\","
    "\"8192\",\"2048\",\"2048\"\n"
    "==PROF== Disconnected from process 1234\n";

/* Nsight Compute's own CSV, from the H200: lesson 4's solution (student) and baseline at
 * 256 x 256, every count printed with thousands separators, hundreds of other columns around. */
static void parses_ncu_csv(void **state)
{
    (void)state;
    struct mem_counts student, baseline;
    char why[200];
    char *csv = read_text_file("checker/tests/data/ncu-transpose-padded.csv");
    assert_non_null(csv);
    assert_int_equal(ncu_parse(csv, &student, &baseline, why, sizeof why), 0);
    free(csv);
    assert_int_equal(student.op[SHARED_LD].requests, 2048);
    assert_int_equal(student.op[SHARED_LD].wavefronts, 2048);
    assert_int_equal(all_conflicts(&student), 0);
    assert_int_equal(student.op[GLOBAL_LD].wavefronts, 8192);
    assert_int_equal(student.op[GLOBAL_ST].wavefronts, 8192);
    assert_int_equal(baseline.op[SHARED_LD].wavefronts, 65536);
    assert_int_equal(all_conflicts(&baseline), 63488);
    assert_int_equal(baseline.op[GLOBAL_LD].requests, 2048);
    /* The synthetic table below, without separators, reads the same way. */
    assert_int_equal(ncu_parse(NCU_CSV, &student, &baseline, why, sizeof why), 0);
    assert_int_equal(student.op[SHARED_LD].wavefronts - student.op[SHARED_LD].ideal, 12);
}

/* cp.async's shared-memory side (LDGSTS) has counters of its own; they are added to the
 * stores', its conflict-free wavefronts from the bytes it wrote (128 a wavefront), so an async
 * copy's bank conflicts count as a plain store's would: 64 copies of 512 bytes in 512 wavefronts
 * where 256 would do; 1024 in 4096, none extra. */
static void adds_async_copies_to_shared_stores(void **state)
{
    (void)state;
    struct mem_counts student, baseline;
    char why[200];
    const char *header_end = "\"smsp__inst_executed_op_shared_st.sum\"\n";
    char csv[4096];
    const char *cut = strstr(NCU_CSV, header_end);
    assert_non_null(cut);
    /* the same table with three more columns: instructions, wavefronts, bytes of LDGSTS */
    int at = (int)(cut - NCU_CSV) + (int)strlen(header_end) - 1;
    snprintf(csv, sizeof csv, "%.*s,\"smsp__inst_executed_op_ldgsts.sum\","
             "\"sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum\","
             "\"sm__sass_data_bytes_mem_shared_op_ldgsts.sum\"\n%s", at, NCU_CSV,
             "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"request\",\"request\","
             "\"sector\",\"sector\",\"inst\",\"inst\",\"inst\",\"\",\"\"\n"
             "\"0\",\"1\",\"check\",\"h\",\"student::k()\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
             "\"0\",\"0\",\"10\",\"20\",\"1\",\"1\",\"4\",\"4\",\"10\",\"20\",\"64\",\"512\",\"32,768\"\n"
             "\"1\",\"1\",\"check\",\"h\",\"baseline::k()\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
             "\"0\",\"0\",\"10\",\"20\",\"1\",\"1\",\"4\",\"4\",\"10\",\"20\",\"1,024\",\"4096\",\"524288\"\n");
    assert_int_equal(ncu_parse(csv, &student, &baseline, why, sizeof why), 0);
    assert_int_equal(student.op[SHARED_ST].requests, 20 + 64);
    assert_int_equal(student.op[SHARED_ST].wavefronts, 20 + 512);
    assert_int_equal(all_conflicts(&student), 256);
    assert_int_equal(baseline.op[SHARED_ST].wavefronts, 20 + 4096);
    assert_int_equal(all_conflicts(&baseline), 0);
    /* 64 copies by one lane each (4 bytes): 64 wavefronts, none extra, though 256 bytes fill 2 */
    char *few = strdup(csv);
    char *row = strstr(few, "\"64\",\"512\",\"32,768\"");
    assert_non_null(row);
    memcpy(row, "\"64\",\"064\",\"000256\"", strlen("\"64\",\"064\",\"000256\""));
    assert_int_equal(ncu_parse(few, &student, &baseline, why, sizeof why), 0);
    assert_int_equal(all_conflicts(&student), 0);
    free(few);
    /* asked of an ncu for a GPU before cp.async: the ten others alone */
    assert_non_null(strstr(ncu_metrics(9), "ldgsts"));
    assert_null(strstr(ncu_metrics(7), "ldgsts"));
    const char *older = ncu_metrics(7);
    int commas = 0;
    for (const char *p = older; *p; p++)
        commas += *p == ',';
    assert_int_equal(commas, 9);
    assert_string_equal(older + strlen(older) - 4, ".sum");
}

static void refuses_incomplete_ncu_output(void **state)
{
    (void)state;
    struct mem_counts student, baseline;
    char why[200];
    assert_int_equal(ncu_parse("==ERROR== ERR_NVGPUCTRPERM - no permission\n", &student, &baseline, why, sizeof why), -1);
    assert_contains(why, "no table");
    /* Only the student's row: the baseline is missing, and said so. */
    char *cut = strdup(NCU_CSV);
    *strstr(cut, "\"1\",\"1234\"") = '\0';
    assert_int_equal(ncu_parse(cut, &student, &baseline, why, sizeof why), -1);
    assert_contains(why, "lacks the baseline");
    free(cut);
}

/* A batch's table: the launches in the order they ran, whatever their names; fewer than asked
 * is said with the count. */
static void reads_ncu_rows_in_order(void **state)
{
    (void)state;
    struct mem_counts rows[3];
    char why[200];
    char *csv = read_text_file("checker/tests/data/ncu-transpose-padded.csv");
    assert_non_null(csv);
    assert_int_equal(ncu_parse_rows(csv, rows, 2, why, sizeof why), 0);
    assert_int_equal(rows[0].op[SHARED_LD].wavefronts, 2048);
    assert_int_equal(all_conflicts(&rows[1]), 63488);
    assert_int_equal(ncu_parse_rows(csv, rows, 3, why, sizeof why), -1);
    assert_contains(why, "has 2 of the 3 launches");
    free(csv);
}

static void finds_tools(void **state)
{
    (void)state;
    char buf[1024];
    setenv("WB_TEST_TOOL", "/bin/sh", 1);
    assert_string_equal(find_tool("WB_TEST_TOOL", "nothing-like-it", buf, sizeof buf), "/bin/sh");
    setenv("WB_TEST_TOOL", "/no/such/tool", 1);
    assert_null(find_tool("WB_TEST_TOOL", "sh", buf, sizeof buf)); /* a named tool that is not there */
    unsetenv("WB_TEST_TOOL");
    assert_non_null(find_tool("WB_TEST_TOOL", "sh", buf, sizeof buf));
    assert_null(find_tool("WB_TEST_TOOL", "no-such-tool-anywhere", buf, sizeof buf));
}

static void runs_tools_isolated(void **state)
{
    (void)state;
    struct isolate_result r;
    char *const ok[] = {"/bin/sh", "-c", "echo wb-buffer out 0x10 8; exit 86", NULL};
    run_tool(ok, 10, &r);
    assert_int_equal(r.outcome, ISOLATE_EXITED);
    assert_int_equal(r.status, 86);
    struct named_buffer b[1];
    assert_int_equal(parse_buffers(r.output, b, 1), 1);
    char *const missing[] = {"/no/such/tool", NULL};
    run_tool(missing, 10, &r);
    assert_int_equal(r.status, 127);
}

/* A descriptor the judge inherited (a grading's lock) does not pass to a tool. */
static void tools_get_no_descriptor_of_the_judge(void **state)
{
    (void)state;
    int fd = dup2(STDIN_FILENO, 77); /* without FD_CLOEXEC, as a shell's `exec {lk}>file` leaves it */
    assert_int_equal(fd, 77);
    struct isolate_result r;
    char *const look[] = {"/bin/sh", "-c", "[ -e /proc/$$/fd/77 ] && echo leaked; [ -e /proc/$$/fd/1 ] && echo out",
                          NULL};
    run_tool(look, 10, &r);
    close(fd);
    assert_int_equal(r.outcome, ISOLATE_EXITED);
    assert_non_null(strstr(r.output, "out"));
    assert_null(strstr(r.output, "leaked"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digests_memcheck_with_buffer_names), cmocka_unit_test(digests_races_and_counts_errors),
        cmocka_unit_test(parses_ncu_csv),                    cmocka_unit_test(refuses_incomplete_ncu_output),
        cmocka_unit_test(reads_ncu_rows_in_order), cmocka_unit_test(adds_async_copies_to_shared_stores),
        cmocka_unit_test(finds_tools),                       cmocka_unit_test(runs_tools_isolated),
        cmocka_unit_test(tools_get_no_descriptor_of_the_judge),
    };
    return cmocka_run_group_tests_name("gates", tests, NULL, NULL);
}
