/* Unit tests for checker/src/intake/: sha256 against the standard's examples, and a folder
 * hand-in's file taken, found flat, missing, or refused for a link anywhere on its path, with
 * openat2 and with the walk that stands in for it (make intake-test tries whole hand-ins). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intake.h"
#include "scratch.h"

static void sha256_matches_the_standard(void **state)
{
    (void)state;
    char hex[65];
    sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 56 bytes: the padding needs a second block. */
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* Lesson 3's file taken from the scratch folder as a hand-in. */
static void take(struct scratch *f, struct intake_file *out)
{
    int refused;
    char why[600];
    struct handin *h = handin_open(f->dir, NULL, &refused, why, sizeof why);
    assert_non_null(h);
    handin_take(h, "03_bank_conflicts", "transpose_shared.cu", out);
    handin_close(h);
}

static void a_folders_file_is_copied_and_a_flat_one_found(void **state)
{
    struct scratch *f = *state;
    struct intake_file out;
    take(f, &out);
    assert_int_equal(out.verdict, INTAKE_ABSENT);
    write_text(scratch_file(f, "transpose_shared.cu"), "flat");
    take(f, &out);
    assert_int_equal(out.verdict, INTAKE_COPIED);
    assert_string_equal(out.bytes, "flat");
    intake_file_free(&out);
    assert_int_equal(unlink(scratch_file(f, "transpose_shared.cu")), 0);
    assert_int_equal(mkdir(scratch_file(f, "03_bank_conflicts"), 0700), 0);
    write_text(scratch_file(f, "03_bank_conflicts/transpose_shared.cu"), "kernel");
    take(f, &out);
    assert_int_equal(out.verdict, INTAKE_COPIED);
    assert_int_equal(out.size, 6);
    assert_non_null(strstr(out.where, "03_bank_conflicts/transpose_shared.cu"));
    intake_file_free(&out);
}

/* A link as the folder and as the file, refused both ways of opening. */
static void refuse_links(struct scratch *f)
{
    struct intake_file out;
    assert_int_equal(mkdir(scratch_file(f, "elsewhere"), 0700), 0);
    write_text(scratch_file(f, "elsewhere/transpose_shared.cu"), "someone else's");
    assert_int_equal(symlink("elsewhere", scratch_file(f, "03_bank_conflicts")), 0);
    take(f, &out);
    assert_int_equal(out.verdict, INTAKE_REFUSED);
    assert_non_null(strstr(out.why, "03_bank_conflicts is a symbolic link"));
    assert_null(out.bytes);
    assert_int_equal(unlink(scratch_file(f, "03_bank_conflicts")), 0);
    assert_int_equal(mkdir(scratch_file(f, "03_bank_conflicts"), 0700), 0);
    assert_int_equal(symlink("../elsewhere/transpose_shared.cu", scratch_file(f, "03_bank_conflicts/transpose_shared.cu")), 0);
    take(f, &out);
    assert_int_equal(out.verdict, INTAKE_REFUSED);
    assert_non_null(strstr(out.why, "transpose_shared.cu is a symbolic link"));
    /* The open itself, which stands guard where a link appears after the look (a race). */
    int dir = open(f->dir, O_RDONLY | O_DIRECTORY);
    assert_true(dir >= 0);
    assert_int_equal(intake_open_beneath(dir, "03_bank_conflicts/transpose_shared.cu", O_RDONLY), -1);
    assert_int_equal(errno, ELOOP);
    assert_int_equal(unlink(scratch_file(f, "03_bank_conflicts/transpose_shared.cu")), 0);
    assert_int_equal(rmdir(scratch_file(f, "03_bank_conflicts")), 0);
    assert_int_equal(symlink("elsewhere", scratch_file(f, "03_bank_conflicts")), 0);
    assert_int_equal(intake_open_beneath(dir, "03_bank_conflicts/transpose_shared.cu", O_RDONLY), -1);
    assert_int_equal(errno, ELOOP);
    int fd = intake_open_beneath(dir, "elsewhere/transpose_shared.cu", O_RDONLY);
    assert_true(fd >= 0);
    close(fd);
    close(dir);
}

static void a_link_anywhere_is_refused(void **state)
{
    unsetenv("WB_INTAKE_WALK");
    refuse_links(*state);
}

static void a_link_anywhere_is_refused_by_the_walk_too(void **state)
{
    setenv("WB_INTAKE_WALK", "1", 1); /* read once per process: this test runs in its own below */
    refuse_links(*state);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_matches_the_standard),
        cmocka_unit_test_setup_teardown(a_folders_file_is_copied_and_a_flat_one_found, scratch_setup, scratch_teardown),
        cmocka_unit_test_setup_teardown(a_link_anywhere_is_refused, scratch_setup, scratch_teardown),
    };
    const struct CMUnitTest walk[] = {
        cmocka_unit_test_setup_teardown(a_link_anywhere_is_refused_by_the_walk_too, scratch_setup, scratch_teardown),
    };
    /* The walk's choice is made once a process: it runs in a second one, started as itself. */
    if (argc > 1 && strcmp(argv[1], "--walk") == 0)
        return cmocka_run_group_tests(walk, NULL, NULL);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "WB_INTAKE_WALK=1 %s --walk", argv[0]);
    return rc | (system(cmd) != 0);
}
