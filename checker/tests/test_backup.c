/* Unit tests for checker/src/teaching/backup.c: backup_file (nothing to keep, the copy's name and
 * content, nested folders, never overwriting a copy of the same second), copy_file (replaces
 * the destination, leaves no temporary) and make_dirs. Files live in a mkdtemp folder. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backup.h"
#include "scratch.h"
#include "unit.h"

/* A fixed moment: 2023-11-14 22:13:20 UTC; the name uses local time, as backup_file does. */
#define WHEN ((time_t)1700000000)

static void assert_file_is(const char *path, const char *text)
{
    char buf[8192];
    FILE *fp = fopen(path, "r");
    if (!fp)
        fail_msg("cannot open %s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    assert_int_equal(n, strlen(text));
    assert_string_equal(buf, text);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void stamp(time_t when, char *buf, size_t len)
{
    struct tm tm;
    localtime_r(&when, &tm);
    strftime(buf, len, "%Y%m%d-%H%M%S", &tm);
}

static void backup_missing_file_returns_one(void **state)
{
    struct scratch *f = *state;
    const char *file = scratch_file(f, "absent.cu"), *dir = scratch_file(f, "backups");
    char saved[512] = "";
    assert_int_equal(backup_file(file, dir, WHEN, saved, sizeof saved), 1);
    assert_int_equal(entries(f->dir), 0); /* nothing kept, nothing created */
}

/* A file backed up once: the copy in the folder (made, however deep), named stem.STAMP.ext, with
 * the file's content, and the file itself left as it was. */
static void backup_keeps_content_and_name(void **state)
{
    struct scratch *f = *state;
    const struct {
        const char *file, *text, *dir, *name; /* name: the copy's, STAMP as %s */
    } cases[] = {
        {"matmul_naive.cu", "__global__ void matmul_naive() {}\n// the student's work\n", "work/01_naive/backups",
         "matmul_naive.%s.cu"},
        {"notes", "no extension\n", "notes-backups", "notes.%s"},
        {"empty.cu", "", "empty-backups", "empty.%s.cu"},
    };
    char st[32];
    stamp(WHEN, st, sizeof st);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *file = scratch_file(f, cases[k].file), *dir = scratch_file(f, cases[k].dir);
        char saved[512] = "", name[256], want[512];
        write_text(file, cases[k].text);
        assert_int_equal(backup_file(file, dir, WHEN, saved, sizeof saved), 0);
        snprintf(name, sizeof name, cases[k].name, st);
        snprintf(want, sizeof want, "%s/%s", dir, name);
        if (strcmp(saved, want) != 0 || !is_dir(dir) || entries(dir) != 1)
            fail_msg("%s: kept as %s (%d in its folder), not %s", cases[k].file, saved, entries(dir), want);
        assert_file_is(saved, cases[k].text);
        assert_file_is(file, cases[k].text); /* the original stays */
    }
}

static void backup_stamp_format(void **state)
{
    struct scratch *f = *state;
    const char *file = scratch_file(f, "k.cu"), *dir = scratch_file(f, "b");
    char saved[512] = "";
    write_text(file, "x");
    assert_int_equal(backup_file(file, dir, WHEN, saved, sizeof saved), 0);
    /* <dir>/k.YYYYmmdd-HHMMSS.cu */
    const char *name = saved + strlen(dir) + 1;
    assert_int_equal(strlen(name), strlen("k.20231114-221320.cu"));
    assert_memory_equal(name, "k.", 2);
    for (int i = 2; i < 17; i++)
        if (i == 10)
            assert_int_equal(name[i], '-');
        else
            assert_true(name[i] >= '0' && name[i] <= '9');
    assert_string_equal(name + 17, ".cu");
}

static void backup_same_second_never_overwrites(void **state)
{
    struct scratch *f = *state;
    const char *file = scratch_file(f, "transpose.cu"), *dir = scratch_file(f, "backups");
    char s1[512] = "", s2[512] = "", s3[512] = "", want[512], st[32];
    stamp(WHEN, st, sizeof st);

    write_text(file, "first version\n");
    assert_int_equal(backup_file(file, dir, WHEN, s1, sizeof s1), 0);
    write_text(file, "second version\n");
    assert_int_equal(backup_file(file, dir, WHEN, s2, sizeof s2), 0);
    write_text(file, "third\n");
    assert_int_equal(backup_file(file, dir, WHEN, s3, sizeof s3), 0);

    snprintf(want, sizeof want, "%s/transpose.%s-2.cu", dir, st);
    assert_string_equal(s2, want);
    snprintf(want, sizeof want, "%s/transpose.%s-3.cu", dir, st);
    assert_string_equal(s3, want);
    assert_file_is(s1, "first version\n");
    assert_file_is(s2, "second version\n");
    assert_file_is(s3, "third\n");
    assert_int_equal(entries(dir), 3);
}

static void backup_name_uses_local_time(void **state)
{
    /* In a zone 5:30 east of UTC, WHEN is 2023-11-15 03:43:20 local time. */
    struct scratch *f = *state;
    const char *file = scratch_file(f, "k.cu"), *dir = scratch_file(f, "b");
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "WBT-05:30", 1);
    tzset();
    char saved[512] = "", want[512];
    write_text(file, "x");
    int rc = backup_file(file, dir, WHEN, saved, sizeof saved);
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
    assert_int_equal(rc, 0);
    snprintf(want, sizeof want, "%s/k.20231115-034320.cu", dir);
    assert_string_equal(saved, want);
}

static void backup_different_seconds_no_suffix(void **state)
{
    struct scratch *f = *state;
    const char *file = scratch_file(f, "k.cu"), *dir = scratch_file(f, "backups");
    char s1[512] = "", s2[512] = "", want[512], st[32];
    write_text(file, "v\n");
    assert_int_equal(backup_file(file, dir, WHEN, s1, sizeof s1), 0);
    assert_int_equal(backup_file(file, dir, WHEN + 1, s2, sizeof s2), 0);
    stamp(WHEN + 1, st, sizeof st);
    snprintf(want, sizeof want, "%s/k.%s.cu", dir, st);
    assert_string_equal(s2, want);
    assert_string_not_equal(s1, s2);
}

static void backup_large_file(void **state)
{
    /* Larger than copy_fd's 64 KiB buffer: the copy must take several reads. */
    struct scratch *f = *state;
    const char *file = scratch_file(f, "big.cu"), *dir = scratch_file(f, "backups");
    char saved[512] = "";
    size_t n = 200000;
    char *data = malloc(n), *back = malloc(n + 1);
    assert_non_null(data);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + i % 23);
    FILE *fp = fopen(file, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
    assert_int_equal(backup_file(file, dir, WHEN, saved, sizeof saved), 0);
    fp = fopen(saved, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(back, 1, n + 1, fp), n);
    fclose(fp);
    assert_memory_equal(back, data, n);
    free(data);
    free(back);
}

static void backup_dir_not_creatable_fails(void **state)
{
    struct scratch *f = *state;
    const char *file = scratch_file(f, "k.cu"), *blocker = scratch_file(f, "plain_file"), *dir = scratch_file(f, "plain_file/backups");
    char saved[512] = "";
    write_text(file, "keep me\n");
    write_text(blocker, "in the way\n");
    assert_int_equal(backup_file(file, dir, WHEN, saved, sizeof saved), -1);
    assert_file_is(file, "keep me\n");
}

static void copy_replaces_destination(void **state)
{
    struct scratch *f = *state;
    const char *src = scratch_file(f, "stub.cu"), *dst = scratch_file(f, "work.cu");
    write_text(src, "short\n");
    write_text(dst, "a much longer text that must not survive in any part\n");
    assert_int_equal(copy_file(src, dst), 0);
    assert_file_is(dst, "short\n");
    assert_file_is(src, "short\n");
    assert_int_equal(entries(f->dir), 2); /* no temporary left */
}

static void copy_creates_destination(void **state)
{
    struct scratch *f = *state;
    const char *src = scratch_file(f, "stub.cu"), *dst = scratch_file(f, "new.cu");
    write_text(src, "int x;\n");
    assert_false(exists(dst));
    assert_int_equal(copy_file(src, dst), 0);
    assert_file_is(dst, "int x;\n");
}

static void copy_missing_source_keeps_destination(void **state)
{
    struct scratch *f = *state;
    const char *src = scratch_file(f, "absent.cu"), *dst = scratch_file(f, "work.cu");
    write_text(dst, "the student's work\n");
    assert_int_equal(copy_file(src, dst), -1);
    assert_file_is(dst, "the student's work\n");
    assert_int_equal(entries(f->dir), 1);
}

static void copy_into_missing_folder_fails(void **state)
{
    struct scratch *f = *state;
    const char *src = scratch_file(f, "stub.cu"), *dst = scratch_file(f, "no/such/dir/work.cu");
    write_text(src, "x\n");
    assert_int_equal(copy_file(src, dst), -1);
    assert_int_equal(entries(f->dir), 1);
}

static void make_dirs_nested(void **state)
{
    struct scratch *f = *state;
    const char *path = scratch_file(f, "a/b/c/d"), *mid = scratch_file(f, "a/b");
    assert_int_equal(make_dirs(path), 0);
    assert_true(is_dir(mid));
    assert_true(is_dir(path));
}

static void make_dirs_existing_is_fine(void **state)
{
    struct scratch *f = *state;
    const char *path = scratch_file(f, "x/y"), *deeper = scratch_file(f, "x/y/z");
    assert_int_equal(make_dirs(path), 0);
    assert_int_equal(make_dirs(path), 0);
    assert_int_equal(make_dirs(f->dir), 0);
    assert_int_equal(make_dirs(deeper), 0); /* parents exist, the last one is new */
    assert_true(is_dir(deeper));
}

static void make_dirs_trailing_slash(void **state)
{
    struct scratch *f = *state;
    const char *path = scratch_file(f, "t/u/"), *plain = scratch_file(f, "t/u");
    assert_int_equal(make_dirs(path), 0);
    assert_true(is_dir(plain));
}

static void make_dirs_under_a_file_fails(void **state)
{
    struct scratch *f = *state;
    const char *blocker = scratch_file(f, "plain_file"), *path = scratch_file(f, "plain_file/sub");
    write_text(blocker, "x");
    assert_int_equal(make_dirs(path), -1);
}

/* An existing regular file is not a directory that make_dirs may accept. */
static void make_dirs_on_a_file_fails(void **state)
{
    struct scratch *f = *state;
    const char *path = scratch_file(f, "regular");
    write_text(path, "x");
    assert_int_equal(make_dirs(path), -1);
}

#define T(name) cmocka_unit_test_setup_teardown(name, scratch_setup, scratch_teardown)

UNIT_TESTS_MAIN(
    T(backup_missing_file_returns_one),
    T(backup_keeps_content_and_name),
    T(backup_stamp_format),
    T(backup_same_second_never_overwrites),
    T(backup_name_uses_local_time),
    T(backup_different_seconds_no_suffix),
    T(backup_large_file),
    T(backup_dir_not_creatable_fails),
    T(copy_replaces_destination),
    T(copy_creates_destination),
    T(copy_missing_source_keeps_destination),
    T(copy_into_missing_folder_fails),
    T(make_dirs_nested),
    T(make_dirs_existing_is_fine),
    T(make_dirs_trailing_slash),
    T(make_dirs_under_a_file_fails),
    T(make_dirs_on_a_file_fails))
