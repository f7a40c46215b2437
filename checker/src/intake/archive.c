/* The intake's archives (intake.h): a tar (plain, gzip, bzip2, xz) or zip hand-in, read in memory
 * with libarchive; nothing is unpacked to disk. Every entry is looked at, and the whole archive is
 * refused for any link, absolute path, `..`, device or FIFO, or for more entries or bytes than a
 * hand-in of lesson files could have (a bomb): what could harm an unpacker harms none here, but
 * an archive that holds such things was not made by zipping a work folder. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "intake.h"

#ifdef WB_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>

int intake_reads_archives(void)
{
    return 1;
}

/* Whether path names lesson folder's file: folder/file or file, alone or under one top folder. */
static int names_lesson(const char *path, const char *folder, const char *file)
{
    char want[600];
    snprintf(want, sizeof want, "%s/%s", folder, file);
    const char *slash = strchr(path, '/');
    if (!strcmp(path, want) || !strcmp(path, file))
        return 1;
    return slash && (!strcmp(slash + 1, want) || !strcmp(slash + 1, file));
}

/* Why an entry's path or kind is refused, or NULL. */
static const char *entry_problem(struct archive_entry *e, const char *path)
{
    if (!path || !*path)
        return "has an entry without a name";
    if (path[0] == '/')
        return "has an absolute path";
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return "has a path with `..`, which would leave the folder it is unpacked in";
    if (archive_entry_hardlink(e))
        return "has a hard link";
    switch (archive_entry_filetype(e)) {
    case AE_IFREG:
    case AE_IFDIR:
        return NULL;
    case AE_IFLNK:
        return "has a symbolic link (links are never followed: one could point at anything, a solution among them)";
    default:
        return "has a device, FIFO or socket";
    }
}

static void refuse(struct intake_file *out, const char *shown, const char *fmt, const char *a, const char *b)
{
    char what[600];
    snprintf(what, sizeof what, fmt, a, b);
    out->verdict = INTAKE_REFUSED;
    snprintf(out->why, sizeof out->why, "The archive %s %s: hand in an archive of the lesson files alone, or the "
             "files themselves.", shown, what);
}

void intake_archive_take(int fd, const char *shown, const char *folder, const char *file, struct intake_file *out)
{
    struct archive *a = archive_read_new();
    if (!a || lseek(fd, 0, SEEK_SET) != 0) {
        out->verdict = INTAKE_GRADER;
        snprintf(out->why, sizeof out->why, "the intake could not start reading %s", shown);
        if (a)
            archive_read_free(a);
        return;
    }
    /* The filters built into libarchive only: "all" would run external programs for some. */
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    out->verdict = INTAKE_ABSENT;
    char *buf = NULL;
    long long declared = 0;
    int entries = 0, found = 0;
    time_t start = time(NULL);
    struct archive_entry *e;
    int rc;
    if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        refuse(out, shown, "is not an archive the intake reads (tar, tar.gz, tar.bz2, tar.xz, zip: %s)%s",
               archive_error_string(a) ? archive_error_string(a) : "unknown", "");
        goto done;
    }
    while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
        const char *path = archive_entry_pathname(e), *bad = entry_problem(e, path);
        while (path && path[0] == '.' && path[1] == '/')
            path += 2;
        if (bad) {
            refuse(out, shown, "%s (%s)", bad, path ? path : "");
            goto done;
        }
        declared += archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        if (++entries > INTAKE_ENTRIES_MAX || declared > INTAKE_UNPACKED_MAX ||
            archive_filter_bytes(a, 0) > INTAKE_UNPACKED_MAX) {
            refuse(out, shown, "holds more than %s entries or %s MiB unpacked (an archive bomb?)", "4096", "64");
            goto done;
        }
        if (time(NULL) - start > INTAKE_DEADLINE_S) {
            refuse(out, shown, "could not be read within %s s%s", "10", "");
            goto done;
        }
        if (archive_entry_filetype(e) != AE_IFREG || !names_lesson(path, folder, file))
            continue;
        if (found++) {
            refuse(out, shown, "has two files that could be the lesson's (%s, and %s): which one is it?", out->where,
                   path);
            goto done;
        }
        snprintf(out->where, sizeof out->where, "%s", path);
        if (archive_entry_size(e) > INTAKE_FILE_MAX) {
            refuse(out, shown, "has %s over the 1024 KiB a lesson file may have%s", path, "");
            goto done;
        }
        free(buf);
        if (!(buf = malloc(INTAKE_FILE_MAX + 2))) {
            out->verdict = INTAKE_GRADER;
            snprintf(out->why, sizeof out->why, "the intake ran out of memory reading %s", shown);
            goto done;
        }
        size_t n = 0;
        la_ssize_t got;
        while (n <= INTAKE_FILE_MAX && (got = archive_read_data(a, buf + n, INTAKE_FILE_MAX + 1 - n)) > 0)
            n += (size_t)got;
        if (n > INTAKE_FILE_MAX || (archive_entry_size_is_set(e) && (la_int64_t)n != archive_entry_size(e))) {
            refuse(out, shown, "has %s, which could not be read whole (%s)", path,
                   n > INTAKE_FILE_MAX ? "over 1024 KiB" : "damaged?");
            goto done;
        }
        buf[n] = '\0';
        out->size = n;
        out->verdict = INTAKE_COPIED;
    }
    if (rc != ARCHIVE_EOF)
        refuse(out, shown, "could not be read to its end (%s)%s",
               archive_error_string(a) ? archive_error_string(a) : "damaged?", "");
done:
    if (out->verdict == INTAKE_COPIED)
        out->bytes = buf;
    else
        free(buf);
    archive_read_free(a);
}

#else

int intake_reads_archives(void)
{
    return 0;
}

void intake_archive_take(int fd, const char *shown, const char *folder, const char *file, struct intake_file *out)
{
    (void)fd, (void)folder, (void)file;
    out->verdict = INTAKE_GRADER;
    snprintf(out->why, sizeof out->why, "%s is an archive, and this workbook was built without libarchive", shown);
}

#endif
