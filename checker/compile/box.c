/* The box: bubblewrap's namespaces around the compiler, and whether it can start here. Made only
 * when nvcc runs (a result-cache hit needs none). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed.h"

/* What nvcc needs, found with strace and by removing binds until it failed: the toolkit, gcc
 * (nvcc preprocesses with it) and the shared libraries of both, all under /usr. No /etc (but for
 * links on the way to the toolkit, below): without /etc/ld.so.cache the loader searches its
 * default folders, and that suffices. */
static void bind_system(struct argv *a)
{
    static const char *const tops[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    argv_add(a, "--ro-bind"), argv_add(a, "/usr"), argv_add(a, "/usr");
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
        char target[4096];
        ssize_t k = readlink(tops[i], target, sizeof target - 1);
        struct stat st;
        if (k >= 0) {
            target[k] = '\0';
            argv_add(a, "--symlink"), argv_add(a, target), argv_add(a, tops[i]);
        } else if (stat(tops[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            argv_add(a, "--ro-bind"), argv_add(a, tops[i]), argv_add(a, tops[i]);
        }
    }
}

/* Every link on the way from NVCC's path to the toolkit that lies outside what is bound
 * (NVIDIA's images: /usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0), made
 * again in the box: nvcc then runs, and names its headers, by the same path as outside. Nothing
 * of the host's /etc is shown. One link at a time, the first one on the path. */
static void links_to_toolkit(const char *nvcc, struct argv *links)
{
    char *p = xstrdup(nvcc);
    for (int round = 0; round < 40; round++) {
        struct buf at = {0};
        char target[4096];
        ssize_t k = -1;
        const char *rest = NULL;
        for (const char *c = p + 1; c;) {
            const char *slash = strchr(c, '/');
            size_t len = slash ? (size_t)(slash - c) : strlen(c);
            buf_printf(&at, "/%.*s", (int)len, c);
            rest = slash ? slash + 1 : NULL;
            if ((k = readlink(at.p, target, sizeof target - 1)) >= 0)
                break;
            c = rest;
        }
        if (k < 0) {
            buf_free(&at);
            break;
        }
        target[k] = '\0';
        if (outside_usr(at.p))
            argv_add(links, "--symlink"), argv_add(links, target), argv_add(links, at.p);
        char *dir = dir_name(at.p);
        char *next = target[0] == '/' ? xstrdup(target) : xprintf("%s/%s", dir, target);
        char *path = rest && *rest ? xprintf("%s/%s", next, rest) : xstrdup(next); /* (rest lies in p) */
        free(p), free(next), free(dir), buf_free(&at);
        p = path;
    }
    free(p);
}

static void box_arguments(struct sealed *s, const char *help)
{
    struct argv *a = &s->box_args;
    /* --unshare-all: no network, and its own pid, ipc, uts and cgroup namespaces. The user
     * namespace maps the compiler to nobody with no capabilities even when we are root. */
    argv_add(a, "--unshare-all"), argv_add(a, "--unshare-user");
    argv_add(a, "--uid"), argv_addf(a, "%d", BOX_UID), argv_add(a, "--gid"), argv_addf(a, "%d", BOX_UID);
    argv_add(a, "--cap-drop"), argv_add(a, "ALL"), argv_add(a, "--die-with-parent"), argv_add(a, "--new-session");
    if (strstr(help, "--clearenv"))
        argv_add(a, "--clearenv"); /* (its environment is empty anyway: execve's) */
    if (strstr(help, "--disable-userns"))
        argv_add(a, "--disable-userns"); /* no nested namespaces */
    bind_system(a);
    if (outside_usr(s->toolkit))
        argv_add(a, "--ro-bind"), argv_add(a, s->toolkit), argv_add(a, s->toolkit);
    /* Neither /proc nor /dev is needed; they are bwrap's own private ones (this box's processes
     * only; null, zero, random, tty), kept so that nvcc can find itself through /proc/self/exe on
     * other installations. */
    argv_add(a, "--proc"), argv_add(a, "/proc"), argv_add(a, "--dev"), argv_add(a, "/dev");
    /* Temporary files live in memory: bounded as a whole, and each one by RLIMIT_FSIZE. */
    if (strstr(help, "--size"))
        argv_add(a, "--size"), argv_addf(a, "%llu", 16 * s->lim.fsize_mb * 1024 * 1024);
    argv_add(a, "--tmpfs"), argv_add(a, "/tmp");
    links_to_toolkit(s->nvcc, a);
    argv_add(a, "--setenv"), argv_add(a, "PATH"), argv_addf(a, "%s/bin:/usr/local/bin:/usr/bin:/bin", s->toolkit);
    argv_add(a, "--setenv"), argv_add(a, "HOME"), argv_add(a, "/tmp");
}

/* run_box DIR CMD...: CMD in the box with DIR as its only writable folder (/box there), its
 * output in s->log and its status in s->rc. With pre_drop, the box's processes are nobody's.
 * The limits bind bwrap and all it starts; RLIMIT_NPROC alone is set inside the new user
 * namespace (by prlimit), where it counts this box's processes only; set outside, it would
 * count all of the user's processes. */
void run_box(struct sealed *s, const char *dir, char *const cmd[])
{
    struct argv argv = {0}, env = {0};
    char *log = xprintf("%s/log", s->tmp);
    if (s->sealed) {
        argv_add(&argv, s->bwrap);
        for (int i = 0; i < s->box_args.n; i++)
            argv_add(&argv, s->box_args.v[i]);
        const char *tail[] = {"--bind", dir, "/box", "--chdir", "/box", "--", s->prlimit};
        for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
            argv_add(&argv, tail[i]);
        argv_addf(&argv, "--nproc=%llu", s->lim.nproc);
        argv_add(&argv, "--");
    } else {
        argv_addf(&env, "PATH=%s/bin:/usr/local/bin:/usr/bin:/bin", s->toolkit);
        argv_addf(&env, "HOME=%s", dir);
    }
    for (int i = 0; cmd[i]; i++)
        argv_add(&argv, cmd[i]);
    static char *const no_env[] = {NULL}; /* sealed: env -i */
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        say(2, "sealed-compile: cannot write %s", log);
        sealed_exit(s, EXIT_GRADER);
    }
    struct child_spec c = {.argv = argv.v, .envp = env.n ? env.v : no_env, .dir = dir, .lim = &s->lim, .drop = s->pre_drop, .log_fd = fd};
    s->rc = run_command(s, &c, s->wall_left_ms);
    close(fd);
    if (!read_plain(log, (size_t)1 << 30, &s->log))
        s->log.n = 0;
    free(log);
    for (int i = 0; i < argv.n; i++)
        free(argv.v[i]);
    for (int i = 0; i < env.n; i++)
        free(env.v[i]);
    free(argv.v), free(env.v);
}

/* The box as nobody's, its copy root's (as nobody cannot replace it). */
static void hand_box_over(struct sealed *s)
{
    char *copy = xprintf("%s/kernel.cu", s->box);
    chown_tree(s->box, BOX_UID, BOX_UID);
    if (lchown(copy, 0, (gid_t)-1) != 0) {
        say(2, "sealed-compile: cannot hand the box to nobody");
        sealed_exit(s, EXIT_GRADER);
    }
    free(copy);
}

/* Whether the box can start, as nobody when we are root, else as ourselves (no capabilities,
 * nobody inside, but uid 0 outside: unprivileged user namespaces are off for nobody on some
 * machines). Sets s->sealed; a why for the sentence where it cannot. */
static char *probe(struct sealed *s)
{
    char *const truth[] = {"/bin/true", NULL};
    s->pre_drop = s->drop;
    run_box(s, s->box, truth);
    if (s->rc != 0 && s->drop) {
        s->pre_drop = 0;
        chown_tree(s->box, 0, 0); /* nobody inside is uid 0 outside now, without the power to override */
        run_box(s, s->box, truth);
    }
    if (s->rc == 0)
        return NULL;
    struct buf said = {0};
    buf_add(&said, NULL, 0);
    for (size_t i = 0; i < s->log.n && i < 300; i++) {
        char ch = s->log.p[i] == '\n' ? ' ' : s->log.p[i];
        if ((unsigned char)ch >= 040)
            buf_add(&said, &ch, 1);
    }
    s->sealed = 0;
    return xprintf("bubblewrap cannot make its box here (%s): allow unprivileged user namespaces (sysctl "
                   "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; on Ubuntu 24.04 "
                   "kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in a "
                   "container, one started with user namespaces allowed)",
                   said.p);
}

void make_box(struct sealed *s)
{
    char *why = NULL;
    if (s->drop)
        hand_box_over(s);
    s->wall_left_ms = (long long)s->lim.wall_s * 1000;
    s->start_ms = now_ms();
    s->sealed = 1;
    s->bwrap = find_on_path("bwrap");
    if (!s->bwrap) {
        why = xstrdup("bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap, dnf install bubblewrap)");
        s->sealed = 0;
    } else {
        if (!(s->prlimit = find_on_path("prlimit"))) {
            say(2, "sealed-compile: prlimit is missing: install util-linux");
            sealed_exit(s, EXIT_GRADER);
        }
        struct buf help = {0};
        char *const ask[] = {s->bwrap, "--help", NULL};
        run_capture(s, ask, &help);
        box_arguments(s, help.p);
        buf_free(&help);
        why = probe(s);
    }
    if (s->sealed) {
        s->box_path = xstrdup("/box");
        return;
    }
    if (!getenv("WB_UNSEALED_OK") || strcmp(getenv("WB_UNSEALED_OK"), "1") != 0) {
        say(2, "sealed-compile: %s; or set WB_UNSEALED_OK=1 to compile without the box.", why);
        sealed_exit(s, EXIT_GRADER);
    }
    say(1, "sealed-compile: %s is compiled with limits but NOT sealed (WB_UNSEALED_OK=1): %s.", s->shown, why);
    s->pre_drop = s->drop;
    s->box_path = xstrdup(s->box);
    if (s->drop)
        hand_box_over(s); /* (the probe's fallback took it back) */
    free(why);
}
