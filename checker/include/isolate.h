/* Running untrusted work (a student's kernel) in a child process with a time limit, so a
 * crash or a hang becomes a sentence in the report instead of the end of the checker. */
#ifndef WB_ISOLATE_H
#define WB_ISOLATE_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum isolate_outcome {
    ISOLATE_EXITED,    /* returned; status holds the exit code */
    ISOLATE_SIGNALED,  /* killed by a signal it raised itself; status holds the signal */
    ISOLATE_TIMED_OUT, /* still running at the limit, then killed */
    ISOLATE_OUT_OF_CPU, /* stopped by its CPU-time limit (set by the caller; budget says how it was set) */
    ISOLATE_NOT_STARTED
};

struct isolate_result {
    enum isolate_outcome outcome;
    int status;
    double seconds;  /* wall time until it ended or was killed */
    double cpu_seconds; /* CPU time the child (and what it waited for) used */
    char output[8192]; /* the start of what the child printed (stdout and stderr): more than a
                        * report quotes of it (quote.h) */
    size_t output_len;
    int output_cut;    /* 1 when the child printed more than output holds */
    size_t output_bytes, output_lines; /* what it printed in all (a last line without a newline counted) */
    int start_errno;   /* ISOLATE_NOT_STARTED: why */
    double cpu_limit;  /* the CPU-time limit the caller set, 0 for none */
    char budget[160];  /* ISOLATE_OUT_OF_CPU: how the limit was set, for the report */
};

/* Runs fn(arg) in a forked child whose exit code is fn's return value. The child's stdout and
 * stderr go to a private temporary file, returned in r->output, so nothing it prints can pass
 * for the checker's own report. Memory the child must hand back has to be MAP_SHARED. */
void run_isolated(int (*fn)(void *), void *arg, double timeout_s, struct isolate_result *r);

/* The same in two steps, so that two children can run at once: start (0, or -1 with r saying
 * why), then wait for it. */
struct isolate_child {
    pid_t pid;
    FILE *capture;
    double t0;
};
int isolate_start(int (*fn)(void *), void *arg, struct isolate_child *c, struct isolate_result *r);
void isolate_wait(struct isolate_child *c, double timeout_s, struct isolate_result *r);
/* Seconds since the child started, as its time limit counts them. */
double isolate_elapsed(const struct isolate_child *c);
/* Seconds the child spent waiting for its caller (for a lock, say): not counted against its limit. */
void isolate_pause(struct isolate_child *c, double seconds);
/* 1 when the child has ended (it is left for isolate_wait to collect). */
int isolate_ended(const struct isolate_child *c);

/* In a child about to exec: closes every descriptor from `lowest` up, so that nothing its
 * callers hold (a grading's lock, say) passes to a program that may outlive them. */
void isolate_close_from(int lowest);

/* A sentence for an outcome that is not a normal exit, e.g. "no answer in 10 s ...". */
const char *isolate_describe(const struct isolate_result *r, char *buf, size_t len);

#endif
