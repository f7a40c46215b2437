#include "backup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir that accepts an existing directory, and only a directory. */
static int mkdir_or_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0777) == 0)
        return 0;
    return errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir_or_dir(buf) != 0)
            return -1;
        *p = '/';
    }
    return mkdir_or_dir(buf);
}

/* Copies all of in to out; returns 0 or -1. */
static int copy_fd(int in, int out)
{
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0)
                return -1;
            off += w;
        }
    return n < 0 ? -1 : 0;
}

int copy_file(const char *src, const char *dst)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%d", dst, (int)getpid()) >= (int)sizeof tmp)
        return -1;
    int in = open(src, O_RDONLY);
    if (in < 0)
        return -1;
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int rc = out < 0 ? -1 : copy_fd(in, out);
    close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, dst) != 0)
        rc = -1;
    if (rc != 0)
        unlink(tmp);
    return rc;
}

int backup_file(const char *file, const char *dir, time_t when, char *saved, size_t len)
{
    int in = open(file, O_RDONLY);
    if (in < 0)
        return errno == ENOENT ? 1 : -1;
    if (make_dirs(dir) != 0) {
        close(in);
        return -1;
    }
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    const char *ext = strrchr(base, '.');
    int stem = ext ? (int)(ext - base) : (int)strlen(base);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&when));

    int out = -1;
    for (int k = 1; k < 1000 && out < 0; k++) {
        char suffix[16] = "";
        if (k > 1)
            snprintf(suffix, sizeof suffix, "-%d", k);
        if (snprintf(saved, len, "%s/%.*s.%s%s%s", dir, stem, base, stamp, suffix, ext ? ext : "") >= (int)len)
            break;
        /* O_EXCL: an earlier backup is never overwritten. */
        out = open(saved, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (out < 0 && errno != EEXIST)
            break;
    }
    int rc = out < 0 ? -1 : copy_fd(in, out);
    close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    return rc;
}
