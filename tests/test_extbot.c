/* test_extbot.c — external bots (core/bots/extbot.h) from C, with fake bots written as /bin/sh scripts: a
 * correct one plays its games (in one process, when it answers game_over with "ready"); one that
 * answers late, garbage, an illegal action, a number out of range, an endless line or an empty line,
 * that exits or crashes mid-game, or that forks children, forfeits with its reason, within its time,
 * and leaves no process behind, not even a zombie; the view a bot reads is exactly s:view(seat). The
 * command-line side and the examples are in tests/spec/extbot_spec.lua. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <lauxlib.h>
#include <lualib.h>

#include "bots/bot.h"
#include "host/timing.h"
#include "check.h"
#include "sandbox/extproc.h"
#include "lua/lmeeple.h"
#include <meeple/registry.h>
#include <meeple/session.h>

static char dir[128];
static const bot_limits limits = {200, BOT_DEFAULT_INSTRUCTIONS, BOT_DEFAULT_MEMORY, 0};

/* The common head of the fake bots: each records its pid in $dir/pids and counts decisions in $n. */
static const char fake_head[] =
    "#!/bin/sh\n"
    "read -r pid _ < /proc/self/stat; echo $pid >> \"$(dirname \"$0\")/pids\"\n"
    "n=0\n";

/* Writes a fake bot: `body` runs for each line read (in $l) after the head; returns its path. */
static const char *fake(const char *name, const char *body) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    fprintf(f, "%swhile IFS= read -r l; do\n%s\ndone\n", fake_head, body);
    fclose(f);
    chmod(path, 0755);
    return path;
}

/* A decision's answer in the fake bots' bodies: count it, then do `act` from decision `from` on and
 * answer 1 before. */
#define DECIDE(from, act)                                                                                 \
    "case \"$l\" in *'\"type\":\"decide\"'*) n=$((n+1)); if [ $n -ge " #from " ]; then " act               \
    "; else echo 1; fi;; *'\"type\":\"game_over\"'*) echo ready;; esac"

/* Starts a child that outlives its parent (sleep 1000) and records its pid, as the host sees it (the bot
 * may run in a PID namespace of its own), before going on. */
#define CHILD                                                                                             \
    "(sh -c 'read -r p _ < /proc/self/stat; echo $p; exec sleep 1000 >/dev/null' &) | head -n 1 >> "     \
    "\"$(dirname \"$0\")/pids\""

#define CHILD_HOLDING_STDOUT                                                                              \
    "(sh -c 'read -r p _ < /proc/self/stat; echo $p >&3; exec sleep 1000 3>&-' 3>&1 >&4 &) | head -n 1 >> " \
    "\"$(dirname \"$0\")/pids\""

static double now_ms(void) { return timing_now_ms(); }

/* Every pid a fake bot recorded (the bots and their children) is gone: no process, no zombie. */
static void check_no_process_left(const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/pids", dir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    long pid;
    while (fscanf(f, "%ld", &pid) == 1) {
        errno = 0;
        CHECK(kill((pid_t)pid, 0) != 0 && errno == ESRCH, "%s: process %ld is still there (a zombie?)", what, pid);
    }
    fclose(f);
    remove(path);
}

static int count_pids(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/pids", dir);
    FILE *f = fopen(path, "r");
    int n = 0;
    long pid;
    while (f && fscanf(f, "%ld", &pid) == 1) n++;
    if (f) fclose(f);
    return n;
}

typedef struct outcome {
    bot_fault fault;
    char reason[300];
    int games_finished;
    double ms;
} outcome;

/* Plays `games` games of Babel, seat 0 by the external bot `arg`, seat 1 by the first legal action;
 * stops at the bot's fault. */
static outcome play(const char *arg, int games) {
    const game_def *def = game_find("babel");
    outcome o = {BOT_OK, "", 0, 0};
    char err[300];
    bot_code *code = bot_code_load(arg, &limits, err, sizeof err);
    CHECK(code != NULL, "%s: %s", arg, err);
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    unsigned char st[4096];
    action_t acts[MEEPLE_MAX_ACTIONS];
    double t0 = now_ms();
    for (int g = 0; g < games && o.fault == BOT_OK; g++) {
        def->setup(st, 2, params, 100 + (uint64_t)g);
        bot *b = bot_new(code, def, params, &limits, false);
        CHECK(b != NULL, "bot_new");
        bool ok = bot_begin(b, st, 0, 7);
        for (int i = 0; ok && i < 5000 && !def->is_over(st); i++) {
            int n = def->legal(st, acts), k = 0;
            if (def->to_move(st) == 0) k = bot_choose(b, st, acts, n);
            ok = k >= 0;
            if (ok) def->apply(st, acts[k]);
        }
        if (ok) {
            int scores[MEEPLE_MAX_PLAYERS], winners[MEEPLE_MAX_PLAYERS];
            def->scores(st, scores);
            bot_end(b, scores, winners, def->winners(st, winners));
            o.games_finished++;
        }
        o.fault = bot_fault_of(b);
        snprintf(o.reason, sizeof o.reason, "%s", bot_reason(b));
        bot_free(b);
    }
    o.ms = now_ms() - t0;
    bot_code_free(code);
    return o;
}

static void check_forfeit(const char *name, const char *body, bot_fault fault, const char *reason) {
    outcome o = play(fake(name, body), 1);
    CHECK(o.fault == fault, "%s: fault %d, expected %d (%s)", name, o.fault, fault, o.reason);
    CHECK(strstr(o.reason, reason), "%s: reason '%s', expected '%s' in it", name, o.reason, reason);
    CHECK(o.ms < 3000, "%s: the host waited %.0f ms", name, o.ms);
    check_no_process_left(name);
}

/* A worker: plays three games with a bot that answers "ready" to game_over. */
static void *play_three(void *arg) {
    *(outcome *)arg = play(fake("good.sh", DECIDE(1000000, "echo 1")), 3);
    return NULL;
}

static void test_correct_bot_plays_games_in_one_process(void) {
    outcome o;
    pthread_t worker;
    CHECK(pthread_create(&worker, NULL, play_three, &o) == 0, "a worker thread");
    pthread_join(worker, NULL);
    CHECK(o.fault == BOT_OK && o.games_finished == 3, "3 games, no fault: %d, %s", o.games_finished, o.reason);
    CHECK(count_pids() == 1, "the bot answering ready plays every game in one process: %d", count_pids());
    check_no_process_left("good.sh, once its thread has ended");
    o = play(fake("once.sh", "case \"$l\" in *'\"type\":\"decide\"'*) echo 1;; *'\"type\":\"game_over\"'*) exit 0;; "
                             "esac"), 3);
    CHECK(o.fault == BOT_OK && o.games_finished == 3, "a bot exiting at game_over: %s", o.reason);
    CHECK(count_pids() == 3, "one process a game when it exits at game_over: %d", count_pids());
    check_no_process_left("once.sh");
}

static void test_answers_by_text(void) {
    /* Echoes the first legal text back (the JSON array's first string). */
    outcome o = play(fake("text.sh", "case \"$l\" in *'\"type\":\"decide\"'*) a=${l#*'\"legal\":[\"'}; echo \"  ${a%%\\\"*}\t\";; "
                                     "*'\"type\":\"game_over\"'*) echo bye;; esac"), 1);
    CHECK(o.fault == BOT_OK && o.games_finished == 1, "answers by text, padded: %s", o.reason);
    check_no_process_left("text.sh");
}

static void test_forfeits(void) {
    check_forfeit("late.sh", DECIDE(3, "sleep 5; echo 1"), BOT_TIME, "exceeded the time limit (200 ms per decision)");
    check_forfeit("silent.sh", DECIDE(2, ":"), BOT_TIME, "exceeded the time limit (200 ms per decision)");
    check_forfeit("garbage.sh", DECIDE(2, "echo 'fly \033[31maway'"), BOT_ANSWER,
                  "chose 'fly ?[31maway', which is not a legal action");
    check_forfeit("illegal.sh", DECIDE(2, "echo 'build opp'"), BOT_ANSWER, "chose 'build opp', which is not a legal action");
    check_forfeit("range.sh", DECIDE(2, "echo 999"), BOT_ANSWER, "answered 999, which is not a number from 1 to ");
    check_forfeit("zero.sh", DECIDE(1, "echo 0"), BOT_ANSWER, "answered 0, which is not a number from 1 to ");
    check_forfeit("endless.sh", DECIDE(2, "head -c 100000 /dev/zero | tr '\\0' x; sleep 5"), BOT_ANSWER,
                  "answered a line longer than 4096 bytes");
    check_forfeit("empty.sh", DECIDE(2, "echo"), BOT_ANSWER, "answered an empty line");
    check_forfeit("exits.sh", DECIDE(4, "echo 'out of ideas' >&2; exit 3"), BOT_ERROR,
                  "exited with status 3 at decision 4; its last line on stderr: 'out of ideas'");
    check_forfeit("crashes.sh", DECIDE(2, "kill -SEGV $$"), BOT_ERROR, "was killed by signal 11 (SIGSEGV) at decision 2");
    /* Its children die with it; one holding stdout open keeps no reader waiting past the limit. */
    check_forfeit("forks.sh", DECIDE(2, CHILD "; echo nonsense"),
                  BOT_ANSWER, "chose 'nonsense'");
    /* An orphan holding its stdout: in a PID namespace it dies with the bot, which is then seen to exit;
     * with a process group only, it keeps the pipe open until the time limit. */
    bool ns = strstr(extproc_containment(), "pidns") != NULL;
    check_forfeit("orphans.sh", DECIDE(2, "{ " CHILD_HOLDING_STDOUT "; } 4>&1; exit 0"), ns ? BOT_ERROR : BOT_TIME,
                  ns ? "exited with status 0 at decision 2" : "exceeded the time limit");
    check_forfeit("mute.sh", "exec 1>&-; sleep 5", BOT_ERROR, "closed its output at decision 1");
}

static void test_commands(void) {
    char err[300];
    bot_code *code = bot_code_load("exec:", &limits, err, sizeof err);
    CHECK(!code && strstr(err, "names no program"), "empty command: %s", err);
    code = bot_code_load("exec:/no/such/program", &limits, err, sizeof err);
    CHECK(!code && strstr(err, "is not an executable file"), "missing program: %s", err);
    code = bot_code_load("exec:sh -c 'echo", &limits, err, sizeof err);
    CHECK(!code && strstr(err, "quote is not closed"), "open quote: %s", err);
    code = bot_code_load("exec:no-such-program-anywhere", &limits, err, sizeof err);
    CHECK(!code && strstr(err, "not on PATH"), "not on PATH: %s", err);
    const char *script = fake("noexec.sh", "echo 1");
    chmod(script, 0644);
    code = bot_code_load(script, &limits, err, sizeof err);
    CHECK(!code && strstr(err, "is a script (#!) that is not executable"), "a script without its mode: %s", err);
    /* Quoted words reach the program whole, never through a shell. */
    char arg[256];
    snprintf(arg, sizeof arg, "exec:sh '%s/args.sh' 'two words' \"$HOME\"", dir);
    fake("args.sh", "case \"$l\" in *'\"type\":\"hello\"'*) [ \"$1\" = 'two words' ] && [ \"$2\" = '$HOME' ] || exit 9;; "
                    "*'\"type\":\"decide\"'*) echo 1;; esac");
    code = bot_code_load(arg, &limits, err, sizeof err);
    CHECK(code && strcmp(code->name, "args") == 0, "the bot is named after its script: %s", code ? code->name : err);
    bot_code_free(code);
    outcome o = play(arg, 1);
    CHECK(o.fault == BOT_OK, "arguments as given: %s", o.reason);
    check_no_process_left("args.sh");
}

/* ---- The view sent is the table s:view(seat) gives a Lua bot: same keys, same values. ---- */

static bool same(lua_State *L, int idx, json_t *j);

static bool same_table(lua_State *L, int idx, json_t *j) {
    if (json_is_array(j)) {
        if (lua_rawlen(L, idx) != json_array_size(j)) return false;
        for (size_t i = 0; i < json_array_size(j); i++) {
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
            bool ok = same(L, lua_gettop(L), json_array_get(j, i));
            lua_pop(L, 1);
            if (!ok) return false;
        }
        return true;
    }
    if (!json_is_object(j)) return false;
    size_t keys = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        keys++;
    }
    if (keys != json_object_size(j) && !(keys == 0 && json_object_size(j) == 0)) return false;
    const char *key;
    json_t *value;
    json_object_foreach(j, key, value) {
        lua_getfield(L, idx, key);
        bool ok = same(L, lua_gettop(L), value);
        lua_pop(L, 1);
        if (!ok) return false;
    }
    return true;
}

static bool same(lua_State *L, int idx, json_t *j) {
    switch (lua_type(L, idx)) {
    case LUA_TTABLE: return same_table(L, idx, j);
    case LUA_TSTRING: return json_is_string(j) && strcmp(lua_tostring(L, idx), json_string_value(j)) == 0;
    case LUA_TBOOLEAN: return json_is_boolean(j) && lua_toboolean(L, idx) == json_is_true(j);
    case LUA_TNUMBER: return json_is_integer(j) && lua_tointeger(L, idx) == json_integer_value(j);
    default: return false;
    }
}

static void test_view_is_the_lua_view(void) {
    char arg[160], log[160];
    snprintf(log, sizeof log, "%s/decide.jsonl", dir);
    snprintf(arg, sizeof arg, "%s", fake("dump.sh", "printf '%s\\n' \"$l\" >> \"$(dirname \"$0\")/decide.jsonl\"; "
                                         "case \"$l\" in *'\"type\":\"decide\"'*) echo 1;; *'\"game_over\"'*) exit;; esac"));
    outcome o = play(arg, 1);
    CHECK(o.fault == BOT_OK, "dump.sh: %s", o.reason);
    check_no_process_left("dump.sh");
    /* Replays the game the bot saw, checking each view it was sent against the Lua view there. */
    const game_def *def = game_find("babel");
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    unsigned char st[4096];
    action_t acts[MEEPLE_MAX_ACTIONS];
    def->setup(st, 2, params, 100);
    lua_State *L = luaL_newstate();
    FILE *f = fopen(log, "r");
    CHECK(L && f, "lua state and the log");
    static char line[1 << 16];
    CHECK(fgets(line, sizeof line, f), "hello");
    json_t *hello = json_loads(line, 0, NULL);
    CHECK(hello && json_integer_value(json_object_get(hello, "protocol")) == 1 &&
              json_integer_value(json_object_get(hello, "seat")) == 1 &&
              json_integer_value(json_object_get(hello, "players")) == 2 &&
              strcmp(json_string_value(json_object_get(hello, "game")), "babel") == 0 &&
              json_integer_value(json_object_get(hello, "ms")) == 200,
          "hello: %s", line);
    meeple_push_cards(L, def, st);
    CHECK(same(L, lua_gettop(L), json_object_get(hello, "cards")), "hello's cards are ctx.cards");
    json_decref(hello);
    int views = 0;
    while (!def->is_over(st)) {
        int n = def->legal(st, acts);
        if (def->to_move(st) == 0) {
            CHECK(fgets(line, sizeof line, f), "decide %d", views + 1);
            json_t *msg = json_loads(line, 0, NULL);
            CHECK(msg && json_array_size(json_object_get(msg, "legal")) == (size_t)n, "legal: %s", line);
            lua_settop(L, 0);
            meeple_push_table(L, def, st, 0);
            CHECK(same(L, 1, json_object_get(msg, "view")), "the view of decision %d is s:view(1): %s", views + 1, line);
            json_decref(msg);
            views++;
        }
        def->apply(st, acts[0]);
    }
    CHECK(fgets(line, sizeof line, f) && strstr(line, "\"type\":\"game_over\""), "game_over last: %s", line);
    CHECK(views > 10, "views compared: %d", views);
    fclose(f);
    lua_close(L);
}

/* Children of this process that are zombies (adopted from a bot's helpers, as the subreaper). */
static int zombie_children(void) {
    char path[64], stat[64], text[512];
    int zombies = 0;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)getpid());
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char file[PATH_MAX];
        snprintf(file, sizeof file, "%s/%.100s/children", path, e->d_name);
        FILE *f = fopen(file, "r");
        long pid;
        while (f && fscanf(f, "%ld", &pid) == 1) {
            snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
            FILE *s = fopen(stat, "r");
            size_t got = s ? fread(text, 1, sizeof text - 1, s) : 0;
            if (s) fclose(s);
            text[got] = '\0';
            const char *close = strrchr(text, ')');
            zombies += close && close[1] == ' ' && close[2] == 'Z';
        }
        if (f) fclose(f);
    }
    if (d) closedir(d);
    return zombies;
}

/* Issue 29, item 1: a bot whose helpers start a session of their own and end, orphaned, leaves no
 * zombie with its host, game after game. */
static void test_orphaned_helpers_are_reaped(const char *hostile) {
    char arg[PATH_MAX + 8];
    snprintf(arg, sizeof arg, "exec:%s/helpers.sh", hostile);
    outcome o = play(arg, 6);
    CHECK(o.fault == BOT_OK && o.games_finished == 6, "helpers.sh: %s", o.reason);
    /* A helper that ends after the last exchange is reaped at the next one: a game of a quiet bot,
     * until the last helpers (slow to start on a loaded machine) have ended and been reaped. */
    const char *quiet = fake("quiet.sh", DECIDE(100000, "echo 1"));
    int zombies = zombie_children();
    for (int tries = 0; tries < 30 && zombies > 0; tries++) {
        struct timespec pause = {0, 100000000};
        nanosleep(&pause, NULL);
        play(quiet, 1);
        zombies = zombie_children();
    }
    CHECK(zombies == 0, "%d zombies left by helpers.sh (containment %s)", zombies, extproc_containment());
}

int main(int argc, char **argv) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/meeple-extbot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir), "a temporary folder");
    test_commands();
    test_correct_bot_plays_games_in_one_process();
    test_answers_by_text();
    test_forfeits();
    test_view_is_the_lua_view();
    if (argc > 1) test_orphaned_helpers_are_reaped(argv[1]);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleaning up %s", dir);
    printf("ok\n");
    return 0;
}
