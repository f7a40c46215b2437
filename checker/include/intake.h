/* The intake: the one door through which a hand-in is read. Every judge and every course path
 * (make check and grade, grade-all, Slurm, Gradescope) copies a hand-in's lesson files through it
 * into a staging folder of the grader's, and everything after it (the lint, the sealed compile)
 * reads that copy. Nothing is followed: no symbolic link at any step of a path (openat2's
 * RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH where the kernel has it, O_NOFOLLOW one component at a
 * time otherwise), regular files of one name only, sizes checked before a byte is read, reads
 * under a deadline. A hand-in is a folder (laid out like work/, or flat: the kernel files side by
 * side, as Gradescope uploads them) or a tar or zip archive, read in memory without unpacking
 * anything to disk (libarchive, where the build has it); an archive with a link, an absolute
 * path, a `..`, a device, or more entries or bytes than a hand-in has, is refused whole. */
#ifndef WB_INTAKE_H
#define WB_INTAKE_H
#include <stddef.h>

#define INTAKE_FILE_MAX (1024 * 1024)          /* a lesson file: the sealed compile's limit too */
#define INTAKE_ARCHIVE_MAX (16 * 1024 * 1024)  /* an archive as handed in */
#define INTAKE_UNPACKED_MAX (64 * 1024 * 1024) /* what its entries may hold, unpacked, in all */
#define INTAKE_ENTRIES_MAX 4096
#define INTAKE_DEADLINE_S 10 /* for the reads of one lesson's file (a file system that hangs) */

enum intake_verdict {
    INTAKE_COPIED,  /* bytes holds the file */
    INTAKE_ABSENT,  /* the hand-in has no file for the lesson */
    INTAKE_REFUSED, /* the student's: why says what and where */
    INTAKE_GRADER,  /* the grader's side (out of memory, no libarchive): why says what to do */
};

struct intake_file {
    enum intake_verdict verdict;
    char *bytes; /* INTAKE_COPIED: the file (malloc'd, NUL-terminated), size bytes */
    size_t size;
    char where[512]; /* INTAKE_COPIED: the file as messages name it (HANDIN/path, ARCHIVE:path) */
    char why[768];   /* INTAKE_REFUSED, INTAKE_GRADER: one sentence */
};

struct handin;

/* Opens a hand-in: root is the grader's path (followed as given: the grader chose it), a folder
 * or an archive; name, if not NULL, one name inside root that is the hand-in (grade-all's
 * student), never followed if it is a link. Returns the hand-in, or NULL with a sentence in why;
 * *refused says whether that is the student's (a link, a FIFO, a bad archive) or the grader's. */
struct handin *handin_open(const char *root, const char *name, int *refused, char *why, size_t len);
/* Lesson `folder`'s file `file` (e.g. 03_bank_conflicts, transpose_shared.cu): looked for as
 * folder/file, then file alone (flat), in an archive also under one top folder. Two of them at
 * once is refused (which one was meant?). */
void handin_take(struct handin *h, const char *folder, const char *file, struct intake_file *out);
void intake_file_free(struct intake_file *f);
void handin_close(struct handin *h);
/* path (relative, components without . or ..) opened beneath the folder dir with flags, no
 * symbolic link at any step: openat2's RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH where the kernel
 * has it, else one component at a time with O_NOFOLLOW (always, with WB_INTAKE_WALK=1). The fd,
 * or -1 (errno: ELOOP for a link). */
int intake_open_beneath(int dir, const char *path, int flags);
/* Whether this build reads archives (libarchive). */
int intake_reads_archives(void);

/* An archive's lesson file (archive.c, for handin.c): the archive is read from fd's start,
 * shown names it. */
void intake_archive_take(int fd, const char *shown, const char *folder, const char *file, struct intake_file *out);

/* The sha256 of n bytes, as 64 hex digits and a NUL. */
void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
