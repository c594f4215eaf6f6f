/* bench.c — `meeple bench`: random playouts in C, state clones, and the cost of a decision through Lua. */
#define _POSIX_C_SOURCE 200809L /* isatty, getrusage */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <lauxlib.h>
#include <jansson.h>
#include <lua.h>

#include "bots/bot.h"
#include "host/timing.h"
#include "cli.h"
#include "host/paths.h"
#include <meeple/registry.h>
#include <meeple/session.h>
#include "host/text.h"
#include "lua/lmeeple.h"

extern const char meeple_lua_bench_lua_api[]; /* repl/lua/bench_lua_api.lua */
extern const char meeple_lua_bench_variant[]; /* repl/lua/bench_variant.lua */

/* A game that has not ended after this many decisions is stuck: a bug in its rules, not a long game. */
#define BENCH_MAX_DECISIONS 1000000
/* Rounds: the same games timed again and again, so the spread is the machine's, not the games'. Random
 * play in C takes milliseconds a round; a Lua bot or a variant takes seconds, so they run one unless
 * asked. */
#define BENCH_ROUNDS 5
#define BENCH_MAX_ROUNDS 1000

typedef struct bench_args {
    const game_def *def;
    long long games, seed, players;
    long long rounds;      /* timed repetitions of the same games; 0: the mode's default */
    const char *bot, *variant, *against;
    char bot_path[1024];     /* the bot's file: --bot as given, or found by name (paths.h) */
    char against_path[1024]; /* --against's, likewise */
    bool json;
} bench_args;

/* One way of choosing an action; bench_play runs games with it. */
typedef struct chooser chooser;
struct chooser {
    /* A new game begins: `game` counts from 0. False stops the bench (the message is printed). */
    bool (*start)(chooser *c, const void *st, long long game);
    /* The index into acts[0..n) to play. -1 stops the bench (the message is printed). */
    int (*choose)(chooser *c, const void *st, const action_t *acts, int n);
    /* The game is over (optional): an external bot that stays for the next game hears the result. */
    void (*end)(chooser *c, const void *st);
};

typedef struct bench_run {
    long long games, decisions;
    double seconds;
} bench_run;

/* ==================================================================================== arguments */

static int bench_parse(int argc, char **argv, bench_args *a) {
    const char *game = NULL;
    *a = (bench_args){.games = 2000, .seed = 1, .players = 0};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        bool takes_value = strcmp(opt, "--games") == 0 || strcmp(opt, "--seed") == 0 ||
                           strcmp(opt, "--players") == 0 || strcmp(opt, "--bot") == 0 ||
                           strcmp(opt, "--variant") == 0 || strcmp(opt, "--rounds") == 0 ||
                           strcmp(opt, "--against") == 0;
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
        } else if (strcmp(opt, "--rounds") == 0) {
            if (!cli_parse_int(value, 1, BENCH_MAX_ROUNDS, &a->rounds))
                return cli_bad_args("bench", "--rounds must be 1..%d, got '%s'", BENCH_MAX_ROUNDS, value);
        } else if (strcmp(opt, "--bot") == 0) {
            a->bot = value;
        } else if (strcmp(opt, "--against") == 0) {
            a->against = value;
        } else if (strcmp(opt, "--variant") == 0) {
            a->variant = value;
        } else if (strcmp(opt, "--json") == 0) {
            a->json = true;
        } else if (opt[0] == '-') {
            return cli_unknown_option("bench", opt);
        } else if (game) {
            return cli_bad_args("bench", "one game expected, got also '%s'", opt);
        } else {
            game = opt;
        }
    }
    if (!game) return cli_bad_args("bench", "which game? games: %s", game_names());
    if (a->rounds == 0) a->rounds = a->bot || a->variant ? 1 : BENCH_ROUNDS;
    a->def = game_find(game);
    if (!a->def) return cli_unknown_game("bench", game);
    if (a->players == 0) a->players = a->def->default_players;
    if (a->players < a->def->min_players || a->players > a->def->max_players)
        return cli_bad_args("bench", "%s takes %d..%d players, got %lld", a->def->name, a->def->min_players,
                            a->def->max_players, a->players);
    if (a->bot && a->variant) return cli_bad_args("bench", "--bot and --variant do not go together (yet)");
    if (a->bot && !meeple_find_bot(a->bot, a->bot_path, sizeof a->bot_path))
        return cli_no_bot("bench", a->bot);
    if (a->against && !a->bot) return cli_bad_args("bench", "--against BOT needs --bot FILE, the bot that plays against it");
    if (a->against && a->players < 2) return cli_bad_args("bench", "--against needs at least 2 players");
    if (a->against && !meeple_find_bot(a->against, a->against_path, sizeof a->against_path))
        return cli_no_bot("bench", a->against);
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
    if (c->end) c->end(c, st);
    return true;
}

/* Plays `games` games, timed; `shown` asks for the progress line (on a terminal only). */
static bool bench_play(const bench_args *a, long long games, chooser *c, void *st, bench_run *out,
                       bool shown) {
    bool tty = shown && isatty(STDERR_FILENO), ok = true;
    *out = (bench_run){0};
    double t0 = (timing_now_ms() / 1e3);
    for (long long g = 0; ok && g < games; g++) {
        ok = bench_game(a, c, st, g, &out->decisions);
        if (ok) progress(a, g + 1, tty);
    }
    out->games = games;
    out->seconds = (timing_now_ms() / 1e3) - t0;
    return ok;
}

/* The timed rounds: `a->rounds` times the same games (from the same seeds, with `pick`, the chooser's
 * generator if it has one, seeded again), each round in runs[]. Progress shows in the first. */
static bool bench_play_rounds(const bench_args *a, chooser *c, rng *pick, void *st, bench_run *runs) {
    for (long long r = 0; r < a->rounds; r++) {
        if (pick) rng_seed(pick, (uint64_t)a->seed, 0x6265);
        if (!bench_play(a, a->games, c, st, &runs[r], r == 0)) return false;
    }
    return true;
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
    double t0 = (timing_now_ms() / 1e3);
    for (long long i = 0; i < clones; i++) {
        slot = bufs[i & 1];
        unsigned char *dst = slot;
        memcpy(dst, st, size);
        sink += dst[(size_t)i % size];
    }
    double seconds = (timing_now_ms() / 1e3) - t0;
    (void)sink;
    *ok = memcmp(bufs[0], st, size) == 0 && memcmp(bufs[1], st, size) == 0;
    if (!*ok) fprintf(stderr, "meeple bench: a clone differs from its original\n");
    free(bufs[0]);
    free(bufs[1]);
    return seconds * 1e9 / (double)clones;
}

/* ========================================================================= decisions through Lua */

/* Bots driven the way a match drives them (core/bots/bot.h): one sandboxed bot per seat, a new game begun
 * on each for every game. With `probe`, the bots' answers are ignored and the choice is made in C
 * with the pure C baseline's generator, so the games are the same as the baseline's and the
 * difference in time is the host's overhead alone. With --against, game g seats the bot at g mod
 * players and the other bot everywhere else: every seat in turn, against identical opponents. */
typedef struct lua_chooser {
    chooser base;
    const bench_args *args;
    bot *bots[MEEPLE_MAX_PLAYERS];
    bot *others[MEEPLE_MAX_PLAYERS]; /* --against's, or none */
    int hero;                        /* the seat of bots[] this game when others[] play the rest */
    bool probe;
    rng pick;
} lua_chooser;

static bot *seat_bot(const lua_chooser *lc, int seat) {
    return lc->others[seat] && seat != lc->hero ? lc->others[seat] : lc->bots[seat];
}

static const bot_limits bench_limits = {BOT_DEFAULT_MS, BOT_DEFAULT_INSTRUCTIONS, BOT_DEFAULT_MEMORY, 0};

/* "meeple bench: <line>" with the bot's words escaped (text.h): its name and error are its own. */
static void say_escaped(const char *line) {
    fputs("meeple bench: ", stderr);
    text_write(stderr, line, strlen(line), false);
    fputc('\n', stderr);
}

static void report_bot(const bot *b, const char *what) {
    char line[1200];
    snprintf(line, sizeof line, "bot '%s' %s: %s", bot_name(b), what, bot_reason(b));
    say_escaped(line);
}

static bool lua_chooser_start(chooser *c, const void *st, long long game) {
    lua_chooser *lc = (lua_chooser *)c;
    lc->hero = (int)(game % lc->args->players);
    for (int seat = 0; seat < lc->args->players; seat++)
        if (!bot_begin(seat_bot(lc, seat), st, seat, (uint64_t)lc->args->seed + (uint64_t)game)) {
            report_bot(seat_bot(lc, seat), "failed");
            return false;
        }
    return true;
}

static void lua_chooser_end(chooser *c, const void *st) {
    lua_chooser *lc = (lua_chooser *)c;
    const game_def *def = lc->args->def;
    int scores[MEEPLE_MAX_PLAYERS], winners[MEEPLE_MAX_PLAYERS];
    def->scores(st, scores);
    int nwinners = def->winners(st, winners);
    for (int seat = 0; seat < lc->args->players; seat++) bot_end(seat_bot(lc, seat), scores, winners, nwinners);
}

static int lua_choose(chooser *c, const void *st, const action_t *acts, int n) {
    lua_chooser *lc = (lua_chooser *)c;
    bot *b = seat_bot(lc, lc->args->def->to_move(st));
    int k;
    if (lc->probe) {
        if (!bot_probe(b, st, acts, n)) {
            report_bot(b, "failed");
            return -1;
        }
        k = (int)rng_below(&lc->pick, (uint32_t)n);
    } else {
        /* the figures are the bot's: searches of the bots it plays against are not counted */
        meeple_search_totals_count(b == lc->bots[lc->args->def->to_move(st)]);
        k = bot_choose(b, st, acts, n);
        meeple_search_totals_count(true);
        if (k < 0) {
            report_bot(b, "failed");
            return k;
        }
    }
    char text[MEEPLE_ACTION_TEXT]; /* for ctx.history */
    lc->args->def->action_text(st, acts[k], text);
    for (int seat = 0; seat < lc->args->players; seat++) bot_saw(seat_bot(lc, seat), st, acts[k], text);
    return k;
}

/* A bot from `code` for every seat into seats[]; false (said why) when out of memory or it is broken. */
static bool new_bots(bot **seats, const bench_args *a, const bot_code *code, const cli_options *opts) {
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(a->def, params);
    for (int seat = 0; seat < a->players; seat++) {
        seats[seat] = bot_new(code, a->def, params, &bench_limits, opts->debug);
        if (!seats[seat]) {
            fprintf(stderr, "meeple bench: out of memory\n");
            return false;
        }
        if (bot_fault_of(seats[seat])) {
            report_bot(seats[seat], "cannot start");
            return false;
        }
    }
    return true;
}

/* One bot per seat from `code`, and from `against` (optional) one per seat for the other seats. */
static bool lua_chooser_init(lua_chooser *lc, const bench_args *a, const bot_code *code, const bot_code *against,
                             bool probe, const cli_options *opts) {
    *lc = (lua_chooser){.base = {lua_chooser_start, lua_choose, lua_chooser_end}, .args = a, .probe = probe};
    rng_seed(&lc->pick, (uint64_t)a->seed, 0x6265);
    return new_bots(lc->bots, a, code, opts) && (!against || new_bots(lc->others, a, against, opts));
}

static void lua_chooser_free(lua_chooser *lc) {
    for (int seat = 0; seat < MEEPLE_MAX_PLAYERS; seat++) {
        bot_free(lc->bots[seat]);
        bot_free(lc->others[seat]);
    }
}

/* ================================================================== the Lua API a search bot uses */

static int compare_doubles(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int compare_floats(const void *x, const void *y) {
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* The median of the searches' rates (sorted in place: the report is their last use). */
static double median_rate(const meeple_search_totals *search) {
    meeple_search_totals *t = (meeple_search_totals *)search;
    if (t->rates == 0) return 0;
    qsort(t->rate, (size_t)t->rates, sizeof t->rate[0], compare_floats);
    int mid = t->rates / 2;
    return t->rates % 2 ? t->rate[mid] : (t->rate[mid - 1] + t->rate[mid]) / 2.0;
}

typedef struct lua_api_figures {
    double clone_ns, legal_ns;
} lua_api_figures;

enum { LUA_API_CALLS = 50000 };

/* ns per call of the loop `loop` of repl/lua/bench_lua_api.lua (its table at `api`) on the position
 * at `pos`: the median of `rounds` timings. */
static double time_lua_loop(lua_State *L, int api, const char *loop, int pos, long long rounds) {
    double ns[BENCH_MAX_ROUNDS];
    for (long long r = 0; r < rounds; r++) {
        if (lua_getfield(L, api, loop) != LUA_TFUNCTION) return 0;
        lua_pushvalue(L, pos);
        lua_pushinteger(L, LUA_API_CALLS);
        double t0 = (timing_now_ms() / 1e3);
        if (lua_pcall(L, 2, 0, 0) != LUA_OK) return 0;
        ns[r] = ((timing_now_ms() / 1e3) - t0) * 1e9 / LUA_API_CALLS;
        lua_gc(L, LUA_GCCOLLECT, 0); /* each round starts with the same heap */
    }
    qsort(ns, (size_t)rounds, sizeof ns[0], compare_doubles);
    return ns[(rounds - 1) / 2];
}

/* What s:clone() and s:legal() cost a script or a search bot, in a plain lua_State with the module. */
static bool bench_lua_api(const bench_args *a, lua_api_figures *out) {
    lua_State *L = cli_new_lua();
    bool ok = L && cli_load_program(L, meeple_lua_bench_lua_api, "=bench") == LUA_OK &&
              lua_pcall(L, 0, 1, 0) == LUA_OK && lua_istable(L, -1); /* the table at 1 */
    if (ok) {
        lua_getfield(L, 1, "position");
        lua_pushstring(L, a->def->name);
        lua_pushinteger(L, (lua_Integer)a->players);
        lua_pushinteger(L, (lua_Integer)a->seed);
        ok = lua_pcall(L, 3, 1, 0) == LUA_OK;
    }
    long long rounds = a->rounds < 3 ? 3 : a->rounds;
    if (ok) {
        int pos = lua_gettop(L);
        out->clone_ns = time_lua_loop(L, 1, "clones", pos, rounds);
        out->legal_ns = out->clone_ns > 0 ? time_lua_loop(L, 1, "legals", pos, rounds) : 0;
        ok = out->clone_ns > 0 && out->legal_ns > 0;
    }
    if (!ok) {
        const char *why = L ? lua_tostring(L, -1) : "out of memory";
        fprintf(stderr, "meeple bench: the Lua API timing failed: %s\n", why ? why : "(no message)");
    }
    if (L) lua_close(L);
    return ok;
}

/* ====================================================================================== report */

/* One figure of the report: `name` on a terminal, `key` in --json (snake_case). */
typedef struct figure {
    const char *name, *key;
    const char *text; /* a string figure, or NULL */
    double value;
    int decimals;
} figure;

static void print_json_figures(const figure *f, int n) {
    json_t *o = json_object();
    for (int i = 0; i < n; i++) {
        json_t *v = f[i].text ? json_string(f[i].text)
                    : f[i].decimals == 0 ? json_integer((json_int_t)llround(f[i].value))
                                         : json_real(round(f[i].value * pow(10, f[i].decimals)) / pow(10, f[i].decimals));
        json_object_set_new(o, f[i].key, v ? v : json_null());
    }
    char *text = json_dumps(o, JSON_COMPACT);
    if (text) puts(text);
    free(text);
    json_decref(o);
}

static void print_figures(const figure *f, int n, bool json) {
    if (json) {
        print_json_figures(f, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (f[i].text) printf("%s: %s\n", f[i].name, f[i].text);
        else printf("%s: %.*f\n", f[i].name, f[i].decimals, f[i].value);
    }
}

static double per(double a, double b) { return b > 0 ? a / b : 0; }

/* The host's overhead per Lua decision (bench_overhead): the view unread, one field read, all walked,
 * the same walk over a plain copy of a view (the walk's own Lua, to take out of the figure), and that
 * copy made anew in Lua (what building the same tables costs the VM itself: the floor for the host). */
enum { PROBE_UNREAD, PROBE_FIELD, PROBE_WALK, PROBE_WALK_PLAIN, PROBE_COPY_PLAIN, PROBES };

/* The spread of the rounds' ns per decision: median, lowest, highest. */
typedef struct spread {
    double median, min, max;
    int median_round; /* the round whose figures stand for all: the lower middle one */
} spread;

static spread spread_of(const bench_run *runs, int rounds) {
    double ns[BENCH_MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) ns[r] = per(runs[r].seconds * 1e9, (double)runs[r].decisions);
    spread out = {0};
    qsort(ns, (size_t)rounds, sizeof ns[0], compare_doubles);
    double lower_middle = ns[(rounds - 1) / 2];
    out.median = rounds % 2 ? lower_middle : (lower_middle + ns[rounds / 2]) / 2;
    out.min = ns[0];
    out.max = ns[rounds - 1];
    for (int r = 0; r < rounds; r++)
        if (per(runs[r].seconds * 1e9, (double)runs[r].decisions) == lower_middle) out.median_round = r;
    return out;
}

/* `runs` holds a->rounds rounds of the same games: the figures are the median round's, with the spread
 * of ns per decision over all of them. */
static void bench_report(const bench_args *a, const bench_run *runs, double clone_ns, const lua_api_figures *api,
                         const char *bot, const double *overhead_ns, const meeple_search_totals *search) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    spread ns = spread_of(runs, (int)a->rounds);
    const bench_run *run = &runs[ns.median_round];
    figure f[36];
    int n = 0;
    f[n++] = (figure){"game", "game", a->def->name, 0, 0};
    f[n++] = (figure){"players", "players", NULL, (double)a->players, 0};
    if (bot) f[n++] = (figure){"bot", "bot", bot, 0, 0};
    if (a->against) f[n++] = (figure){"against", "against", a->against, 0, 0};
    if (a->variant) f[n++] = (figure){"variant", "variant", a->variant, 0, 0};
    f[n++] = (figure){"games", "games", NULL, (double)run->games, 0};
    f[n++] = (figure){"decisions", "decisions", NULL, (double)run->decisions, 0};
    f[n++] = (figure){"seconds", "seconds", NULL, run->seconds, 4};
    f[n++] = (figure){"games/s", "games_per_s", NULL, per((double)run->games, run->seconds), 0};
    f[n++] = (figure){"decisions/s", "decisions_per_s", NULL, per((double)run->decisions, run->seconds), 0};
    f[n++] = (figure){"rounds", "rounds", NULL, (double)a->rounds, 0};
    f[n++] = (figure){"ns per decision", "ns_per_decision", NULL, ns.median, 1};
    f[n++] = (figure){"ns per decision, fastest round", "ns_per_decision_min", NULL, ns.min, 1};
    f[n++] = (figure){"ns per decision, slowest round", "ns_per_decision_max", NULL, ns.max, 1};
    f[n++] = (figure){"ns per clone", "clone_ns", NULL, clone_ns, 1};
    if (bot) {
        f[n++] = (figure){"ns host overhead per decision", "host_overhead_ns", NULL, overhead_ns[PROBE_UNREAD], 1};
        f[n++] = (figure){"ns host overhead per decision, one view field read", "host_overhead_field_ns", NULL, overhead_ns[PROBE_FIELD], 1};
        f[n++] = (figure){"ns host overhead per decision, whole view walked", "host_overhead_walk_ns", NULL, overhead_ns[PROBE_WALK], 1};
        /* The walk's own Lua is what walking a plain copy costs beyond the unread view. */
        double walk_lua = overhead_ns[PROBE_WALK_PLAIN] - overhead_ns[PROBE_UNREAD];
        f[n++] = (figure){"ns host overhead per decision, whole view walked, less the walk's own Lua",
                          "host_overhead_walk_net_ns", NULL, overhead_ns[PROBE_WALK] - walk_lua, 1};
        /* A copy walks the plain view and builds its tables: less the walk, Lua's own cost of them. */
        f[n++] = (figure){"ns to build the view's tables in Lua itself (a plain copy, less the walk)",
                          "lua_build_view_ns", NULL, overhead_ns[PROBE_COPY_PLAIN] - overhead_ns[PROBE_WALK_PLAIN], 1};
    }
    if (search && search->searches > 0 && search->iterations > 0 && search->ms > 0) {
        /* The search's own cost: its time less its playouts' (their decisions are the game's), per
         * iteration, on the thread's CPU clock (a loaded machine's waits left out) split by the wall
         * clock's shares; a decision with one legal action does not search. */
        double iterations = (double)search->iterations, cpu = search->cpu_ms > 0 ? search->cpu_ms : search->ms;
        double own = (search->ms - search->playout_ms - search->hook_ms) / search->ms;
        f[n++] = (figure){"searches (decisions that searched)", "searches", NULL, (double)search->searches, 0};
        f[n++] = (figure){"iterations per decision", "iterations_per_decision", NULL,
                          iterations / (double)search->searches, 1};
        f[n++] = (figure){"iterations per 100 ms of CPU", "iterations_per_100ms_cpu", NULL, iterations / cpu * 100, 0};
        f[n++] = (figure){"iterations per 100 ms of CPU, the median search's", "iterations_per_100ms_cpu_median",
                          NULL, median_rate(search), 0};
        f[n++] = (figure){"ns search overhead per iteration", "search_overhead_ns", NULL, cpu * own * 1e6 / iterations, 1};
        f[n++] = (figure){"ns in playouts per iteration", "playout_ns", NULL, cpu * search->playout_ms / search->ms * 1e6 / iterations, 1};
        f[n++] = (figure){"ns in the hooks per iteration", "hook_ns", NULL, cpu * search->hook_ms / search->ms * 1e6 / iterations, 1};
    }
    if (api) {
        f[n++] = (figure){"ns per s:clone() from Lua", "lua_clone_ns", NULL, api->clone_ns, 1};
        f[n++] = (figure){"ns per s:legal() from Lua", "lua_legal_ns", NULL, api->legal_ns, 1};
    }
    f[n++] = (figure){"state bytes", "state_bytes", NULL, (double)a->def->state_size, 0};
    f[n++] = (figure){"peak memory KiB", "peak_memory_kib", NULL, (double)ru.ru_maxrss, 0};
    print_figures(f, n, a->json);
}

/* ======================================================================================== main */

/* The probes' Lua: a walk of every table of a view, and a copy of one into plain tables. */
#define PROBE_WALK_FN "local function walk(t) for _, v in pairs(t) do if type(v) == 'table' then walk(v) end end end\n"
/* A bot that copies the game's first view into plain tables (`plain`), then does `use` at every decision. */
#define PROBE_PLAIN_COPY(use)                                                                                        \
    "local function copy(t) local c = {} for k, v in pairs(t) do c[k] = type(v) == 'table' and copy(v) or v end "   \
    "return c end\n"                                                                                                 \
    "local plain\n"                                                                                                  \
    "return { name = 'probe', init = function() plain = nil end,\n"                                                  \
    "         choose = function(view) plain = plain or copy(view); " use " end }"

/* The host's cost per decision: a no-op Lua bot's pipeline against pure C, with the view left unread
 * (`choose = function() end`), one field read (which writes that field alone), and every table of it
 * walked with pairs (the walk's own Lua is counted too: an upper bound; the plain walk probe measures
 * that Lua, to take out). It does not depend on the bot, so it runs 200..1000 games however few the
 * bot played: fewer are mostly noise. */
static bool bench_overhead(const bench_args *a, void *st, const cli_options *opts, double *overhead_ns) {
    static const char *const probes[PROBES] = {
        [PROBE_UNREAD] = "return { name = 'probe', choose = function() end }",
        [PROBE_FIELD] = "return { name = 'probe', choose = function(view) local _ = view.turn end }",
        [PROBE_WALK] = (PROBE_WALK_FN "return { name = 'probe', choose = function(view) walk(view) end }"),
        /* A copy of the game's first view, walked at every decision: the same Lua on plain tables. */
        [PROBE_WALK_PLAIN] = (PROBE_WALK_FN PROBE_PLAIN_COPY("walk(plain)")),
        /* The same copy made anew at every decision: the walk above, and Lua building the tables. */
        [PROBE_COPY_PLAIN] = (PROBE_PLAIN_COPY("local _ = copy(plain)")),
    };
    long long games = a->games < 200 ? 200 : a->games > 1000 ? 1000 : a->games;
    random_chooser rc = random_chooser_new(a);
    bench_run pure, probe;
    if (!bench_play(a, games, &rc.base, st, &pure, false)) return false;
    for (int i = 0; i < PROBES; i++) {
        char err[300];
        bot_code *code = bot_code_from_text(probes[i], "probe", &bench_limits, err, sizeof err);
        lua_chooser lc = {0};
        bool ok = code && lua_chooser_init(&lc, a, code, NULL, true, opts) &&
                  bench_play(a, games, &lc.base, st, &probe, false);
        if (!code) fprintf(stderr, "meeple bench: %s\n", err);
        lua_chooser_free(&lc);
        bot_code_free(code);
        if (!ok) return false;
        double ns = per(probe.seconds * 1e9, (double)probe.decisions) -
                    per(pure.seconds * 1e9, (double)pure.decisions);
        overhead_ns[i] = ns;
    }
    return true;
}

static int bench_with_bot(const bench_args *a, const cli_options *opts, void *st) {
    char err[400];
    bot_code *code = bot_code_load(a->bot_path, &bench_limits, err, sizeof err);
    bot_code *against = code && a->against ? bot_code_load(a->against_path, &bench_limits, err, sizeof err) : NULL;
    if (!code || (a->against && !against)) {
        say_escaped(err);
        bot_code_free(code);
        return 1;
    }
    lua_chooser lc = {0};
    static bench_run runs[BENCH_MAX_ROUNDS];
    double clone_ns = 0, overhead_ns[PROBES] = {0};
    lua_api_figures api;
    static meeple_search_totals search; /* its rates are 64 KiB */
    bool ok = bench_lua_api(a, &api) && lua_chooser_init(&lc, a, code, against, false, opts);
    meeple_search_totals_take(&search); /* from zero: the rounds' searches alone */
    ok = ok && bench_play_rounds(a, &lc.base, NULL, st, runs);
    meeple_search_totals_take(&search);
    if (ok) ok = bench_overhead(a, st, opts, overhead_ns);
    if (ok) clone_ns = bench_clone(a->def, st, &ok);
    char name[48];
    text_bot_name(name, sizeof name, code->name);
    if (ok) bench_report(a, runs, clone_ns, &api, name, overhead_ns, &search);
    lua_chooser_free(&lc);
    bot_code_free(code);
    bot_code_free(against);
    return ok ? 0 : 1;
}

/* Random play under a variant (repl/lua/bench_variant.lua): every decision goes through the variant's
 * hooks, which are Lua, so this measures the hooked path. */
static int bench_with_variant(const bench_args *a, const cli_options *opts, void *st) {
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple bench: out of memory\n");
        return 1;
    }
    /* One game first, so a bad variant is a bad argument rather than a failed bench. */
    cli_push_msgh(L, opts);
    int msgh = lua_gettop(L);
    static bench_run runs[BENCH_MAX_ROUNDS];
    int status = 0;
    for (long long pass = 0; pass <= a->rounds && !status; pass++) {
        long long games = pass == 0 ? 1 : a->games;
        if (cli_load_program(L, meeple_lua_bench_variant, "=bench") != LUA_OK) {
            status = 1;
            break;
        }
        lua_pushstring(L, a->def->name);
        lua_pushstring(L, a->variant);
        lua_pushinteger(L, (lua_Integer)a->players);
        lua_pushinteger(L, (lua_Integer)a->seed);
        lua_pushinteger(L, (lua_Integer)games);
        double t0 = (timing_now_ms() / 1e3);
        if (lua_pcall(L, 5, 1, msgh) != LUA_OK) {
            if (pass == 0) status = cli_bad_args("bench", "%s", lua_tostring(L, -1));
            else {
                cli_report(L, opts, "meeple bench");
                status = 1;
            }
            break;
        }
        if (pass > 0) runs[pass - 1] = (bench_run){games, (long long)lua_tointeger(L, -1), (timing_now_ms() / 1e3) - t0};
        lua_pop(L, 1);
    }
    lua_close(L);
    if (status) return status;
    bool ok = true;
    random_chooser rc = random_chooser_new(a);
    bench_run plain;
    ok = bench_play(a, 1, &rc.base, st, &plain, false); /* a state to time clones on */
    double clone_ns = ok ? bench_clone(a->def, st, &ok) : 0;
    if (ok) bench_report(a, runs, clone_ns, NULL, NULL, NULL, NULL);
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
    if (a.variant) {
        status = bench_with_variant(&a, opts, st);
    } else if (a.bot) {
        status = bench_with_bot(&a, opts, st);
    } else {
        random_chooser rc = random_chooser_new(&a);
        static bench_run runs[BENCH_MAX_ROUNDS];
        double clone_ns = 0;
        /* The Lua API first, in a heap the C clones' big buffers have not churned. */
        lua_api_figures api;
        bool ok = bench_lua_api(&a, &api) && bench_play_rounds(&a, &rc.base, &rc.pick, st, runs);
        if (ok) clone_ns = bench_clone(a.def, st, &ok);
        if (ok) bench_report(&a, runs, clone_ns, &api, NULL, NULL, NULL);
        status = ok ? 0 : 1;
    }
    free(st);
    return status;
}
