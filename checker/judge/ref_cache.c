/* The reference side, remembered (WB_REF_CACHE, a folder): make test and a class's grading run
 * the workbook's own kernels on the same inputs again and again (every mutant, every hand-in of
 * a lesson). In the emulator that is most of a grading's time; on a GPU, a process that starts
 * CUDA (about 0.15 s of the driver's, one process at a time, on the H200). The interpreter is
 * deterministic, and so are the workbook's kernels on one GPU (no atomics, a fixed order of
 * every sum): what the reference side's runner writes back depends only on the runner, the
 * reference kernels it is given and the job (its shape and its inputs' bytes). An entry holds,
 * for one job, what the judge reads from the side's copy (the report, the reference output) and
 * the CPU time the job took (the student's budget), under a hash of all of that.
 * Only the judge writes here, and only what a reference side that completed every job returned:
 * the student's side is never cached, so no hand-in can put a word into an entry. An entry that
 * does not read back whole (size, layout, checksum) is a miss. A timed job is never kept or
 * read (jobs.c): a timing is the moment's.
 * The folder is the caller's to clear: make test gives each run one of its own, with one seed
 * (checker/tools/run-tests.py); without WB_REF_CACHE nothing is kept or read. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "ref_cache.h"
#include "spawn.h"

#define MAGIC "wb-ref-cache 1\n"

struct hash {
    uint64_t a, b;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27, x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Two lanes over 8-byte words: not a defence against a chosen collision (nothing hashed here is
 * chosen by a student: the workbook's kernels and runner, the judge's inputs), only against an
 * accidental one. */
static void hash_bytes(struct hash *h, const void *p, size_t len)
{
    const unsigned char *c = p;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, c + i, 8);
        h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ULL;
        h->a ^= h->a >> 29;
        h->b = (h->b + w) * 0xc2b2ae3d27d4eb4fULL;
        h->b = (h->b << 31 | h->b >> 33) ^ w;
    }
    uint64_t tail = len; /* the length and the last bytes, so that "ab" and "ab\0" differ */
    for (; i < len; i++)
        tail = tail << 8 ^ c[i];
    h->a = mix(h->a ^ tail);
    h->b = mix(h->b + tail + 1);
}

/* A file's bytes into h; -1 if it cannot be read. */
static int hash_file(struct hash *h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        hash_bytes(h, buf, got);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

/* What every job of this judge shares: the runner and the reference kernels it is started with
 * (each argument, and the bytes of those that are files). 0 if there is no cache to use. */
static const struct hash *program_key(void)
{
    static struct hash key;
    static int state; /* 0 not tried, 1 usable, -1 not */
    if (state)
        return state > 0 ? &key : NULL;
    state = -1;
    const char *dir = getenv("WB_REF_CACHE");
    if (!dir || !*dir)
        return NULL;
    key = (struct hash){0x5eed, 0xcafe};
    hash_bytes(&key, MAGIC, sizeof MAGIC);
    size_t sizes[2] = {sizeof(struct gpu_job), sizeof(struct gpu_report)};
    hash_bytes(&key, sizes, sizeof sizes);
    char *argv[12];
    runner_argv(SIDE_REFERENCE, 0, 1, 0, argv);
    for (int i = 0; argv[i]; i++) {
        /* A file by where it really is (each judge names the shared ones from its own folder). */
        char real[PATH_MAX];
        struct stat st;
        int file = stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && realpath(argv[i], real);
        const char *name = file ? real : argv[i];
        hash_bytes(&key, name, strlen(name) + 1);
        if (file && hash_file(&key, argv[i]) != 0)
            return NULL;
    }
    state = 1;
    return &key;
}

/* One job's key: the programs', the job's shape as the reference side's copy has it, its inputs. */
static struct hash job_key(const struct gpu_job *j)
{
    struct hash h = *program_key();
    struct {
        char family[32], baseline_family[32];
        int rows, cols, launch, time_reps, count, time_limit, roles, have_solution;
        size_t bytes, in_elems[2], out_elems, in_offset[2], out_offset[OUT_COUNT];
    } shape;
    memset(&shape, 0, sizeof shape); /* its padding too */
    memcpy(shape.family, j->family, sizeof shape.family);
    memcpy(shape.baseline_family, j->baseline_family, sizeof shape.baseline_family);
    shape.rows = j->rows, shape.cols = j->cols, shape.launch = j->launch, shape.time_reps = j->time_reps;
    shape.count = j->count, shape.time_limit = j->time_limit, shape.roles = SIDE_REFERENCE;
    shape.have_solution = solution_present();
    shape.bytes = j->bytes, shape.out_elems = j->out_elems;
    memcpy(shape.in_elems, j->in_elems, sizeof shape.in_elems);
    memcpy(shape.in_offset, j->in_offset, sizeof shape.in_offset);
    memcpy(shape.out_offset, j->out_offset, sizeof shape.out_offset);
    hash_bytes(&h, &shape, sizeof shape);
    for (int i = 0; i < 2; i++)
        hash_bytes(&h, job_in((struct gpu_job *)j, i), j->in_elems[i] * sizeof(float));
    return h;
}

static void entry_path(const struct gpu_job *j, char *path, size_t len)
{
    struct hash h = job_key(j);
    snprintf(path, len, "%s/ref-%016llx%016llx", getenv("WB_REF_CACHE"), (unsigned long long)h.a,
             (unsigned long long)h.b);
}

/* An entry: MAGIC, the report, the reference output, the job's CPU seconds, a checksum of all
 * that. */
struct entry_tail {
    double cpu;
    struct hash sum;
};

static struct hash checksum(const struct gpu_report *rep, const float *out, size_t out_elems, double cpu)
{
    struct hash h = {1, 2};
    hash_bytes(&h, rep, sizeof *rep);
    hash_bytes(&h, out, out_elems * sizeof(float));
    hash_bytes(&h, &cpu, sizeof cpu);
    return h;
}

/* Job k's entry into the side's copy k; 0 when it was there whole. */
static int take_entry(const struct gpu_job *job, struct gpu_job *copy, double *cpu)
{
    char path[1200];
    entry_path(job, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[sizeof MAGIC];
    struct gpu_report rep;
    struct entry_tail tail;
    float *out = job_out(copy, OUT_REFERENCE);
    size_t n = job->out_elems;
    int ok = fread(magic, 1, sizeof magic, f) == sizeof magic && memcmp(magic, MAGIC, sizeof magic) == 0 &&
             fread(&rep, sizeof rep, 1, f) == 1 && fread(out, sizeof(float), n, f) == n &&
             fread(&tail, sizeof tail, 1, f) == 1 && fgetc(f) == EOF;
    fclose(f);
    if (ok) {
        struct hash sum = checksum(&rep, out, n, tail.cpu);
        ok = sum.a == tail.sum.a && sum.b == tail.sum.b && rep.finished && !rep.failure[0];
    }
    if (!ok)
        return -1;
    copy->rep = rep;
    *cpu = tail.cpu;
    return 0;
}

/* For the test (checker/tests/steps/ref-cache-test.sh): WB_REF_CACHE_TRACE names a file that gets a
 * line per batch the cache was asked for: "hit N", "miss N" or "kept N" (N jobs). */
static void trace(const char *what, int n)
{
    const char *path = getenv("WB_REF_CACHE_TRACE");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s %d\n", what, n);
        fclose(f);
    }
}

int ref_cache_take(struct gpu_job *const *jobs, int n, struct side_run *s, struct isolate_result *r, double *cpu)
{
    if (!program_key())
        return 0;
    memset(r, 0, sizeof *r);
    if (side_copies(jobs, n, SIDE_REFERENCE, s) != 0)
        return 0;
    for (int k = 0; k < n; k++)
        if (take_entry(jobs[k], s->copy[k], &cpu[k]) != 0) {
            side_abandon(s);
            trace("miss", n);
            return 0;
        }
    trace("hit", n);
    /* As a runner that completed every job would have left it. */
    r->outcome = ISOLATE_EXITED;
    r->status = JOB_OK;
    for (int k = 0; k < n; k++)
        r->cpu_seconds += cpu[k];
    return 1;
}

void ref_cache_keep(struct gpu_job *const *jobs, int n, const struct side_run *s, const struct isolate_result *r,
                    const double *cpu)
{
    if (!program_key() || r->outcome != ISOLATE_EXITED || r->status != JOB_OK)
        return;
    for (int k = 0; k < n; k++) {
        const struct gpu_job *copy = s->copy[k];
        if (!copy || !copy->rep.finished || copy->rep.failure[0])
            return;
    }
    mkdir(getenv("WB_REF_CACHE"), 0700);
    for (int k = 0; k < n; k++) {
        const struct gpu_job *copy = s->copy[k];
        const float *out = job_out((struct gpu_job *)copy, OUT_REFERENCE);
        struct entry_tail tail = {cpu[k], checksum(&copy->rep, out, jobs[k]->out_elems, cpu[k])};
        char path[1200], tmp[1300];
        entry_path(jobs[k], path, sizeof path);
        snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
        int fd = mkstemp(tmp);
        if (fd < 0)
            return; /* a cache it cannot write is no cache: the grading goes on */
        FILE *f = fdopen(fd, "wb");
        int ok = f && fwrite(MAGIC, 1, sizeof MAGIC, f) == sizeof MAGIC && fwrite(&copy->rep, sizeof copy->rep, 1, f) == 1 &&
                 fwrite(out, sizeof(float), jobs[k]->out_elems, f) == jobs[k]->out_elems &&
                 fwrite(&tail, sizeof tail, 1, f) == 1;
        ok = (f ? fclose(f) == 0 : (close(fd), 0)) && ok;
        if (!ok || rename(tmp, path) != 0) {
            unlink(tmp);
            return;
        }
    }
    trace("kept", n);
}
