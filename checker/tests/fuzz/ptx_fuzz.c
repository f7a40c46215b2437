/* libFuzzer over the PTX reader and the interpreter (make fuzz; docs/security.md): an input is PTX
 * text. It is read (ptx_parse); if it reads, its first kernel runs on a small grid with every
 * access traced and bounds-checked (ptx_run, emu_trace.c), as the runner runs a student's kernel,
 * and, if that launch ends well, once more with the tracer counting, as the judge's counting jobs
 * do. Built with AddressSanitizer and UndefinedBehaviorSanitizer, every report fatal: a report is
 * a bug of the interpreter's, whatever the PTX says, since the PTX comes from the student.
 *
 * A launch has a CPU budget (a kernel may loop for ever, which the runner ends at its CPU limit).
 * Past it, SIGPROF points the kernel at a copy of its instructions that are all `exit`: each warp
 * exits at its next instruction and the launch ends by itself, with whatever it reports (threads
 * left at a barrier, say). A siglongjmp out of the handler could land inside malloc, a sanitizer's
 * report or the tracer's realloc, and leave them broken: it made unfounded reports of its own (a
 * use after free, a jump to the stack, none of them seen again without it). Only the tracer's
 * fatal handler, called in the interpreter's own flow, leaves a launch by siglongjmp (as
 * checker/tests/test_ptx_run.c does). After a launch that failed, the tracer's logs of the
 * interval it stopped in are dropped: no runner launches again after a failure.
 *
 * Build and run: make fuzz (checker/tools/fuzz.sh), or by hand
 *   build/fuzz/ptx-fuzz -dict=checker/tests/fuzz/ptx.dict CORPUS_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "emu.h"
#include "ptx.h"
#include "ptx_exec.h"

/* Each buffer: ELEMS floats between guard zones of GUARD floats, as emu_job.c lays them out (at a
 * smaller scale): rows and cols are 33, a tile and one more. */
#define SIDE 33
#define ELEMS (SIDE * SIDE)
#define GUARD 1024
/* The launch: 2 x 2 blocks of 32 x 2 threads, two warps each. */
static const unsigned grid[3] = {2, 2, 1}, block[3] = {32, 2, 1};
/* CPU time a launch may take before it is ended (microseconds; WB_FUZZ_BUDGET_US sets another). */
static long budget_us = 50000;

enum { IN0, IN1, OUT, NBUF };
static float *buffer[NBUF];
static const char *const buffer_name[NBUF] = {"A", "B", "C"};

static sigjmp_buf leave;
/* The running kernel, and the copy of its instructions as `exit`s that SIGPROF puts in their place. */
static struct ptx_kernel *volatile running;
static struct ptx_insn *volatile exits;

static void over_budget(int sig)
{
    (void)sig;
    if (running && exits)
        running->insns = exits;
}

static void stop_run(const char *sentence)
{
    (void)sentence;
    siglongjmp(leave, 2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!freopen("/dev/null", "w", stdout)) /* a kernel's printf */
        abort();
    static struct emu_buffer given[NBUF];
    for (int b = 0; b < NBUF; b++) {
        float *base = aligned_alloc(256, ((ELEMS + 2 * GUARD) * sizeof(float) + 255) / 256 * 256);
        if (!base)
            abort();
        for (size_t i = 0; i < ELEMS + 2 * GUARD; i++)
            base[i] = (float)(i % 17) - 8.0f;
        buffer[b] = base + GUARD;
        given[b] = (struct emu_buffer){.begin = (const char *)buffer[b], .end = (const char *)(buffer[b] + ELEMS),
                                       .guard = GUARD * sizeof(float), .name = buffer_name[b], .read_only = b != OUT,
                                       .elem_bytes = 4};
    }
    emu_set_buffers(given, NBUF);
    if (getenv("WB_FUZZ_BUDGET_US") && atol(getenv("WB_FUZZ_BUDGET_US")) > 0)
        budget_us = atol(getenv("WB_FUZZ_BUDGET_US"));
    emu_set_fatal_handler(stop_run);
    struct sigaction sa = {0};
    sa.sa_handler = over_budget;
    sigaction(SIGPROF, &sa, NULL);
    return 0;
}

/* The kernel's parameter block, as the runner fills a contract's (inputs, the output, scalars):
 * every 8-byte parameter but the last a pointer to an input, the last the output, every 4-byte
 * one the side; anything else zeros. */
static void fill_params(const struct ptx_kernel *k, unsigned char *params, size_t len)
{
    memset(params, 0, len);
    int last_pointer = -1;
    for (int i = 0; i < k->nparams; i++)
        if (k->params[i].bytes == 8)
            last_pointer = i;
    int inputs = 0;
    for (int i = 0; i < k->nparams; i++) {
        const struct ptx_param *p = &k->params[i];
        if (p->offset < 0 || (size_t)p->offset + (size_t)(p->bytes > 0 ? p->bytes : 0) > len)
            continue; /* the reader's to refuse; nothing to write here */
        if (p->bytes == 8) {
            uint64_t v = (uint64_t)(uintptr_t)buffer[i == last_pointer ? OUT : inputs++ % 2];
            memcpy(params + p->offset, &v, 8);
        } else if (p->bytes == 4) {
            uint32_t v = SIDE;
            memcpy(params + p->offset, &v, 4);
        }
    }
}

/* One launch of k within the budget: its result, -1 where the tracer's fatal handler left it, -2
 * where the budget ended it. */
static int launch(struct ptx_kernel *k, const struct ptx_launch *L, int counting)
{
    static struct emu_line_counts lines[EMU_MAX_LINES];
    struct mem_counts counts;
    int nlines;
    volatile int rc = -1;
    struct ptx_insn *insns = k->insns, *copy = malloc(((size_t)k->ninsns + 1) * sizeof *copy);
    if (!copy)
        return -1;
    for (int i = 0; i < k->ninsns; i++) {
        copy[i] = insns[i];
        copy[i].op = OP_EXIT;
        copy[i].pred = -1; /* unguarded */
    }
    for (size_t i = 0; i < ELEMS; i++)
        buffer[OUT][i] = 0.0f;
    if (counting)
        emu_trace_start();
    struct itimerval budget = {{0, 0}, {budget_us / 1000000, budget_us % 1000000}}, off = {{0, 0}, {0, 0}};
    exits = copy;
    running = k;
    setitimer(ITIMER_PROF, &budget, NULL);
    if (sigsetjmp(leave, 1) == 0)
        rc = ptx_run(L);
    setitimer(ITIMER_PROF, &off, NULL);
    running = NULL;
    if (k->insns != insns)
        rc = -2;
    k->insns = insns;
    exits = NULL;
    free(copy);
    if (counting)
        emu_trace_stop(&counts, lines, &nlines);
    if (rc != 0) {
        emu_trace_reset_races();
        emu_trace_interval_end((int)(block[0] * block[1] * block[2]), 32);
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 18))
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    static struct ptx_module m;
    unsigned char params[256]; /* the runner's (ptx_runner.c) */
    /* A parameter block larger than the runner's is refused there before any launch. */
    if (ptx_parse(text, &m) == 0 && m.nkernels > 0 && m.kernels[0].param_bytes <= (int)sizeof params) {
        struct ptx_kernel *k = &m.kernels[0];
        fill_params(k, params, sizeof params);
        struct ptx_launch L = {.m = &m, .k = k, .grid = {grid[0], grid[1], grid[2]},
                               .block = {block[0], block[1], block[2]}, .params = params, .source = "fuzz.cu"};
        if (launch(k, &L, 0) == 0)
            launch(k, &L, 1);
    }
    ptx_free(&m);
    free(text);
    return 0;
}
