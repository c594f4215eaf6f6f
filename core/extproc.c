/* extproc.c — external bots' processes (extproc.h).
 *
 *   - posix_spawn, not fork: the host has threads, and between a fork and an exec only async-signal-safe
 *     calls are allowed; glibc's posix_spawn makes none of ours. Our ends of the pipes are close-on-exec,
 *     and the child closes every descriptor above stderr whatever flags its owner gave it (another
 *     thread's file, a library's socket);
 *   - a process group of its own (kill(-pgid) reaches its children), signals unblocked, SIGPIPE, SIGINT
 *     and SIGTERM at their defaults;
 *   - the host is a child subreaper: the children of a bot that dies are reparented here, and reaped;
 *   - the leader is never reaped before its group is killed: its pid, held by the zombie, cannot have
 *     been given to another process that kill(-pgid) would then hit;
 *   - a write to a process that has gone would raise SIGPIPE: blocked in the writing thread and taken
 *     back, never delivered. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np, prctl */

#include "extproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TAIL_MAX 160    /* bytes of the last stderr line kept */
#define KEY_MAX 1024
#define LOT_MAX 16      /* processes a thread keeps parked */
#define LOT_GRACE_MS 500.0  /* for the parked, when the thread ends, to exit by themselves */

struct extproc {
    pid_t pid;
    int in, out, err;          /* our ends of its stdin, stdout, stderr; -1 once closed */
    double started;
    char key[KEY_MAX];
    char name[64];
    bool echo, echo_line_start;
    bool input_refused;              /* a write failed: it closed its stdin */
    char buf[EXTPROC_LINE_MAX + 2];  /* stdout read and not yet taken */
    size_t got, taken;               /* bytes in buf; bytes of the line last taken, dropped next call */
    char tail[TAIL_MAX], cur[TAIL_MAX];  /* stderr: the last whole line, the line being read */
    size_t cur_len;
};

double extproc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void pause_ms(void) {
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* =====================================================================================================
 * Starting and stopping
 * ===================================================================================================== */

/* A pipe with both ends above stderr, so that dup2 onto 0..2 always makes a fresh, inheritable copy. */
static bool make_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    for (int i = 0; i < 2; i++)
        if (fds[i] <= 2) {
            int high = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
            close(fds[i]);
            fds[i] = high;
        }
    if (fds[0] >= 0 && fds[1] >= 0) return true;
    close_fd(&fds[0]);
    close_fd(&fds[1]);
    return false;
}

static pthread_once_t subreaper_once = PTHREAD_ONCE_INIT;
static void become_subreaper(void) { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

static int spawn(pid_t *pid, char *const argv[], int in, int out, int err) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in, 0);
    posix_spawn_file_actions_adddup2(&fa, out, 1);
    posix_spawn_file_actions_adddup2(&fa, err, 2);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = strchr(argv[0], '/') ? posix_spawn(pid, argv[0], &fa, &attr, argv, environ)
                                  : posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

extproc *extproc_start(char *const argv[], const char *key, const char *name, bool echo, char *err, size_t errn) {
    pthread_once(&subreaper_once, become_subreaper);
    extproc *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
    int rc = make_pipe(in) && make_pipe(out) && make_pipe(er) ? spawn(&p->pid, argv, in[0], out[1], er[1]) : errno;
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&er[1]);
    if (rc != 0) {
        close_fd(&in[1]);
        close_fd(&out[0]);
        close_fd(&er[0]);
        snprintf(err, errn, "cannot start '%.200s': %s", argv[0], strerror(rc));
        free(p);
        return NULL;
    }
    p->in = in[1];
    p->out = out[0];
    p->err = er[0];
    fcntl(p->in, F_SETFL, O_NONBLOCK);
    fcntl(p->out, F_SETFL, O_NONBLOCK);
    fcntl(p->err, F_SETFL, O_NONBLOCK);
    p->started = extproc_now_ms();
    snprintf(p->key, sizeof p->key, "%s", key);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->echo = echo;
    p->echo_line_start = true;
    return p;
}

double extproc_started(const extproc *p) { return p->started; }

/* Kills the group, then reaps the leader and every member orphaned to us; bounded, as a member could be
 * stuck in the kernel. */
static void kill_and_reap(pid_t pid) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL); /* in case it left its group */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    double until = extproc_now_ms() + 1000;
    while (extproc_now_ms() < until) {
        if (waitpid(-pid, NULL, WNOHANG) > 0) continue;
        if (kill(-pid, 0) != 0) break; /* no member left */
        kill(-pid, SIGKILL);
        pause_ms();
    }
}

void extproc_stop(extproc *p, double grace_ms) {
    if (!p) return;
    close_fd(&p->in);
    /* Waits for its stdout to close (it exited), dropping what it writes meanwhile. */
    double until = extproc_now_ms() + grace_ms;
    extproc_result r = EXTPROC_DONE;
    while (grace_ms > 0 && r != EXTPROC_LATE && r != EXTPROC_CLOSED) {
        p->got = p->taken = 0;
        r = extproc_exchange(p, NULL, 0, true, until);
    }
    kill_and_reap(p->pid);
    close_fd(&p->out);
    close_fd(&p->err);
    free(p);
}

/* Whether it has exited (a zombie not yet reaped): looked at without reaping it. */
static bool exited(const extproc *p, siginfo_t *info) {
    memset(info, 0, sizeof *info);
    return waitid(P_PID, (id_t)p->pid, info, WEXITED | WNOHANG | WNOWAIT) == 0 && info->si_pid != 0;
}

/* =====================================================================================================
 * Talking
 * ===================================================================================================== */

/* A chunk of its stderr: to ours under echo, each line prefixed with [name]; its last line kept. */
static void take_stderr(extproc *p, const char *data, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = data[i];
        if (p->echo) {
            if (p->echo_line_start) fprintf(stderr, "[%s] ", p->name);
            fputc((unsigned char)c < 0x20 && c != '\n' && c != '\t' ? '?' : c, stderr);
            p->echo_line_start = c == '\n';
        }
        if (c == '\n') {
            if (p->cur_len) {
                memcpy(p->tail, p->cur, p->cur_len);
                p->tail[p->cur_len] = '\0';
            }
            p->cur_len = 0;
        } else if (p->cur_len + 1 < TAIL_MAX) {
            p->cur[p->cur_len++] = c;
        }
    }
}

/* Writes what it can of out[0..n) without raising SIGPIPE: the bytes written, or -1 (errno set). */
static ssize_t write_quietly(int fd, const char *out, size_t n) {
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w = write(fd, out, n);
    int saved = errno;
    if (w < 0 && saved == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return w;
}

extproc_result extproc_exchange(extproc *p, const char *out, size_t n, bool want_line, double deadline) {
    if (p->taken) { /* the line taken last is dropped now */
        memmove(p->buf, p->buf + p->taken, p->got - p->taken);
        p->got -= p->taken;
        p->taken = 0;
    }
    size_t sent = 0;
    for (;;) {
        bool writing = sent < n;
        if (!writing && (!want_line || memchr(p->buf, '\n', p->got))) return EXTPROC_DONE;
        if (want_line && p->got > EXTPROC_LINE_MAX) return EXTPROC_LONG;
        if (writing && p->in < 0) return EXTPROC_CLOSED;
        double left = deadline - extproc_now_ms();
        if (left <= 0) return EXTPROC_LATE;
        struct pollfd fds[3] = {{writing ? p->in : -1, POLLOUT, 0}, {want_line ? p->out : -1, POLLIN, 0},
                                {p->err, POLLIN, 0}};
        int ready = poll(fds, 3, left > 1e6 ? 1000000 : (int)left + 1);
        if (ready < 0 && errno != EINTR) return EXTPROC_CLOSED;
        if (ready <= 0) continue;
        if (fds[2].revents) {
            char chunk[4096];
            ssize_t r = read(p->err, chunk, sizeof chunk);
            if (r > 0) take_stderr(p, chunk, (size_t)r);
            else if (r == 0 || (errno != EAGAIN && errno != EINTR)) close_fd(&p->err);
        }
        if (fds[1].revents) {
            ssize_t r = read(p->out, p->buf + p->got, sizeof p->buf - 1 - p->got);
            if (r > 0) p->got += (size_t)r;
            else if (r == 0 || (errno != EAGAIN && errno != EINTR)) return EXTPROC_CLOSED;
        }
        if (fds[0].revents) {
            ssize_t w = write_quietly(p->in, out + sent, n - sent);
            if (w > 0) sent += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR) return p->input_refused = true, EXTPROC_CLOSED;
        }
    }
}

char *extproc_take_line(extproc *p, size_t *len) {
    char *nl = memchr(p->buf, '\n', p->got);
    if (!nl) {
        *len = 0;
        p->buf[0] = '\0';
        return p->buf;
    }
    *nl = '\0';
    *len = (size_t)(nl - p->buf);
    p->taken = *len + 1;
    return p->buf;
}

void extproc_describe_end(extproc *p, const char *when, char *out, size_t n) {
    siginfo_t info;
    double until = extproc_now_ms() + 100; /* it closed its output: its exit should follow */
    while (!exited(p, &info) && extproc_now_ms() < until) pause_ms();
    if (info.si_pid == 0) snprintf(out, n, "closed its %s %s", p->input_refused ? "input" : "output", when);
    else if (info.si_code == CLD_EXITED) snprintf(out, n, "exited with status %d %s", info.si_status, when);
    else {
        const char *abbrev = sigabbrev_np(info.si_status); /* strsignal is not thread-safe */
        snprintf(out, n, "was killed by signal %d (SIG%s) %s", info.si_status, abbrev ? abbrev : "?", when);
    }
    size_t len = strlen(out);
    if (p->tail[0] && len < n) {
        char quoted[TAIL_MAX + 8];
        size_t k = 0;
        for (const char *s = p->tail; *s && k < 60; s++) quoted[k++] = (unsigned char)*s < 0x20 ? '?' : *s;
        snprintf(quoted + k, sizeof quoted - k, "%s", strlen(p->tail) > k ? "..." : "");
        snprintf(out + len, n - len, "; its last line on stderr: '%s'", quoted);
    }
}

/* =====================================================================================================
 * Parking
 * ===================================================================================================== */

typedef struct lot {
    extproc *parked[LOT_MAX];
    int n;
} lot;

static pthread_key_t lot_key;
static pthread_once_t lot_once = PTHREAD_ONCE_INIT;

/* Stops every process parked: all told at once (stdin closed) that it is over, then given what is left of
 * one grace period to exit. */
static void lot_clear(void *data) {
    lot *l = data;
    if (!l) return;
    for (int i = 0; i < l->n; i++) close_fd(&l->parked[i]->in);
    double until = extproc_now_ms() + LOT_GRACE_MS;
    for (int i = 0; i < l->n; i++) {
        double left = until - extproc_now_ms();
        extproc_stop(l->parked[i], left > 0 ? left : 0);
    }
    free(l);
}

/* The main thread's key destructor never runs: its lot is cleared at exit. */
static void lot_clear_at_exit(void) {
    lot *l = pthread_getspecific(lot_key);
    pthread_setspecific(lot_key, NULL);
    lot_clear(l);
}

static void lot_init(void) {
    pthread_key_create(&lot_key, lot_clear);
    atexit(lot_clear_at_exit);
}

static lot *this_lot(void) {
    pthread_once(&lot_once, lot_init);
    lot *l = pthread_getspecific(lot_key);
    if (!l && (l = calloc(1, sizeof *l)) != NULL) pthread_setspecific(lot_key, l);
    return l;
}

void extproc_park(extproc *p) {
    lot *l = this_lot();
    if (!l) {
        extproc_stop(p, 0);
        return;
    }
    if (l->n == LOT_MAX) {
        extproc_stop(l->parked[0], 0);
        memmove(l->parked, l->parked + 1, sizeof l->parked[0] * (LOT_MAX - 1));
        l->n--;
    }
    p->got = p->taken = 0;
    l->parked[l->n++] = p;
}

extproc *extproc_unpark(const char *key, bool echo) {
    lot *l = this_lot();
    for (int i = 0; l && i < l->n; i++) {
        extproc *p = l->parked[i];
        if (strcmp(p->key, key) != 0 || p->echo != echo) continue;
        memmove(l->parked + i, l->parked + i + 1, sizeof l->parked[0] * (size_t)(l->n - i - 1));
        l->n--;
        siginfo_t info;
        if (!exited(p, &info)) return p;
        extproc_stop(p, 0);
        i--;
    }
    return NULL;
}
