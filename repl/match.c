/* match.c — `meeple match`: bots against each other over many games, in parallel threads, each game
 * logged as one JSON line (docs/log-format.md), and a results table at the end.
 *
 * The match has one seed S: --seed, or drawn from the OS and logged. The games come in deals (blocks of
 * the seating design, core/host/seating.h): every game of deal d is dealt with one seed derived from S and d
 * by a keyed hash, so no deal's seed follows from another's or can be guessed by a bot, and the design
 * seats the bots so that each sits in each seat equally often within a deal (balanced: with every left
 * neighbour equally often too). Each bot gets a fresh sandboxed lua_State for each game, so a game's
 * result depends on its seed and its bots alone: the same whatever --jobs is, whichever worker plays it,
 * and whichever shard (--shard K/N: the deals d with (d-1) mod N = K-1, for a cluster; `meeple merge`
 * joins the shards' logs). Results are logged and counted in game order, as each game and all before it
 * are done; --sprt decides on each completed deal in that order, so its stop does not depend on --jobs. */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno, sigaction */

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>

#include "bots/bot.h"
#include "host/timing.h"
#include "cli.h"
#include "lua/lmeeple.h"
#include "host/matchlog.h"
#include "host/paths.h"
#include <meeple/registry.h>
#include <meeple/session.h>
#include "host/text.h"

extern const char meeple_lua_referee[]; /* repl/lua/referee.lua */

#define MATCH_INTERRUPTED 130 /* the shell's status for a command stopped by SIGINT */
/* A game still running after this many decisions ends unfinished, counted as a draw shared by all
 * seats (--max-decisions; docs/api.md): by default the game's own cap (game_def.max_decisions). */
#define MATCH_DEFAULT_MAX_DECISIONS 30000 /* a game that sets none */

static long long default_max_decisions(const game_def *def) {
    return def->max_decisions > 0 ? def->max_decisions : MATCH_DEFAULT_MAX_DECISIONS;
}

typedef struct match_args {
    const game_def *def;
    int players;                               /* one seat per bot */
    char paths[MEEPLE_MAX_PLAYERS][1024];
    long long games, seed, jobs;               /* seed: --seed, when seed_given */
    long long max_decisions;                   /* a game still running after this many ends unfinished */
    long long shard, shards;                   /* --shard K/N: shard = K-1; 0 of 1 without it */
    const char *log, *variant;                 /* variant: as given (a name or a path), or NULL */
    bool resume, echo, seed_given, json, games_given;
    seating_design seating;
    long long block;                           /* games a deal */
    matchlog_sprt sprt;                        /* --sprt P0,P1 [--alpha A] [--beta B] */
    bot_limits limits;
} match_args;

/* One game as a worker leaves it: its outcome and record, or why it has none. */
typedef struct game_result {
    matchlog_game g;
    char *line;                                /* the log line, newline included */
    char error[300];                           /* the game itself failed: a bug, the match stops */
    bool abandoned;                            /* a signal stopped it before its end: not logged */
} game_result;

typedef struct match {
    const match_args *a;
    param_value params[MEEPLE_MAX_PARAMS];
    bot_code *codes[MEEPLE_MAX_PLAYERS];
    matchlog_match mm;                         /* the match's identity; mm.match_seed -1 while unknown */
    matchlog_tally tally;
    long long cut_line;                        /* the log's half-written last line, resumed; 0: none */
    pthread_mutex_t lock;
    /* Counted in this shard's games ("slots"): slot j is game shard + j * shards. */
    long long slots, next_game, next_count;    /* the next slot to hand out, and to log and count */
    long long first;                           /* the first slot this run plays (earlier: the log) */
    game_result **done;                        /* finished, not yet counted, by slot - first */
    FILE *log;
    bool stop, tty;
    double started;                            /* timing_now_ms() when play began, for the time left */
    char error[1600];
} match;

/* The signal that asked the match to stop (SIGINT, SIGTERM), or 0. */
static volatile sig_atomic_t match_signal;

/* The decisions running end at once (bot_interrupt): a match stops within 0.5 s whatever its bots do. */
static void on_signal(int sig) {
    match_signal = sig;
    bot_interrupt(true);
}

/* A shard plays whole deals: slot j is game j mod B of its (j div B)-th deal, deal shard + (j div B) * shards. */
static long long game_of_slot(const match *m, long long slot) {
    long long block = m->a->block;
    return (m->a->shard + slot / block * m->a->shards) * block + slot % block;
}

/* The games (slots) shard K-1 of N plays: its deals times their games. */
static long long slots_of_shard(const match_args *a) {
    long long deals = a->games / a->block;
    return (deals - a->shard + a->shards - 1) / a->shards * a->block;
}

static int bot_of_seat(const match *m, long long game, int seat) { return matchlog_bot_of_seat(&m->mm, game, seat); }

static long long game_seed(const match *m, long long game) { return matchlog_seed_of_game(&m->mm, game); }

/* ==================================================================================== arguments */

/* "K/N", 1 <= K <= N: into a->shard (K-1) and a->shards. */
static bool parse_shard(const char *text, match_args *a) {
    const char *slash = strchr(text, '/');
    char k[32];
    long long shard;
    if (!slash || (size_t)(slash - text) >= sizeof k) return false;
    memcpy(k, text, (size_t)(slash - text));
    k[slash - text] = '\0';
    if (!cli_parse_int(slash + 1, 1, MATCHLOG_MAX_GAMES, &a->shards) || !cli_parse_int(k, 1, a->shards, &shard))
        return false;
    a->shard = shard - 1;
    return true;
}

/* --jobs 0: one worker per core. */
static long long cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : n;
}

/* A probability strictly between 0 and 1, written as a plain decimal number. */
static bool parse_fraction(const char *text, double *out) {
    char *end;
    if (!text[0] || strspn(text, "0123456789.") != strlen(text)) return false;
    *out = strtod(text, &end);
    /* As the log writes it (15 digits), so a resumed log's settings compare equal to the arguments'. */
    char again[32];
    snprintf(again, sizeof again, "%.15g", *out);
    bool ok = *end == '\0';
    *out = strtod(again, NULL);
    return ok && *out > 0 && *out < 1;
}

/* "P0,P1": the SPRT's two hypotheses on the first bot's expected score. */
static bool parse_sprt(const char *text, matchlog_sprt *s) {
    const char *comma = strchr(text, ',');
    char p0[32];
    if (!comma || (size_t)(comma - text) >= sizeof p0) return false;
    memcpy(p0, text, (size_t)(comma - text));
    p0[comma - text] = '\0';
    s->on = parse_fraction(p0, &s->p0) && parse_fraction(comma + 1, &s->p1) && s->p0 != s->p1;
    return s->on;
}

/* The option `opt` with its value; 0, or the status of a refusal. */
static int match_option(const char *opt, const char *value, match_args *a) {
    long long number = 0;
    if (strcmp(opt, "--games") == 0) {
        if (!cli_parse_int(value, 1, MATCHLOG_MAX_GAMES, &a->games))
            return cli_bad_args("match", "--games must be a whole number from 1 to %lld, got '%s'",
                                MATCHLOG_MAX_GAMES, value);
        a->games_given = true;
    } else if (strcmp(opt, "--seating") == 0) {
        if (!seating_parse(value, &a->seating))
            return cli_bad_args("match", "--seating must be one of %s, got '%s'%s", SEATING_NAMES, value,
                                cli_suggest(value, (const char *const[]){"rotate", "balanced", "permute", "random",
                                                                         NULL}));
    } else if (strcmp(opt, "--sprt") == 0) {
        if (!parse_sprt(value, &a->sprt))
            return cli_bad_args("match", "--sprt must be P0,P1: two different expected scores of the first bot, "
                                "each between 0 and 1 (e.g. 0.5,0.55), got '%s'", value);
    } else if (strcmp(opt, "--alpha") == 0 || strcmp(opt, "--beta") == 0) {
        double *p = opt[2] == 'a' ? &a->sprt.alpha : &a->sprt.beta;
        if (!parse_fraction(value, p) || *p >= 0.5)
            return cli_bad_args("match", "%s must be a probability between 0 and 0.5 (e.g. 0.05), got '%s'", opt, value);
    } else if (strcmp(opt, "--seed") == 0) {
        if (!cli_parse_int(value, 0, MEEPLE_SEED_MAX, &a->seed))
            return cli_bad_args("match", "--seed must be a whole number from 0 to %lld, got '%s'", MEEPLE_SEED_MAX,
                                value);
        a->seed_given = true;
    } else if (strcmp(opt, "--jobs") == 0) {
        if (!cli_parse_int(value, 0, 256, &a->jobs))
            return cli_bad_args("match", "--jobs must be 0..256 (0: one per core), got '%s'", value);
        if (a->jobs == 0) a->jobs = cores();
    } else if (strcmp(opt, "--shard") == 0) {
        if (!parse_shard(value, a))
            return cli_bad_args("match", "--shard must be K/N with 1 <= K <= N (shard K of N), got '%s'", value);
    } else if (strcmp(opt, "--variant") == 0) {
        json_t *utf8 = json_string(value); /* it is logged, and JSON text is UTF-8 */
        if (!utf8) return cli_bad_args("match", "--variant must be UTF-8 text");
        json_decref(utf8);
        a->variant = value;
    } else if (strcmp(opt, "--log") == 0) {
        a->log = value;
    } else if (strcmp(opt, "--max-decisions") == 0) {
        if (!cli_parse_int(value, 1, MATCHLOG_MAX_DECISIONS, &a->max_decisions))
            return cli_bad_args("match", "--max-decisions must be a whole number from 1 to %d, got '%s'",
                                MATCHLOG_MAX_DECISIONS, value);
    } else if (strcmp(opt, "--ms") == 0) {
        if (!cli_parse_int(value, 1, 3600000, &number))
            return cli_bad_args("match", "--ms must be 1..3600000, got '%s'", value);
        a->limits.ms = (double)number;
    } else if (strcmp(opt, "--instructions") == 0) {
        if (!cli_parse_int(value, BOT_HOOK_STEP, INT64_MAX / 2, &a->limits.instructions))
            return cli_bad_args("match", "--instructions must be a whole number from %d, got '%s'", BOT_HOOK_STEP,
                                value);
    } else if (strcmp(opt, "--memory") == 0) {
        if (!cli_parse_int(value, 1, 1 << 20, &number))
            return cli_bad_args("match", "--memory must be 1..1048576 (MiB), got '%s'", value);
        /* Given, it caps external bots too; their default is no cap (bot_limits.program_memory). */
        a->limits.memory = a->limits.program_memory = (size_t)number << 20;
    }
    return 0;
}

/* The seating design's block against the players and --games; --sprt against --shard. */
static int match_design(match_args *a) {
    a->block = seating_block(a->seating, a->players);
    if (a->block == 0)
        return cli_bad_args("match", "--seating permute plays all %d! orders of %d bots; it stops at %d players "
                            "(balanced balances seats and neighbours in %d games)", a->players, a->players,
                            SEATING_PERMUTE_MAX, a->players * (a->players - 1));
    if (!a->games_given) a->games = (a->games + a->block - 1) / a->block * a->block; /* the default, in whole deals */
    if (a->games % a->block != 0) {
        long long below = a->games / a->block * a->block, above = below + a->block;
        char nearest[80];
        if (below > 0) snprintf(nearest, sizeof nearest, "%lld or %lld", below, above);
        else snprintf(nearest, sizeof nearest, "%lld", above);
        return cli_bad_args("match", "--games %lld is not a whole number of deals: %s seating plays %lld games a deal "
                            "with %d players; give --games %s", a->games, seating_name(a->seating), a->block,
                            a->players, nearest);
    }
    if (a->shards > a->games / a->block)
        return cli_bad_args("match", "--shard %lld/%lld: more shards than the %lld deals (a shard plays whole deals of "
                            "%lld games)", a->shard + 1, a->shards, a->games / a->block, a->block);
    if (a->sprt.on && a->shards > 1)
        return cli_bad_args("match", "--sprt cannot run in a shard: the test decides on every deal in order, so run it "
                            "on one machine (without --shard)");
    if (!a->sprt.on && (a->sprt.alpha != 0.05 || a->sprt.beta != 0.05))
        return cli_bad_args("match", "--alpha and --beta are the SPRT's: give --sprt P0,P1 too");
    return 0;
}

/* The game and the bots, once every argument is read. */
static int match_check(match_args *a, const char *game, const char **bots, int nbots) {
    if (!game) return cli_bad_args("match", "which game? games: %s", game_names());
    a->def = game_find(game);
    if (!a->def) return cli_unknown_game("match", game);
    const game_def *def = a->def;
    if (nbots < def->min_players || nbots > def->max_players) {
        if (def->min_players == def->max_players)
            return cli_bad_args("match", "%s is for %d players: give %d bots, got %d", def->name,
                                def->min_players, def->min_players, nbots);
        return cli_bad_args("match", "%s is for %d to %d players: give one bot per seat, got %d", def->name,
                            def->min_players, def->max_players, nbots);
    }
    a->players = nbots;
    if (a->max_decisions == 0) a->max_decisions = default_max_decisions(def);
    for (int i = 0; i < nbots; i++)
        if (!meeple_find_bot(bots[i], a->paths[i], sizeof a->paths[i])) return cli_no_bot("match", bots[i]);
    if (a->resume && !a->log) return cli_bad_args("match", "--resume needs the --log to continue");
    if (a->shards > 1 && !a->seed_given)
        return cli_bad_args("match", "--shard needs --seed: the shards of one match share one seed, given to each");
    return match_design(a);
}

static int match_parse(int argc, char **argv, match_args *a, const cli_options *opts) {
    const char *game = NULL, *bots[MEEPLE_MAX_PLAYERS + 1];
    int nbots = 0;
    *a = (match_args){.games = 100, .seed = 1, .jobs = 1, .shards = 1, .echo = opts->debug,
                      .seating = SEATING_BALANCED, .sprt = {.alpha = 0.05, .beta = 0.05, .result = -1},
                      .limits = {BOT_DEFAULT_MS, BOT_DEFAULT_INSTRUCTIONS, BOT_DEFAULT_MEMORY, 0}};
    static const char *const valued[] = {"--games", "--seed", "--jobs",         "--shard",  "--variant", "--log",
                                         "--ms",    "--instructions", "--memory", "--seating", "--sprt",
                                         "--alpha", "--beta", "--max-decisions", NULL};
    static const char *const options[] = {"--games", "--seed",   "--jobs",    "--shard", "--variant",
                                          "--log",   "--ms",     "--instructions", "--memory", "--seating",
                                          "--sprt",  "--alpha",  "--beta",    "--resume", "--json",
                                          "--max-decisions", NULL};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        bool takes_value = false;
        for (const char *const *v = valued; *v; v++) takes_value |= strcmp(opt, *v) == 0;
        if (takes_value && i + 1 == argc) return cli_bad_args("match", "%s needs a value", opt);
        if (takes_value) {
            int bad = match_option(opt, argv[++i], a);
            if (bad) return bad;
        } else if (strcmp(opt, "--resume") == 0) {
            a->resume = true;
        } else if (strcmp(opt, "--json") == 0) {
            a->json = true;
        } else if (opt[0] == '-') {
            return cli_bad_args("match", "unknown option '%s'%s", opt, cli_suggest(opt, options));
        } else if (!game) {
            game = opt;
        } else if (nbots == MEEPLE_MAX_PLAYERS) {
            return cli_bad_args("match", "at most %d bots", MEEPLE_MAX_PLAYERS);
        } else {
            bots[nbots++] = opt;
        }
    }
    return match_check(a, game, bots, nbots);
}

/* ==================================================================================== referees */

/* A game as a match plays it, through one small interface, so that play_game is one loop whatever
 * the rules. The base rules are the game's C functions on a state of the worker's; a variant is
 * played through the module's variant wrapper, where its hooks run (in Lua, one referee lua_State per
 * worker), while the bots see the plain state underneath, as always. */

typedef struct referee referee;

/* The steps of a game. A step that fails leaves its reason in rf->why. */
typedef struct referee_ops {
    bool (*start)(referee *rf, uint64_t seed);          /* a new game, dealt with `seed` */
    const void *(*state)(const referee *rf);            /* the plain state, as the bots see it */
    int (*decision)(referee *rf, int *seat);            /* how many legal actions *seat (to move) has: 0 when
                                                         * the game is over, -1 when it cannot go on */
    int (*choose)(referee *rf, bot *b, int n);          /* b's pick among them, or -1: b forfeits */
    const char *(*text)(referee *rf, int k);            /* action k as logged */
    void (*saw)(referee *rf, bot *b, int k, const char *text); /* action k into b's history */
    bool (*play)(referee *rf, int k);
    bool (*result)(referee *rf, matchlog_game *g);      /* the scores; the winners too when no one forfeited */
} referee_ops;

struct referee {
    const referee_ops *ops;
    const game_def *def;
    int players;
    const param_value *params;
    char why[200];
    /* The base rules: the state, the legal actions, one action's text. */
    void *st;
    action_t *acts;
    char text[MEEPLE_ACTION_TEXT];
    /* A variant: the Lua referee at index 1 of L and the game at 2; the plain state under the game,
     * and the legal actions as text. */
    lua_State *L;
    session *raw;
    char (*texts)[MEEPLE_ACTION_TEXT];
};

/* -------------------------------------------------------------------- the base rules, in C */

static bool plain_start(referee *rf, uint64_t seed) {
    memset(rf->st, 0, rf->def->state_size); /* as a new game's: the state is the worker's, game after game */
    rf->def->setup(rf->st, rf->players, rf->params, seed);
    return true;
}

static const void *plain_state(const referee *rf) { return rf->st; }

static int plain_decision(referee *rf, int *seat) {
    if (rf->def->is_over(rf->st)) return 0;
    *seat = rf->def->to_move(rf->st);
    int n = rf->def->legal(rf->st, rf->acts);
    if (n > 0) return n;
    snprintf(rf->why, sizeof rf->why, "no legal action in a running game");
    return -1;
}

static int plain_choose(referee *rf, bot *b, int n) { return bot_choose(b, rf->st, rf->acts, n); }

static const char *plain_text(referee *rf, int k) {
    rf->def->action_text(rf->st, rf->acts[k], rf->text);
    return rf->text;
}

static void plain_saw(referee *rf, bot *b, int k, const char *text) { bot_saw(b, rf->st, rf->acts[k], text); }

static bool plain_play(referee *rf, int k) {
    rf->def->apply(rf->st, rf->acts[k]);
    return true;
}

static bool plain_result(referee *rf, matchlog_game *g) {
    rf->def->scores(rf->st, g->scores);
    if (g->forfeit < 0 && !g->unfinished) g->nwinners = rf->def->winners(rf->st, g->winners); /* else play_game's */
    return true;
}

static const referee_ops plain_referee = {plain_start, plain_state, plain_decision, plain_choose,
                                          plain_text,  plain_saw,   plain_play,     plain_result};

/* -------------------------------------------------------------------- a variant, in Lua */

/* The Lua referee (repl/lua/referee.lua) of the match's rules, at index 1 of a new lua_State: it plays
 * the games under a variant, and plays logged games again (base rules or variant) to check them on
 * --resume and in `meeple merge`. NULL, said why in one line, when the variant cannot be played. */
static lua_State *lua_referee_new(const match_args *a, char *err, size_t n) {
    lua_State *L = cli_new_lua();
    if (!L) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    if (cli_load_program(L, meeple_lua_referee, "=referee") == LUA_OK) {
        lua_getglobal(L, "meeple");
        lua_pushstring(L, a->def->name);
        lua_pushinteger(L, a->players);
        lua_pushstring(L, a->variant);
        if (lua_pcall(L, 4, 1, 0) == LUA_OK) {
            lua_getfield(L, 1, "new");
            lua_pushinteger(L, 1);
            if (lua_pcall(L, 1, 1, 0) == LUA_OK) {
                lua_settop(L, 1);
                return L;
            }
        }
    }
    const char *msg = lua_tostring(L, -1);
    if (!msg) msg = "the variant cannot be played";
    snprintf(err, n, "%.*s", (int)strcspn(msg, "\n"), msg);
    lua_close(L);
    return NULL;
}

/* Calls the Lua referee's `fn` with the `nargs` values on top of the stack. */
static bool variant_call(referee *rf, const char *fn, int nargs, int nresults) {
    lua_State *L = rf->L;
    lua_getfield(L, 1, fn);
    lua_insert(L, -(nargs + 1));
    if (lua_pcall(L, nargs, nresults, 0) == LUA_OK) return true;
    const char *msg = lua_tostring(L, -1);
    snprintf(rf->why, sizeof rf->why, "under the variant: %s", msg ? msg : "an error");
    return false;
}

/* The plain state under the game, from the value at `idx`. */
static bool variant_plain(referee *rf, int idx) {
    rf->raw = meeple_to_session(rf->L, idx);
    if (!rf->raw) snprintf(rf->why, sizeof rf->why, "the variant's state has no plain state under it");
    return rf->raw != NULL;
}

static bool variant_start(referee *rf, uint64_t seed) {
    lua_settop(rf->L, 1);
    lua_pushinteger(rf->L, (lua_Integer)seed);
    if (!variant_call(rf, "new", 1, 2)) return false; /* the game at 2, its plain state at 3 */
    bool ok = variant_plain(rf, 3);
    lua_settop(rf->L, 2);
    return ok;
}

static const void *variant_state(const referee *rf) { return rf->raw->now; }

static int variant_decision(referee *rf, int *seat) {
    lua_State *L = rf->L;
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (!variant_call(rf, "step", 1, 3) || !variant_plain(rf, 5)) return -1; /* 3: seat, 4: legal, 5: plain */
    if (lua_isnil(L, 3)) return 0;
    int p = (int)lua_tointeger(L, 3) - 1, n = (int)lua_rawlen(L, 4);
    if (p < 0 || p >= rf->players || n <= 0 || n > MEEPLE_MAX_ACTIONS) {
        snprintf(rf->why, sizeof rf->why, "no legal action");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 4, i + 1);
        const char *text = lua_tostring(L, -1);
        snprintf(rf->texts[i], MEEPLE_ACTION_TEXT, "%s", text ? text : "");
        lua_pop(L, 1);
    }
    *seat = p;
    return n;
}

static int variant_choose(referee *rf, bot *b, int n) {
    return bot_choose_text(b, rf->raw->now, (const char(*)[MEEPLE_ACTION_TEXT])rf->texts, n);
}

static const char *variant_text(referee *rf, int k) { return rf->texts[k]; }

static void variant_saw(referee *rf, bot *b, int k, const char *text) {
    (void)k;
    bot_saw_text(b, rf->raw->now, text);
}

static bool variant_play(referee *rf, int k) {
    lua_settop(rf->L, 2);
    lua_pushvalue(rf->L, 2);
    lua_pushstring(rf->L, rf->texts[k]);
    return variant_call(rf, "play", 2, 0);
}

static bool variant_result(referee *rf, matchlog_game *g) {
    lua_State *L = rf->L;
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (!variant_call(rf, "result", 1, 2)) return false; /* 3: scores, 4: winners */
    for (int s = 0; s < rf->players; s++) {
        lua_rawgeti(L, 3, s + 1);
        g->scores[s] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    int n = g->forfeit < 0 && lua_istable(L, 4) ? (int)lua_rawlen(L, 4) : 0;
    for (int i = 0; i < n && i < rf->players; i++) {
        lua_rawgeti(L, 4, i + 1);
        int w = (int)lua_tointeger(L, -1) - 1;
        lua_pop(L, 1);
        if (w >= 0 && w < rf->players) g->winners[g->nwinners++] = w;
    }
    return true;
}

static const referee_ops variant_referee = {variant_start, variant_state, variant_decision, variant_choose,
                                            variant_text,  variant_saw,   variant_play,     variant_result};

/* -------------------------------------------------------------------- a worker's referee */

static void referee_free(referee *rf) {
    if (!rf) return;
    if (rf->L) lua_close(rf->L);
    free(rf->texts);
    free(rf->acts);
    free(rf->st);
    free(rf);
}

/* The referee of the match's rules, with its own buffers (and its own lua_State under a variant).
 * NULL, said why in err. */
static referee *referee_new(const match *m, char *err, size_t n) {
    const match_args *a = m->a;
    referee *rf = calloc(1, sizeof *rf);
    if (!rf) return snprintf(err, n, "out of memory"), NULL;
    *rf = (referee){.def = a->def, .players = a->players, .params = m->params};
    bool ok;
    if (a->variant) {
        rf->ops = &variant_referee;
        rf->texts = malloc(sizeof *rf->texts * MEEPLE_MAX_ACTIONS);
        if (!rf->texts) snprintf(err, n, "out of memory");
        ok = rf->texts && (rf->L = lua_referee_new(a, err, n)) != NULL;
    } else {
        rf->ops = &plain_referee;
        rf->st = malloc(a->def->state_size);
        rf->acts = malloc(sizeof *rf->acts * MEEPLE_MAX_ACTIONS);
        ok = rf->st && rf->acts;
        if (!ok) snprintf(err, n, "out of memory");
    }
    if (ok) return rf;
    referee_free(rf);
    return NULL;
}

/* ==================================================================================== one game */

static void result_error(game_result *r, const match *m, const char *fmt, const char *detail) {
    char what[200];
    snprintf(what, sizeof what, fmt, detail);
    snprintf(r->error, sizeof r->error, "%s, game %lld (seed %lld): %s", m->a->def->name, r->g.game + 1,
             game_seed(m, r->g.game), what);
}

/* Winners after a forfeit: the other seats with the best score as it stands. */
static void winners_after_forfeit(matchlog_game *g, int players) {
    int best = 0;
    bool any = false;
    for (int s = 0; s < players; s++)
        if (s != g->forfeit && (!any || g->scores[s] > best)) best = g->scores[s], any = true;
    g->nwinners = 0;
    for (int s = 0; s < players; s++)
        if (s != g->forfeit && g->scores[s] == best) g->winners[g->nwinners++] = s;
}

static void write_line(const match *m, game_result *r, json_t *actions, json_t *by) {
    r->line = matchlog_write(&m->mm, &r->g, actions, by);
    if (!r->line) result_error(r, m, "%s", "out of memory");
}

/* A decision by `seat` that took `ms`, into the game's timing figures. */
static void count_decision(matchlog_game *g, int seat, double ms) {
    g->decisions[seat]++;
    g->ms[seat] += ms;
    if (ms > g->ms_max[seat]) g->ms_max[seat] = ms;
}

/* The action `text` taken by `seat` (0-based), onto the record's lists. */
static bool note_action(json_t *actions, json_t *by, const char *text, int seat) {
    return json_array_append_new(actions, json_string(text)) == 0 &&
           json_array_append_new(by, json_integer(seat + 1)) == 0;
}

/* The forfeiting bot's reason, escaped: a bot's own words may hold control bytes or bytes that are not
 * UTF-8, and JSON text is UTF-8. */
static void note_forfeit(game_result *r, const bot *b, int players) {
    text_escape(r->g.reason, sizeof r->g.reason, bot_reason(b), false);
    winners_after_forfeit(&r->g, players);
}

/* The decisions of a started game, onto the record's lists, until its end or a forfeit. False when
 * the game cannot go on (r->error said why) or a signal stopped it (r->abandoned). */
static bool play_decisions(const match *m, referee *rf, bot **bots, game_result *r, json_t *actions, json_t *by) {
    const referee_ops *op = rf->ops;
    for (long long moves = 0; r->g.forfeit < 0; moves++) {
        int p = 0, n = op->decision(rf, &p);
        if (n == 0) break; /* the game is over */
        if (n < 0) {
            result_error(r, m, "%s", rf->why);
            return false;
        }
        if (moves == m->a->max_decisions) { /* it may never end (a Babel game can cycle): a draw */
            r->g.unfinished = moves;
            break;
        }
        if (match_signal) return r->abandoned = true, false;
        double t0 = timing_now_ms();
        int k = op->choose(rf, bots[p], n);
        count_decision(&r->g, p, timing_now_ms() - t0);
        if (k < 0) {
            r->g.forfeit = p;
            break;
        }
        const char *text = op->text(rf, k);
        if (!note_action(actions, by, text, p)) {
            result_error(r, m, "%s", "out of memory");
            return false;
        }
        for (int s = 0; s < m->a->players; s++) op->saw(rf, bots[s], k, text); /* their histories */
        if (!op->play(rf, k)) {
            result_error(r, m, "%s", rf->why);
            return false;
        }
    }
    if (match_signal && r->g.forfeit >= 0) r->abandoned = true; /* stopped, not lost: played again on --resume */
    return !r->abandoned;
}

/* Plays game `g` to its end (or a forfeit) through the worker's referee, with a fresh bot per seat. */
static void play_game(const match *m, referee *rf, long long g, game_result *r) {
    const match_args *a = m->a;
    int players = a->players;
    uint64_t seed = (uint64_t)game_seed(m, g);
    *r = (game_result){.g = {.game = g, .forfeit = -1}};
    bot *bots[MEEPLE_MAX_PLAYERS] = {0};
    json_t *actions = json_array(), *by = json_array();
    bool ok = actions && by;
    if (ok && !rf->ops->start(rf, seed)) {
        result_error(r, m, "%s", rf->why);
        goto done;
    }
    for (int s = 0; s < players && ok; s++)
        ok = (bots[s] = bot_new(m->codes[bot_of_seat(m, g, s)], a->def, m->params, &a->limits, a->echo)) != NULL;
    if (!ok) {
        result_error(r, m, "%s", "out of memory");
        goto done;
    }
    for (int s = 0; s < players && r->g.forfeit < 0; s++)
        if (!bot_begin(bots[s], rf->ops->state(rf), s, seed)) r->g.forfeit = s;
    if (!play_decisions(m, rf, bots, r, actions, by)) goto done;
    if (!rf->ops->result(rf, &r->g)) {
        result_error(r, m, "%s", rf->why);
        goto done;
    }
    if (r->g.forfeit >= 0) note_forfeit(r, bots[r->g.forfeit], players);
    if (r->g.unfinished) matchlog_all_win(&r->g, players);
    for (int s = 0; s < players; s++) bot_end(bots[s], r->g.scores, r->g.winners, r->g.nwinners);
    write_line(m, r, actions, by);
done:
    for (int s = 0; s < players; s++) bot_free(bots[s]);
    json_decref(actions);
    json_decref(by);
}

/* ==================================================================================== counting */

/* Adds a finished game to the tables, in game order, so the sums are the same for any --jobs. */
static bool count_result(match *m, const matchlog_game *g) {
    if (matchlog_count(&m->tally, g)) return true;
    snprintf(m->error, sizeof m->error, "out of memory");
    return false;
}

static void progress(match *m, bool last) {
    if (!m->tty) return;
    long long total = m->slots, done = m->next_count;
    long long step = total / 500 > 0 ? total / 500 : 1;
    if (last) {
        fprintf(stderr, "\r\033[K");
    } else if (done % step == 0 || done == total) {
        int width = 30, filled = (int)(done * width / (total ? total : 1));
        long long played = done - m->first;
        char left[48] = "";
        if (played > 0 && done < total)
            snprintf(left, sizeof left, ", about %.0f s left",
                     (timing_now_ms() - m->started) / 1e3 / (double)played * (double)(total - done));
        fprintf(stderr, "\r\033[Kmatch %s: [%.*s%*s] %lld/%lld games%s", m->a->def->name, filled,
                "##############################", width - filled, "", done, total, left);
    }
    fflush(stderr);
}

/* With the lock held: logs and counts every finished game that is next in order. A game a signal
 * abandoned ends it: what follows is played again on --resume. */
static void flush_done(match *m) {
    while (!m->stop && m->next_count < m->slots && m->done[m->next_count - m->first]) {
        game_result *r = m->done[m->next_count - m->first];
        m->done[m->next_count - m->first] = NULL;
        if (r->abandoned) {
            m->stop = true;
        } else if (r->error[0]) {
            snprintf(m->error, sizeof m->error, "%s", r->error);
            m->stop = true;
        } else if (m->log && (fputs(r->line, m->log) == EOF || fflush(m->log) == EOF)) {
            snprintf(m->error, sizeof m->error, "cannot write the log '%s'", m->a->log);
            m->stop = true;
        } else if (!count_result(m, &r->g)) {
            m->stop = true;
        } else {
            m->next_count++;
            m->stop = m->tally.sprt.result >= 0; /* the SPRT decided on the deal this game completed */
            progress(m, false);
        }
        free(r->line);
        free(r);
    }
}

static void *worker(void *arg) {
    match *m = arg;
    char err[300];
    referee *rf = referee_new(m, err, sizeof err);
    if (!rf) {
        pthread_mutex_lock(&m->lock);
        snprintf(m->error, sizeof m->error, "%s", err);
        m->stop = true;
        pthread_mutex_unlock(&m->lock);
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&m->lock);
        long long slot = m->stop || match_signal ? m->slots : m->next_game++;
        pthread_mutex_unlock(&m->lock);
        if (slot >= m->slots) break;
        game_result *r = malloc(sizeof *r);
        if (r) play_game(m, rf, game_of_slot(m, slot), r);
        pthread_mutex_lock(&m->lock);
        if (!r) {
            snprintf(m->error, sizeof m->error, "out of memory");
            m->stop = true;
        } else {
            m->done[slot - m->first] = r;
            flush_done(m);
        }
        pthread_mutex_unlock(&m->lock);
    }
    referee_free(rf);
    return NULL;
}

/* ==================================================================================== resuming */

/* Plays a logged game again from its seed and actions, with the referee at index 1 of L (base rules
 * or the variant). Leaves at 2..4 the scores, winners and the seat that took each action. False with
 * the reason (the decision that is not legal, a game that does not end where the log says). */
static bool replay_logged(const match *m, lua_State *L, const matchlog_game *g, json_t *acts, char *why, size_t n) {
    lua_settop(L, 1);
    lua_getfield(L, 1, "replay");
    lua_pushinteger(L, (lua_Integer)game_seed(m, g->game));
    lua_createtable(L, (int)json_array_size(acts), 0);
    for (size_t i = 0; i < json_array_size(acts); i++) {
        lua_pushstring(L, json_string_value(json_array_get(acts, i)));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    if (g->forfeit >= 0) lua_pushinteger(L, g->forfeit + 1);
    else lua_pushnil(L);
    lua_pushboolean(L, g->unfinished > 0);
    if (lua_pcall(L, 4, 3, 0) == LUA_OK) return true;
    const char *msg = lua_tostring(L, -1);
    snprintf(why, n, "%s", msg ? msg : "it cannot be played again");
    return false;
}

/* Whether the Lua list at `idx` is the n numbers `want` (plus `offset` each). */
static bool same_list(lua_State *L, int idx, const int *want, int count, int offset) {
    if (!lua_istable(L, idx) || (int)lua_rawlen(L, idx) != count) return false;
    bool same = true;
    for (int i = 0; i < count && same; i++) {
        lua_rawgeti(L, idx, i + 1);
        same = lua_isinteger(L, -1) && lua_tointeger(L, -1) == want[i] + offset;
        lua_pop(L, 1);
    }
    return same;
}

/* Whether the seats that took the actions, as the replay found them (a Lua list at `idx`), are the
 * logged `by`. */
static bool same_by(lua_State *L, int idx, json_t *by) {
    if (!lua_istable(L, idx) || lua_rawlen(L, idx) != json_array_size(by)) return false;
    bool same = true;
    for (size_t i = 0; i < json_array_size(by) && same; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        same = lua_tointeger(L, -1) == json_integer_value(json_array_get(by, i));
        lua_pop(L, 1);
    }
    return same;
}

/* Whether the played-again game (its results at 2..4 of L) gives the logged record `line`, byte for
 * byte: scores, winners and seats to move compared first, to say which was changed; then the record
 * the game gives (with the logged timings, which no replay can know) against the line. */
static bool same_record(const match *m, lua_State *L, json_t *rec, game_result *r, const char *line, size_t len,
                        char *why, size_t n) {
    matchlog_game *g = &r->g;
    if (!same_list(L, 2, g->scores, m->a->players, 0))
        return snprintf(why, n, "its scores are not those its actions give"), false;
    if (g->forfeit >= 0) {
        matchlog_game again = *g;
        winners_after_forfeit(&again, m->a->players);
        if (again.nwinners != g->nwinners || memcmp(again.winners, g->winners, sizeof g->winners) != 0)
            return snprintf(why, n, "its winners are not those its forfeit gives"), false;
    } else if (!same_list(L, 3, g->winners, g->nwinners, 1)) {
        return snprintf(why, n, "its winners are not those its actions give"), false;
    }
    if (!same_by(L, 4, json_object_get(rec, "by")))
        return snprintf(why, n, "its \"by\" does not name the seats that were to move"), false;
    r->line = matchlog_write(&m->mm, g, json_object_get(rec, "actions"), json_object_get(rec, "by"));
    if (!r->line) return snprintf(why, n, "out of memory"), false;
    if (strlen(r->line) != len + 1 || memcmp(r->line, line, len) != 0)
        return snprintf(why, n, "it is not the record its seed and actions give (a field was changed)"), false;
    return true;
}

/* Why a logged SPRT is not this run's: the two settings side by side, as options. */
static void sprt_differs(const match *m, json_t *logged, char *why, size_t n) {
    char mine[160] = "no --sprt", theirs[160] = "no --sprt";
    if (m->mm.sprt)
        snprintf(mine, sizeof mine, "--sprt %g,%g --alpha %g --beta %g", m->mm.p0, m->mm.p1, m->mm.alpha, m->mm.beta);
    if (json_is_object(logged))
        snprintf(theirs, sizeof theirs, "--sprt %g,%g --alpha %g --beta %g",
                 json_number_value(json_object_get(logged, "p0")), json_number_value(json_object_get(logged, "p1")),
                 json_number_value(json_object_get(logged, "alpha")),
                 json_number_value(json_object_get(logged, "beta")));
    snprintf(why, n, "its match ran %s, this run %s: a resume tests what the match began testing", theirs, mine);
}

/* Checks one line of the log (newline cut off): it must be slot `slot` of this match and exactly the
 * record its seed and actions give when played again — so an edited score, winner or action, or a
 * line from elsewhere, is refused. Fills r (its line included) as if the game had been played now. */
static bool check_logged(match *m, lua_State *L, json_t *id, const char *line, size_t len, long long slot,
                         game_result *r, char *why, size_t n) {
    json_t *logged_id = NULL;
    char field[64];
    *r = (game_result){.g = {.forfeit = -1}};
    json_t *rec = matchlog_read(line, len, &r->g, &logged_id, why, n);
    bool ok = rec != NULL;
    if (ok && !matchlog_same_match(id, logged_id, field, sizeof field)) {
        if (strcmp(field, "sprt") == 0) sprt_differs(m, json_object_get(logged_id, "sprt"), why, n);
        else snprintf(why, n, "its \"%s\" is not this match's", field);
        ok = false;
    }
    if (ok && r->g.game != game_of_slot(m, slot)) {
        snprintf(why, n, "its index is not %lld", game_of_slot(m, slot) + 1);
        ok = false;
    }
    ok = ok && replay_logged(m, L, &r->g, json_object_get(rec, "actions"), why, n) &&
         same_record(m, L, rec, r, line, len, why, n);
    if (!ok) {
        free(r->line);
        r->line = NULL;
    }
    json_decref(logged_id);
    json_decref(rec);
    lua_settop(L, 1);
    return ok;
}

/* The match seed the log's first line carries, or -1. */
static long long logged_match_seed(const char *text, size_t len) {
    const char *end = memchr(text, '\n', len);
    char why[200];
    json_t *rec = end && matchlog_line_bounded(text, (size_t)(end - text), why, sizeof why)
                      ? json_loadb(text, (size_t)(end - text), 0, NULL)
                      : NULL;
    json_t *seed = json_object_get(rec, "match_seed");
    long long value = json_is_integer(seed) && json_integer_value(seed) >= 0 && json_integer_value(seed) <= MEEPLE_SEED_MAX
                          ? (long long)json_integer_value(seed)
                          : -1;
    json_decref(rec);
    return value;
}

/* Reads the whole log into a malloc'd text. False (said why) when it exists and cannot be read. */
static bool read_log(match *m, char **text, size_t *len, bool *found) {
    *text = NULL;
    *len = 0;
    struct stat st;
    *found = stat(m->a->log, &st) == 0;
    if (!*found) return true;
    char err[600];
    FILE *f = cli_open_log(m->a->log, err, sizeof err); /* a regular file only: never /dev/zero */
    if (!f) return snprintf(m->error, sizeof m->error, "%s", err), false;
    size_t cap = 0;
    bool ok = true;
    for (;;) {
        if (*len == cap) {
            char *grown = cap < ((size_t)1 << 40) ? realloc(*text, cap ? cap * 2 : 1 << 16) : NULL;
            if (!grown) {
                ok = false;
                break;
            }
            *text = grown;
            cap = cap ? cap * 2 : 1 << 16;
        }
        size_t got = fread(*text + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    ok = ok && !ferror(f);
    fclose(f);
    if (!ok) snprintf(m->error, sizeof m->error, "cannot read the log '%s'", m->a->log);
    return ok;
}

/* Checks and counts every game of the log, line by line; stops at the first that does not reproduce
 * (said why, with its line). Returns the games counted and sets *keep to the bytes they fill: a last
 * line without its newline is one a kill cut short, noted in m->cut_line. */
static long long replay_log(match *m, lua_State *L, json_t *id, char *text, size_t len, size_t *keep) {
    long long slot = 0;
    size_t pos = 0;
    while (pos < len) {
        char *line = text + pos, *end = memchr(line, '\n', len - pos), why[400];
        game_result r;
        if (!end) {
            m->cut_line = slot + 1;
            break;
        }
        bool ok = false;
        if (slot >= m->slots) snprintf(why, sizeof why, "it holds more games than this match's %lld", m->slots);
        else ok = check_logged(m, L, id, line, (size_t)(end - line), slot, &r, why, sizeof why);
        if (!ok) {
            snprintf(m->error, sizeof m->error, "the log '%.700s' is not this match's or is damaged: line %lld: %s "
                     "(resume with the arguments it was started with, or log to a new file)", m->a->log, slot + 1, why);
            return -1;
        }
        free(r.line);
        if (!count_result(m, &r.g)) return -1;
        slot++;
        pos = (size_t)(end - text) + 1;
    }
    *keep = pos;
    return slot;
}

/* Resumes from an interrupted run's log: every logged game played again from its seed and actions and
 * checked against its record, then counted; a line the kill left half-written is cut off, to be played
 * again. Without --seed the match's seed is the log's. Sets m->first to the games kept. False (said
 * why) when the log is not this match's, is damaged, or cannot be read. */
static bool resume_log(match *m) {
    char *text;
    size_t len, keep = 0;
    bool found;
    if (!read_log(m, &text, &len, &found) || !found || len == 0) {
        free(text);
        return !m->error[0];
    }
    if (!m->a->seed_given) m->mm.match_seed = logged_match_seed(text, len);
    if (m->mm.match_seed < 0) {
        free(text);
        snprintf(m->error, sizeof m->error, "the log '%.700s' does not say its match's seed on its first line "
                 "(a log from an older meeple, or damaged): resume with --seed, or log to a new file", m->a->log);
        return false;
    }
    char err[300];
    lua_State *L = lua_referee_new(m->a, err, sizeof err);
    json_t *id = matchlog_identity(&m->mm);
    long long slots = -1;
    if (!L) snprintf(m->error, sizeof m->error, "%s", err);
    else if (!id) snprintf(m->error, sizeof m->error, "out of memory");
    else slots = replay_log(m, L, id, text, len, &keep);
    if (L) lua_close(L);
    json_decref(id);
    free(text);
    if (slots < 0) return false;
    if (truncate(m->a->log, (off_t)keep) != 0) {
        snprintf(m->error, sizeof m->error, "cannot cut the half-written line off the log '%s'", m->a->log);
        return false;
    }
    m->first = m->next_game = m->next_count = slots;
    return true;
}

/* ==================================================================================== main */

static bool name_taken(const match *m, int i) {
    for (int j = 0; j < i; j++)
        if (strcmp(m->mm.bots[j], m->mm.bots[i]) == 0) return true;
    return false;
}

/* Names for the table and the log, unique: a bot given twice is "random" and "random#2". A bot's own
 * name is made plain first (text_bot_name), so it holds no '#' and cannot pose as another's. */
static void name_bots(match *m) {
    for (int i = 0; i < m->a->players; i++) {
        char plain[48];
        text_bot_name(plain, sizeof plain, m->codes[i]->name);
        snprintf(m->mm.bots[i], sizeof m->mm.bots[i], "%s", plain);
        for (int k = 2; name_taken(m, i); k++) snprintf(m->mm.bots[i], sizeof m->mm.bots[i], "%s#%d", plain, k);
    }
}

/* The match's error, escaped: it may quote a log's damaged line or a variant's message. */
static void say_error(const match *m) { cli_fail("match", "%s", m->error); }

/* The seed a match without --seed draws, once it knows no log gives one. */
static bool draw_seed(match *m) {
    if (m->mm.match_seed >= 0) return true;
    m->mm.match_seed = cli_os_seed();
    if (m->mm.match_seed < 0)
        snprintf(m->error, sizeof m->error, "cannot draw a seed from the system: give one with --seed");
    return m->mm.match_seed >= 0;
}

/* SIGINT and SIGTERM only ask the workers to stop (on_signal); the old handlers come back after. */
static void catch_signals(bool on, struct sigaction *old) {
    if (on) {
        struct sigaction sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        match_signal = 0;
        bot_interrupt(false);
        sigaction(SIGINT, &sa, &old[0]);
        sigaction(SIGTERM, &sa, &old[1]);
    } else {
        sigaction(SIGINT, &old[0], NULL);
        sigaction(SIGTERM, &old[1], NULL);
        bot_interrupt(false);
    }
}

/* The workers, until every game is played, a game fails or a signal comes. */
static void play_all(match *m) {
    long long todo = m->slots - m->first;
    long long jobs = m->a->jobs < todo ? m->a->jobs : todo;
    pthread_t threads[256];
    int started = 0;
    for (int j = 0; j < jobs; j++) {
        if (pthread_create(&threads[j], NULL, worker, m) != 0) break;
        started++;
    }
    if (jobs > 0 && started == 0) worker(m); /* no thread could start: play here */
    for (int j = 0; j < started; j++) pthread_join(threads[j], NULL);
    progress(m, true);
    for (long long i = 0; i < todo; i++)
        if (m->done[i]) {
            free(m->done[i]->line);
            free(m->done[i]);
        }
}

/* The table (or --json) of what was counted; the exit status: 130 when a signal stopped the match,
 * 1 when every game ended in a forfeit (the bots, not the games, were measured), else 0. */
static int report(match *m, bool interrupted) {
    const match_args *a = m->a;
    matchlog_notes notes = {.from_log = m->first, .cut_line = m->cut_line, .seed_drawn = !a->seed_given,
                            .interrupted_at = interrupted ? m->slots : 0, .files = a->paths,
                            .shard = a->shard, .shards = a->shards};
    if (a->json) matchlog_print_json(stdout, &m->tally);
    else matchlog_print_table(stdout, &m->tally, &notes);
    fflush(stdout);
    if (interrupted) {
        fprintf(stderr, "meeple match: stopped by a signal after %lld of %lld games; --resume with the same "
                "arguments plays the rest\n", m->next_count, m->slots);
        return MATCH_INTERRUPTED;
    }
    if (m->tally.seat_games > 0 && m->tally.forfeit_count == m->tally.seat_games) {
        fprintf(stderr, "meeple match: every game ended in a forfeit: the bots' failures, not their play, were "
                "measured (the reasons are above and in the log)\n");
        return 1;
    }
    return 0;
}

static int run(match *m) {
    const match_args *a = m->a;
    if ((a->resume && !resume_log(m)) || !draw_seed(m)) {
        say_error(m);
        return 2;
    }
    if (a->log) {
        char err[512];
        m->log = cli_match_log(a->log, a->resume, err, sizeof err);
        if (!m->log) {
            fprintf(stderr, "meeple match: %s\n", err);
            return 2;
        }
    }
    long long todo = m->slots - m->first;
    m->done = calloc((size_t)(todo > 0 ? todo : 1), sizeof *m->done);
    if (!m->done) {
        fprintf(stderr, "meeple match: out of memory\n");
        if (m->log) fclose(m->log);
        return 1;
    }
    m->tty = isatty(STDERR_FILENO);
    m->started = timing_now_ms();
    m->stop = m->tally.sprt.result >= 0; /* a resumed log that already decided plays nothing more */
    struct sigaction old[2];
    catch_signals(true, old);
    play_all(m);
    bool interrupted = match_signal != 0 && m->next_count < m->slots;
    catch_signals(false, old);
    free(m->done);
    if (m->log && fclose(m->log) != 0 && !m->error[0])
        snprintf(m->error, sizeof m->error, "cannot write the log '%s'", a->log);
    m->log = NULL;
    if (m->error[0]) {
        say_error(m);
        return 1;
    }
    return report(m, interrupted);
}

int match_main(int argc, char **argv, const cli_options *opts) {
    match_args a;
    int bad = match_parse(argc, argv, &a, opts);
    if (bad) return bad;
    match *m = calloc(1, sizeof *m);
    if (!m) {
        fprintf(stderr, "meeple match: out of memory\n");
        return 1;
    }
    m->a = &a;
    params_defaults(a.def, m->params);
    m->mm = (matchlog_match){.def = a.def, .games = a.games, .match_seed = a.seed_given ? a.seed : -1,
                             .seating = a.seating, .variant = a.variant, .params = m->params, .players = a.players,
                             .sprt = a.sprt.on, .p0 = a.sprt.p0, .p1 = a.sprt.p1, .alpha = a.sprt.alpha,
                             .beta = a.sprt.beta};
    m->tally.m = &m->mm;
    m->tally.sprt = a.sprt;
    matchlog_sprt_bounds(&m->tally.sprt);
    m->slots = slots_of_shard(&a);
    int status = 0;
    if (a.variant) { /* tried once here, so a bad variant is a bad argument */
        char err[300];
        lua_State *L = lua_referee_new(&a, err, sizeof err);
        if (!L) status = cli_bad_args("match", "%s", err);
        else lua_close(L);
    }
    for (int i = 0; i < a.players && !status; i++) {
        char err[400];
        m->codes[i] = bot_code_load(a.paths[i], &a.limits, err, sizeof err);
        if (!m->codes[i]) status = cli_bad_args("match", "%s", err);
    }
    if (!status) {
        name_bots(m);
        pthread_mutex_init(&m->lock, NULL);
        status = run(m);
        pthread_mutex_destroy(&m->lock);
    }
    for (int i = 0; i < a.players; i++) bot_code_free(m->codes[i]);
    matchlog_tally_free(&m->tally);
    free(m);
    return status;
}

/* ==================================================================================== merge's check */

/* What `meeple merge` checks each record with: the match the logs name, and its referee. */
struct match_checker {
    match_args a;
    match m;
    lua_State *L;
    json_t *id;
};

match_checker *match_checker_new(const matchlog_match *mm, const char *variant_file, char *err, size_t n) {
    match_checker *c = calloc(1, sizeof *c);
    if (!c) return snprintf(err, n, "out of memory"), NULL;
    c->a = (match_args){.def = mm->def, .players = mm->players, .games = mm->games, .seed = mm->match_seed,
                        .shards = 1, .variant = variant_file ? variant_file : mm->variant, .seed_given = true,
                        .seating = mm->seating,                        .block = matchlog_block(mm)};
    c->m.a = &c->a;
    params_defaults(mm->def, c->m.params); /* a match deals with the defaults: a log saying otherwise is refused */
    c->m.mm = *mm;
    c->m.mm.params = c->m.params;
    c->m.slots = mm->games;
    c->L = lua_referee_new(&c->a, err, n);
    c->id = c->L ? matchlog_identity(&c->m.mm) : NULL;
    if (c->L && !c->id) snprintf(err, n, "out of memory");
    if (!c->id) {
        match_checker_free(c);
        return NULL;
    }
    return c;
}

bool match_checker_check(match_checker *c, const char *line, size_t len, long long game, char *why, size_t n) {
    game_result r;
    bool ok = check_logged(&c->m, c->L, c->id, line, len, game, &r, why, n);
    free(r.line);
    return ok;
}

void match_checker_free(match_checker *c) {
    if (!c) return;
    if (c->L) lua_close(c->L);
    json_decref(c->id);
    free(c);
}
