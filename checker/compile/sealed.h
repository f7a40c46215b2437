/* The sealed compile: the one way a lesson file (a student's code, untrusted) is compiled by nvcc.
 *
 *   build/tools/sealed-compile MODE SRC OUT [-- extra nvcc flags]
 *
 *   MODE ptx    nvcc -ptx -lineinfo -arch=sm_90 (an -arch among the extra flags replaces sm_90)
 *   MODE cubin  nvcc -cubin -lineinfo, the -arch=sm_XX given among the extra flags
 *
 * Exit status: 0 compiled (OUT written, warnings shown as SRC:LINE: ...); 1 SRC does not compile
 * (the errors shown as SRC:LINE: ...); 2 SRC was refused (not a regular file, too big, an
 * #include); 3 the compiler hit a limit (CPU time, memory, file size, wall clock), named in one
 * sentence; 4 the grader's side is wrong (no bwrap, no nvcc, bad arguments), said with what to do.
 *
 * Why: nvcc used to run on the student's file directly, inside the project tree, as the grader.
 * A lesson file could #include /etc/passwd or the reference solution, hang the grader with a
 * constexpr loop, eat all memory with a macro explosion, write a 1 GiB __constant__ table, or be
 * a symlink to the solution. Here the file is copied (never followed), compiled in a bubblewrap
 * box that sees only the toolkit and /usr, as an unprivileged user with no capabilities, under
 * rlimits that bind every process nvcc starts; and the preprocessor's own account of the files
 * it read (the line markers of the device pass, which made the PTX) refuses any #include.
 *
 * The result cache (WB_SEALED_CACHE; cache.c says what an entry holds and why a hit is safe)
 * answers a repeat without a box or a compiler: a hit is this one process, where the shell
 * script this program replaces started about 30 (awk, sed, stat, sha256sum, ...) and a compile 80.
 * A miss starts only the box's processes (bwrap and what runs in it) and the probes of the tools.
 *
 * Environment (all optional):
 *   NVCC                the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
 *   WB_SHOWN            the path SRC is named by in messages and line tables (default: SRC)
 *   WB_SEALED_CACHE     a folder (e.g. build/sealed-cache) for the result cache and the
 *                       dependency list of an empty file, one per toolkit and flag set; unset or
 *                       empty: every call compiles, and computes that list (+0.45 s)
 *   WB_SEALED_CPU_S     CPU seconds per compiler process (60)
 *   WB_SEALED_MEM_MB    address space per process in MiB (4096)
 *   WB_SEALED_FSIZE_MB  largest file the compiler may write, in MiB (16)
 *   WB_SEALED_WALL_S    wall-clock backstop for the whole compile (600)
 *   WB_SEALED_NPROC     processes and threads inside the box (256)
 *   WB_UNSEALED_OK=1    where bubblewrap is missing or not permitted: compile with the same
 *                       limits but without the box (says so in one line)
 *   WB_SEALED_DEBUG_CMD for the test only: run this shell command in the box instead of nvcc
 *   WB_SEALED_TRACE     for the test only: a file to which each call that reaches the result
 *                       cache adds "hit", "compiled" or "assembled" (what happened, not how long)
 */
#ifndef WB_SEALED_H
#define WB_SEALED_H
#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

#define SRC_MAX (1024 * 1024) /* a lesson file is a few KB; 1 MiB is far beyond any honest one */
#define SHOWN_MAX 65536       /* compiler output shown, at most */
#define BOX_UID 65534         /* nobody: who the compiler is, inside the box and (as root) outside */

enum { EXIT_COMPILED, EXIT_COMPILE_ERROR, EXIT_REFUSED, EXIT_LIMIT, EXIT_GRADER };

/* A growable byte string, always NUL-terminated after its n bytes. */
struct buf {
    char *p;
    size_t n, cap;
};
/* A growable NULL-terminated argument vector. */
struct argv {
    char **v;
    int n, cap;
};

struct limits {
    unsigned long long cpu_s, mem_mb, fsize_mb, wall_s, nproc;
};

/* One call: its arguments, the copy of SRC, the box and the cache's parts. */
struct sealed {
    /* arguments (args.c) */
    int cubin; /* MODE cubin, else ptx */
    const char *mode, *src, *out;
    struct argv flags; /* nvcc's flags: -lineinfo, -arch, the extra ones */
    char *as;          /* WB_SHOWN, else SRC */
    char *shown;       /* as, control characters made '?': messages name SRC so */
    char *abs_src;     /* SRC's path in the line tables */
    char *in_src;      /* the copy, as the compiler names it (/box/kernel.cu) */
    struct limits lim;
    mode_t caller_umask;
    int exit_armed; /* from here on a failure removes a stale OUT */
    int drop;       /* we are root: the compiler runs as nobody outside the box too */
    /* the copy of SRC (source.c) */
    struct buf copy;
    char src_sum[65];
    /* the tools */
    char *nvcc, *nvcc_real, *toolkit, *cache_real;
    /* the temporary folder and the box (box.c), made on a miss only */
    char *tmp, *box, *box_path, *bwrap, *prlimit;
    struct argv box_args;
    int sealed, pre_drop; /* pre_drop: the box's processes are nobody's */
    long long start_ms, wall_left_ms;
    pid_t child; /* a running command's process group, for the exit path */
    int rc;      /* the last command's status, as a shell tells it */
    struct buf log;
    /* the result cache (cache.c) */
    const char *cache;
    int parts_for; /* which sealed state the key's parts are for; -1 none */
    struct buf stamp, ident, base_list, baseline_made;
    char *basefile, *idfile;
    int base_from_cache;
    char rkey[65];
    int hit_status;
    struct buf hit_log, hit_product;
};

/* main.c */
void sealed_exit(struct sealed *s, int status) __attribute__((noreturn));
void say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void trace(const char *what);

/* args.c */
void parse_limits(struct sealed *s);
void parse_args(struct sealed *s, int argc, char **argv);
void name_paths(struct sealed *s);

/* source.c */
void refuse(struct sealed *s, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void read_source(struct sealed *s);
void find_tools(struct sealed *s);
void make_temp(struct sealed *s);
void write_copy(struct sealed *s);

/* box.c */
void make_box(struct sealed *s);
void run_box(struct sealed *s, const char *dir, char *const cmd[]);

/* run.c: a command in a process group of its own, with its wall clock and our signals */
void signals_init(void);
void poll_signals(struct sealed *s);
struct child_spec {
    char *const *argv, *const *envp;
    const char *dir;
    const struct limits *lim; /* NULL: none */
    int drop;
    int log_fd; /* its stdout and stderr */
};
int run_command(struct sealed *s, const struct child_spec *c, long long wall_ms);
int run_capture(struct sealed *s, char *const argv[], struct buf *out);
int nobody_can_search(const char *dir);
long long now_ms(void);

/* cache.c */
int cache_setup(struct sealed *s, int early);
int cache_get(struct sealed *s, const char *stage);
void cache_put(struct sealed *s, const char *stage, int status, const struct buf *product);
void key_parts(struct sealed *s);

/* includes.c */
void baseline(struct sealed *s, int fresh);
void check_includes(struct sealed *s);
void refuse_missing_include(struct sealed *s);
long include_line(const struct buf *copy, const char *file);

/* log.c */
void show_log(struct sealed *s);
void limit_breach(struct sealed *s, const char *what);
int constant_stores(struct sealed *s);
int names_src(const struct sealed *s, const struct buf *log);

/* ptx.c */
int timer_reads(struct sealed *s, const struct buf *ptx);
void src_named(const struct sealed *s, const struct buf *ptx, struct buf *out);

/* text.c */
void buf_add(struct buf *b, const void *p, size_t n);
void buf_str(struct buf *b, const char *str);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_set(struct buf *b, const struct buf *from);
void buf_free(struct buf *b);
void argv_add(struct argv *a, const char *arg);
void argv_addf(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *xstrdup(const char *str);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int next_line(const struct buf *b, size_t *pos, const char **line, size_t *len);
int starts_with(const char *p, size_t n, const char *prefix);
const char *find_in(const char *p, size_t n, const char *what);
void trimmed(const struct buf *log, struct buf *out);
void write_all(int fd, const char *p, size_t n);
void sha256_buf(const struct buf *b, char hex[65]);

/* files.c */
int read_fd(int fd, size_t max, struct buf *out);
int read_plain(const char *path, size_t max, struct buf *out);
int write_shared(struct sealed *s, const char *path, const struct buf *body);
int mkdir_shared(struct sealed *s, const char *dir);
void remove_tree(const char *path);
void chown_tree(const char *path, uid_t uid, gid_t gid);
char *resolve_path(const char *path, int follow);
char *find_on_path(const char *name);
char *base_name(const char *path);
int outside_usr(const char *path);
char *dir_name(const char *path);

#endif
