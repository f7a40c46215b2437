/* The sealed compile's course (sealed.h says what it is for): SRC checked and copied, the result
 * cache asked, else the box made and nvcc run in it, the product delivered. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed.h"

static struct sealed *current; /* for the exit paths that have no call at hand (out of memory) */

/* The exit path of every call: what runs in the box stopped, the temporary folder removed, and
 * on a failure no stale product of an earlier version of SRC left to outlive it. */
void sealed_exit(struct sealed *s, int status)
{
    if (!s)
        s = current;
    if (s && s->child > 0) {
        kill(-s->child, SIGKILL);
        s->child = 0;
    }
    if (s && s->tmp)
        remove_tree(s->tmp);
    if (s && s->exit_armed && status != 0) {
        char *tmp = xprintf("%s.tmp", s->out);
        unlink(s->out), unlink(tmp);
    }
    _exit(status);
}

/* One line on fd (1: the report, 2: the grader's problems), written at once. */
void say(int fd, const char *fmt, ...)
{
    struct buf line = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&line, fmt, ap);
    va_end(ap);
    buf_add(&line, "\n", 1);
    write_all(fd, line.p, line.n);
    buf_free(&line);
}

/* For the test: what this call did, where timing could only guess it. */
void trace(const char *what)
{
    const char *file = getenv("WB_SEALED_TRACE");
    if (!file || !*file)
        return;
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char *line = xprintf("%s\n", what);
    write_all(fd, line, strlen(line));
    free(line);
    close(fd);
}

/* OUT from product, made as the caller's umask makes files (named: a PTX of the box's, its .file
 * made to name SRC); then exit 0. */
static void deliver(struct sealed *s, const struct buf *product, int named)
{
    struct buf text = {0};
    char *tmp = xprintf("%s.tmp", s->out);
    poll_signals(s);
    if (named)
        src_named(s, product, &text);
    else
        buf_set(&text, product);
    struct stat st;
    if (lstat(tmp, &st) == 0)
        unlink(tmp);
    umask(s->caller_umask);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    umask(077);
    int ok = fd >= 0;
    for (size_t done = 0; ok && done < text.n;) {
        ssize_t k = write(fd, text.p + done, text.n - done);
        ok = k > 0 || (k < 0 && errno == EINTR);
        done += k > 0 ? (size_t)k : 0;
    }
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (!ok || rename(tmp, s->out) != 0) {
        say(2, "sealed-compile: cannot write %s", s->out);
        sealed_exit(s, EXIT_GRADER);
    }
    sealed_exit(s, EXIT_COMPILED);
}

static void compile_error(struct sealed *s, const char *stage)
{
    show_log(s);
    cache_put(s, stage, 1, NULL);
    sealed_exit(s, EXIT_COMPILE_ERROR);
}

/* This call's stage from the cache (replayed, and exit); or for a cubin its PTX (true: then
 * only ptxas runs, in the box, on s->hit_product). */
static int try_hits(struct sealed *s)
{
    if (s->cubin && cache_get(s, "cubin")) {
        trace("hit");
        buf_set(&s->log, &s->hit_log);
        show_log(s);
        deliver(s, &s->hit_product, 0);
    }
    if (!cache_get(s, "ptx"))
        return 0;
    buf_set(&s->log, &s->hit_log);
    if (s->hit_status != 0 || !s->cubin) {
        trace("hit");
        show_log(s);
        if (s->hit_status != 0)
            sealed_exit(s, EXIT_COMPILE_ERROR);
        deliver(s, &s->hit_product, 1);
    }
    return 1;
}

/* The PTX the cubin is assembled from, its .file made to name SRC where it lies, in the box
 * (read-only there, as the copy is). */
static void name_src(struct sealed *s, const struct buf *ptx, struct buf *named)
{
    src_named(s, ptx, named);
    char *tmp = xprintf("%s/kernel.ptx", s->tmp), *in_box = xprintf("%s/kernel.ptx", s->box);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0 && write(fd, named->p, named->n) == (ssize_t)named->n && fchmod(fd, 0444) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (!ok || rename(tmp, in_box) != 0) {
        say(2, "sealed-compile: cannot write %s", in_box);
        sealed_exit(s, EXIT_GRADER);
    }
    free(tmp), free(in_box);
}

static void set_wall_left(struct sealed *s)
{
    s->wall_left_ms = (long long)s->lim.wall_s * 1000 - (now_ms() - s->start_ms);
    if (s->wall_left_ms < 1000)
        s->wall_left_ms = 1000;
}

/* Step 1: the .cu to PTX, and the list of files read (includes.c). For a cubin, PTX first too:
 * nvcc does the same inside -cubin (the cubins are identical), and the PTX's file name can then
 * be put right before ptxas writes it into the line table. The PTX named, in named; the log of
 * this step in log1. */
static void compile_ptx(struct sealed *s, struct buf *named, struct buf *log1)
{
    struct argv cmd = {0};
    trace("compiled");
    set_wall_left(s);
    argv_add(&cmd, s->nvcc), argv_add(&cmd, "-ptx");
    for (int i = 0; i < s->flags.n; i++)
        argv_add(&cmd, s->flags.v[i]);
    argv_add(&cmd, "-keep"), argv_add(&cmd, "-keep-dir"), argv_addf(&cmd, "%s/keep", s->box_path);
    argv_add(&cmd, "-o"), argv_addf(&cmd, "%s/kernel.ptx", s->box_path), argv_add(&cmd, s->in_src);
    run_box(s, s->box, cmd.v);
    limit_breach(s, "while compiling");
    int status1 = s->rc;
    trimmed(&s->log, log1);
    if (status1 != 0)
        refuse_missing_include(s);
    check_includes(s);
    buf_set(&s->log, log1), buf_add(&s->log, "\n", 1);
    if (status1 == 0 && constant_stores(s))
        status1 = 1;
    struct buf ptx = {0};
    char *path = xprintf("%s/kernel.ptx", s->box);
    int have_ptx = read_plain(path, (size_t)1 << 30, &ptx);
    if (status1 == 0 && have_ptx && timer_reads(s, &ptx))
        status1 = 1;
    if (status1 != 0 || !have_ptx) {
        /* A failure that names no line of SRC ("nvcc fatal: ..."): if an empty file fails the
         * same way, the box or the toolkit is broken, and baseline says so (exit 4). */
        if (!names_src(s, &s->log)) {
            baseline(s, 1);
            buf_set(&s->log, log1), buf_add(&s->log, "\n", 1);
        }
        compile_error(s, "ptx");
    }
    cache_put(s, "ptx", 0, &ptx);
    name_src(s, &ptx, named); /* ptx: `.file 1 "/box/kernel.cu"` as SRC where it lies */
    buf_free(&ptx), free(path);
    for (int i = 0; i < cmd.n; i++)
        free(cmd.v[i]);
    free(cmd.v);
}

/* Step 2 of a cubin: ptxas on the named PTX, in the box; the cubin in product. */
static void assemble_cubin(struct sealed *s, const struct buf *log1, struct buf *product)
{
    struct argv cmd = {0};
    set_wall_left(s);
    argv_add(&cmd, s->nvcc), argv_add(&cmd, "-cubin");
    for (int i = 0; i < s->flags.n; i++)
        argv_add(&cmd, s->flags.v[i]);
    argv_add(&cmd, "-o"), argv_addf(&cmd, "%s/kernel.cubin", s->box_path);
    argv_addf(&cmd, "%s/kernel.ptx", s->box_path);
    run_box(s, s->box, cmd.v);
    limit_breach(s, "while assembling");
    /* The warnings of both steps, in order, without empty lines. */
    struct buf log2 = {0}, both = {0};
    trimmed(&s->log, &log2);
    buf_add(&both, NULL, 0);
    const struct buf *part[] = {log1, &log2};
    for (int k = 0; k < 2; k++) {
        size_t pos = 0, len;
        const char *line;
        struct buf whole = {0};
        buf_set(&whole, part[k]), buf_add(&whole, "\n", 1);
        while (next_line(&whole, &pos, &line, &len))
            if (len > 0)
                buf_add(&both, line, len), buf_add(&both, "\n", 1);
        buf_free(&whole);
    }
    buf_set(&s->log, &both);
    buf_free(&log2), buf_free(&both);
    char *path = xprintf("%s/kernel.cubin", s->box);
    if (s->rc != 0 || !read_plain(path, (size_t)1 << 30, product))
        compile_error(s, "cubin");
    free(path);
    for (int i = 0; i < cmd.n; i++)
        free(cmd.v[i]);
    free(cmd.v);
}

/* The test looks into the box through WB_SEALED_DEBUG_CMD: it runs instead of nvcc. */
static void run_debug_cmd(struct sealed *s, const char *shell_cmd)
{
    char *const cmd[] = {"/bin/sh", "-c", (char *)shell_cmd, NULL};
    run_box(s, s->box, cmd);
    limit_breach(s, "running WB_SEALED_DEBUG_CMD");
    write_all(1, s->log.p, s->log.n);
    sealed_exit(s, s->rc);
}

int main(int argc, char **argv)
{
    static struct sealed call = {.parts_for = -1};
    struct sealed *s = current = &call;
    signals_init();
    s->caller_umask = umask(077); /* our temporary files are ours; OUT gets the caller's umask */
    parse_limits(s);
    parse_args(s, argc, argv);
    s->exit_armed = 1;
    name_paths(s);
    read_source(s);
    /* As root, the compiler runs as nobody outside the box too: then a file it could reach would
     * be nobody's to read, and RLIMIT_NPROC, which the kernel never enforces on uid 0, holds. */
    s->drop = geteuid() == 0;
    find_tools(s);
    s->sealed = 1; /* (until make_box finds otherwise) */
    const char *debug = getenv("WB_SEALED_DEBUG_CMD");
    int looked = 0, from_cache = 0;
    /* The lookup before the box is made (the box's name for the copy, which a hit's log and PTX
     * hold, is /box/kernel.cu); where it could not be made yet, after. */
    if (!(debug && *debug) && cache_setup(s, 1)) {
        from_cache = try_hits(s);
        looked = 1;
    }
    make_temp(s);
    write_copy(s);
    make_box(s);
    if (strcmp(s->box_path, "/box") != 0) { /* compiled unsealed: the copy's name as the compiler sees it */
        char *in_src = xprintf("%s/kernel.cu", s->box_path);
        if (!strcmp(s->abs_src, s->in_src))
            free(s->abs_src), s->abs_src = xstrdup(in_src);
        free(s->in_src), s->in_src = in_src;
    }
    if (debug && *debug)
        run_debug_cmd(s, debug);
    if (!cache_setup(s, 0))
        s->cache = NULL;
    if (s->cache && !looked)
        from_cache = try_hits(s);
    struct buf log1 = {0}, product = {0};
    if (!from_cache) {
        compile_ptx(s, &product, &log1);
    } else {
        trace("assembled");
        trimmed(&s->hit_log, &log1);
        name_src(s, &s->hit_product, &product);
    }
    if (s->cubin)
        assemble_cubin(s, &log1, &product);
    show_log(s);
    if (product.n == 0) {
        say(2, "sealed-compile: nvcc reported success but wrote no %s", s->mode);
        sealed_exit(s, EXIT_GRADER);
    }
    if (s->cubin)
        cache_put(s, "cubin", 0, &product);
    deliver(s, &product, 0);
}
