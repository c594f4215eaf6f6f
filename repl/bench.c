/* bench.c — `meeple bench`: random playouts in C, state clones, and the cost of a decision through Lua. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, isatty, getrusage */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "lmeeple.h"
#include "registry.h"

/* A game that has not ended after this many decisions is stuck: a bug in its rules, not a long game. */
#define BENCH_MAX_DECISIONS 1000000

typedef struct bench_args {
    const game_def *def;
    long long games, seed, players;
    const char *bot;
    bool json;
} bench_args;

/* One way of choosing an action; bench_play runs games with it. */
typedef struct chooser chooser;
struct chooser {
    /* A new game begins: `game` counts from 0. False stops the bench (the message is printed). */
    bool (*start)(chooser *c, const void *st, long long game);
    /* The index into acts[0..n) to play. -1 stops the bench (the message is printed). */
    int (*choose)(chooser *c, const void *st, const action_t *acts, int n);
};

typedef struct bench_run {
    long long games, decisions;
    double seconds;
} bench_run;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ==================================================================================== arguments */

static int bench_parse(int argc, char **argv, bench_args *a) {
    const char *game = NULL;
    *a = (bench_args){.games = 2000, .seed = 1, .players = 0};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        bool takes_value = strcmp(opt, "--games") == 0 || strcmp(opt, "--seed") == 0 ||
                           strcmp(opt, "--players") == 0 || strcmp(opt, "--bot") == 0;
        if (takes_value && i + 1 == argc) return cli_bad_args("bench", "%s needs a value", opt);
        const char *value = takes_value ? argv[++i] : NULL;
        if (strcmp(opt, "--games") == 0) {
            if (!cli_parse_int(value, 1, 1000000000, &a->games))
                return cli_bad_args("bench", "--games must be a whole number from 1, got '%s'", value);
        } else if (strcmp(opt, "--seed") == 0) {
            if (!cli_parse_int(value, 0, INT64_MAX, &a->seed))
                return cli_bad_args("bench", "--seed must be a whole number from 0, got '%s'", value);
        } else if (strcmp(opt, "--players") == 0) {
            if (!cli_parse_int(value, 1, MEEPLE_MAX_PLAYERS, &a->players))
                return cli_bad_args("bench", "--players must be 1..%d, got '%s'", MEEPLE_MAX_PLAYERS, value);
        } else if (strcmp(opt, "--bot") == 0) {
            a->bot = value;
        } else if (strcmp(opt, "--json") == 0) {
            a->json = true;
        } else if (opt[0] == '-') {
            return cli_bad_args("bench", "unknown option '%s'", opt);
        } else if (game) {
            return cli_bad_args("bench", "one game expected, got also '%s'", opt);
        } else {
            game = opt;
        }
    }
    if (!game) return cli_bad_args("bench", "which game? games: %s", game_names());
    a->def = game_find(game);
    if (!a->def) return cli_bad_args("bench", "unknown game '%s'; games: %s", game, game_names());
    if (a->players == 0) a->players = a->def->default_players;
    if (a->players < a->def->min_players || a->players > a->def->max_players)
        return cli_bad_args("bench", "%s takes %d..%d players, got %lld", a->def->name, a->def->min_players,
                            a->def->max_players, a->players);
    if (a->bot) {
        FILE *f = fopen(a->bot, "r");
        if (!f) return cli_bad_args("bench", "cannot read the bot file '%s'", a->bot);
        fclose(f);
    }
    return 0;
}

/* ===================================================================================== playing */

/* "bench babel: 120/2000 games" on the terminal, rewritten in place every 1%, gone at the end. The
 * cursor goes back to the line's start, so a message that follows writes over it. */
static void progress(const bench_args *a, long long done, bool tty) {
    long long step = a->games / 100 > 0 ? a->games / 100 : 1;
    if (!tty || (done % step != 0 && done != a->games)) return;
    if (done == a->games) fprintf(stderr, "%*s\r", 60, "");
    else fprintf(stderr, "bench %s: %lld/%lld games\r", a->def->name, done, a->games);
    fflush(stderr);
}

/* Plays game `g` (dealt from seed S+g) to its end, every decision by `c`; adds its decisions. False
 * when the chooser or the game fails, said on stderr. */
static bool bench_game(const bench_args *a, chooser *c, void *st, long long g, long long *decisions) {
    const game_def *def = a->def;
    param_value params[MEEPLE_MAX_PARAMS];
    static action_t acts[MEEPLE_MAX_ACTIONS];
    params_defaults(def, params);
    def->setup(st, (int)a->players, params, (uint64_t)a->seed + (uint64_t)g);
    if (c->start && !c->start(c, st, g)) return false;
    for (long long moves = 0; !def->is_over(st); moves++) {
        int n = def->legal(st, acts);
        if (n <= 0 || moves == BENCH_MAX_DECISIONS) {
            fprintf(stderr, "meeple bench: %s %s (seed %lld, decision %lld)\n", def->name,
                    n <= 0 ? "has no legal action in a running game" : "does not end", a->seed + g,
                    moves + 1);
            return false;
        }
        int k = c->choose(c, st, acts, n);
        if (k < 0) return false;
        def->apply(st, acts[k]);
        (*decisions)++;
    }
    return true;
}

/* Plays `games` games, timed; `shown` asks for the progress line (on a terminal only). */
static bool bench_play(const bench_args *a, long long games, chooser *c, void *st, bench_run *out,
                       bool shown) {
    bool tty = shown && isatty(STDERR_FILENO), ok = true;
    *out = (bench_run){0};
    double t0 = now_seconds();
    for (long long g = 0; ok && g < games; g++) {
        ok = bench_game(a, c, st, g, &out->decisions);
        if (ok) progress(a, g + 1, tty);
    }
    out->games = games;
    out->seconds = now_seconds() - t0;
    return ok;
}

/* Uniform choices from one generator seeded with S: the pure C baseline. */
typedef struct random_chooser {
    chooser base;
    rng pick;
} random_chooser;

static int random_choose(chooser *c, const void *st, const action_t *acts, int n) {
    (void)st;
    (void)acts;
    return (int)rng_below(&((random_chooser *)c)->pick, (uint32_t)n);
}

static random_chooser random_chooser_new(const bench_args *a) {
    random_chooser r = {.base = {NULL, random_choose}};
    rng_seed(&r.pick, (uint64_t)a->seed, 0x6265);
    return r;
}

/* Copies the state over and over. The destination is read through a volatile pointer and a byte of
 * each copy is kept, so the compiler can neither hoist nor drop the copies; the last is checked. */
static double bench_clone(const game_def *def, const void *st, bool *ok) {
    size_t size = def->state_size;
    long long clones = (long long)((256u << 20) / (size ? size : 1));
    if (clones < 10000) clones = 10000;
    if (clones > 2000000) clones = 2000000;
    unsigned char *bufs[2] = {malloc(size), malloc(size)};
    *ok = bufs[0] && bufs[1];
    if (!*ok) {
        fprintf(stderr, "meeple bench: out of memory\n");
        free(bufs[0]);
        free(bufs[1]);
        return 0;
    }
    unsigned char *volatile slot;
    volatile unsigned sink = 0;
    double t0 = now_seconds();
    for (long long i = 0; i < clones; i++) {
        slot = bufs[i & 1];
        unsigned char *dst = slot;
        memcpy(dst, st, size);
        sink += dst[(size_t)i % size];
    }
    double seconds = now_seconds() - t0;
    (void)sink;
    *ok = memcmp(bufs[0], st, size) == 0 && memcmp(bufs[1], st, size) == 0;
    if (!*ok) fprintf(stderr, "meeple bench: a clone differs from its original\n");
    free(bufs[0]);
    free(bufs[1]);
    return seconds * 1e9 / (double)clones;
}

/* ========================================================================= decisions through Lua */

/* A bot driven the way a match will drive it: its view, the legal strings, a ctx per seat.
 * Its lua_State's stack holds, at fixed places: */
enum { BOT_TABLE = 1, BOT_CHOOSE, BOT_NAME, BOT_CTX, BOT_NOOP };

typedef struct lua_chooser {
    chooser base;
    const bench_args *args;
    const cli_options *opts;
    lua_State *L;
    const char *name;                   /* the bot's name, kept alive at BOT_NAME */
    bool noop;                          /* call BOT_NOOP and choose in C: the host's cost alone */
    const void *st;                     /* the state being decided, for ctx.sample */
    const action_t *acts;               /* its legal actions, for decide */
    int n;
    rng sample_rng, noop_rng;
    char texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT];
} lua_chooser;

/* ctx.sample(): a full state consistent with the seat's view, as a meeple.state. */
static int ctx_sample(lua_State *L) {
    lua_chooser *lc = lua_touserdata(L, lua_upvalueindex(1));
    int seat = (int)lua_tointeger(L, lua_upvalueindex(2));
    const game_def *def = lc->args->def;
    param_value params[MEEPLE_MAX_PARAMS];
    reason why = {{0}};
    params_defaults(def, params);
    session *s = session_new(def, (int)lc->args->players, params, 1, &why);
    if (!s) return luaL_error(L, "sample: %s", why.text);
    meeple_push_state(L, s); /* Lua owns it from here */
    memcpy(s->now, lc->st, def->state_size);
    def->sample(s->now, seat, &lc->sample_rng);
    session_rebase(s);
    return 1;
}

/* The ctx of one seat for one game: {seat, rng, budget = nil, sample}. */
static void push_ctx(lua_chooser *lc, int seat, long long game) {
    lua_State *L = lc->L;
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, seat + 1);
    lua_setfield(L, -2, "seat");
    meeple_push_rng(L, ((uint64_t)lc->args->seed + (uint64_t)game) * 1000003u + (uint64_t)seat);
    lua_setfield(L, -2, "rng");
    lua_pushlightuserdata(L, lc);
    lua_pushinteger(L, seat);
    lua_pushcclosure(L, ctx_sample, 2);
    lua_setfield(L, -2, "sample");
}

static void report_bot_error(lua_chooser *lc, const char *what) {
    char context[160];
    snprintf(context, sizeof context, "meeple bench: bot '%.60s' %s", lc->name, what);
    cli_report(lc->L, lc->opts, context);
}

/* Calls the bot's init(game, seat, ctx) for every seat, when it has one. */
static bool call_init(lua_chooser *lc) {
    lua_State *L = lc->L;
    int base = lua_gettop(L);
    bool ok = true;
    cli_push_msgh(L, lc->opts);
    if (lua_getfield(L, BOT_TABLE, "init") != LUA_TFUNCTION) {
        lua_settop(L, base);
        return true;
    }
    for (int seat = 0; ok && seat < lc->args->players; seat++) {
        lua_pushvalue(L, base + 2);
        lua_pushstring(L, lc->args->def->name);
        lua_pushinteger(L, seat + 1);
        lua_rawgeti(L, BOT_CTX, seat + 1);
        ok = lua_pcall(L, 3, 0, base + 1) == LUA_OK;
    }
    if (!ok) report_bot_error(lc, "init failed");
    lua_settop(L, base);
    return ok;
}

static bool lua_chooser_start(chooser *c, const void *st, long long game) {
    lua_chooser *lc = (lua_chooser *)c;
    lua_State *L = lc->L;
    lc->st = st;
    rng_seed(&lc->sample_rng, (uint64_t)lc->args->seed + (uint64_t)game, 0x5a3d1e);
    lua_createtable(L, (int)lc->args->players, 0);
    for (int seat = 0; seat < lc->args->players; seat++) {
        push_ctx(lc, seat, game);
        lua_rawseti(L, -2, seat + 1);
    }
    lua_replace(L, BOT_CTX);
    return lc->noop || call_init(lc);
}

/* Called under lua_pcall with (chooser, bot function, ctx): builds the view and the legal strings and
 * calls the bot, so that neither a memory error nor a game's faulty table escapes unprotected. */
static int decide(lua_State *L) {
    lua_chooser *lc = lua_touserdata(L, 1);
    const game_def *def = lc->args->def;
    lua_pushvalue(L, 2);
    meeple_push_table(L, def, lc->st, def->to_move(lc->st));
    lua_createtable(L, lc->n, 0);
    for (int i = 0; i < lc->n; i++) {
        def->action_text(lc->st, lc->acts[i], lc->texts[i]);
        lua_pushstring(L, lc->texts[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushvalue(L, 3);
    lua_call(L, 3, 1);
    return 1;
}

/* The index of the bot's choice in acts, or -1 (said why) when it failed or chose a non-legal action. */
static int lua_choose(chooser *c, const void *st, const action_t *acts, int n) {
    lua_chooser *lc = (lua_chooser *)c;
    lua_State *L = lc->L;
    int base = lua_gettop(L);
    lc->st = st;
    lc->acts = acts;
    lc->n = n;
    cli_push_msgh(L, lc->opts);
    lua_pushcfunction(L, decide);
    lua_pushlightuserdata(L, lc);
    lua_pushvalue(L, lc->noop ? BOT_NOOP : BOT_CHOOSE);
    lua_rawgeti(L, BOT_CTX, lc->args->def->to_move(st) + 1);
    if (lua_pcall(L, 3, 1, base + 1) != LUA_OK) {
        report_bot_error(lc, "failed");
        return -1;
    }
    if (lc->noop) {
        lua_settop(L, base);
        return (int)rng_below(&lc->noop_rng, (uint32_t)n);
    }
    int k = -1;
    const char *chosen = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    for (int i = 0; chosen && i < n && k < 0; i++)
        if (strcmp(chosen, lc->texts[i]) == 0) k = i;
    if (k < 0 && chosen)
        fprintf(stderr, "meeple bench: bot '%s' chose '%s', which is not a legal action\n", lc->name, chosen);
    else if (k < 0)
        fprintf(stderr, "meeple bench: bot '%s' returned %s instead of an action\n", lc->name,
                luaL_typename(L, -1));
    lua_settop(L, base);
    return k;
}

/* A fresh lua_State with the bot file (loaded as text only) and the fixed stack places. */
static bool lua_chooser_init(lua_chooser *lc, const bench_args *a, const cli_options *opts) {
    memset(lc, 0, sizeof *lc);
    lc->base = (chooser){lua_chooser_start, lua_choose};
    lc->args = a;
    lc->opts = opts;
    rng_seed(&lc->noop_rng, (uint64_t)a->seed, 0x6265);
    lua_State *L = lc->L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple bench: cannot create a Lua state (out of memory)\n");
        return false;
    }
    cli_push_msgh(L, opts);
    int status = luaL_loadfilex(L, a->bot, "t");
    if (status == LUA_OK) status = lua_pcall(L, 0, 1, 1);
    if (status != LUA_OK) {
        cli_report(L, opts, "meeple bench: cannot load the bot");
        return false;
    }
    lua_remove(L, 1); /* the handler; the bot table is now BOT_TABLE */
    if (!lua_istable(L, BOT_TABLE) || lua_getfield(L, BOT_TABLE, "choose") != LUA_TFUNCTION) {
        fprintf(stderr, "meeple bench: the bot file '%s' must return a table with a choose function\n",
                a->bot);
        return false;
    }
    lua_getfield(L, BOT_TABLE, "name");
    if (lua_type(L, BOT_NAME) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushstring(L, a->bot);
    }
    lc->name = lua_tostring(L, BOT_NAME);
    lua_pushnil(L);                /* BOT_CTX, filled per game */
    luaL_loadstring(L, "");        /* BOT_NOOP: an empty chunk is a Lua function doing nothing */
    return true;
}

/* ====================================================================================== report */

typedef struct figure {
    const char *name;
    const char *text; /* a string figure, or NULL */
    double value;
    int decimals;
} figure;

static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

static void print_figures(const figure *f, int n, bool json) {
    if (json) putchar('{');
    for (int i = 0; i < n; i++) {
        if (json) {
            if (i) putchar(',');
            print_json_string(f[i].name);
            putchar(':');
            if (f[i].text) print_json_string(f[i].text);
            else printf("%.*f", f[i].decimals, f[i].value);
        } else if (f[i].text) {
            printf("%s: %s\n", f[i].name, f[i].text);
        } else {
            printf("%s: %.*f\n", f[i].name, f[i].decimals, f[i].value);
        }
    }
    if (json) printf("}\n");
}

static double per(double a, double b) { return b > 0 ? a / b : 0; }

static void bench_report(const bench_args *a, const bench_run *run, double clone_ns, const char *bot,
                         double overhead_ns) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    figure f[16];
    int n = 0;
    f[n++] = (figure){"game", a->def->name, 0, 0};
    f[n++] = (figure){"players", NULL, (double)a->players, 0};
    if (bot) f[n++] = (figure){"bot", bot, 0, 0};
    f[n++] = (figure){"games", NULL, (double)run->games, 0};
    f[n++] = (figure){"decisions", NULL, (double)run->decisions, 0};
    f[n++] = (figure){"seconds", NULL, run->seconds, 4};
    f[n++] = (figure){"games/s", NULL, per((double)run->games, run->seconds), 0};
    f[n++] = (figure){"decisions/s", NULL, per((double)run->decisions, run->seconds), 0};
    f[n++] = (figure){"ns per decision", NULL, per(run->seconds * 1e9, (double)run->decisions), 1};
    f[n++] = (figure){"ns per clone", NULL, clone_ns, 1};
    if (bot) f[n++] = (figure){"ns host overhead per decision", NULL, overhead_ns, 1};
    f[n++] = (figure){"state bytes", NULL, (double)a->def->state_size, 0};
    f[n++] = (figure){"peak memory KiB", NULL, (double)ru.ru_maxrss, 0};
    print_figures(f, n, a->json);
}

/* ======================================================================================== main */

/* The host's cost per decision: a no-op Lua bot's pipeline against pure C. It does not depend on the
 * bot, so it runs 200..1000 games however few the bot played: fewer are mostly noise. */
static bool bench_overhead(const bench_args *a, lua_chooser *lc, void *st, double *out) {
    long long games = a->games < 200 ? 200 : a->games > 1000 ? 1000 : a->games;
    random_chooser rc = random_chooser_new(a);
    bench_run pure, noop;
    if (!bench_play(a, games, &rc.base, st, &pure, false)) return false;
    lc->noop = true;
    if (!bench_play(a, games, &lc->base, st, &noop, false)) return false;
    *out = per(noop.seconds * 1e9, (double)noop.decisions) - per(pure.seconds * 1e9, (double)pure.decisions);
    return true;
}

static int bench_with_bot(const bench_args *a, const cli_options *opts, void *st) {
    lua_chooser *lc = malloc(sizeof *lc);
    bench_run run;
    double clone_ns = 0, overhead = 0;
    bool ok = lc && lua_chooser_init(lc, a, opts) && bench_play(a, a->games, &lc->base, st, &run, true);
    if (ok) clone_ns = bench_clone(a->def, st, &ok);
    if (ok) ok = bench_overhead(a, lc, st, &overhead);
    if (ok) bench_report(a, &run, clone_ns, lc->name, overhead);
    if (lc && lc->L) lua_close(lc->L);
    free(lc);
    return ok ? 0 : 1;
}

int bench_main(int argc, char **argv, const cli_options *opts) {
    bench_args a;
    int bad = bench_parse(argc, argv, &a);
    if (bad) return bad;
    void *st = calloc(1, a.def->state_size);
    if (!st) {
        fprintf(stderr, "meeple bench: out of memory\n");
        return 1;
    }
    int status;
    if (a.bot) {
        status = bench_with_bot(&a, opts, st);
    } else {
        random_chooser rc = random_chooser_new(&a);
        bench_run run;
        double clone_ns = 0;
        bool ok = bench_play(&a, a.games, &rc.base, st, &run, true);
        if (ok) clone_ns = bench_clone(a.def, st, &ok);
        if (ok) bench_report(&a, &run, clone_ns, NULL, 0);
        status = ok ? 0 : 1;
    }
    free(st);
    return status;
}
