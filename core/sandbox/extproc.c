/* extproc.c — external bots' processes (extproc.h).
 *
 *   - clone3, not posix_spawn: it starts the child straight into its cgroup (CLONE_INTO_CGROUP: no
 *     moment outside it) and its PID namespace. The host has threads, so between the clone and the exec
 *     the child makes system calls only (child()); the program is looked up on PATH before. Our ends of
 *     the pipes are close-on-exec, and the child closes every descriptor above stderr at exec whatever
 *     flags its owner gave it (another thread's file, a library's socket);
 *   - a process group of its own (kill(-pgid) reaches its children), signals unblocked and at their
 *     defaults, PR_SET_PDEATHSIG, an address-space cap;
 *   - the host is a child subreaper: the children of a bot that dies are reparented here, and reaped
 *     (reap_adopted) when a bot starts or stops;
 *   - the leader is never reaped before its group is killed: its pid, held by the zombie, cannot have
 *     been given to another process that kill(-pgid) would then hit;
 *   - a write to a process that has gone would raise SIGPIPE: blocked in the writing thread and taken
 *     back, never delivered. */
#define _GNU_SOURCE /* pipe2, prctl, clone3, close_range */

#include "sandbox/extproc.h"
#include "host/timing.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/sched.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/close_range.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TAIL_MAX 160    /* bytes of the last stderr line kept */
#define KEY_MAX 1024
#define LOT_MAX 16      /* processes a thread keeps parked */
#define LOT_GRACE_MS 500.0  /* for the parked, when the thread ends, to exit by themselves */
#define INTERRUPT_MS 50      /* the longest a wait goes without looking for a stop */
#define LEADERS_MAX 1024    /* bots running at once */

struct extproc {
    pid_t pid;
    char group[PATH_MAX];      /* its cgroup, "" without */
    size_t memory;             /* its address-space cap, bytes; 0: none */
    int status_fd;             /* in a PID namespace: where its init sends the bot's wait status; else -1 */
    int status;                /* that status, once read */
    bool status_known;
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

static void pause_ms(void) {
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
}

/* The bots' leaders that run: never reaped by reap_adopted (their zombie holds the pid of the group). */
static pid_t leaders[LEADERS_MAX];

static volatile sig_atomic_t interrupted;
void extproc_interrupt(bool on) { interrupted = on; }

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

/* ---- Containment ----
 *
 * Each bot runs in a cgroup v2 group of its own when meeple may create one under its own group (a
 * root, or a user given a delegated subtree): writing 1 to its cgroup.kill ends every process in it,
 * whatever they did to their session or process group, and the group is removed after. As a root, the
 * bot is also the first process of a PID namespace of its own: when it dies the kernel kills
 * everything it started, even when meeple itself was killed with SIGKILL (the bot dies with meeple:
 * PR_SET_PDEATHSIG). Without either, a process group and the subreaper are all there is: see
 * docs/protocol.md for what that cannot guarantee. */

static pid_t clone_into(uint64_t flags, int cgroup);

static struct {
    char base[PATH_MAX - 64];  /* meeple's own group for its bots ("" without cgroups) */
    bool pidns;           /* CLONE_NEWPID is allowed */
    int lifeline[2];      /* a pipe held open by meeple: a child sees its parent is gone by its hang-up */
    pid_t session, group;
    long next;            /* bot groups made */
    pthread_mutex_t lock;
} box = {.lifeline = {-1, -1}, .lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t box_once = PTHREAD_ONCE_INIT;

/* The cgroup2 mount point and meeple's group in it: "MOUNT/GROUP" in `out`, or false. */
static bool own_cgroup(char *out, size_t n) {
    char line[PATH_MAX + 512], group[PATH_MAX] = "", mount[PATH_MAX] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0) sscanf(line + 3, "%4095s", group);
    if (f) fclose(f);
    f = fopen("/proc/self/mountinfo", "re");
    while (f && fgets(line, sizeof line, f)) {
        char root[PATH_MAX], point[PATH_MAX];
        const char *dash = strstr(line, " - cgroup2 ");
        if (dash && sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) == 2 && strcmp(root, "/") == 0) {
            snprintf(mount, sizeof mount, "%s", point);
            break;
        }
    }
    if (f) fclose(f);
    if (!group[0] || !mount[0]) return false;
    return snprintf(out, n, "%s%s", mount, strcmp(group, "/") == 0 ? "" : group) < (int)n;
}

/* Reads cgroup.procs of `dir` into pids[0..max): how many. */
static int group_pids(const char *dir, pid_t *pids, int max) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    int k = 0;
    long pid;
    while (f && k < max && fscanf(f, "%ld", &pid) == 1) pids[k++] = (pid_t)pid;
    if (f) fclose(f);
    return k;
}

static bool write_file(const char *dir, const char *file, const char *text) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* Kills everything in the bot group `dir` and removes it (bounded: a process may be stuck in the kernel). */
static void group_end(const char *dir) {
    write_file(dir, "cgroup.kill", "1");
    double until = timing_now_ms() + 1000;
    while (rmdir(dir) != 0 && errno == EBUSY && timing_now_ms() < until) {
        pid_t pids[64];
        int k = group_pids(dir, pids, 64);
        for (int i = 0; i < k; i++) kill(pids[i], SIGKILL);
        pause_ms();
    }
}

/* The groups a meeple killed with SIGKILL left behind: "meeple-PID" whose PID is gone. */
static void remove_stale_groups(const char *parent) {
    DIR *d = opendir(parent);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        long pid;
        char rest;
        if (sscanf(e->d_name, "meeple-%ld%c", &pid, &rest) != 1 || pid <= 0) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char dir[PATH_MAX + 300];
        snprintf(dir, sizeof dir, "%s/%s", parent, e->d_name);
        DIR *inner = opendir(dir);
        struct dirent *b;
        while (inner && (b = readdir(inner)) != NULL)
            if (strncmp(b->d_name, "bot-", 4) == 0) {
                char sub[PATH_MAX + 600];
                snprintf(sub, sizeof sub, "%s/%s", dir, b->d_name);
                group_end(sub);
            }
        if (inner) closedir(inner);
        rmdir(dir);
    }
    if (d) closedir(d);
}

static void box_remove(void) {
    if (box.base[0]) rmdir(box.base);
}

static void box_init(void) {
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    box.session = getsid(0);
    box.group = getpgrp();
    if (pipe2(box.lifeline, O_CLOEXEC) != 0) box.lifeline[0] = box.lifeline[1] = -1;
    const char *mode = getenv("MEEPLE_CONTAINMENT"); /* tests force the fallback: "group" */
    bool fallback = mode && strcmp(mode, "group") == 0;
    char own[PATH_MAX - 128];
    if (!fallback && own_cgroup(own, sizeof own)) {
        remove_stale_groups(own);
        snprintf(box.base, sizeof box.base, "%s/meeple-%ld", own, (long)getpid());
        char probe[PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/cgroup.kill", box.base);
        if (mkdir(box.base, 0755) != 0 && errno != EEXIST) box.base[0] = '\0';
        else if (access(probe, W_OK) != 0) {
            rmdir(box.base);
            box.base[0] = '\0';
        } else {
            atexit(box_remove);
        }
    }
    /* Whether this process may make a PID namespace: a child made in one, that exits at once. */
    pid_t probe_pid = fallback ? -1 : clone_into(CLONE_NEWPID, -1);
    if (probe_pid == 0) _exit(0);
    if (probe_pid > 0)
        while (waitpid(probe_pid, NULL, 0) < 0 && errno == EINTR) {
        }
    box.pidns = probe_pid > 0;
}

const char *extproc_containment(void) {
    pthread_once(&box_once, box_init);
    return box.base[0] ? (box.pidns ? "cgroup+pidns" : "cgroup") : box.pidns ? "pidns" : "group";
}

/* Reaps the children adopted from bots that have exited: those not in meeple's own session and process
 * group (meeple's other children, as compare's, are), and not a running bot's leader (kept until its
 * group is killed). */
static void reap_adopted(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)getpid());
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char file[PATH_MAX];
        snprintf(file, sizeof file, "%s/%s/children", path, e->d_name);
        FILE *f = fopen(file, "re");
        long pid;
        while (f && fscanf(f, "%ld", &pid) == 1) {
            char stat[64], text[512];
            snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
            FILE *s = fopen(stat, "re");
            size_t got = s ? fread(text, 1, sizeof text - 1, s) : 0;
            if (s) fclose(s);
            text[got] = '\0';
            const char *close = strrchr(text, ')');
            char state;
            long pgrp, session;
            if (!close || sscanf(close + 1, " %c %*d %ld %ld", &state, &pgrp, &session) != 3) continue;
            if (state != 'Z' || (session == box.session && pgrp == box.group)) continue;
            pthread_mutex_lock(&box.lock);
            bool leader = false;
            for (int i = 0; i < LEADERS_MAX && !leader; i++) leader = leaders[i] == (pid_t)pid;
            pthread_mutex_unlock(&box.lock);
            if (!leader) waitpid((pid_t)pid, NULL, WNOHANG);
        }
        if (f) fclose(f);
    }
    if (d) closedir(d);
}

/* ---- Starting ---- */

/* Resolves argv[0] on PATH (before the fork: execvp may allocate). */
static bool find_program(const char *name, char *out, size_t n) {
    if (strchr(name, '/')) return snprintf(out, n, "%s", name) < (int)n;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        if (snprintf(out, n, "%.*s%s%s", (int)len, path, len ? "/" : "", name) < (int)n && access(out, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* The first process of a bot's PID namespace, when it has one: starts the bot as its child, reaps
 * whatever is orphaned to it, and when the bot ends sends its wait status on `status` and exits, which
 * makes the kernel kill everything left in the namespace. The bot itself is then not the namespace's
 * init, whose signals (kill -SEGV $$, abort) would be ignored. Never returns. */
static void namespace_init(pid_t bot, int status) {
    int bot_status = 0;
    pid_t w;
    /* The bot holds the pipes; here, only `status` stays open (a stdout held here would never close). */
    if (status > 0) syscall(SYS_close_range, 0U, (unsigned)status - 1, 0U);
    syscall(SYS_close_range, (unsigned)status + 1, ~0U, 0U);
    while ((w = wait4(-1, &bot_status, 0, NULL)) != bot)
        if (w < 0 && errno != EINTR) _exit(0);
    ssize_t wr = write(status, &bot_status, sizeof bot_status);
    (void)wr;
    _exit(0);
}

/* In the child, before exec: only system calls (the host has threads). Never returns. */
static void child(const char *prog, char *const argv[], const int fds[3], int report, int status, size_t memory) {
    setpgid(0, 0); /* the init and the bot share it, out of the terminal's reach */
    if (getpid() == 1) { /* a new PID namespace: its init stays, the bot is its child */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        struct pollfd alive = {box.lifeline[0], POLLIN, 0};
        if (box.lifeline[0] >= 0 && poll(&alive, 1, 0) > 0 && (alive.revents & POLLHUP)) _exit(127);
        pid_t bot = clone_into(0, -1);
        if (bot < 0) goto fail;
        if (bot > 0) namespace_init(bot, status);
    }
    close(status);
    for (int i = 0; i < 3; i++)
        if (dup2(fds[i], i) < 0) goto fail;
    close(box.lifeline[1]);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Dies with the thread that started it; the lifeline's hang-up says that thread's process died
     * before the request was made. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) goto fail;
    struct pollfd alive = {box.lifeline[0], POLLIN, 0};
    if (box.lifeline[0] >= 0 && poll(&alive, 1, 0) > 0 && (alive.revents & POLLHUP)) _exit(127);
    if (memory) {
        struct rlimit cap = {memory, memory};
        if (setrlimit(RLIMIT_AS, &cap) != 0) goto fail;
    }
    syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
    execve(prog, argv, environ);
fail:;
    int e = errno;
    ssize_t w = write(report, &e, sizeof e);
    (void)w;
    _exit(127);
}

static pid_t clone_into(uint64_t flags, int cgroup) {
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = flags | (cgroup >= 0 ? CLONE_INTO_CGROUP : 0);
    args.exit_signal = SIGCHLD;
    args.cgroup = cgroup >= 0 ? (uint64_t)cgroup : 0;
    return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

/* Starts the child in its own group (and namespace) when it can: its pid, or -1 with errno. */
static pid_t spawn(char *const argv[], const int fds[3], size_t memory, char *group, size_t groupn, int *status_fd,
                   int *rc) {
    char prog[PATH_MAX];
    *status_fd = -1;
    if (!find_program(argv[0], prog, sizeof prog)) return *rc = ENOENT, -1;
    int report[2], status[2];
    if (pipe2(report, O_CLOEXEC) != 0) return *rc = errno, -1;
    if (pipe2(status, O_CLOEXEC) != 0) {
        close(report[0]);
        close(report[1]);
        return *rc = errno, -1;
    }
    int cg = -1;
    group[0] = '\0';
    if (box.base[0]) {
        pthread_mutex_lock(&box.lock);
        long k = box.next++;
        pthread_mutex_unlock(&box.lock);
        snprintf(group, groupn, "%s/bot-%ld", box.base, k);
        if (mkdir(group, 0755) == 0) cg = open(group, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cg < 0) group[0] = '\0';
    }
    /* Both; then without the group (it could not be joined); then without the namespace either. */
    pid_t pid = clone_into(box.pidns ? CLONE_NEWPID : 0, cg);
    if (pid < 0 && cg >= 0) {
        close(cg);
        cg = -1;
        rmdir(group);
        group[0] = '\0';
        pid = clone_into(box.pidns ? CLONE_NEWPID : 0, -1);
    }
    if (pid < 0 && box.pidns) {
        box.pidns = false;
        pid = clone_into(0, -1);
    }
    if (pid == 0) child(prog, argv, fds, report[1], status[1], memory);
    int e = errno;
    close(status[1]);
    if (pid < 0 || !box.pidns) close(status[0]);
    else *status_fd = status[0];
    if (cg >= 0) close(cg);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        if (group[0]) rmdir(group);
        group[0] = '\0';
        return *rc = e, -1;
    }
    int child_errno = 0;
    ssize_t r;
    while ((r = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (r == (ssize_t)sizeof child_errno) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        if (group[0]) rmdir(group);
        group[0] = '\0';
        return *rc = child_errno, -1;
    }
    return pid;
}

extproc *extproc_start(char *const argv[], const char *key, const char *name, bool echo, size_t memory, char *err,
                       size_t errn) {
    pthread_once(&box_once, box_init);
    reap_adopted();
    extproc *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    p->status_fd = -1;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
    int rc = 0;
    pid_t pid = -1;
    if (make_pipe(in) && make_pipe(out) && make_pipe(er)) {
        int fds[3] = {in[0], out[1], er[1]};
        pid = spawn(argv, fds, memory, p->group, sizeof p->group, &p->status_fd, &rc);
    } else {
        rc = errno;
    }
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&er[1]);
    if (pid < 0) {
        close_fd(&in[1]);
        close_fd(&out[0]);
        close_fd(&er[0]);
        snprintf(err, errn, "cannot start '%.200s': %s", argv[0], strerror(rc));
        free(p);
        return NULL;
    }
    p->pid = pid;
    p->memory = memory;
    pthread_mutex_lock(&box.lock);
    for (int i = 0; i < LEADERS_MAX; i++)
        if (leaders[i] == 0) {
            leaders[i] = pid;
            break;
        }
    pthread_mutex_unlock(&box.lock);
    p->in = in[1];
    p->out = out[0];
    p->err = er[0];
    fcntl(p->in, F_SETFL, O_NONBLOCK);
    fcntl(p->out, F_SETFL, O_NONBLOCK);
    fcntl(p->err, F_SETFL, O_NONBLOCK);
    if (p->status_fd >= 0) fcntl(p->status_fd, F_SETFL, O_NONBLOCK);
    p->started = timing_now_ms();
    snprintf(p->key, sizeof p->key, "%s", key);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->echo = echo;
    p->echo_line_start = true;
    return p;
}

double extproc_started(const extproc *p) { return p->started; }

/* Kills its cgroup (or its process group), then reaps the leader and every member orphaned to us;
 * bounded, as a member could be stuck in the kernel. In a PID namespace the leader's death ends the rest. */
static void kill_and_reap(extproc *p) {
    pid_t pid = p->pid;
    if (p->group[0]) write_file(p->group, "cgroup.kill", "1");
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL); /* in case it left its group */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    pthread_mutex_lock(&box.lock);
    for (int i = 0; i < LEADERS_MAX; i++)
        if (leaders[i] == pid) leaders[i] = 0;
    pthread_mutex_unlock(&box.lock);
    double until = timing_now_ms() + 1000;
    while (timing_now_ms() < until) {
        if (waitpid(-pid, NULL, WNOHANG) > 0) continue;
        if (kill(-pid, 0) != 0) break; /* no member left */
        kill(-pid, SIGKILL);
        pause_ms();
    }
    if (p->group[0]) group_end(p->group);
    reap_adopted();
}

void extproc_stop(extproc *p, double grace_ms) {
    if (!p) return;
    close_fd(&p->in);
    /* Waits for its stdout to close (it exited), dropping what it writes meanwhile. */
    double until = timing_now_ms() + grace_ms;
    extproc_result r = EXTPROC_DONE;
    while (grace_ms > 0 && r == EXTPROC_DONE) {
        p->got = p->taken = 0;
        r = extproc_exchange(p, NULL, 0, true, until);
    }
    kill_and_reap(p);
    close_fd(&p->out);
    close_fd(&p->err);
    close_fd(&p->status_fd);
    free(p);
}

/* Whether it has exited (a zombie not yet reaped): looked at without reaping it. */
static bool exited(extproc *p, siginfo_t *info) {
    memset(info, 0, sizeof *info);
    if (p->status_fd < 0)
        return waitid(P_PID, (id_t)p->pid, info, WEXITED | WNOHANG | WNOWAIT) == 0 && info->si_pid != 0;
    /* In a namespace, the bot is its init's child: the init sends its status. */
    if (!p->status_known) {
        int st;
        if (read(p->status_fd, &st, sizeof st) == (ssize_t)sizeof st) p->status = st, p->status_known = true;
    }
    if (!p->status_known) return false;
    info->si_pid = p->pid;
    info->si_code = WIFEXITED(p->status) ? CLD_EXITED : CLD_KILLED;
    info->si_status = WIFEXITED(p->status) ? WEXITSTATUS(p->status) : WTERMSIG(p->status);
    return true;
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
    siginfo_t zombie = {0};
    if (waitid(P_ALL, 0, &zombie, WEXITED | WNOHANG | WNOWAIT) == 0 && zombie.si_pid != 0) reap_adopted();
    size_t sent = 0;
    /* A line there before the question is all written answers nothing asked (a program that writes
     * without reading, as `yes`): said so, rather than waiting for its flood to fill a line. */
    if (want_line && n > 0 && memchr(p->buf, '\n', p->got)) return EXTPROC_EARLY;
    for (;;) {
        bool writing = sent < n;
        if (!writing && (!want_line || memchr(p->buf, '\n', p->got))) return EXTPROC_DONE;
        if (want_line && writing && memchr(p->buf, '\n', p->got)) return EXTPROC_EARLY;
        if (want_line && p->got > EXTPROC_LINE_MAX) return EXTPROC_LONG;
        if (writing && p->in < 0) return EXTPROC_CLOSED;
        if (interrupted) return EXTPROC_STOPPED;
        double left = deadline - timing_now_ms();
        if (left <= 0) return EXTPROC_LATE;
        struct pollfd fds[3] = {{writing ? p->in : -1, POLLOUT, 0}, {want_line ? p->out : -1, POLLIN, 0},
                                {p->err, POLLIN, 0}};
        /* A signal may land in another thread: the stop flag is looked at every INTERRUPT_MS. */
        int ready = poll(fds, 3, left > INTERRUPT_MS ? INTERRUPT_MS : (int)left + 1);
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
    double until = timing_now_ms() + 100; /* it closed its output: its exit should follow */
    while (!exited(p, &info) && timing_now_ms() < until) pause_ms();
    if (info.si_pid == 0) snprintf(out, n, "closed its %s %s", p->input_refused ? "input" : "output", when);
    else if (info.si_code == CLD_EXITED) snprintf(out, n, "exited with status %d %s", info.si_status, when);
    else {
        const char *abbrev = sigabbrev_np(info.si_status); /* strsignal is not thread-safe */
        snprintf(out, n, "was killed by signal %d (SIG%s) %s", info.si_status, abbrev ? abbrev : "?", when);
    }
    size_t len = strlen(out);
    /* A program out of address space fails however its runtime fails: killed by a signal, or saying so. */
    bool says = strcasestr(p->tail, "memory") || strcasestr(p->tail, "alloc");
    bool abnormal = info.si_pid != 0 && (info.si_code != CLD_EXITED || (info.si_status != 0 && says));
    if (abnormal && p->memory && len < n)
        snprintf(out + len, n - len, " (it may have hit its memory cap: %zu MiB of address space a process, "
                 "--memory)", p->memory >> 20);
    len = strlen(out);
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
    double until = timing_now_ms() + LOT_GRACE_MS;
    for (int i = 0; i < l->n; i++) {
        double left = until - timing_now_ms();
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
