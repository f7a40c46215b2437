/* The result cache (WB_SEALED_CACHE): make test compiles the same files again and again in other
 * build folders, ~1.1 s each. An entry holds one sealed compile's outcome: exit 0 (the compiler's
 * log and the product) or a compile error (exit 1 whose log names an error at a line of SRC),
 * under the sha256 of everything that decides it: the stage and nvcc's flags, the bytes of the
 * private copy that is compiled, for a cubin SRC's path as its line table names it (the PTX
 * stage's entry holds the PTX as written in the box, and SRC's path is put in at replay: one
 * entry for every copy of a file; a cubin of a known PTX at a new path costs ptxas alone), the
 * toolchain (nvcc's resolved path and --version; size and time of nvcc, cudafe++, cicc, ptxas,
 * gcc and of every header a compile may read), the limits, and this program's own sources'
 * sha256 (new rules make every entry a miss). A hit replays the status, the text (the same log
 * through the same filter) and the product byte for byte, with no compiler run, no box made and
 * no process started. It is safe: the step-1 refusals run on every call first; an entry exists
 * only for bytes that passed the #include check under the same flags and toolchain, so its
 * product holds nothing but what that checked compile read; the cache is written only here, by
 * the grader, never in the box, which cannot see it (a folder the box would show is refused).
 * Not stored: refusals, limits and the grader's problems (exit 2-4), an exit 1 that names no
 * line of SRC (nvcc fatal, a full disk: the moment's, not the file's), an unsealed compile.
 * Entries are written whole (temp file + rename), used only when their stored sha256 matches
 * (else compiled again), and dropped 7 days after their last use, 2000 at most.
 *
 * A hit never bypasses a check. The #include check is nvcc's list of what it read, and that is
 * decided by the bytes, the flags and the toolchain, all in the key: an entry's bytes passed it
 * (a refusal stores nothing), so the same bytes would pass again. (A file that tests for a header
 * with __has_include could compile otherwise once a new header appears under /usr; its entry is
 * still a checked compile's, and the box shows nothing but the toolkit and /usr, never the
 * grader's.) */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sealed.h"

#define CACHE_DAYS 7
#define CACHE_MAX 2000
#define ENTRY_MAX (1024 * 1024) /* an honest entry is < 100 KB: 2000 of them stay under 2 GiB */
#define KEY_VERSION "wb-sealed-result-4"
#define ENTRY_MAGIC "wb-sealed-entry-2"

/* This program's rules, by the sha256 of its sources (the Makefile's, so that every build of
 * the same sources shares entries: a handout's tree uses its author's cache), else of itself. */
static const char *self_sum(void)
{
#ifdef SEALED_SELF
    return SEALED_SELF;
#else
    static char sum[65];
    struct buf exe = {0};
    if (!sum[0] && read_plain("/proc/self/exe", (size_t)64 << 20, &exe))
        sha256_buf(&exe, sum);
    buf_free(&exe);
    return sum;
#endif
}

/* "PATH SIZE MTIME\n" of each file that can be stat'ed (links followed), as stat -L printed it. */
static void stamp_of(struct buf *out, const char *path)
{
    struct stat st;
    if (path && stat(path, &st) == 0)
        buf_printf(out, "%s %lld %lld\n", path, (long long)st.st_size, (long long)st.st_mtim.tv_sec);
}

/* What every key is made of: the stamp (every tool a compile runs, by size and time), where the
 * empty file's list is kept (one per nvcc as spelt, its tools, the flags and whether the box is
 * used) and nvcc --version's (one per stamp: the stamp is in the key too, and a damaged file
 * cannot make two toolchains one). */
void key_parts(struct sealed *s)
{
    if (s->parts_for == s->sealed)
        return;
    char *toolkit_bin = xprintf("%s/bin", s->toolkit), *gcc = NULL, *tools[3];
    const char *dirs[] = {toolkit_bin, "/usr/local/bin", "/usr/bin", "/bin"}; /* gcc as the box's PATH finds it */
    for (size_t i = 0; i < 4 && !gcc; i++) {
        struct stat st;
        gcc = xprintf("%s/gcc", dirs[i]);
        if (stat(gcc, &st) != 0 || !S_ISREG(st.st_mode) || access(gcc, X_OK) != 0)
            free(gcc), gcc = NULL;
    }
    free(toolkit_bin);
    tools[0] = xprintf("%s/bin/cudafe++", s->toolkit);
    tools[1] = xprintf("%s/nvvm/bin/cicc", s->toolkit);
    tools[2] = xprintf("%s/bin/ptxas", s->toolkit);
    struct buf raw = {0}, basekey = {0};
    buf_add(&raw, NULL, 0);
    stamp_of(&raw, s->nvcc_real);
    for (int i = 0; i < 3; i++)
        stamp_of(&raw, tools[i]), free(tools[i]);
    stamp_of(&raw, gcc);
    free(gcc);
    buf_set(&s->stamp, &raw);
    if (s->stamp.n)
        s->stamp.p[--s->stamp.n] = '\0';
    buf_printf(&basekey, "markers %s %d\n%s\n", s->nvcc, s->sealed, s->stamp.p);
    for (int i = 0; i < s->flags.n; i++)
        buf_printf(&basekey, "%s\n", s->flags.v[i]);
    char base_sum[65], stamp_sum[65];
    sha256_buf(&basekey, base_sum);
    sha256_buf(&raw, stamp_sum);
    buf_free(&raw), buf_free(&basekey);
    const char *cache = getenv("WB_SEALED_CACHE");
    free(s->basefile), free(s->idfile);
    s->basefile = s->idfile = NULL;
    if (cache && *cache) {
        s->basefile = xprintf("%s/baseline-%.24s.deps", cache, base_sum);
        s->idfile = xprintf("%s/toolchain-%.32s.id", cache, stamp_sum);
    }
    s->parts_for = s->sealed;
}

/* nvcc --version, run once per tool stamp (early: only as an earlier call kept it). */
static int toolchain_id(struct sealed *s, int early)
{
    if (read_plain(s->idfile, 1 << 20, &s->ident) && s->ident.n > 0) {
        if (s->ident.p[s->ident.n - 1] == '\n')
            s->ident.p[--s->ident.n] = '\0';
        return 1;
    }
    struct buf said = {0};
    char *const ask[] = {s->nvcc, "--version", NULL};
    if (early || run_capture(s, ask, &said) != 0) {
        buf_free(&said);
        return 0;
    }
    trimmed(&said, &s->ident);
    said.n = 0;
    buf_printf(&said, "%s\n", s->ident.p);
    if (mkdir_shared(s, getenv("WB_SEALED_CACHE")))
        write_shared(s, s->idfile, &said); /* a cache we may not write is no error */
    buf_free(&said);
    return 1;
}

/* Sets s->cache, and the key's parts; false where there is no cache to use. early: before the box
 * is made, from what earlier calls left (the empty file's list, nvcc's version): without them,
 * no lookup now (the full setup after the box makes them). */
int cache_setup(struct sealed *s, int early)
{
    const char *cache = getenv("WB_SEALED_CACHE");
    s->cache = NULL;
    if (!cache || !*cache || !s->sealed)
        return 0;
    /* The box shows /usr, /bin, /lib* and the toolkit: a cache there would be the compiler's to read. */
    char *under = xprintf("%s/", s->toolkit);
    char *real = xprintf("%s/", s->cache_real);
    int visible = !outside_usr(s->cache_real) || !strncmp(real, under, strlen(under));
    free(under), free(real);
    if (visible) {
        say(2, "sealed-compile: WB_SEALED_CACHE (%s) lies where the compiler's box can see it: put it elsewhere "
                  "(e.g. build/sealed-cache)", cache);
        sealed_exit(s, EXIT_GRADER);
    }
    key_parts(s);
    /* The headers a key names: those of the empty file's list as it stands (a stale cached list,
     * replaced during the compile, gives the entry the key of the fresh one, else its entry would
     * never be found again). */
    if (early) {
        if (!read_plain(s->basefile, 1 << 24, &s->base_list) || s->base_list.n == 0)
            return 0;
    } else {
        baseline(s, 0);
    }
    if (!toolchain_id(s, early))
        return 0;
    s->cache = cache;
    return 1;
}

/* The key of STAGE (ptx or cubin) in s->rkey. NUL ends each field (no argument can hold one): one
 * encoding per input. SRC as spelt is not in it (only the text names it, and that is made at
 * replay). Two stages: the PTX as nvcc wrote it in the box (it names /box/kernel.cu, whatever
 * SRC's path: one entry serves every copy of a file, a class's untouched stubs, the handout's),
 * and a cubin, whose line table names SRC's path (an entry per path). */
static void result_key(struct sealed *s, const char *stage)
{
    struct buf key = {0}, headers = {0};
    size_t pos = 0, len;
    const char *line;
    buf_add(&headers, NULL, 0);
    while (next_line(&s->base_list, &pos, &line, &len)) {
        char *name = xprintf("%.*s", (int)len, line);
        stamp_of(&headers, name);
        free(name);
    }
    if (headers.n)
        headers.p[--headers.n] = '\0';
#define FIELD(str) buf_add(&key, (str), strlen(str) + 1)
    FIELD(KEY_VERSION);
    FIELD(stage);
    buf_printf(&key, "%d", s->flags.n), buf_add(&key, "", 1);
    for (int i = 0; i < s->flags.n; i++)
        FIELD(s->flags.v[i]);
    FIELD(strcmp(stage, "cubin") ? "" : s->abs_src);
    FIELD(s->stamp.p);
    FIELD(headers.p);
    FIELD(s->ident.p);
    FIELD(self_sum());
    buf_printf(&key, "%llu %llu %llu %llu %llu", s->lim.cpu_s, s->lim.mem_mb, s->lim.fsize_mb, s->lim.wall_s,
               s->lim.nproc);
    buf_add(&key, "", 1);
    FIELD(s->src_sum);
#undef FIELD
    sha256_buf(&key, s->rkey);
    buf_free(&key), buf_free(&headers);
}

/* The entry's line, "MAGIC STATUS LOGLEN PRODUCTLEN SHA256", as written: false unless it is one. */
static int entry_line(const char *p, size_t n, int *status, unsigned long *llen, unsigned long *plen, char sum[65])
{
    char line[160], again[160];
    if (n == 0 || n >= sizeof line)
        return 0;
    memcpy(line, p, n), line[n] = '\0';
    char magic[32];
    if (sscanf(line, "%31s %d %8lu %8lu %64[0-9a-f]", magic, status, llen, plen, sum) != 5 || strlen(sum) != 64)
        return 0;
    snprintf(again, sizeof again, "%s %d %lu %lu %s", ENTRY_MAGIC, *status, *llen, *plen, sum);
    return strcmp(line, again) == 0 && (*status == 0 || *status == 1);
}

/* A verified entry of STAGE: s->hit_log, s->hit_product (exit 0) and s->hit_status; else false.
 * Read through one descriptor: an entry replaced meanwhile (a rename replaces it whole) is
 * either the old file or the new one, and its sha256 says whether it is whole. */
int cache_get(struct sealed *s, const char *stage)
{
    struct buf entry = {0};
    result_key(s, stage);
    char *path = xprintf("%s/result-%s", s->cache, s->rkey);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return 0;
    int ok = read_fd(fd, ENTRY_MAX + 160, &entry);
    const char *nl = ok ? memchr(entry.p, '\n', entry.n) : NULL;
    int status;
    unsigned long llen, plen;
    char sum[65], got[65];
    ok = nl && entry_line(entry.p, (size_t)(nl - entry.p), &status, &llen, &plen, sum);
    struct buf body = {0};
    if (ok) {
        buf_add(&body, nl + 1, entry.n - (size_t)(nl + 1 - entry.p));
        sha256_buf(&body, got);
        ok = body.n == llen + plen && !strcmp(got, sum) && (status == 0) == (plen > 0);
    }
    if (ok) {
        s->hit_log.n = s->hit_product.n = 0;
        buf_add(&s->hit_log, body.p, llen);
        buf_add(&s->hit_product, body.p + llen, plen);
        s->hit_status = status;
        futimens(fd, NULL); /* its last use, for pruning */
    }
    close(fd);
    buf_free(&entry), buf_free(&body);
    return ok;
}

/* Whether the log has an error on a line of SRC (SRC(LINE): error, SRC:LINE[:COL]: error): an
 * exit 1 is kept only then, since that is the file's. */
static int error_on_src_line(const struct sealed *s, const struct buf *log)
{
    static regex_t after_src;
    static int made;
    if (!made && regcomp(&after_src, "^(\\([0-9]+\\)|:[0-9]+(:[0-9]+)?): ([a-z]+ )?error", REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    made = 1;
    size_t pos = 0, len, from = strlen(s->in_src);
    const char *line;
    while (next_line(log, &pos, &line, &len)) {
        if (!starts_with(line, len, s->in_src))
            continue;
        char *rest = xprintf("%.*s", (int)(len - from), line + from);
        int hit = regexec(&after_src, rest, 0, NULL, 0) == 0;
        free(rest);
        if (hit)
            return 1;
    }
    return 0;
}

struct aged {
    struct timespec when;
    char *name;
};

static int oldest_first(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    if (x->when.tv_sec != y->when.tv_sec)
        return x->when.tv_sec < y->when.tv_sec ? -1 : 1;
    if (x->when.tv_nsec != y->when.tv_nsec)
        return x->when.tv_nsec < y->when.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Bounded, at the cost of a listing per store: unused for CACHE_DAYS, and all but the CACHE_MAX
 * last used; a temp file an interrupted call left, after an hour. */
static void prune(const char *cache)
{
    DIR *d = opendir(cache);
    if (!d)
        return;
    struct aged *kept = NULL;
    size_t n = 0, cap = 0;
    int listed_all = 1; /* the count is bounded only from a whole listing */
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        const char *name = e->d_name;
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        int temp = strstr(name, ".tmp.") != NULL, result = !strncmp(name, "result-", 7) && !temp;
        double age = difftime(now, st.st_mtim.tv_sec);
        if ((temp && age > 60 * 60) || (result && age > CACHE_DAYS * 24 * 60 * 60)) {
            unlinkat(dirfd(d), name, 0);
        } else if (result) {
            if (n == cap) {
                struct aged *more = realloc(kept, (cap = cap ? 2 * cap : 4096) * sizeof *kept);
                if (!more) {
                    listed_all = 0;
                    break;
                }
                kept = more;
            }
            kept[n].when = st.st_mtim;
            kept[n++].name = xstrdup(name);
        }
    }
    if (kept) {
        qsort(kept, n, sizeof *kept, oldest_first);
        for (size_t i = 0; i < n; i++) {
            if (listed_all && i + CACHE_MAX < n)
                unlinkat(dirfd(d), kept[i].name, 0);
            free(kept[i].name);
        }
        free(kept);
    }
    closedir(d);
}

/* s->log (and the product) as STAGE's entry, "MAGIC STATUS LOGLEN PRODUCTLEN SHA256\n", then the
 * compiler's log (what show_log reads) and the product; SHA256 is that of all after the line. The
 * log, not show_log's text, is kept: SRC as a call spells it is put in at replay. Failing to
 * store is no error. */
void cache_put(struct sealed *s, const char *stage, int status, const struct buf *product)
{
    if (!s->cache)
        return;
    result_key(s, stage); /* (the list may have been made afresh since the lookup) */
    if (status != 0 && !error_on_src_line(s, &s->log))
        return;
    struct buf body = {0}, entry = {0};
    buf_add(&body, s->log.p, s->log.n);
    if (product)
        buf_add(&body, product->p, product->n);
    if (body.n <= ENTRY_MAX && mkdir_shared(s, s->cache)) {
        char sum[65];
        sha256_buf(&body, sum);
        buf_printf(&entry, "%s %d %zu %zu %s\n", ENTRY_MAGIC, status, s->log.n, body.n - s->log.n, sum);
        buf_add(&entry, body.p, body.n);
        char *path = xprintf("%s/result-%s", s->cache, s->rkey);
        write_shared(s, path, &entry); /* shared like any build output (the caller's umask) */
        free(path);
        prune(s->cache);
    }
    buf_free(&body), buf_free(&entry);
}
