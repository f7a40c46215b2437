/* Running a command: a child in a process group of its own, under the limits and (as root) as
 * nobody, its output in a log, stopped with everything it started by the wall clock or by a
 * signal to us. What `timeout -k 5`, setpriv and prlimit did for the script, without their
 * processes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sealed.h"

#define KILL_AFTER_MS 5000 /* after the TERM, a KILL for whatever still runs (timeout -k 5) */

static sigset_t watched, original;

long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* INT, TERM and HUP wait, blocked, until we look (poll_signals, or while a child runs): then the
 * child's group is stopped and the exit path cleans up. SIGCHLD is waited for the same way (it
 * must not be ignored: an ignored SIGCHLD reaps children before we can read their status). A
 * reader that went away costs a write, not the grader (SIGPIPE ignored). */
void signals_init(void)
{
    sigemptyset(&watched);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGHUP);
    sigaddset(&watched, SIGCHLD);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    sigprocmask(SIG_BLOCK, &watched, &original);
}

/* The status a shell gives for the signal that ended us: 130 for INT, 143 for TERM and HUP. */
static int signal_status(int sig)
{
    return sig == SIGINT ? 130 : 143;
}

void poll_signals(struct sealed *s)
{
    sigset_t stops = watched;
    sigdelset(&stops, SIGCHLD);
    struct timespec zero = {0, 0};
    int sig = sigtimedwait(&stops, NULL, &zero);
    if (sig > 0)
        sealed_exit(s, signal_status(sig));
}

static void child_fail(const char *what, const char *arg)
{
    char msg[512];
    int n = snprintf(msg, sizeof msg, "sealed-compile: %s%s: %s\n", what, arg, strerror(errno));
    write_all(2, msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    _exit(errno == ENOENT ? 127 : 126);
}

/* Soft CPU limit: SIGXCPU, which tells the breach apart; the hard one, 5 s later, SIGKILLs a
 * process that catches it. No core files. */
static int set_limits(const struct limits *lim)
{
    struct rlimit cpu = {lim->cpu_s, lim->cpu_s + 5}, core = {0, 0};
    struct rlimit as = {lim->mem_mb * 1024 * 1024, lim->mem_mb * 1024 * 1024};
    struct rlimit fsize = {lim->fsize_mb * 1024 * 1024, lim->fsize_mb * 1024 * 1024};
    return setrlimit(RLIMIT_CPU, &cpu) == 0 && setrlimit(RLIMIT_AS, &as) == 0 &&
           setrlimit(RLIMIT_FSIZE, &fsize) == 0 && setrlimit(RLIMIT_CORE, &core) == 0;
}

/* Who we become as root: nobody, with no groups, as `setpriv --reuid --regid --clear-groups`;
 * setresuid from root to another user also clears every capability. */
static int become_nobody(void)
{
    return setgroups(0, NULL) == 0 && setresgid(BOX_UID, BOX_UID, BOX_UID) == 0 &&
           setresuid(BOX_UID, BOX_UID, BOX_UID) == 0;
}

static void child_exec(const struct child_spec *c, int out_fd)
{
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &original, NULL);
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
        _exit(126);
    /* Nothing of ours but these three (make's jobserver, say) is the command's to hold. */
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0) != 0)
#endif
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    if (c->dir && chdir(c->dir) != 0)
        child_fail("cannot enter ", c->dir);
    if (c->lim && !set_limits(c->lim))
        child_fail("cannot set the limits", "");
    if (c->drop && !become_nobody())
        child_fail("cannot become nobody", "");
    execve(c->argv[0], c->argv, c->envp);
    child_fail("cannot run ", c->argv[0]);
}

/* Whether the child has ended, left unreaped (its group's id cannot be taken by another while it
 * is a zombie). */
static int ended(pid_t pid)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

/* Waits for the child, with the wall clock (wall_ms) and the signals to us. The status as a shell
 * gives it (128 + a signal's number), 124 where the wall clock stopped it. */
static int watch(struct sealed *s, pid_t pid, long long wall_ms)
{
    long long deadline = now_ms() + wall_ms, kill_at = 0;
    int timed_out = 0, stopped_by = 0, status;
    while (!ended(pid)) {
        long long now = now_ms(), next = kill_at ? kill_at : deadline;
        if (now >= next) {
            /* The child leads a process group of its own (as the script's timeout did): the
             * TERM reaches everything the command started there, and a KILL what is left after
             * KILL_AFTER_MS. Killing bwrap kills the box's pid 1 (--die-with-parent) and so
             * everything in the box, which is a session of its own. */
            timed_out |= !kill_at && !stopped_by;
            kill(-pid, kill_at ? SIGKILL : SIGTERM);
            kill_at = now + (kill_at ? 1000 : KILL_AFTER_MS);
            continue;
        }
        long long wait = next - now < 500 ? next - now : 500;
        struct timespec ts = {wait / 1000, (wait % 1000) * 1000000};
        int sig = sigtimedwait(&watched, NULL, &ts);
        if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && !stopped_by) {
            stopped_by = signal_status(sig); /* forwarded as the script's trap did: a TERM */
            kill(-pid, SIGTERM);
            if (!kill_at)
                kill_at = now_ms() + KILL_AFTER_MS;
        }
    }
    kill(-pid, SIGKILL); /* what the command left running in its group */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    s->child = 0;
    if (stopped_by)
        sealed_exit(s, stopped_by);
    if (timed_out)
        return 124;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int run_command(struct sealed *s, const struct child_spec *c, long long wall_ms)
{
    poll_signals(s);
    int out_fd = c->log_fd;
    pid_t pid = fork();
    if (pid < 0) {
        say(2, "sealed-compile: cannot start a process: %s", strerror(errno));
        sealed_exit(s, EXIT_GRADER);
    }
    if (pid == 0)
        child_exec(c, out_fd);
    setpgid(pid, pid);
    s->child = pid;
    return watch(s, pid, wall_ms);
}

/* argv's stdout and stderr (a tool's --help or --version), with our environment, as ourselves;
 * its status. */
int run_capture(struct sealed *s, char *const argv[], struct buf *out)
{
    int pipe_fd[2];
    out->n = 0;
    buf_add(out, NULL, 0);
    if (pipe2(pipe_fd, O_CLOEXEC) != 0)
        return -1;
    extern char **environ;
    struct child_spec c = {.argv = argv, .envp = environ, .log_fd = pipe_fd[1]};
    poll_signals(s);
    pid_t pid = fork();
    if (pid == 0)
        child_exec(&c, pipe_fd[1]);
    close(pipe_fd[1]);
    if (pid < 0) {
        close(pipe_fd[0]);
        return -1;
    }
    setpgid(pid, pid);
    s->child = pid;
    char chunk[4096];
    ssize_t k;
    while ((k = read(pipe_fd[0], chunk, sizeof chunk)) != 0)
        if (k > 0 && out->n < (1 << 20))
            buf_add(out, chunk, (size_t)k);
        else if (k < 0 && errno != EINTR)
            break;
    close(pipe_fd[0]);
    return watch(s, pid, 60 * 1000);
}

/* Whether nobody can reach dir (search every folder on the way): asked of the kernel, by a child
 * that becomes nobody. */
int nobody_can_search(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(become_nobody() && access(dir, X_OK) == 0 ? 0 : 1);
    int status;
    if (pid < 0)
        return 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
