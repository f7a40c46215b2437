/* The judge's jobs (jobs.h): a job's memory, its two runners (spawn.c starts them), what is
 * read back from each, the inputs. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "gpu_share.h"
#include "gpu_turn.h"
#include "isolate.h"
#include "jobs.h"
#include "ref_cache.h"
#include "rng.h"
#include "spawn.h"

/* Every part of a job starts on a page: a side's output pages can then move into the job
 * whole (take_out) instead of being copied. */
static size_t round_up(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

struct job_mem job_create(int rows, int cols, int launch, int reps)
{
    struct job_mem m = {0};
    const struct family *f = checking.lesson->family;
    int orows, ocols;
    f->output_shape(rows, cols, &orows, &ocols);
    size_t elems = (size_t)rows * (size_t)cols, out_elems = (size_t)orows * (size_t)ocols;
    size_t in_bytes[2] = {elems * sizeof(float), f->ninputs > 1 ? elems * sizeof(float) : 0};
    size_t out_bytes = out_elems * sizeof(float);
    size_t off = round_up(sizeof(struct gpu_job));
    size_t in_off[2], out_off[OUT_COUNT];
    for (int i = 0; i < 2; i++) {
        in_off[i] = off;
        off += round_up(launch ? in_bytes[i] : 0);
    }
    for (int s = 0; s < OUT_COUNT; s++) {
        out_off[s] = off;
        off += round_up(launch ? out_bytes : 0);
    }
    void *p = mmap(NULL, off, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return m;
    m.job = p;
    m.bytes = off;
    m.job->bytes = off;
    snprintf(m.job->family, sizeof m.job->family, "%s", f->name);
    snprintf(m.job->baseline_family, sizeof m.job->baseline_family, "%s", checking.lesson->baseline_family->name);
    m.job->rows = rows;
    m.job->cols = cols;
    m.job->launch = launch;
    m.job->time_reps = reps;
    m.job->time_limit = reps > 0 && f->limit.routine;
    /* Without a launch the job has no buffers, and says so: a side's copy of an input must never
     * reach past the job's end (with the header a whole number of pages, that is another page). */
    m.job->in_elems[0] = launch ? elems : 0;
    m.job->in_elems[1] = launch && f->ninputs > 1 ? elems : 0;
    m.job->out_elems = launch ? out_elems : 0;
    memcpy(m.job->in_offset, in_off, sizeof in_off);
    memcpy(m.job->out_offset, out_off, sizeof out_off);
    return m;
}

void job_free(struct job_mem *m)
{
    if (m->job)
        munmap(m->job, m->bytes);
    m->job = NULL;
}

/* A text from a runner: printable characters only (a runner speaks of the student's file, whose
 * names and text it quotes). */
static void take_text(char *dst, size_t len, const char *src, size_t srclen)
{
    size_t k = 0;
    for (size_t i = 0; i < srclen && src[i] && k + 1 < len; i++)
        dst[k++] = (src[i] >= 32 && src[i] < 127) ? src[i] : ' ';
    dst[k] = '\0';
}

/* The student's busiest source lines (the emulator names them, file:line:column), as printable
 * text. */
static void take_lines(struct gpu_report *rep, const struct gpu_report *side)
{
    rep->nlines = side->nlines < 0 ? 0 : side->nlines > MAX_COUNTED_LINES ? MAX_COUNTED_LINES : side->nlines;
    for (int i = 0; i < rep->nlines; i++) {
        rep->lines[i] = side->lines[i];
        take_text(rep->lines[i].where, sizeof rep->lines[i].where, side->lines[i].where, sizeof side->lines[i].where);
        /* (A bank map draws only the lanes it can read: bankmap.c checks each one.) */
        for (int o = 0; o < 2; o++)
            if (rep->lines[i].worst[o].nlanes > REQUEST_LANES)
                rep->lines[i].worst[o].nlanes = REQUEST_LANES;
    }
}

/* An output slot of a side's copy, where the judge laid it out (never where the copy's own
 * offsets, which its runner could change, say), into the job. The side has ended, so its pages
 * move over instead of being copied (256 MB of a transpose's speed case: 0.3 s a slot on the
 * H200's host); memcpy where they cannot. */
static void take_out(struct gpu_job *job, struct gpu_job *side, int slot)
{
    size_t bytes = job->out_elems * sizeof(float), len = round_up(bytes);
    char *to = (char *)job + job->out_offset[slot], *from = (char *)side + job->out_offset[slot];
    if (bytes > 0 && mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) == MAP_FAILED)
        memcpy(to, from, bytes);
}

/* Copies back what a side may write: its roles' outputs, timings, counts and attributes; the
 * device from the reference side (trusted code) alone. Which roles a side ran is the judge's
 * knowledge (which), never the copy's: every field of the copy is the runner's to write. */
static void take_side(struct gpu_job *job, struct gpu_job *side, int which)
{
    struct gpu_report *rep = &job->rep, *s = &side->rep;
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (!(which >> r & 1))
            continue;
        rep->static_smem[r] = s->static_smem[r];
        rep->regs[r] = s->regs[r];
        memcpy(rep->ms[r], s->ms[r], sizeof rep->ms[r]);
        rep->counts[r] = s->counts[r];
    }
    if (which == SIDE_REFERENCE) {
        rep->emulator = s->emulator;
        memcpy(rep->device, s->device, sizeof rep->device);
        rep->cc_major = s->cc_major, rep->cc_minor = s->cc_minor;
        rep->driver_version = s->driver_version, rep->runtime_version = s->runtime_version;
        rep->l2_bytes = s->l2_bytes;
        memcpy(rep->limit_ms, s->limit_ms, sizeof rep->limit_ms);
        if (job->launch)
            take_out(job, side, OUT_REFERENCE);
    } else {
        if (job->launch) {
            take_out(job, side, OUT_STUDENT);
            take_out(job, side, OUT_LATER_MIN);
            take_out(job, side, OUT_LATER_MAX);
        }
        rep->guard_writes = s->guard_writes;
        rep->first_guard_write = s->first_guard_write;
        rep->input_writes = s->input_writes;
        rep->timed_differing = s->timed_differing;
        rep->timed_input_changes = s->timed_input_changes;
        rep->timed_same = s->timed_same;
        rep->sampled_written = s->sampled_written, rep->sampled_dropped = s->sampled_dropped;
        rep->counted = s->counted;
        if (s->counted)
            take_lines(rep, s);
    }
    /* Both sides time the same number of launches; a number out of range is none. */
    if (s->reps > 0 && s->reps <= MAX_REPS)
        rep->reps = s->reps;
    if (s->failure[0] && !rep->failure[0]) {
        /* A side can only speak of its own roles. */
        rep->failed_role = which == SIDE_STUDENT                                        ? ROLE_STUDENT
                           : s->failed_role >= 0 && s->failed_role < ROLE_COUNT && (which >> s->failed_role & 1) ? s->failed_role
                                                                                                             : -1;
        rep->cuda_error = s->cuda_error;
        rep->sanitizer_fault = s->sanitizer_fault;
        take_text(rep->failure, sizeof rep->failure, s->failure, sizeof s->failure);
    }
}

/* The name of a system call the sandbox stopped, where it is one a kernel would try. */
static const char *syscall_name(int nr)
{
    static const struct {
        int nr;
        const char *name;
    } known[] = {{SYS_execve, "execve: starting a program"}, {SYS_execveat, "execveat: starting a program"},
                 {SYS_fork, "fork: starting a process"}, {SYS_vfork, "vfork: starting a process"},
                 {SYS_clone, "clone: starting a process"}, {SYS_clone3, "clone3: starting a process"},
                 {SYS_open, "open: opening a file"}, {SYS_openat, "openat: opening a file"},
                 {SYS_creat, "creat: making a file"}, {SYS_unlink, "unlink: removing a file"},
                 {SYS_socket, "socket: reaching the network"}, {SYS_connect, "connect: reaching the network"},
                 {SYS_kill, "kill: signalling another process"}, {SYS_setsid, "setsid: leaving its session"},
                 {SYS_rt_sigaction, "rt_sigaction: changing a signal handler"}, {SYS_read, "read: reading a file"},
                 {SYS_ptrace, "ptrace"}, {SYS_chdir, "chdir"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].nr == nr)
            return known[i].name;
    return NULL;
}

/* One side's run: its outcome as a sentence in why, or 0 when it completed. */
static int side_outcome(const struct gpu_job *side, const struct isolate_result *r, int which, const char *said,
                        char *why, size_t len)
{
    /* SIGXCPU comes from the CPU-time limit (the kernel's own signal would only fail itself);
     * the runner said where the kernel was (emu_runner.c). */
    if (r->outcome == ISOLATE_SIGNALED && r->status == SIGXCPU && checking.emulator) {
        struct isolate_result cpu = *r;
        cpu.outcome = ISOLATE_OUT_OF_CPU;
        checking.hung = 1;
        checking.hung_elems = (double)side->rows * side->cols;
        isolate_describe(&cpu, why, len);
        size_t n = strlen(said);
        if (which == SIDE_STUDENT && n && strlen(why) + n + 3 < len)
            snprintf(why + strlen(why), len - strlen(why), " %c%s%s", toupper((unsigned char)said[0]), said + 1,
                     strchr(".?!", said[n - 1]) ? "" : ".");
        return -1;
    }
    if (r->outcome == ISOLATE_TIMED_OUT) {
        checking.hung = 1;
        checking.hung_elems = (double)side->rows * side->cols;
        isolate_describe(r, why, len);
        return -1;
    }
    if (r->outcome == ISOLATE_SIGNALED && checking.emulator && (r->status == SIGSEGV || r->status == SIGBUS)) {
        snprintf(why, len, "the emulator crashed (%s) running %s: a bug in the workbook, please report it with your "
                           "file.", strsignal(r->status), which == SIDE_STUDENT ? "your kernel" : "the workbook's own kernel");
        return -1;
    }
    if (r->outcome != ISOLATE_EXITED) {
        isolate_describe(r, why, len);
        return -1;
    }
    switch (r->status) {
    case JOB_OK:
        return 0;
    case JOB_NO_GPU:
        snprintf(why, len, "no NVIDIA GPU is visible (%s).", checking.device.failure[0] ? checking.device.failure : side->rep.failure);
        return -1;
    case JOB_FORBIDDEN: {
        const char *name = syscall_name(side->rep.forbidden_syscall);
        if (which == SIDE_REFERENCE) {
            snprintf(why, len, "the workbook's own kernels were stopped by the sandbox (system call %d): a bug in "
                               "the workbook, please report it.", side->rep.forbidden_syscall);
            return -1;
        }
        if (name)
            snprintf(why, len, "your kernel tried a system call that kernels cannot make (%s), and the sandbox "
                               "stopped it: a kernel computes, it does not start programs, open files or reach the "
                               "network.", name);
        else
            snprintf(why, len, "your kernel tried a system call that kernels cannot make (number %d), and the "
                               "sandbox stopped it.", side->rep.forbidden_syscall);
        return -1;
    }
    case JOB_KERNEL_FAILED:
    case JOB_SETUP_FAILED:
        return 1; /* the side's failure text says why */
    default:
        isolate_describe(r, why, len);
        return -1;
    }
}

static void close_pipe(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]), p[i] = -1;
}

/* Waits for a side whose outcome no longer matters, and lets it go. */
static void finish_unread(struct side_run *s, double wall_s)
{
    struct isolate_result r;
    side_finish(s, wall_s, &r);
    side_abandon(s);
}

/* How far a finished side got: job k's outcome (0 completed, else why), the process's for the
 * first job it did not finish. Returns the number of jobs it completed. */
static int side_read(struct gpu_job *const *jobs, struct side_run *s, const struct isolate_result *r, int which,
                     char *why, size_t len)
{
    for (int k = 0; k < s->n; k++) {
        struct gpu_job *side = s->copy[k];
        take_side(jobs[k], side, which);
        if (side->rep.finished && k < s->n - 1)
            continue;
        if (side->rep.finished && r->outcome == ISOLATE_EXITED && r->status == JOB_OK)
            return s->n;
        /* The sandbox keeps the number of the call it stopped in the batch's first job. */
        side->rep.forbidden_syscall = s->copy[0]->rep.forbidden_syscall;
        int rc = side_outcome(side, r, which, jobs[k]->rep.failure, why, len);
        if (rc > 0)
            snprintf(why, len, "%s", jobs[k]->rep.failure[0] ? jobs[k]->rep.failure : "the run failed.");
        return rc == 0 ? k + 1 : k;
    }
    return s->n;
}

int run_job(struct gpu_job *job, double timeout_s, char *why, size_t len)
{
    return run_jobs(&job, 1, timeout_s, why, len) == 1 ? 0 : -1;
}

static int run_sides(struct gpu_job *const *jobs, int n, double timeout_s, char *why, size_t len);

/* 1 when the side's runner has ended by `until` seconds of its clock; 0 when it still runs then. */
static int ended_by(const struct isolate_child *c, double until)
{
    while (!isolate_ended(c)) {
        if (isolate_elapsed(c) >= until)
            return 0;
        nanosleep(&(struct timespec){0, 2000000}, NULL); /* isolate_wait's own step */
    }
    return 1;
}

/* The jobs side s has completed, in order: the runner marks each in the job's own pages. */
static int jobs_finished(const struct side_run *s)
{
    int now = 0;
    while (now < s->n && s->copy[now] && s->copy[now]->rep.finished)
        now++;
    return now;
}

/* A runner's first job starts its CUDA context too, which the driver serves about five a second
 * whatever the judges sharing the GPU (docs/measurements.md): seconds more for it. */
#define CUDA_START_S 2.0

/* Side s's word that its timed job (a batch's last) is ready to time (fd >= 0), or its end (fd < 0:
 * an untimed batch): each job before it, and that job's setup and first launch, within per_job
 * seconds of the last one's end (the first job CUDA_START_S more, from the runner's start), all
 * within wall. 1 when it came; 0 when the runner ended, closed its end or ran out of time. So a
 * kernel that hangs in a job of the batch is stopped as soon as if that job were alone, not at
 * the sum of every job's limits. */
static int await_ready(int fd, const struct side_run *s, double per_job, double wall)
{
    int finished = -1;
    double deadline = wall;
    for (;;) {
        int now = jobs_finished(s);
        double at = isolate_elapsed(&s->child), allowed = per_job + (finished < 0 ? CUDA_START_S : 0);
        if (now != finished)
            finished = now, deadline = at + allowed < wall ? at + allowed : wall;
        double until = at + 0.25 < deadline ? at + 0.25 : deadline;
        if (fd >= 0 ? turn_await(fd, &s->child, until, TURN_READY) : ended_by(&s->child, until))
            return 1;
        at = isolate_elapsed(&s->child);
        if (at >= deadline && !isolate_ended(&s->child) && jobs_finished(s) != finished)
            continue; /* a job completed in the last moment: the next one's limit starts now */
        if (isolate_ended(&s->child) || at >= deadline || at < until - 0.01) /* before `until`: its end closed */
            return 0;
    }
}

/* Where judges share the GPU (gpu_share.c): a timed job has it alone from its runners' word
 * that they are ready to time (run_sides). */
int run_jobs(struct gpu_job *const *jobs, int n, double timeout_s, char *why, size_t len)
{
    for (int k = 0; k < n - 1; k++)
        if (jobs[k]->time_reps > 0) /* a batch's one turn alone is its last job's (run_batches) */
            return snprintf(why, len, "the workbook batched a timed job before another; please report it."), 0;
    gpu_use(0, jobs[n - 1]->time_reps > 0 ? "timed-setup" : "job");
    int done = run_sides(jobs, n, timeout_s, why, len);
    gpu_done();
    return done;
}

static int run_sides(struct gpu_job *const *jobs, int n, double timeout_s, char *why, size_t len)
{
    static const int sides[2] = {SIDE_REFERENCE, SIDE_STUDENT};
    for (int k = 0; k < n; k++) {
        memset(&jobs[k]->rep, 0, sizeof jobs[k]->rep);
        jobs[k]->rep.failed_role = -1;
        jobs[k]->cpu_budget_s = 0;
    }
    /* On a GPU the two sides run at once (each process pays for starting CUDA); in a timed job
     * (a batch's last) each side, the jobs before it done, the timed job's buffers filled and its
     * kernels run once, says it is ready and waits for its
     * turn (gpu_turn.h): the judge takes the GPU alone when both are ready, lets the reference
     * side time and end, then the student's, so that no timing shares the GPU. The emulator's
     * budget, measured on the reference side, needs the sides in turn. turn[k]: the judge's end
     * of side k's socket; mine[k], the runner's. */
    int together = !checking.emulator, timed = jobs[n - 1]->time_reps > 0, reusable = !together || !timed;
    int turn[2] = {-1, -1}, mine[2] = {-1, -1}, ended_early[2] = {0, 0};
    for (int k = 0; k < 2 && together && timed; k++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            snprintf(why, len, "cannot make a socket pair: %s", strerror(errno));
            close_pipe(turn), close_pipe(mine);
            return 0;
        }
        turn[k] = sv[0], mine[k] = sv[1];
    }
    struct side_run runs[2];
    struct isolate_result results[2];
    double reference_cpu[MAX_BATCH] = {0}, budget[MAX_BATCH] = {0};
    int done = n;
    for (int k = 0; k < 2; k++) {
        struct side_run *s = &runs[k];
        struct isolate_result *r = &results[k];
        /* The emulator's budget for each job: CPU time, at least TIMEOUT seconds and 20 times what
         * the reference side needed on the same inputs, so a busy machine cannot fail a kernel;
         * a batch's runner holds each job to its own from the job's start (ptx_runner.c), within
         * their sum. */
        double cpu = 0;
        for (int j = 0; j < n && sides[k] == SIDE_STUDENT; j++) {
            budget[j] = reference_cpu[j] * 20 > timeout_s ? reference_cpu[j] * 20 : timeout_s;
            jobs[j]->cpu_budget_s = n > 1 && checking.emulator ? budget[j] : 0;
            cpu += budget[j];
        }
        if (sides[k] == SIDE_REFERENCE)
            cpu = 600;
        /* On a GPU a batch's jobs are small: TIMEOUT for the batch, and a second for each job more;
         * a timed job's three kernels, warm-up and REPS launches twice TIMEOUT more; a side that
         * waited for the other gets the other's time too. */
        double wall = checking.emulator ? 10 * cpu + 30
                                        : timeout_s + (n - 1) + (timed ? 2 * timeout_s : 0) +
                                              (timed && k == 1 ? results[0].seconds : 0);
        /* The reference side may have run these very jobs before (ref_cache.c); on a GPU, never a
         * timed job's, whose sides time in the same run. */
        int cached = sides[k] == SIDE_REFERENCE && reusable && ref_cache_take(jobs, n, s, r, reference_cpu);
        /* Together, side 1 was started with side 0. */
        if (!cached && !(together && k == 1) && side_start(jobs, n, sides[k], cpu, mine[0], s, r) != 0) {
            isolate_describe(r, why, len);
            close_pipe(turn), close_pipe(mine);
            return 0;
        }
        if (together && k == 0 && side_start(jobs, n, sides[1], cpu, mine[1], &runs[1], &results[1]) != 0) {
            isolate_describe(&results[1], why, len);
            close_pipe(turn), close_pipe(mine);
            if (cached)
                side_abandon(s);
            else
                finish_unread(s, wall);
            return 0;
        }
        close_pipe(mine); /* the runners have theirs */
        if (together && timed && k == 0) {
            /* Both ready (or ended: each side's outcome then says why), the GPU alone; neither the
             * reference side's wait for the student's (whose kernel may be slow) nor the wait for
             * the lock is the runners' time. A side that ends without its word is not waited for
             * twice. */
            double idle = 0;
            for (int j = 0; j < 2; j++) {
                double before = isolate_elapsed(&runs[j].child);
                if (!await_ready(turn[j], &runs[j], timeout_s + 1, wall)) {
                    close(turn[j]), turn[j] = -1;
                    /* Out of time before its timing (a kernel that hangs in its untimed
                     * launch): ended now, as at its limit, not left on the GPU beside another
                     * judge's timing once this one lets its shared hold go. */
                    if (!isolate_ended(&runs[j].child))
                        side_finish(&runs[j], 0, &results[j]), ended_early[j] = 1;
                }
                idle = j == 1 && turn[0] >= 0 ? isolate_elapsed(&runs[1].child) - before : 0;
            }
            isolate_pause(&runs[0].child, idle);
            double waited = gpu_use(1, "timed");
            isolate_pause(&runs[0].child, waited);
            isolate_pause(&runs[1].child, waited);
            turn_give(turn[0]);
        }
        /* A timed side done with the GPU (TURN_DONE: its context destroyed) lets it go before its
         * process has ended: the reference side to the student's timing, the student's to the
         * next judge. One that ends without the word is waited for to its end, as before. */
        int handed = 0;
        if (together && timed && turn[k] >= 0 && !ended_early[k] && turn_await(turn[k], &s->child, wall, TURN_DONE)) {
            if (k == 0)
                turn_give(turn[1]), handed = 1;
            else
                gpu_done();
        }
        if (!cached) {
            /* An untimed batch on a GPU: each job held to its own limit too, as a timed batch's are,
             * so that a hang holds its shared turn of the GPU (on which every judge waiting to be
             * alone waits) TIMEOUT and a second, not the whole batch's limit. */
            int watched = together && !timed && n > 1;
            if (!ended_early[k])
                side_finish(s, watched && !await_ready(-1, s, timeout_s + 1, wall) ? 0 : wall, r);
            double last = 0;
            for (int j = 0; j < n && sides[k] == SIDE_REFERENCE; j++) { /* the CPU each job took, the runner counting */
                double at = s->copy[j] ? s->copy[j]->rep.cpu_seconds : 0;
                reference_cpu[j] = at > last ? at - last : 0;
                last = at > last ? at : last;
                if (j == n - 1 && r->cpu_seconds > last) /* and what the process spent outside them */
                    reference_cpu[0] += r->cpu_seconds - last;
            }
            if (sides[k] == SIDE_REFERENCE && reusable)
                ref_cache_keep(jobs, n, s, r, reference_cpu);
        }
        /* The budget said is the one of the job the side did not finish. */
        int stopped = 0;
        while (sides[k] == SIDE_STUDENT && stopped < n - 1 && s->copy[stopped] && s->copy[stopped]->rep.finished)
            stopped++;
        r->cpu_limit = sides[k] == SIDE_STUDENT ? budget[stopped] : cpu;
        if (sides[k] == SIDE_STUDENT && reference_cpu[stopped] * 20 > timeout_s)
            snprintf(r->budget, sizeof r->budget, "%.1f s, 20 times what %s took", r->cpu_limit, reference_name());
        else
            snprintf(r->budget, sizeof r->budget, "TIMEOUT=%.0f s", r->cpu_limit);
        if (sides[k] == SIDE_STUDENT) /* its kernel's printf: never read as a result, and quoted */
            say_quoted("Your kernel", r->output, r->output_len, r->output_bytes, r->output_lines);
        int got = side_read(jobs, s, r, sides[k], why, len);
        side_abandon(s);
        if (got < done)
            done = got;
        if (done < n && sides[k] == SIDE_REFERENCE) { /* the workbook's own kernels failed: nothing is judged */
            close_pipe(turn); /* a waiting student's side reads the end and leaves; one handed its turn is stopped */
            if (together && !ended_early[1])
                finish_unread(&runs[1], handed ? 0 : wall);
            else if (together)
                side_abandon(&runs[1]);
            return 0;
        }
        if (sides[k] == SIDE_REFERENCE && !handed)
            turn_give(turn[1]);
    }
    close_pipe(turn);
    return done;
}

void fill_inputs(struct gpu_job *job, uint64_t stream)
{
    struct rng r;
    int bits = checking.lesson->family->input_bits;
    for (int i = 0; i < 2; i++) {
        rng_seed(&r, checking.seed, stream * 2 + (uint64_t)i);
        rng_fill_grid(&r, job_in(job, i), job->in_elems[i], bits ? bits : 24);
    }
}
