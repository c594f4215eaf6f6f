/* extproc.h — the child process behind an external bot (extbot.h): started, talked to in lines under a
 * deadline, stopped, and parked between games.
 *
 * A process runs contained (a cgroup v2 group and a PID namespace of its own where meeple may make
 * them, a process group always: extproc_containment) with only stdin, stdout and stderr open (pipes to
 * us); stopping it kills everything it started and reaps them, so no process or zombie stays, and it
 * dies with meeple. Reads
 * and writes wait in poll() until a deadline; its stderr is drained meanwhile so it can never block on
 * it, and only its last line is kept. A process that may play again is parked with the thread that ran
 * it and taken back by the next game of the same bot in that thread; what a thread leaves parked is
 * stopped when the thread ends or the program exits. */
#ifndef MEEPLE_EXTPROC_H
#define MEEPLE_EXTPROC_H

#include <stdbool.h>
#include <stddef.h>

#define EXTPROC_LINE_MAX 4096   /* bytes in a line read from a process, its newline excluded */

typedef struct extproc extproc;

/* Starts argv[0] with argv (searched on PATH when it has no '/'; never through a shell), contained
 * (extproc_containment) and with every process of it capped at `memory` bytes of address space
 * (RLIMIT_AS; 0: no cap). `echo`: its
 * stderr is copied to ours, each line prefixed with [name]; else it is read and dropped. NULL and one
 * line in `err` when it cannot start. `key` names the bot, for parking. */
extproc *extproc_start(char *const argv[], const char *key, const char *name, bool echo, size_t memory, char *err,
                       size_t errn);

typedef enum {
    EXTPROC_DONE,    /* all written and, when asked, a whole line is there */
    EXTPROC_LATE,    /* the deadline passed */
    EXTPROC_CLOSED,  /* it closed its stdin or stdout: it exited, most likely */
    EXTPROC_LONG,    /* the line read is longer than EXTPROC_LINE_MAX */
    EXTPROC_EARLY,   /* a line came before the question was all written: it does not read its input */
    EXTPROC_STOPPED  /* extproc_interrupt asked every wait to end */
} extproc_result;

/* Writes out[0..n) and, when `want_line`, waits until a whole line has been read; gives up at `deadline`
 * (timing_now_ms's clock). */
extproc_result extproc_exchange(extproc *p, const char *out, size_t n, bool want_line, double deadline);

/* The next line read (after EXTPROC_DONE with want_line), its newline removed, valid until the next
 * call; the line is consumed. */
char *extproc_take_line(extproc *p, size_t *len);

/* How it ended, looked at without reaping it: "exited with status 1 WHEN", "was killed by signal 11
 * (SIGSEGV) WHEN", "closed its output WHEN" (still running); then its last stderr line. */
void extproc_describe_end(extproc *p, const char *when, char *out, size_t n);

/* When it started (timing_now_ms's clock). */
double extproc_started(const extproc *p);

/* Closes its stdin, gives it `grace_ms` to exit (what it writes is dropped), then kills its group,
 * reaps it and frees `p`. NULL is fine. */
void extproc_stop(extproc *p, double grace_ms);

/* Keeps `p` for the next game of the same bot in this thread (the oldest parked is stopped when there
 * are too many). */
void extproc_park(extproc *p);

/* A parked process of this thread started with `key` and `echo` that still runs, or NULL. */
extproc *extproc_unpark(const char *key, bool echo);

/* How bots are contained on this machine: "cgroup+pidns", "cgroup", "pidns" or "group" (a process group
 * only; docs/protocol.md says what that cannot guarantee). MEEPLE_CONTAINMENT=group forces the last. */
const char *extproc_containment(void);

/* Asks every wait on a process, in every thread, to end with EXTPROC_STOPPED within 50 ms (on) or lets
 * them wait again (off). Async-signal-safe: a signal handler calls it. */
void extproc_interrupt(bool on);

#endif
