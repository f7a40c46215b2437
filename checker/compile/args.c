/* The command line, the limits from the environment, and the names SRC goes by. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sealed.h"

static void usage(struct sealed *s)
{
    say(2, "usage: build/tools/sealed-compile ptx|cubin SRC OUT [-- extra nvcc flags]");
    sealed_exit(s, EXIT_GRADER);
}

/* A limit from WB_SEALED_<name>, else its default: a positive whole number (at most 12 digits,
 * so that no product of it overflows). */
static unsigned long long limit(struct sealed *s, const char *var, const char *name, unsigned long long dflt)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return dflt;
    size_t n = strlen(v);
    int ok = v[0] >= '1' && v[0] <= '9' && n <= 12;
    for (size_t i = 0; ok && i < n; i++)
        ok = v[i] >= '0' && v[i] <= '9';
    if (!ok) {
        say(2, "sealed-compile: %s must be a positive whole number, not '%s'", name, v);
        sealed_exit(s, EXIT_GRADER);
    }
    return strtoull(v, NULL, 10);
}

void parse_limits(struct sealed *s)
{
    s->lim.cpu_s = limit(s, "WB_SEALED_CPU_S", "CPU_S", 60);
    /* Measured: every lesson solution compiles (ptx and cubin, nvcc 13.0) with RLIMIT_AS down to
     * ~160 MiB; the peak resident size is ~100 MB. 4 GiB is a 25x margin, and still far below
     * what an exponential macro or template takes. */
    s->lim.mem_mb = limit(s, "WB_SEALED_MEM_MB", "MEM_MB", 4096);
    s->lim.fsize_mb = limit(s, "WB_SEALED_FSIZE_MB", "FSIZE_MB", 16); /* a lesson's ptx is ~10 KB, its cubin ~70 KB */
    s->lim.wall_s = limit(s, "WB_SEALED_WALL_S", "WALL_S", 600);
    s->lim.nproc = limit(s, "WB_SEALED_NPROC", "NPROC", 256); /* threads count too; nvcc needs 5 at once */
}

static int names_arch(const char *flag)
{
    static const char *const arch[] = {"-arch", "--gpu-architecture", "-gencode", "--generate-code"};
    for (size_t i = 0; i < sizeof arch / sizeof arch[0]; i++)
        if (!strncmp(flag, arch[i], strlen(arch[i])))
            return 1;
    return 0;
}

void parse_args(struct sealed *s, int argc, char **argv)
{
    if (argc < 4)
        usage(s);
    s->mode = argv[1], s->src = argv[2], s->out = argv[3];
    int first_extra = 4;
    if (argc > 4) {
        if (strcmp(argv[4], "--") != 0)
            usage(s);
        first_extra = 5;
    }
    if (!*s->src || !*s->out)
        usage(s);
    int has_arch = 0;
    for (int i = first_extra; i < argc; i++)
        has_arch |= names_arch(argv[i]);
    argv_add(&s->flags, "-lineinfo");
    if (!strcmp(s->mode, "ptx")) {
        if (!has_arch)
            argv_add(&s->flags, "-arch=sm_90"); /* two -arch flags make nvcc warn */
    } else if (!strcmp(s->mode, "cubin")) {
        if (!has_arch) {
            say(2, "sealed-compile: cubin needs the GPU's architecture among the extra flags, e.g. -- -arch=sm_90");
            sealed_exit(s, EXIT_GRADER);
        }
        /* The same flags as ptx's (-O is host code's level, and a .cu compiled with -ptx or
         * -cubin has none): the cubin's first step is then a ptx call's, whose cached PTX it
         * reuses. */
        s->cubin = 1;
    } else {
        usage(s);
    }
    for (int i = first_extra; i < argc; i++)
        argv_add(&s->flags, argv[i]);
}

/* Characters safe inside a PTX string (a .file's name). */
static int safe_in_ptx(const char *p)
{
    if (!*p)
        return 0;
    for (; *p; p++)
        if (!(isascii((unsigned char)*p) && isalnum((unsigned char)*p)) && !strchr("[] '_./+,:=@%~#()-", *p))
            return 0;
    return 1;
}

/* SRC's names: as the messages give it (WB_SHOWN where SRC is the intake's copy of a student's
 * file, checker/include/intake.h; control characters would forge lines), and as the line tables
 * give it. */
void name_paths(struct sealed *s)
{
    const char *shown_env = getenv("WB_SHOWN");
    s->as = xstrdup(shown_env && *shown_env ? shown_env : s->src);
    s->shown = xstrdup(s->as);
    for (char *p = s->shown; *p; p++)
        if ((unsigned char)*p < 040 || *p == 0177)
            *p = '?';
    s->in_src = xstrdup("/box/kernel.cu");
    /* SRC's path as nvcc would have recorded it compiling SRC where it lies (cwd + SRC, not
     * normalized): the line tables then name the student's file, and the product is the unsealed
     * one but for two things: the mangled names of internal functions in .debug_str, which hash
     * the file's path, and, in a cubin's line table, the source's time and size (0: ptxas cannot
     * see SRC). Only a path that is safe inside a PTX string is put there. */
    char cwd[4096];
    if (s->as[0] == '/')
        s->abs_src = xstrdup(s->as);
    else
        s->abs_src = getcwd(cwd, sizeof cwd) ? xprintf("%s/%s", cwd, s->as) : xstrdup("");
    if (!safe_in_ptx(s->abs_src)) {
        free(s->abs_src);
        s->abs_src = xstrdup(s->in_src);
    }
}
