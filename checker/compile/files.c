/* Files and paths: reading what the box wrote without following a link, writing what others
 * share whole (a temp file and a rename), folders removed and handed over, paths resolved. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed.h"

/* The regular file open on fd, read whole, at most max bytes (else false). */
int read_fd(int fd, size_t max, struct buf *out)
{
    struct stat st;
    out->n = 0;
    buf_add(out, NULL, 0);
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size <= max;
    char chunk[65536];
    while (ok) {
        ssize_t k = read(fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            ok = k == 0;
            break;
        }
        buf_add(out, chunk, (size_t)k);
        ok = out->n <= max;
    }
    return ok;
}

/* A regular file read whole, at most max bytes (else false), never through a link: what the box
 * wrote is read so, since a link left there would make us read (we may be root) whatever it
 * points to. O_NONBLOCK: a fifo put there cannot hang the grader. The box's processes are all
 * gone by then (its pid namespace died with its pid 1), so nothing can change it after the open. */
int read_plain(const char *path, size_t max, struct buf *out)
{
    out->n = 0;
    buf_add(out, NULL, 0);
    int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    if (fd < 0)
        return 0;
    int ok = read_fd(fd, max, out);
    close(fd);
    return ok;
}

/* dir and its parents, as the caller's umask makes folders (the cache is shared like any build
 * output). */
int mkdir_shared(struct sealed *s, const char *dir)
{
    char *path = xstrdup(dir);
    int ok = 1;
    umask(s->caller_umask);
    for (char *p = path + 1; ok; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char end = *p;
        *p = '\0';
        ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *p = end;
        if (end == '\0')
            break;
    }
    umask(077);
    free(path);
    struct stat st;
    return ok && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* path, made whole with the caller's umask: the temp file in the same folder makes the rename
 * one step, and a reader sees no file or a whole one. False (and nothing left) on any failure. */
int write_shared(struct sealed *s, const char *path, const struct buf *body)
{
    char *tmp = xprintf("%s.tmp.%ld", path, (long)getpid());
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0 && fchmod(fd, 0666 & ~s->caller_umask) == 0;
    for (size_t done = 0; ok && done < body->n;) {
        ssize_t k = write(fd, body->p + done, body->n - done);
        if (k < 0 && errno == EINTR)
            continue;
        ok = k > 0;
        done += ok ? (size_t)k : 0;
    }
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    ok = ok && rename(tmp, path) == 0;
    if (!ok && fd >= 0)
        unlink(tmp);
    free(tmp);
    return ok;
}

/* Everything in the folder fd, then the folder: no link followed (unlinkat removes the link). */
static void empty_folder(int fd)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    fchmod(fd, 0700); /* a folder the box made unwritable must still go */
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (unlinkat(fd, e->d_name, 0) == 0)
            continue;
        int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            empty_folder(sub);
        unlinkat(fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

void remove_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        empty_folder(fd);
    if (rmdir(path) != 0)
        unlink(path);
}

static void chown_in(int fd, uid_t uid, gid_t gid)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        fchownat(fd, e->d_name, uid, gid, AT_SYMLINK_NOFOLLOW);
        int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            chown_in(sub, uid, gid);
    }
    closedir(d);
}

/* chown -R, no link followed. */
void chown_tree(const char *path, uid_t uid, gid_t gid)
{
    if (lchown(path, uid, gid) != 0)
        return;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        chown_in(fd, uid, gid);
}

/* The components of path pushed in front of the pending ones (kept in reverse). */
static void push_components(struct argv *pending, const char *path)
{
    char *copy = xstrdup(path);
    struct argv parts = {0};
    for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
        argv_add(&parts, c);
    for (int i = parts.n - 1; i >= 0; i--) {
        argv_add(pending, parts.v[i]);
        free(parts.v[i]);
    }
    free(parts.v);
    free(copy);
}

/* path made absolute (from the physical working folder) and plain: . and .. taken out, and with
 * follow every link resolved (realpath -m: a part that does not exist is kept as it is); without,
 * no link is (realpath -m -s). NULL for a loop of links or a working folder we cannot name. */
char *resolve_path(const char *path, int follow)
{
    char cwd[PATH_MAX];
    struct argv pending = {0};
    struct buf at = {0};
    int links = 0;
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        return NULL;
    push_components(&pending, path);
    if (path[0] != '/')
        push_components(&pending, cwd);
    buf_add(&at, NULL, 0);
    while (pending.n > 0) {
        char *c = pending.v[--pending.n];
        size_t before = at.n;
        if (!strcmp(c, "..")) {
            while (at.n > 0 && at.p[--at.n] != '/')
                ;
            at.p[at.n] = '\0';
        } else if (strcmp(c, ".") != 0) {
            buf_printf(&at, "/%s", c);
            char target[PATH_MAX];
            ssize_t k = follow ? readlink(at.p, target, sizeof target - 1) : -1;
            if (k >= 0) {
                target[k] = '\0';
                at.n = target[0] == '/' ? 0 : before;
                at.p[at.n] = '\0';
                push_components(&pending, target);
                if (++links > 40) {
                    free(c);
                    while (pending.n > 0)
                        free(pending.v[--pending.n]);
                    free(pending.v);
                    buf_free(&at);
                    return NULL;
                }
            }
        }
        free(c);
    }
    free(pending.v);
    if (at.n == 0)
        buf_str(&at, "/");
    return at.p;
}

/* name as the shell's `command -v` finds it on PATH: an executable regular file; NULL if none. */
char *find_on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *full = len ? xprintf("%.*s/%s", (int)len, p, name) : xprintf("%s", name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
            return full;
        free(full);
        if (!end)
            return NULL;
        p = end;
    }
}

/* basename(1): the last component, trailing slashes aside ("/" for "/"). */
char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    if (n == 1 && path[0] == '/')
        start = 0;
    return xprintf("%.*s", (int)(n - start), path + start);
}

/* dirname(1). */
char *dir_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n > 0 && path[n - 1] != '/')
        n--;
    while (n > 1 && path[n - 1] == '/')
        n--;
    return n == 0 ? xstrdup(".") : xprintf("%.*s", (int)n, path);
}

/* Whether path lies outside what the box binds from the host (/usr, /bin, /sbin, /lib*). */
int outside_usr(const char *path)
{
    static const char *const bound[] = {"/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"};
    char *with_slash = xprintf("%s/", path);
    int outside = 1;
    for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++)
        if (!strncmp(with_slash, bound[i], strlen(bound[i])))
            outside = 0;
    free(with_slash);
    return outside;
}
