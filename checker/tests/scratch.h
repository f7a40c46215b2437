/* A scratch folder for tests that touch files: a fresh mkdtemp folder per test, removed with
 * everything in it afterwards, and small helpers to write and inspect files there. Include
 * after <cmocka.h>. */
#ifndef WB_TEST_SCRATCH_H
#define WB_TEST_SCRATCH_H
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct scratch {
    char dir[64];
    char path[128]; /* <dir>/state: a file name some tests use */
};

/* <dir>/name: a path in the scratch folder, good until eight more have been asked for. */
static inline const char *scratch_file(const struct scratch *f, const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", f->dir, name);
    return p;
}

static inline int scratch_setup(void **state)
{
    struct scratch *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/wb_test_XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/state", f->dir);
    *state = f;
    return 0;
}

static inline int scratch_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline int scratch_teardown(void **state)
{
    struct scratch *f = *state;
    nftw(f->dir, scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static inline void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static inline int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Entries in a folder, "." and ".." not counted. */
static inline int entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

#endif
