/* The intake (intake.h): a hand-in's lesson files read without following anything. A folder's
 * paths are first looked at one component at a time (fstatat, no link followed) to say exactly
 * what is wrong where, then opened beneath the hand-in with no link allowed (openat2, else
 * O_NOFOLLOW at each step) and read only if the open file is the one looked at. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

#include "intake.h"

struct handin {
    int dir;        /* a folder hand-in, or -1 */
    int archive;    /* an archive hand-in (its file), or -1 */
    char shown[512]; /* the hand-in as the messages name it */
};

/* ---- reads under a deadline ---- */

static volatile sig_atomic_t deadline_passed;
static void on_alarm(int sig)
{
    (void)sig;
    deadline_passed = 1;
}

/* Reads the whole of fd, at most max bytes and one more (to tell a file that grew), before the
 * deadline: a read that blocks (a file system that hangs) is interrupted by SIGALRM. Returns the
 * bytes read, or -1 (errno; ETIME for the deadline). */
static ssize_t read_all(int fd, char *buf, size_t max)
{
    struct sigaction sa = {.sa_handler = on_alarm}, old; /* no SA_RESTART: the read returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    deadline_passed = 0;
    unsigned left = alarm(INTAKE_DEADLINE_S);
    size_t n = 0;
    ssize_t got = 0;
    while (n <= max && !deadline_passed && (got = read(fd, buf + n, max + 1 - n)) != 0) {
        if (got < 0 && errno != EINTR)
            break;
        n += got > 0 ? (size_t)got : 0;
    }
    int timed_out = deadline_passed, saved = errno;
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    if (left)
        alarm(left);
    if (timed_out) {
        errno = ETIME;
        return -1;
    }
    if (got < 0) {
        errno = saved;
        return -1;
    }
    return (ssize_t)n;
}

/* ---- opening beneath a folder, no link followed ---- */

int intake_open_beneath(int dir, const char *path, int flags)
{
#ifdef HAVE_OPENAT2
    static int walk = -1; /* WB_INTAKE_WALK=1: the walk alone, as where the kernel has no openat2 (tests) */
    if (walk < 0)
        walk = getenv("WB_INTAKE_WALK") && *getenv("WB_INTAKE_WALK");
    struct open_how how = {.flags = (unsigned)(flags | O_NOFOLLOW | O_CLOEXEC),
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    int resolved = walk ? -1 : (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
    if (walk)
        errno = ENOSYS;
    if (resolved >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
        return resolved; /* (EPERM: a seccomp filter that does not know openat2: the walk below) */
#endif
    char copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    int at = dir;
    char *part = copy, *slash;
    while ((slash = strchr(part, '/')) != NULL) {
        *slash = '\0';
        int next = openat(at, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st; /* a link there says ENOTDIR (O_DIRECTORY): ELOOP, as openat2 says */
        if (next < 0 && errno == ENOTDIR && fstatat(at, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            errno = ELOOP;
        int saved = errno;
        if (at != dir)
            close(at);
        errno = saved;
        if (next < 0)
            return -1;
        at = next;
        part = slash + 1;
    }
    int fd = openat(at, part, flags | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    if (at != dir)
        close(at);
    errno = saved;
    return fd;
}

/* What a thing that is not a regular file is, for the sentence. */
static const char *kind_of(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFLNK: return "a symbolic link";
    case S_IFDIR: return "a folder";
    case S_IFIFO: return "a named pipe (FIFO)";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
    }
}

/* How a hand-in's path stands, looked at one component at a time without following anything:
 * INTAKE_ABSENT, INTAKE_REFUSED (why), or INTAKE_COPIED meaning "a regular file, *st". */
static enum intake_verdict look_at(int dir, const char *path, struct stat *st, char *why, size_t len)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    int at = dir;
    enum intake_verdict v = INTAKE_COPIED;
    char *part = copy, *slash;
    for (;;) {
        slash = strchr(part, '/');
        if (slash)
            *slash = '\0';
        if (fstatat(at, part, st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                v = INTAKE_ABSENT;
            else { /* (EACCES: the grading user may not read what the platform laid out) */
                snprintf(why, len, "the grader cannot look at %s (%s)", copy, strerror(errno));
                v = INTAKE_GRADER;
            }
            break;
        }
        int is_last = slash == NULL;
        if (S_ISLNK(st->st_mode) || (!is_last && !S_ISDIR(st->st_mode)) || (is_last && !S_ISREG(st->st_mode))) {
            snprintf(why, len, "%s is %s%s%s", copy, kind_of(st->st_mode),
                     S_ISLNK(st->st_mode) ? " (links are never followed: one could point at anything, a solution "
                                            "among them): hand in the "
                     : is_last ? ", not a file: hand in the lesson's .cu file itself"
                               : ", where a folder was expected",
                     !S_ISLNK(st->st_mode) ? "" : is_last ? "file itself" : "folder itself");
            v = INTAKE_REFUSED;
            break;
        }
        if (is_last)
            break;
        int next = openat(at, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), saved = errno;
        if (at != dir)
            close(at);
        at = next;
        if (at < 0 && (saved == EACCES || saved == EPERM)) {
            snprintf(why, len, "the grader cannot open the folder %s (%s)", copy, strerror(saved));
            return INTAKE_GRADER;
        }
        if (at < 0) {
            snprintf(why, len, "%s changed while it was being looked at: hand it in again", copy);
            return INTAKE_REFUSED;
        }
        *slash = '/';
        part = slash + 1;
    }
    if (at != dir)
        close(at);
    if (v == INTAKE_COPIED && st->st_nlink != 1) {
        /* A second name for someone else's file (a solution) is the link by other means. */
        snprintf(why, len, "%s has %lu names (a hard link): hand in a file of its own (cp it)", path,
                 (unsigned long)st->st_nlink);
        v = INTAKE_REFUSED;
    } else if (v == INTAKE_COPIED && st->st_size > INTAKE_FILE_MAX) {
        snprintf(why, len, "%s is %lld bytes, over the %d KiB a lesson file may have: hand in the lesson's kernel file",
                 path, (long long)st->st_size, INTAKE_FILE_MAX / 1024);
        v = INTAKE_REFUSED;
    }
    return v;
}

/* The regular file at path, as looked at (st), read into out. */
static void read_looked_at(int dir, const char *path, const struct stat *st, struct intake_file *out)
{
    int fd = intake_open_beneath(dir, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat now;
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        snprintf(out->why, sizeof out->why, "the grader cannot read %s (%s)", path, strerror(errno));
        out->verdict = INTAKE_GRADER;
        return;
    }
    if (fd < 0 || fstat(fd, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
        !S_ISREG(now.st_mode)) {
        snprintf(out->why, sizeof out->why, "%s changed while it was being read (or a link is on its way): hand it "
                 "in again", path);
        out->verdict = INTAKE_REFUSED;
        if (fd >= 0)
            close(fd);
        return;
    }
    char *buf = malloc(INTAKE_FILE_MAX + 2);
    if (!buf) {
        close(fd);
        out->verdict = INTAKE_GRADER;
        snprintf(out->why, sizeof out->why, "the intake ran out of memory reading %s", path);
        return;
    }
    ssize_t n = read_all(fd, buf, INTAKE_FILE_MAX);
    int saved = errno;
    close(fd);
    if (n < 0 || n != (ssize_t)now.st_size) {
        free(buf);
        out->verdict = INTAKE_REFUSED;
        if (n < 0 && saved == ETIME)
            snprintf(out->why, sizeof out->why, "%s could not be read within %d s (a file system that hangs?)", path,
                     INTAKE_DEADLINE_S);
        else if (n < 0)
            snprintf(out->why, sizeof out->why, "%s could not be read (%s)", path, strerror(saved));
        else
            snprintf(out->why, sizeof out->why, "%s changed while it was being read: hand it in again", path);
        return;
    }
    buf[n] = '\0';
    out->bytes = buf;
    out->size = (size_t)n;
    out->verdict = INTAKE_COPIED;
}

/* A stage the intake wrote (folder/.intake) keeps a refusal as its sentence: reading the stage
 * again (make grade of grade-all's copy) refuses the lesson with the same words. */
static int stage_refusal(int dir, const char *folder, char *why, size_t len)
{
    char path[600], text[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/.intake", folder);
    if (look_at(dir, path, &st, why, len) != INTAKE_COPIED || st.st_size >= (off_t)sizeof text)
        return 0;
    int fd = intake_open_beneath(dir, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    ssize_t n = fd >= 0 ? read_all(fd, text, sizeof text - 2) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 8 || strncmp(text, "refused ", 8) != 0)
        return 0;
    text[n] = '\0';
    text[strcspn(text, "\n")] = '\0';
    snprintf(why, len, "%.700s", text + 8);
    return 1;
}

/* Lesson folder's file from a folder hand-in: folder/file, or file (flat). */
static void take_from_folder(struct handin *h, const char *folder, const char *file, struct intake_file *out)
{
    char paths[2][256], whys[2][768];
    struct stat sts[2];
    enum intake_verdict vs[2];
    snprintf(paths[0], sizeof paths[0], "%s/%s", folder, file);
    snprintf(paths[1], sizeof paths[1], "%s", file);
    for (int i = 0; i < 2; i++)
        vs[i] = look_at(h->dir, paths[i], &sts[i], whys[i], sizeof whys[i]);
    for (int i = 0; i < 2; i++)
        if (vs[i] == INTAKE_GRADER) { /* not the student's to answer for */
            out->verdict = INTAKE_GRADER;
            snprintf(out->why, sizeof out->why, "%.700s", whys[i]);
            return;
        }
    if (vs[0] != INTAKE_ABSENT && vs[1] != INTAKE_ABSENT) {
        out->verdict = INTAKE_REFUSED;
        snprintf(out->why, sizeof out->why, "the hand-in has both %s and %s: which one is the lesson's? Hand in one",
                 paths[0], paths[1]);
        return;
    }
    int i = vs[0] != INTAKE_ABSENT ? 0 : 1;
    snprintf(out->where, sizeof out->where, "%s", paths[i]);
    out->verdict = vs[i];
    if (vs[i] == INTAKE_REFUSED)
        snprintf(out->why, sizeof out->why, "%s", whys[i]);
    else if (vs[i] == INTAKE_COPIED)
        read_looked_at(h->dir, paths[i], &sts[i], out);
    else if (stage_refusal(h->dir, folder, out->why, sizeof out->why))
        out->verdict = INTAKE_REFUSED;
}

/* ---- the hand-in ---- */

/* A sentence made safe to show: names inside an archive, or a stage's line, are the student's,
 * and a control character in them could forge a line of the report or move the terminal. */
static void printable(char *text)
{
    for (unsigned char *c = (unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            *c = '?';
}

static struct handin *open_handin(const char *root, const char *name, int *refused, char *why, size_t len)
{
    *refused = 0;
    struct handin *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(why, len, "the intake ran out of memory");
        return NULL;
    }
    h->dir = h->archive = -1;
    snprintf(h->shown, sizeof h->shown, "%s%s%s", root, name ? "/" : "", name ? name : "");
    int top = open(root, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (top < 0 || fstat(top, &st) != 0) {
        snprintf(why, len, "%s cannot be opened (%s)", root, strerror(errno)); /* the grader's path */
        if (top >= 0)
            close(top);
        free(h);
        return NULL;
    }
    if (name) { /* one name inside the grader's folder: the student's, never followed */
        char whole[768];
        if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
            snprintf(why, len, "'%s' is not one name inside %s", name, root);
            close(top);
            free(h);
            return NULL;
        }
        enum intake_verdict v = look_at(top, name, &st, whole, sizeof whole);
        int is_dir = fstatat(top, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        if (v == INTAKE_REFUSED && is_dir)
            v = INTAKE_COPIED; /* a folder: fine as the hand-in (look_at wanted a file) */
        if (v == INTAKE_GRADER) {
            snprintf(why, len, "%s", whole);
            close(top);
            free(h);
            return NULL;
        }
        if (v != INTAKE_COPIED) {
            *refused = 1;
            if (v == INTAKE_ABSENT)
                snprintf(why, len, "%s/%s is gone", root, name);
            else
                snprintf(why, len, "In %s, %s is %s: a hand-in is a folder or an archive of its own (links are never "
                         "followed: one could point at anything, the solutions among them)", root, name,
                         kind_of(st.st_mode));
            close(top);
            free(h);
            return NULL;
        }
        int fd = intake_open_beneath(top, name, (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0) | O_RDONLY | O_NONBLOCK | O_NOCTTY);
        struct stat now;
        close(top);
        if (fd < 0 || fstat(fd, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
            *refused = 1;
            snprintf(why, len, "%s changed while it was being opened: hand it in again", name);
            if (fd >= 0)
                close(fd);
            free(h);
            return NULL;
        }
        top = fd;
    }
    if (S_ISDIR(st.st_mode)) {
        h->dir = top;
        return h;
    }
    if (!S_ISREG(st.st_mode)) {
        *refused = 1;
        snprintf(why, len, "%s is %s: a hand-in is a folder or an archive (.tar, .tar.gz, .zip)", h->shown,
                 kind_of(st.st_mode));
    } else if (st.st_size > INTAKE_ARCHIVE_MAX) {
        *refused = 1;
        snprintf(why, len, "%s is %lld bytes, over the %d MiB an archive of lesson files may have", h->shown,
                 (long long)st.st_size, INTAKE_ARCHIVE_MAX >> 20);
    } else if (!intake_reads_archives()) {
        snprintf(why, len, "%s is a file, to be read as an archive, but this workbook was built without libarchive: "
                 "install it (apt-get install libarchive-dev), run make clean, and grade again; or unpack it and "
                 "grade the folder", h->shown);
    } else {
        h->archive = top;
        return h;
    }
    close(top);
    free(h);
    return NULL;
}

struct handin *handin_open(const char *root, const char *name, int *refused, char *why, size_t len)
{
    struct handin *h = open_handin(root, name, refused, why, len);
    if (!h) /* (a student's folder name in grade-all is the student's) */
        printable(why);
    return h;
}

void handin_take(struct handin *h, const char *folder, const char *file, struct intake_file *out)
{
    memset(out, 0, sizeof *out);
    if (h->dir >= 0)
        take_from_folder(h, folder, file, out);
    else
        intake_archive_take(h->archive, h->shown, folder, file, out);
    if (out->verdict == INTAKE_COPIED) { /* the file as the messages will name it */
        char inside[sizeof out->where];
        snprintf(inside, sizeof inside, "%s", out->where);
        snprintf(out->where, sizeof out->where, "%.250s%s%.250s", h->shown, h->dir >= 0 ? "/" : ":", inside);
    }
    if (out->verdict == INTAKE_REFUSED && h->dir >= 0) { /* said as where it stands in the hand-in */
        char said[sizeof out->why];
        snprintf(said, sizeof said, "In %.200s, %.500s.", h->shown, out->why);
        snprintf(out->why, sizeof out->why, "%s", said);
    }
    printable(out->why);
}

void intake_file_free(struct intake_file *f)
{
    free(f->bytes);
    f->bytes = NULL;
}

void handin_close(struct handin *h)
{
    if (!h)
        return;
    if (h->dir >= 0)
        close(h->dir);
    if (h->archive >= 0)
        close(h->archive);
    free(h);
}
