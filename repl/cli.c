/* cli.c — what every `meeple` command shares: refusing bad arguments with a usage line, whole numbers
 * and seeds from the command line, `--opt=value`, a Lua state with the module, errors shown as one
 * line, and a game's rules with its parameters. The commands use this file; it knows none of them. */
#define _POSIX_C_SOURCE 200809L /* lstat, mkstemp, fdopen, fchmod, sigaction */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "cli.h"
#include <meeple/game.h>
#include "lua/lmeeple.h"
#include <meeple/registry.h>
#include "host/text.h"


/* ========================================================================= refusing arguments */

static const cli_command *known_commands;
static int known_count;

void cli_set_commands(const cli_command *table, int count) {
    known_commands = table;
    known_count = count;
}

const cli_command *cli_command_find(const char *name) {
    for (int i = 0; i < known_count; i++)
        if (strcmp(known_commands[i].name, name) == 0) return &known_commands[i];
    return NULL;
}

int cli_bad_args(const char *cmd, const char *fmt, ...) {
    const cli_command *c = cmd ? cli_command_find(cmd) : NULL;
    char reason[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    fprintf(stderr, c ? "meeple %s: " : "meeple: ", cmd);
    text_write(stderr, reason, strlen(reason), false); /* a bot's load error is in it, or a file's name */
    fprintf(stderr, "\nusage: %s\n", c ? c->usage : CLI_MAIN_USAGE);
    return 2;
}

int cli_fail(const char *cmd, const char *fmt, ...) {
    char reason[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    fprintf(stderr, "meeple %s: ", cmd);
    text_write(stderr, reason, strlen(reason), false);
    fputc('\n', stderr);
    return 1;
}

int cli_no_bot(const char *cmd, const char *arg) {
    return cli_bad_args(cmd, "no bot '%s': not a readable file, nor a name in bots/ where meeple looks "
                             "(docs/api.md, \"Finding bots and variants\")", arg);
}

bool cli_parse_int(const char *text, long long min, long long max, long long *out) {
    char *end;
    /* Digits only (a sign for negatives): strtoll alone would take " 7" and "+7", and clamp an
     * overflow to the largest value instead of refusing it. */
    if (!text || !(isdigit((unsigned char)text[0]) || (text[0] == '-' && isdigit((unsigned char)text[1]))))
        return false;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end || errno == ERANGE || v < min || v > max) return false;
    *out = v;
    return true;
}

/* ======================================================================= options and seeds */

int cli_split_options(int argc, char **argv, char **out, bool *debug) {
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        if (strcmp(arg, "--") == 0) { /* the rest as it is */
            while (i < argc) out[n++] = argv[i++];
            break;
        }
        if (strcmp(arg, "--debug") == 0) {
            *debug = true;
        } else if (i > 0 && arg[0] == '-' && arg[1] == '-' && eq && eq > arg + 2) {
            /* "--games=9" -> "--games" "9": the option's name is written into the argument's own
             * memory (argv strings are the program's to change), so nothing is allocated. */
            *(char *)eq = '\0';
            out[n++] = argv[i];
            out[n++] = (char *)eq + 1;
        } else {
            out[n++] = argv[i];
        }
    }
    out[n] = NULL;
    return n;
}

long long cli_os_seed(void) {
    uint64_t bits = 0;
    bool drawn = getrandom(&bits, sizeof bits, 0) == (ssize_t)sizeof bits;
    if (!drawn) { /* a kernel without getrandom(2) */
        FILE *f = fopen("/dev/urandom", "rb");
        drawn = f && fread(&bits, sizeof bits, 1, f) == 1;
        if (f) fclose(f);
    }
    if (!drawn) return -1;
    return (long long)(bits & MEEPLE_SEED_MAX);
}

/* Turns any error value into a string, as the lua interpreter does. */
static const char *error_text(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg) return msg;
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
    return lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
}

/* Whether a message already starts with a "chunk:line:" position. */
static bool has_position(const char *msg) {
    const char *colon = strchr(msg, ':');
    if (!colon || colon == msg) return false;
    const char *digits = colon + 1;
    while (*digits >= '0' && *digits <= '9') digits++;
    return digits > colon + 1 && *digits == ':';
}

/* The one line a user sees. Errors raised from C (an illegal `s:play`) carry only their reason, so
 * the line of the first Lua function on the stack is added: the script's author needs it. */
static int msgh_plain(lua_State *L) {
    const char *msg = error_text(L);
    lua_Debug ar;
    for (int level = 1; !has_position(msg) && lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        /* The user's own file, not a chunk compiled into meeple ("=variant.lua"). */
        if (ar.currentline > 0 && ar.source[0] == '@') {
            msg = lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
            break;
        }
    }
    lua_pushstring(L, msg);
    return 1;
}

static int msgh_traceback(lua_State *L) {
    luaL_traceback(L, L, error_text(L), 1);
    return 1;
}

void cli_push_msgh(lua_State *L, const cli_options *opts) {
    lua_pushcfunction(L, opts->debug ? msgh_traceback : msgh_plain);
}

void cli_report(lua_State *L, const cli_options *opts, const char *who) {
    const char *msg = lua_tostring(L, -1);
    if (!msg) msg = "(error without a message)";
    /* One line for a user: a multi-line message keeps its first line. */
    size_t len = opts->debug ? strlen(msg) : strcspn(msg, "\n");
    text_write(stderr, who, strlen(who), false);
    fputs(": ", stderr);
    text_write(stderr, msg, len, opts->debug);
    fputc('\n', stderr);
}

/* ============================================================================ Lua, and errors */

lua_State *cli_new_lua(void) {
    lua_State *L = luaL_newstate();
    if (!L) return NULL;
    /* Generational collection, as in bots: scripts clone and list states by the million, and young
     * garbage collected young stays in the cache (a clone costs half the incremental mode's). */
    lua_gc(L, LUA_GCGEN, 0, 0);
    luaL_openlibs(L);
    luaL_requiref(L, "meeple", meeple_open, 1);
    lua_pop(L, 1);
    /* Also in package.preload, so a script that clears package.loaded still finds it. */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, meeple_open);
    lua_setfield(L, -2, "meeple");
    lua_pop(L, 2);
    return L;
}

int cli_load_program(lua_State *L, const char *text, const char *name) {
    return luaL_loadbufferx(L, text, strlen(text), name, "t");
}

/* ============================================================================= rules text */

/* A default list as a variant would write it: {3, 2, 2}, or by player count {[3] = 3, [4] = 2}. */
static void default_list_text(const param_def *p, char *out, size_t n) {
    size_t used = (size_t)snprintf(out, n, "{");
    bool by_players = p->kind == PARAM_BY_PLAYERS, first = true;
    for (int i = 0; i < p->fallback_count && used < n; i++) {
        if (by_players && p->fallback_list[i] == PARAM_UNSET) continue;
        if (by_players) used += (size_t)snprintf(out + used, n - used, "%s[%d] = %d", first ? "" : ", ", i, p->fallback_list[i]);
        else used += (size_t)snprintf(out + used, n - used, "%s%d", first ? "" : ", ", p->fallback_list[i]);
        first = false;
    }
    if (used < n) snprintf(out + used, n - used, "}");
}

/* One parameter's default and allowed values, as a player would write them in a variant. */
static void param_describe(const param_def *p, char *def_text, size_t dn, char *range, size_t rn) {
    snprintf(def_text, dn, "%d", p->fallback);
    if (p->fallback_list) default_list_text(p, def_text, dn);
    switch (p->kind) {
    case PARAM_INT:
        snprintf(range, rn, "a whole number in %d..%d", p->min, p->max);
        break;
    case PARAM_PER_SEAT:
        snprintf(range, rn, "a whole number in %d..%d, or a list of them (see below)", p->min, p->max);
        break;
    case PARAM_BY_PLAYERS:
        snprintf(range, rn, "a whole number in %d..%d, or a table of them by player count", p->min, p->max);
        break;
    case PARAM_BY_NAME:
        snprintf(def_text, dn, "{...}");
        if (p->width > 1)
            snprintf(range, rn, "a table: name = {%d whole numbers in %d..%d} (see below)", p->width, p->min, p->max);
        else
            snprintf(range, rn, "a table: name = a whole number in %d..%d (see below)", p->min, p->max);
        break;
    case PARAM_BOOL:
        snprintf(def_text, dn, "%s", p->fallback ? "true" : "false");
        snprintf(range, rn, "true or false");
        break;
    case PARAM_CHOICE: {
        snprintf(def_text, dn, "\"%s\"", p->choices[p->fallback]);
        size_t used = (size_t)snprintf(range, rn, "one of:");
        for (int i = 0; p->choices[i] && used < rn; i++)
            used += (size_t)snprintf(range + used, rn - used, "%s \"%s\"", i ? "," : "", p->choices[i]);
        break;
    }
    }
    if (p->game_default) snprintf(def_text, dn, "(see below)");
}

/* Prints `text` in lines of at most `width` columns, each indented by `indent` spaces. */
static void print_wrapped(const char *text, int indent, int width) {
    while (*text) {
        int room = width - indent, len = (int)strlen(text), cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ') cut--;
            if (cut == 0) cut = room; /* one word longer than the line: break it */
        }
        printf("%*s%.*s\n", indent, "", cut, text);
        text += cut;
        while (*text == ' ') text++;
    }
}

static void print_params(const game_def *def) {
    char head[MEEPLE_MAX_PARAMS][96], range[MEEPLE_MAX_PARAMS][256];
    int width = 0;
    for (int i = 0; i < def->num_params; i++) {
        char def_text[64];
        param_describe(&def->params[i], def_text, sizeof def_text, range[i], sizeof range[i]);
        int w = snprintf(head[i], sizeof head[i], "%s = %s", def->params[i].name, def_text);
        if (w > width) width = w;
    }
    printf("\nParameters (a variant's `params`, or meeple.new(\"%s\", {params = {...}}))\n", def->name);
    if (def->num_params == 0) printf("  (none)\n");
    for (int i = 0; i < def->num_params; i++) {
        printf("  %-*s  %s\n", width, head[i], range[i]);
        if (def->params[i].doc && *def->params[i].doc) print_wrapped(def->params[i].doc, 6, 100);
    }
}

void cli_print_rules(const game_def *def) {
    const char *rules = def->rules ? def->rules : "";
    size_t len = strlen(rules);
    fputs(rules, stdout);
    if (len && rules[len - 1] != '\n') putchar('\n');
    print_params(def);
}


FILE *cli_open_log(const char *path, char *err, size_t errn) {
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then looks at what was opened. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errn, "cannot read the log '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errn, "'%s' is not a regular file (a device, a pipe or a folder); give a log file", path);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        snprintf(err, errn, "cannot read the log '%s': %s", path, strerror(errno));
    }
    return f;
}

FILE *cli_match_log(const char *path, bool resume, char *err, size_t errn) {
    struct stat st;
    /* A resumed log that does not exist yet is begun, as a new one: a cluster's task runs the same
     * command, --resume included, for its first start and after a stop (docs/cluster.md). */
    resume = resume && stat(path, &st) == 0;
    if (!resume && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errn, "'%s' exists and is not a regular file: give a new file's name", path);
        return NULL;
    }
    /* O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of hanging; O_NOFOLLOW: a link
     * that appears after the check above is refused, not followed (a resumed log may be a link to its
     * file, as cli_open_log reads it). */
    int flags = O_WRONLY | O_NONBLOCK | O_CLOEXEC | (resume ? O_APPEND : O_CREAT | O_TRUNC | O_NOFOLLOW);
    int fd = open(path, flags, 0666);
    if (fd < 0) {
        if (errno == ENXIO || errno == ELOOP)
            snprintf(err, errn, "'%s' exists and is not a regular file: give a new file's name", path);
        else
            snprintf(err, errn, "cannot write the log '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errn, "'%s' is not a regular file (a device, a pipe or a folder); give a log file", path);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, resume ? "ab" : "wb");
    if (!f) {
        snprintf(err, errn, "cannot write the log '%s': %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

/* The process's umask (read by setting it back): files made with mkstemp get 0600 otherwise. */
static mode_t current_umask(void) {
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* The temporary files meeple is writing, so that SIGINT or SIGTERM removes them before meeple dies: a
 * path is complete before its slot is marked live, and the handler only reads live slots. */
enum { LIVE_TEMPS = 8, TEMP_PATH = 4096 };
static char live_temp[LIVE_TEMPS][TEMP_PATH];
static volatile sig_atomic_t live_used[LIVE_TEMPS];

/* Unlinks the live temporary files (async-signal-safe calls only), then dies of the signal as if no
 * handler were there. A match's own handler (repl/match.c) replaces this one while it runs: it stops
 * the match, and the writer's cli_out_commit removes the file. */
static void on_fatal_signal(int sig) {
    for (int i = 0; i < LIVE_TEMPS; i++)
        if (live_used[i]) unlink(live_temp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installs on_fatal_signal for a signal still at its default action: an ignored signal (nohup) stays
 * ignored, and another handler is left alone. */
static void remove_temps_on(int sig) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL) return;
    struct sigaction sa = {.sa_handler = on_fatal_signal};
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(sig, &sa, NULL);
}

/* Blocks (or unblocks) SIGINT and SIGTERM around a change of the live list and of the file it names. */
static void hold_signals(bool hold, sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(hold ? SIG_BLOCK : SIG_SETMASK, hold ? &set : old, hold ? old : NULL);
}

/* The slot of `tmp`, made live; -1 when every slot is taken or the name is too long (then the file is
 * not removed on a signal, as before). */
static int temp_track(const char *tmp) {
    if (strlen(tmp) >= TEMP_PATH) return -1;
    for (int i = 0; i < LIVE_TEMPS; i++)
        if (!live_used[i]) {
            memcpy(live_temp[i], tmp, strlen(tmp) + 1);
            live_used[i] = 1;
            remove_temps_on(SIGINT);
            remove_temps_on(SIGTERM);
            return i;
        }
    return -1;
}

static void temp_untrack(const char *tmp) {
    for (int i = 0; i < LIVE_TEMPS; i++)
        if (live_used[i] && strcmp(live_temp[i], tmp) == 0) live_used[i] = 0;
}

FILE *cli_out_open(const char *path, char *tmp, size_t tmpn, char *err, size_t errn) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errn, "'%s' exists and is not a regular file: give a new file's name", path);
        return NULL;
    }
    if ((size_t)snprintf(tmp, tmpn, "%s.tmp-XXXXXX", path) >= tmpn) {
        snprintf(err, errn, "the name '%.200s' is too long", path);
        return NULL;
    }
    sigset_t mask;
    hold_signals(true, &mask); /* a signal between mkstemp and temp_track would leave the file */
    int fd = mkstemp(tmp);
    if (fd >= 0) temp_track(tmp);
    hold_signals(false, &mask);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            cli_out_commit(NULL, tmp, path, false);
        }
        snprintf(err, errn, "cannot write '%s': %s", path, strerror(e));
        return NULL;
    }
    fchmod(fd, 0644 & ~current_umask());
    return f;
}

bool cli_out_commit(FILE *f, const char *tmp, const char *path, bool ok) {
    if (f) ok = fclose(f) == 0 && ok;
    sigset_t mask;
    hold_signals(true, &mask); /* renamed or removed, and untracked, as one step for a signal */
    ok = ok && rename(tmp, path) == 0;
    if (!ok) remove(tmp);
    temp_untrack(tmp);
    hold_signals(false, &mask);
    return ok;
}

/* ==================================================================================== suggestions */

/* The edit distance (insertions, deletions, substitutions, swaps of neighbours) of a and b, capped. */
static int distance(const char *a, const char *b) {
    enum { MAX = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= MAX || m >= MAX) return MAX;
    int d[MAX][MAX];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* How many first letters a and b share. */
static size_t common_start(const char *a, const char *b) {
    size_t n = 0;
    while (a[n] && a[n] == b[n]) n++;
    return n;
}

const char *cli_nearest(const char *given, const char *const *names) {
    const char *best = NULL;
    int best_d = 0, limit = (int)strlen(given) / 3 + 1; /* a typo or two, not a different word */
    for (const char *const *name = names; *name; name++) {
        int d = distance(given, *name);
        /* A tie goes to the name that starts as typed: "hepl" is help swapped, not repl misspelt. */
        if (d <= limit && (!best || d < best_d ||
                           (d == best_d && common_start(given, *name) > common_start(given, best))))
            best = *name, best_d = d;
    }
    return best;
}

const char *cli_suggest(const char *given, const char *const *names) {
    static char text[160];
    const char *near = cli_nearest(given, names);
    if (!near) return "";
    snprintf(text, sizeof text, "; did you mean '%s'?", near);
    return text;
}

int cli_unknown_game(const char *cmd, const char *name) {
    const char *names[64];
    int n = 0;
    for (int i = 0; i < meeple_game_count && n < 63; i++) names[n++] = meeple_games[i]->name;
    names[n] = NULL;
    const char *near = cli_nearest(name, names);
    if (near) return cli_bad_args(cmd, "unknown game '%s'; did you mean '%s'?", name, near);
    return cli_bad_args(cmd, "unknown game '%s'; games: %s", name, game_names());
}

/* The options a command's usage and details name ("--games", ...), for a typo's nearest. */
static int command_options(const char *cmd, char names[][32], int max) {
    const cli_command *c = cmd ? cli_command_find(cmd) : NULL;
    const char *texts[] = {c ? c->usage : CLI_MAIN_USAGE, c ? c->details : "--help --version --debug"};
    int n = 0;
    for (int t = 0; t < 2; t++)
        for (const char *p = texts[t]; p && (p = strstr(p, "--")) != NULL && n < max;) {
            size_t len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
            bool seen = len < 4 || len >= 32;
            for (int i = 0; i < n && !seen; i++) seen = strlen(names[i]) == len && strncmp(names[i], p, len) == 0;
            if (!seen) snprintf(names[n++], 32, "%.*s", (int)len, p);
            p += len;
        }
    return n;
}

int cli_unknown_option(const char *cmd, const char *opt) {
    char names[64][32];
    const char *list[65];
    int n = command_options(cmd, names, 64);
    for (int i = 0; i < n; i++) list[i] = names[i];
    list[n] = NULL;
    return cli_bad_args(cmd, "unknown option '%s'%s", opt, cli_suggest(opt, list));
}
