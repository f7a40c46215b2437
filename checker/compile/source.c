/* Step 1: SRC, a regular file of its own, read without following a link, into memory; the tools;
 * and, for a miss, the private folder the copy is compiled in. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed.h"

/* "SRC <why>" on stdout, exit 2: the student's to fix. */
void refuse(struct sealed *s, const char *fmt, ...)
{
    struct buf why = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&why, fmt, ap);
    va_end(ap);
    say(1, "%s %s", s->shown, why.p);
    sealed_exit(s, EXIT_REFUSED);
}

/* What SRC is, when it is no regular file of its own. */
static void refuse_kind(struct sealed *s, const struct stat *st)
{
    if (S_ISLNK(st->st_mode)) {
        char target[4096];
        ssize_t k = readlink(s->src, target, sizeof target - 1);
        struct buf shown = {0};
        buf_add(&shown, NULL, 0);
        for (ssize_t i = 0; i < k; i++)
            if ((unsigned char)target[i] >= 040)
                buf_add(&shown, target + i, 1);
        refuse(s, "is a symbolic link (to %s): hand in the file itself", shown.p);
    }
    if (S_ISDIR(st->st_mode))
        refuse(s, "is a folder: hand in the lesson's .cu file");
    if (S_ISFIFO(st->st_mode))
        refuse(s, "is a named pipe (fifo), not a file: hand in the file itself");
    if (S_ISBLK(st->st_mode) || S_ISCHR(st->st_mode))
        refuse(s, "is a device, not a file: hand in the file itself");
    if (S_ISSOCK(st->st_mode))
        refuse(s, "is a socket, not a file: hand in the file itself");
    if (!S_ISREG(st->st_mode))
        refuse(s, "is not a regular file: hand in the file itself");
}

void read_source(struct sealed *s)
{
    struct stat before, opened, after;
    if (lstat(s->src, &before) != 0)
        refuse(s, "does not exist: there is nothing to compile");
    refuse_kind(s, &before);
    /* A second name for someone else's file (the solution) is the symlink attack by other means. */
    if (before.st_nlink != 1)
        refuse(s, "has %lu names (a hard link): hand in a file of its own (cp it)", (unsigned long)before.st_nlink);
    if (before.st_size > SRC_MAX)
        refuse(s, "is %lld bytes, over the 1 MiB limit for a lesson file: hand in the lesson's kernel file",
               (long long)before.st_size);
    /* O_NOFOLLOW: a link put in place after the checks above makes the open fail instead of
     * reading the link's target; O_NONBLOCK: a fifo put there cannot hang the grader. One byte
     * past the limit tells a file that grew. */
    int fd = open(s->src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int ok = fd >= 0 && fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode);
    char chunk[65536];
    while (ok && s->copy.n <= SRC_MAX) {
        size_t want = SRC_MAX + 1 - s->copy.n;
        ssize_t k = read(fd, chunk, want < sizeof chunk ? want : sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            ok = k == 0;
            break;
        }
        buf_add(&s->copy, chunk, (size_t)k);
    }
    if (fd >= 0)
        close(fd);
    if (!ok)
        refuse(s, "could not be read (it changed while it was being read?): compile it again");
    buf_add(&s->copy, NULL, 0);
    if (lstat(s->src, &after) != 0 || !S_ISREG(after.st_mode) || after.st_dev != before.st_dev ||
        after.st_ino != before.st_ino || opened.st_dev != before.st_dev || opened.st_ino != before.st_ino)
        refuse(s, "was replaced while it was being read: compile it again");
    if (s->copy.n > SRC_MAX)
        refuse(s, "grew over the 1 MiB limit for a lesson file while it was being read");
    if ((long long)s->copy.n != (long long)after.st_size)
        refuse(s, "changed while it was being read: compile it again");
    sha256_buf(&s->copy, s->src_sum);
}

/* nvcc (NVCC, else on PATH, else the usual place), resolved; the cache's folder as it really
 * lies. */
void find_tools(struct sealed *s)
{
    const char *given = getenv("NVCC");
    if (given && *given)
        s->nvcc = given[0] == '/' ? xstrdup(given) : find_on_path(given);
    else if (!(s->nvcc = find_on_path("nvcc")))
        s->nvcc = xstrdup("/usr/local/cuda/bin/nvcc");
    if (!s->nvcc || access(s->nvcc, X_OK) != 0) {
        say(2, "sealed-compile: no nvcc at '%s': install the CUDA toolkit or set NVCC", s->nvcc ? s->nvcc : given);
        sealed_exit(s, EXIT_GRADER);
    }
    const char *cache = getenv("WB_SEALED_CACHE");
    s->nvcc_real = resolve_path(s->nvcc, 1);
    s->cache_real = resolve_path(cache && *cache ? cache : ".", 1);
    if (!s->nvcc_real || !s->cache_real) {
        say(2, "sealed-compile: cannot resolve '%s'", s->nvcc);
        sealed_exit(s, EXIT_GRADER);
    }
    /* every component resolved: bin's parent is the toolkit's real path */
    char *bin = dir_name(s->nvcc_real);
    s->toolkit = dir_name(bin);
    free(bin);
}

/* The temporary folder, which nobody must be able to reach when we drop to it: else in /tmp. */
void make_temp(struct sealed *s)
{
    const char *env = getenv("TMPDIR");
    const char *dirs[] = {env && *env ? env : "/tmp", "/tmp"};
    for (int i = 0; i < 3; i++) {
        const char *dir = dirs[i < 2 ? i : 0];
        char *t = xprintf("%s/wb-sealed.XXXXXX", dir);
        if (!mkdtemp(t)) {
            free(t);
            say(2, "sealed-compile: cannot make a temporary folder in %s", dir);
            sealed_exit(s, EXIT_GRADER);
        }
        s->tmp = t;
        chmod(t, 0711);
        if (i == 2 || !s->drop || nobody_can_search(t))
            break;
        remove_tree(t);
        s->tmp = NULL;
        free(t);
    }
    s->box = xprintf("%s/box", s->tmp);
    char *keep = xprintf("%s/keep", s->box); /* keep: nvcc's preprocessed device pass (includes.c) */
    if (mkdir(s->box, 0700) != 0 || mkdir(keep, 0700) != 0) {
        say(2, "sealed-compile: cannot make a temporary folder in %s", s->tmp);
        sealed_exit(s, EXIT_GRADER);
    }
    free(keep);
}

/* The copy in the box, read-only (the box's own user cannot change or replace it). */
void write_copy(struct sealed *s)
{
    char *copy = xprintf("%s/kernel.cu", s->box);
    int fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0;
    for (size_t done = 0; ok && done < s->copy.n;) {
        ssize_t k = write(fd, s->copy.p + done, s->copy.n - done);
        ok = k > 0 || (k < 0 && errno == EINTR);
        done += k > 0 ? (size_t)k : 0;
    }
    ok = ok && fchmod(fd, 0444) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (!ok)
        refuse(s, "could not be copied as a regular file");
    free(copy);
}
