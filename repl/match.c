/* match.c — `meeple match`: bots against each other over many games, seats rotated, in parallel
 * threads, each game logged as one JSON line, and a results table at the end.
 *
 * The match has one seed S: --seed, or drawn from the OS and logged. Game i is dealt with a seed derived
 * from S and i by a keyed hash, so no game's seed follows from another's or can be guessed by a bot,
 * and seat s gets bot (s+i-1) mod P, so every bot sits in every seat equally often. Each bot gets a
 * fresh sandboxed lua_State for each game, so a game's result depends on its seed and its bots alone:
 * the same whatever --jobs is, and whichever worker plays it. Results are logged and counted in game
 * order, as each game and all before it are done. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, isatty, fileno, ftruncate */

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "bot.h"
#include "cli.h"
#include "jsonl.h"
#include "lmeeple.h"
#include "paths.h"
#include "registry.h"
#include "rng.h"
#include "session.h"
#include "text.h"

#define MATCH_MAX_DECISIONS 200000   /* a game still running after this many decisions is stuck */
#define MATCH_FORFEITS_SHOWN 8

typedef struct match_args {
    const game_def *def;
    int players;                               /* one seat per bot */
    char paths[MEEPLE_MAX_PLAYERS][1024];
    long long games, seed, jobs;               /* seed: --seed, when seed_given */
    const char *log, *variant;          /* variant: as given (a name or a path), or NULL */
    bool resume, echo, seed_given;
    bot_limits limits;
} match_args;

/* One game's outcome; seats are 0-based here and 1-based in the log. */
typedef struct game_result {
    long long game;                            /* 0-based */
    int scores[MEEPLE_MAX_PLAYERS];
    int winners[MEEPLE_MAX_PLAYERS], nwinners;
    int forfeit;                               /* the seat that forfeited, or -1 */
    char reason[256];
    long long decisions[MEEPLE_MAX_PLAYERS];   /* by seat, and their time in ms */
    double ms_sum[MEEPLE_MAX_PLAYERS], ms_max[MEEPLE_MAX_PLAYERS];
    char *line;                                /* the log line, newline included; NULL if read */
    char error[300];                           /* the game itself failed: a bug, the match stops */
} game_result;

typedef struct bot_stats {
    long long games, wins, draws, losses, forfeits, decisions;
    double score_sum, ms_sum, ms_max;
} bot_stats;

typedef struct match {
    const match_args *a;
    param_value params[MEEPLE_MAX_PARAMS];
    bot_code *codes[MEEPLE_MAX_PLAYERS];
    char names[MEEPLE_MAX_PLAYERS][80];        /* unique: "random", "random#2" (no bot's own name has '#') */
    long long seed;                            /* the match's: --seed, the log's, or the OS's; -1 unknown */
    long long cut_line;                        /* the log's half-written last line, resumed; 0: none */
    pthread_mutex_t lock;
    long long next_game, next_count;           /* the next game to hand out, and to log and count */
    long long first;                           /* the first game this run plays (earlier: the log) */
    game_result **done;                        /* finished, not yet counted, by game - first */
    FILE *log;
    bot_stats stats[MEEPLE_MAX_PLAYERS];
    long long seat_games, seat_wins[MEEPLE_MAX_PLAYERS];
    char forfeits[MATCH_FORFEITS_SHOWN][700];
    long long forfeit_count;
    bool stop, tty;
    char error[1600];
} match;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int bot_of_seat(const match *m, long long game, int seat) {
    return (int)(((long long)seat + game) % m->a->players);
}

/* Game g's (0-based) seed: as secret as the match's, and whole in a JSON number. */
static long long game_seed(const match *m, long long game) {
    return (long long)(rng_derive((uint64_t)m->seed, (uint64_t)game) & CLI_SEED_MAX);
}

/* ==================================================================================== arguments */

/* A bot argument: a file, or the name of one in meeple's roots ("greedy_babel", paths.h). */
static bool resolve_bot(const char *arg, char *out, size_t n) { return meeple_find_bot(arg, out, n); }

static int match_parse(int argc, char **argv, match_args *a, const cli_options *opts) {
    const char *game = NULL, *bots[MEEPLE_MAX_PLAYERS + 1];
    int nbots = 0;
    *a = (match_args){.games = 100, .seed = 1, .jobs = 1, .echo = opts->debug,
                      .limits = {BOT_DEFAULT_MS, BOT_DEFAULT_INSTRUCTIONS, BOT_DEFAULT_MEMORY}};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        static const char *const valued[] = {"--games", "--seed", "--jobs", "--variant", "--log",
                                             "--ms", "--instructions", "--memory", NULL};
        bool takes_value = false;
        for (const char *const *v = valued; *v; v++) takes_value |= strcmp(opt, *v) == 0;
        if (takes_value && i + 1 == argc) return cli_bad_args("match", "%s needs a value", opt);
        const char *value = takes_value ? argv[++i] : NULL;
        long long number = 0;
        if (strcmp(opt, "--games") == 0) {
            if (!cli_parse_int(value, 1, 100000000, &a->games))
                return cli_bad_args("match", "--games must be a whole number from 1, got '%s'", value);
        } else if (strcmp(opt, "--seed") == 0) {
            if (!cli_parse_int(value, 0, CLI_SEED_MAX, &a->seed))
                return cli_bad_args("match", "--seed must be a whole number from 0 to %lld, got '%s'", CLI_SEED_MAX,
                                    value);
            a->seed_given = true;
        } else if (strcmp(opt, "--jobs") == 0) {
            if (!cli_parse_int(value, 1, 256, &a->jobs))
                return cli_bad_args("match", "--jobs must be 1..256, got '%s'", value);
        } else if (strcmp(opt, "--variant") == 0) {
            a->variant = value;
        } else if (strcmp(opt, "--log") == 0) {
            a->log = value;
        } else if (strcmp(opt, "--resume") == 0) {
            a->resume = true;
        } else if (strcmp(opt, "--ms") == 0) {
            if (!cli_parse_int(value, 1, 3600000, &number))
                return cli_bad_args("match", "--ms must be 1..3600000, got '%s'", value);
            a->limits.ms = (double)number;
        } else if (strcmp(opt, "--instructions") == 0) {
            if (!cli_parse_int(value, BOT_HOOK_STEP, INT64_MAX / 2, &a->limits.instructions))
                return cli_bad_args("match", "--instructions must be a whole number from %d, got '%s'",
                                    BOT_HOOK_STEP, value);
        } else if (strcmp(opt, "--memory") == 0) {
            if (!cli_parse_int(value, 1, 1 << 20, &number))
                return cli_bad_args("match", "--memory must be 1..1048576 (MiB), got '%s'", value);
            a->limits.memory = (size_t)number << 20;
        } else if (opt[0] == '-') {
            return cli_bad_args("match", "unknown option '%s'", opt);
        } else if (!game) {
            game = opt;
        } else if (nbots == MEEPLE_MAX_PLAYERS) {
            return cli_bad_args("match", "at most %d bots", MEEPLE_MAX_PLAYERS);
        } else {
            bots[nbots++] = opt;
        }
    }
    if (!game) return cli_bad_args("match", "which game? games: %s", game_names());
    a->def = game_find(game);
    if (!a->def) return cli_bad_args("match", "unknown game '%s'; games: %s", game, game_names());
    const game_def *def = a->def;
    if (nbots < def->min_players || nbots > def->max_players) {
        if (def->min_players == def->max_players)
            return cli_bad_args("match", "%s is for %d players: give %d bots, got %d", def->name,
                                def->min_players, def->min_players, nbots);
        return cli_bad_args("match", "%s is for %d to %d players: give one bot per seat, got %d", def->name,
                            def->min_players, def->max_players, nbots);
    }
    a->players = nbots;
    for (int i = 0; i < nbots; i++)
        if (!resolve_bot(bots[i], a->paths[i], sizeof a->paths[i]))
            return cli_bad_args("match", "cannot read the bot file '%s'", bots[i]);
    if (a->resume && !a->log) return cli_bad_args("match", "--resume needs the --log to continue");
    return 0;
}

/* ==================================================================================== one game */

static void result_error(game_result *r, const match *m, const char *fmt, const char *detail) {
    char what[200];
    snprintf(what, sizeof what, fmt, detail);
    snprintf(r->error, sizeof r->error, "%s, game %lld (seed %lld): %s", m->a->def->name, r->game + 1,
             game_seed(m, r->game), what);
}

/* Winners after a forfeit: the other seats with the best score as it stands. */
static void winners_after_forfeit(game_result *r, int players) {
    int best = 0;
    bool any = false;
    for (int s = 0; s < players; s++)
        if (s != r->forfeit && (!any || r->scores[s] > best)) best = r->scores[s], any = true;
    r->nwinners = 0;
    for (int s = 0; s < players; s++)
        if (s != r->forfeit && r->scores[s] == best) r->winners[r->nwinners++] = s;
}

static void write_line(const match *m, game_result *r, const jsonl_buf *actions) {
    int players = m->a->players;
    jsonl_buf b = {0};
    jsonl_putf(&b, "{\"index\":%lld,\"game\":", r->game + 1);
    jsonl_put_string(&b, m->a->def->name);
    jsonl_putf(&b, ",\"seed\":%lld,", game_seed(m, r->game));
    if (r->game == 0) jsonl_putf(&b, "\"match_seed\":%lld,", m->seed); /* what --seed replays it with */
    jsonl_put(&b, "\"variant\":");
    if (m->a->variant) jsonl_put_string(&b, m->a->variant);
    else jsonl_put(&b, "null");
    jsonl_put(&b, ",\"seats\":[");
    for (int s = 0; s < players; s++) {
        if (s) jsonl_put(&b, ",");
        jsonl_put_string(&b, m->names[bot_of_seat(m, r->game, s)]);
    }
    jsonl_put(&b, "],\"scores\":[");
    for (int s = 0; s < players; s++) jsonl_putf(&b, "%s%d", s ? "," : "", r->scores[s]);
    jsonl_put(&b, "],\"winners\":[");
    for (int i = 0; i < r->nwinners; i++) jsonl_putf(&b, "%s%d", i ? "," : "", r->winners[i] + 1);
    jsonl_put(&b, "],\"forfeits\":[");
    if (r->forfeit >= 0) {
        jsonl_putf(&b, "{\"seat\":%d,\"reason\":", r->forfeit + 1);
        jsonl_put_string(&b, r->reason);
        jsonl_put(&b, "}");
    }
    jsonl_put(&b, "],\"actions\":[");
    jsonl_put(&b, actions->text ? actions->text : "");
    jsonl_put(&b, "]}\n");
    if (b.failed) {
        jsonl_buf_free(&b);
        snprintf(r->error, sizeof r->error, "out of memory");
        return;
    }
    r->line = b.text;
}

/* Plays game `g` to its end (or a forfeit) with a fresh bot per seat. */
/* A decision by `seat` that took `ms`, into the game's timing figures. */
static void count_decision(game_result *r, int seat, double ms) {
    r->decisions[seat]++;
    r->ms_sum[seat] += ms;
    if (ms > r->ms_max[seat]) r->ms_max[seat] = ms;
}

static void play_game(const match *m, long long g, game_result *r) {
    const match_args *a = m->a;
    const game_def *def = a->def;
    int players = a->players;
    uint64_t seed = (uint64_t)game_seed(m, g);
    *r = (game_result){.game = g, .forfeit = -1};
    void *st = calloc(1, def->state_size);
    action_t *acts = malloc(sizeof *acts * MEEPLE_MAX_ACTIONS);
    bot *bots[MEEPLE_MAX_PLAYERS] = {0};
    jsonl_buf actions = {0};
    if (!st || !acts) {
        result_error(r, m, "%s", "out of memory");
        goto done;
    }
    def->setup(st, players, m->params, seed);
    for (int s = 0; s < players; s++) {
        bots[s] = bot_new(m->codes[bot_of_seat(m, g, s)], def, m->params, &a->limits, a->echo);
        if (!bots[s]) {
            result_error(r, m, "%s", "out of memory");
            goto done;
        }
    }
    for (int s = 0; s < players && r->forfeit < 0; s++)
        if (!bot_begin(bots[s], st, s, seed)) r->forfeit = s;
    for (long long moves = 0; r->forfeit < 0 && !def->is_over(st); moves++) {
        int p = def->to_move(st), n = def->legal(st, acts);
        if (n <= 0 || moves == MATCH_MAX_DECISIONS) {
            result_error(r, m, "%s", n <= 0 ? "no legal action in a running game" : "the game does not end");
            goto done;
        }
        double t0 = now_ms();
        int k = bot_choose(bots[p], st, acts, n);
        count_decision(r, p, now_ms() - t0);
        if (k < 0) {
            r->forfeit = p;
            break;
        }
        char text[MEEPLE_ACTION_TEXT];
        def->action_text(st, acts[k], text);
        if (moves) jsonl_put(&actions, ",");
        jsonl_put_string(&actions, text);
        def->apply(st, acts[k]);
    }
    def->scores(st, r->scores);
    if (r->forfeit >= 0) {
        snprintf(r->reason, sizeof r->reason, "%s", bot_reason(bots[r->forfeit]));
        winners_after_forfeit(r, players);
    } else {
        r->nwinners = def->winners(st, r->winners);
    }
    for (int s = 0; s < players; s++) bot_end(bots[s], r->scores, r->winners, r->nwinners);
    write_line(m, r, &actions);
done:
    for (int s = 0; s < players; s++) bot_free(bots[s]);
    jsonl_buf_free(&actions);
    free(acts);
    free(st);
}

/* ---- Under a variant: the game is played through the module's variant wrapper, where the hooks run
 * (in Lua, one referee lua_State per worker); the bots see the plain state underneath, as always. ---- */

static const char referee_lua[] =
    "local meeple, game, players, variant = ...\n"
    "local R = {}\n"
    "function R.new(seed) return meeple.new(game, { seed = seed, players = players, variant = variant }) end\n"
    "-- The seat to move (nil once over), the legal actions, and the plain state underneath.\n"
    "function R.step(s)\n"
    "  local raw = type(s) == 'table' and s._raw or s\n"
    "  if s:is_over() then return nil, nil, raw end\n"
    "  return s:to_move(), s:legal(), raw\n"
    "end\n"
    "function R.play(s, a) local ok, why = s:try(a) if not ok then error(why, 0) end end\n"
    "function R.result(s) return s:scores(), s:winners() end\n"
    "-- A logged game played again: its scores and winners, or an error naming what does not reproduce.\n"
    "function R.replay(seed, actions, forfeit)\n"
    "  local s = R.new(seed)\n"
    "  for i, a in ipairs(actions) do\n"
    "    if s:is_over() then error(('decision %d: the game was already over'):format(i), 0) end\n"
    "    local ok, why = s:try(a)\n"
    "    if not ok then error(('decision %d, \"%s\": %s'):format(i, a, why), 0) end\n"
    "  end\n"
    "  if forfeit and s:is_over() then error('a forfeit is logged in a game its actions end', 0) end\n"
    "  if forfeit and #actions > 0 and s:to_move() ~= forfeit then\n"
    "    error(('seat %d forfeited, but seat %d was to decide'):format(forfeit, s:to_move()), 0)\n"
    "  end\n"
    "  if not forfeit and not s:is_over() then error(('its %d actions do not end the game'):format(#actions), 0) end\n"
    "  return s:scores(), s:winners()\n"
    "end\n"
    "return R\n";

/* A lua_State with the module and the referee table at stack index 1, tried once on a game; NULL
 * (and why, in one line) when the variant cannot be played. */
static lua_State *referee_new(const match_args *a, char *err, size_t n) {
    lua_State *L = cli_new_lua();
    if (!L) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    if (luaL_loadbufferx(L, referee_lua, strlen(referee_lua), "=referee", "t") == LUA_OK) {
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

/* Calls the referee's `fn` with the `nargs` values on top of the stack. */
static bool referee_call(lua_State *L, const char *fn, int nargs, int nresults, game_result *r, const match *m) {
    lua_getfield(L, 1, fn);
    lua_insert(L, -(nargs + 1));
    if (lua_pcall(L, nargs, nresults, 0) == LUA_OK) return true;
    const char *msg = lua_tostring(L, -1);
    result_error(r, m, "under the variant: %s", msg ? msg : "an error");
    return false;
}

/* play_game under a variant: the referee at stack index 1 of L. */
static void play_game_variant(const match *m, long long g, game_result *r, lua_State *L) {
    const match_args *a = m->a;
    int players = a->players;
    uint64_t seed = (uint64_t)game_seed(m, g);
    *r = (game_result){.game = g, .forfeit = -1};
    char(*texts)[MEEPLE_ACTION_TEXT] = malloc(sizeof *texts * MEEPLE_MAX_ACTIONS);
    bot *bots[MEEPLE_MAX_PLAYERS] = {0};
    jsonl_buf actions = {0};
    bool begun = false;
    lua_settop(L, 1);
    lua_pushinteger(L, (lua_Integer)seed);
    if (!texts) {
        result_error(r, m, "%s", "out of memory");
        goto done;
    }
    if (!referee_call(L, "new", 1, 1, r, m)) goto done; /* the game at 2 */
    for (int s = 0; s < players; s++) {
        bots[s] = bot_new(m->codes[bot_of_seat(m, g, s)], a->def, m->params, &a->limits, a->echo);
        if (!bots[s]) {
            result_error(r, m, "%s", "out of memory");
            goto done;
        }
    }
    for (long long moves = 0;; moves++) {
        lua_settop(L, 2);
        lua_pushvalue(L, 2);
        if (!referee_call(L, "step", 1, 3, r, m)) goto done; /* 3: seat, 4: legal, 5: plain state */
        session *raw = meeple_to_session(L, 5);
        if (!raw) {
            result_error(r, m, "%s", "the variant's state has no plain state under it");
            goto done;
        }
        if (!begun) {
            for (int s = 0; s < players && r->forfeit < 0; s++)
                if (!bot_begin(bots[s], raw->now, s, seed)) r->forfeit = s;
            begun = true;
        }
        if (r->forfeit >= 0 || lua_isnil(L, 3)) break;
        int p = (int)lua_tointeger(L, 3) - 1, n = (int)lua_rawlen(L, 4);
        if (p < 0 || p >= players || n <= 0 || n > MEEPLE_MAX_ACTIONS || moves == MATCH_MAX_DECISIONS) {
            result_error(r, m, "%s", moves == MATCH_MAX_DECISIONS ? "the game does not end" : "no legal action");
            goto done;
        }
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, 4, i + 1);
            const char *text = lua_tostring(L, -1);
            snprintf(texts[i], MEEPLE_ACTION_TEXT, "%s", text ? text : "");
            lua_pop(L, 1);
        }
        double t0 = now_ms();
        int k = bot_choose_text(bots[p], raw->now, (const char(*)[MEEPLE_ACTION_TEXT])texts, n);
        count_decision(r, p, now_ms() - t0);
        if (k < 0) {
            r->forfeit = p;
            break;
        }
        if (moves) jsonl_put(&actions, ",");
        jsonl_put_string(&actions, texts[k]);
        lua_settop(L, 2);
        lua_pushvalue(L, 2);
        lua_pushstring(L, texts[k]);
        if (!referee_call(L, "play", 2, 0, r, m)) goto done;
    }
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (!referee_call(L, "result", 1, 2, r, m)) goto done; /* 3: scores, 4: winners */
    for (int s = 0; s < players; s++) {
        lua_rawgeti(L, 3, s + 1);
        r->scores[s] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    if (r->forfeit >= 0) {
        snprintf(r->reason, sizeof r->reason, "%s", bot_reason(bots[r->forfeit]));
        winners_after_forfeit(r, players);
    } else {
        int n = lua_istable(L, 4) ? (int)lua_rawlen(L, 4) : 0;
        for (int i = 0; i < n && i < players; i++) {
            lua_rawgeti(L, 4, i + 1);
            int w = (int)lua_tointeger(L, -1) - 1;
            lua_pop(L, 1);
            if (w >= 0 && w < players) r->winners[r->nwinners++] = w;
        }
    }
    for (int s = 0; s < players; s++) bot_end(bots[s], r->scores, r->winners, r->nwinners);
    write_line(m, r, &actions);
done:
    for (int s = 0; s < players; s++) bot_free(bots[s]);
    jsonl_buf_free(&actions);
    free(texts);
    lua_settop(L, 1);
}

/* ==================================================================================== counting */

/* Adds a finished game to the tables. Called in game order, so the sums are the same for any --jobs. */
static void count_result(match *m, const game_result *r) {
    int players = m->a->players;
    m->seat_games++;
    for (int s = 0; s < players; s++) {
        bot_stats *b = &m->stats[bot_of_seat(m, r->game, s)];
        bool won = false;
        for (int i = 0; i < r->nwinners; i++) won |= r->winners[i] == s;
        b->games++;
        b->score_sum += r->scores[s];
        if (won && r->nwinners == 1) {
            b->wins++;
            m->seat_wins[s]++;
        } else if (won) {
            b->draws++;
        } else {
            b->losses++;
        }
        if (r->forfeit == s) b->forfeits++;
        b->decisions += r->decisions[s];
        b->ms_sum += r->ms_sum[s];
        if (r->ms_max[s] > b->ms_max) b->ms_max = r->ms_max[s];
    }
    if (r->forfeit >= 0) {
        if (m->forfeit_count < MATCH_FORFEITS_SHOWN) {
            char name[sizeof m->names[0]], reason[sizeof m->forfeits[0] - sizeof name - 64];
            memcpy(name, m->names[bot_of_seat(m, r->game, r->forfeit)], sizeof name);
            text_escape(reason, sizeof reason, r->reason, false); /* a bot's own words: ESC, BEL, CR... */
            snprintf(m->forfeits[m->forfeit_count], sizeof m->forfeits[0], "game %lld, seat %d (%s): %s",
                     r->game + 1, r->forfeit + 1, name, reason);
        }
        m->forfeit_count++;
    }
}

static void progress(match *m, bool last) {
    if (!m->tty) return;
    long long total = m->a->games, done = m->next_count;
    long long step = total / 500 > 0 ? total / 500 : 1;
    if (last) {
        fprintf(stderr, "\r%*s\r", 72, "");
    } else if (done % step == 0 || done == total) {
        int width = 30, filled = (int)(done * width / (total ? total : 1));
        fprintf(stderr, "\rmatch %s: [%.*s%*s] %lld/%lld games", m->a->def->name, filled,
                "##############################", width - filled, "", done, total);
    }
    fflush(stderr);
}

/* With the lock held: logs and counts every finished game that is next in order. */
static void flush_done(match *m) {
    while (!m->stop && m->next_count < m->a->games && m->done[m->next_count - m->first]) {
        game_result *r = m->done[m->next_count - m->first];
        m->done[m->next_count - m->first] = NULL;
        if (r->error[0]) {
            snprintf(m->error, sizeof m->error, "%s", r->error);
            m->stop = true;
        } else if (m->log && (fputs(r->line, m->log) == EOF || fflush(m->log) == EOF)) {
            snprintf(m->error, sizeof m->error, "cannot write the log '%s'", m->a->log);
            m->stop = true;
        } else {
            count_result(m, r);
            m->next_count++;
            progress(m, false);
        }
        free(r->line);
        free(r);
    }
}

static void *worker(void *arg) {
    match *m = arg;
    lua_State *referee = NULL;
    if (m->a->variant) {
        char err[300];
        referee = referee_new(m->a, err, sizeof err);
        if (!referee) {
            pthread_mutex_lock(&m->lock);
            snprintf(m->error, sizeof m->error, "%s", err);
            m->stop = true;
            pthread_mutex_unlock(&m->lock);
            return NULL;
        }
    }
    for (;;) {
        pthread_mutex_lock(&m->lock);
        long long g = m->stop ? m->a->games : m->next_game++;
        pthread_mutex_unlock(&m->lock);
        if (g >= m->a->games) break;
        game_result *r = malloc(sizeof *r);
        if (r && referee) play_game_variant(m, g, r, referee);
        else if (r) play_game(m, g, r);
        pthread_mutex_lock(&m->lock);
        if (!r) {
            snprintf(m->error, sizeof m->error, "out of memory");
            m->stop = true;
        } else {
            m->done[g - m->first] = r;
            flush_done(m);
        }
        pthread_mutex_unlock(&m->lock);
    }
    if (referee) lua_close(referee);
    return NULL;
}

/* ==================================================================================== resuming */

/* Whether a logged game is game g of this match: index, game, seeds, variant, seats. False with the
 * reason. */
static bool logged_belongs(const match *m, const jsonl_value *v, long long g, char *why, size_t n) {
    const match_args *a = m->a;
    const jsonl_value *game = jsonl_get(v, "game"), *seats = jsonl_get(v, "seats"),
                      *variant = jsonl_get(v, "variant");
    long long num, seed = game_seed(m, g);
    if (!jsonl_int(jsonl_get(v, "index"), g + 1, g + 1, &num))
        return snprintf(why, n, "its index is not %lld", g + 1), false;
    if (!game || game->kind != JSONL_STRING || strcmp(game->string, a->def->name) != 0)
        return snprintf(why, n, "it is not a game of %s", a->def->name), false;
    if (g == 0 && m->seed < 0)
        return snprintf(why, n, "it carries no match_seed (a log from an older meeple, or damaged)"), false;
    if (g == 0 && !jsonl_int(jsonl_get(v, "match_seed"), m->seed, m->seed, &num))
        return snprintf(why, n, "its match_seed is not %lld", m->seed), false;
    if (!jsonl_int(jsonl_get(v, "seed"), seed, seed, &num))
        return snprintf(why, n, "its seed is not %lld, the one the match's seed %lld gives game %lld", seed,
                        m->seed, g + 1), false;
    bool same_variant = variant && (a->variant ? variant->kind == JSONL_STRING && strcmp(variant->string, a->variant) == 0
                                               : variant->kind == JSONL_NULL);
    if (!same_variant)
        return snprintf(why, n, "it was not played under %s%s", a->variant ? "the variant " : "the base rules",
                        a->variant ? a->variant : ""), false;
    if (!seats || seats->kind != JSONL_ARRAY || seats->count != a->players)
        return snprintf(why, n, "it has not %d seats", a->players), false;
    for (int s = 0; s < a->players; s++) {
        const char *want = m->names[bot_of_seat(m, g, s)];
        if (seats->items[s].kind != JSONL_STRING || strcmp(seats->items[s].string, want) != 0)
            return snprintf(why, n, "seat %d is not %s", s + 1, want), false;
    }
    return true;
}

/* What a replay takes from a logged game: its actions (as write_line puts them, into `actions`) and
 * its forfeit, if any (into r). False with the reason. */
static bool logged_moves(const match *m, const jsonl_value *v, const jsonl_value **list, jsonl_buf *actions,
                         game_result *r, char *why, size_t n) {
    const jsonl_value *acts = jsonl_get(v, "actions"), *forfeits = jsonl_get(v, "forfeits");
    long long seat;
    if (!acts || acts->kind != JSONL_ARRAY || acts->count > MATCH_MAX_DECISIONS)
        return snprintf(why, n, "its actions are damaged"), false;
    for (int i = 0; i < acts->count; i++) {
        if (acts->items[i].kind != JSONL_STRING) return snprintf(why, n, "its action %d is not a text", i + 1), false;
        if (i) jsonl_put(actions, ",");
        jsonl_put_string(actions, acts->items[i].string);
    }
    if (!forfeits || forfeits->kind != JSONL_ARRAY || forfeits->count > 1)
        return snprintf(why, n, "its forfeits are damaged"), false;
    if (forfeits->count == 1) {
        const jsonl_value *reason = jsonl_get(&forfeits->items[0], "reason");
        if (!jsonl_int(jsonl_get(&forfeits->items[0], "seat"), 1, m->a->players, &seat) || !reason ||
            reason->kind != JSONL_STRING)
            return snprintf(why, n, "its forfeit is damaged"), false;
        r->forfeit = (int)seat - 1;
        snprintf(r->reason, sizeof r->reason, "%s", reason->string);
    }
    *list = acts;
    return !actions->failed || (snprintf(why, n, "out of memory"), false);
}

/* Plays a logged game again from its seed and actions, with the referee at index 1 of L (base rules
 * or the variant): its scores and winners into r, as the match would have them. False with the reason
 * (the decision that is not legal, a game that does not end where the log says). */
static bool replay_logged(const match *m, lua_State *L, long long g, const jsonl_value *acts, game_result *r,
                          char *why, size_t n) {
    lua_settop(L, 1);
    lua_getfield(L, 1, "replay");
    lua_pushinteger(L, (lua_Integer)game_seed(m, g));
    lua_createtable(L, acts->count, 0);
    for (int i = 0; i < acts->count; i++) {
        lua_pushstring(L, acts->items[i].string);
        lua_rawseti(L, -2, i + 1);
    }
    if (r->forfeit >= 0) lua_pushinteger(L, r->forfeit + 1);
    else lua_pushnil(L);
    if (lua_pcall(L, 3, 2, 0) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        snprintf(why, n, "%s", msg ? msg : "it cannot be played again");
        return false;
    }
    for (int s = 0; s < m->a->players; s++) {
        lua_rawgeti(L, 2, s + 1);
        r->scores[s] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    if (r->forfeit >= 0) {
        winners_after_forfeit(r, m->a->players);
        return true;
    }
    int count = lua_istable(L, 3) ? (int)lua_rawlen(L, 3) : 0;
    for (int i = 0; i < count && i < m->a->players; i++) {
        lua_rawgeti(L, 3, i + 1);
        r->winners[r->nwinners++] = (int)lua_tointeger(L, -1) - 1;
        lua_pop(L, 1);
    }
    return true;
}

/* Whether the logged list of numbers is `want` (plus `offset` each: winners are 1-based). */
static bool same_numbers(const jsonl_value *list, const int *want, int count, int offset) {
    if (!list || list->kind != JSONL_ARRAY || list->count != count) return false;
    for (int i = 0; i < count; i++) {
        long long num;
        if (!jsonl_int(&list->items[i], want[i] + offset, want[i] + offset, &num)) return false;
    }
    return true;
}

/* Whether the played-again game r gives the logged record `line` (newline cut off) byte for byte;
 * the scores and winners are compared first, to say which was changed. r->line is the record made. */
static bool same_record(const match *m, const jsonl_value *v, game_result *r, const jsonl_buf *actions,
                        const char *line, char *why, size_t n) {
    if (!same_numbers(jsonl_get(v, "scores"), r->scores, m->a->players, 0))
        return snprintf(why, n, "its scores are not those its actions give"), false;
    if (!same_numbers(jsonl_get(v, "winners"), r->winners, r->nwinners, 1))
        return snprintf(why, n, "its winners are not those its actions give"), false;
    write_line(m, r, actions);
    size_t len = r->line ? strlen(r->line) : 0; /* with its newline */
    if (len == 0 || strncmp(r->line, line, len - 1) != 0 || line[len - 1] != '\0')
        return snprintf(why, n, "it is not the record its seed and actions give (a field was changed)"), false;
    return true;
}

/* Checks one line of the log (newline cut off): it must be game g of this match and exactly the record
 * its seed and actions give when played again — so an edited score, winner or action, or a line
 * from elsewhere, is refused. Fills r (its line included) as if the game had been played now. */
static bool check_logged(match *m, lua_State *L, const char *line, long long g, game_result *r, char *why,
                         size_t n) {
    char err[200];
    *r = (game_result){.game = g, .forfeit = -1};
    jsonl_buf actions = {0};
    const jsonl_value *acts = NULL;
    jsonl_value *v = jsonl_parse(line, err, sizeof err);
    if (!v) snprintf(why, n, "it is not JSON: %s", err);
    bool ok = v && logged_belongs(m, v, g, why, n) && logged_moves(m, v, &acts, &actions, r, why, n) &&
              replay_logged(m, L, g, acts, r, why, n) && same_record(m, v, r, &actions, line, why, n);
    if (!ok) {
        free(r->line);
        r->line = NULL;
    }
    jsonl_buf_free(&actions);
    jsonl_free(v);
    return ok;
}

/* The match seed the log's first line carries, or -1. */
static long long logged_match_seed(const char *text, size_t len) {
    const char *end = memchr(text, '\n', len);
    if (!end) return -1;
    char *line = strndup(text, (size_t)(end - text));
    char err[200];
    jsonl_value *v = line ? jsonl_parse(line, err, sizeof err) : NULL;
    long long seed = -1;
    if (!v || !jsonl_int(jsonl_get(v, "match_seed"), 0, CLI_SEED_MAX, &seed)) seed = -1;
    jsonl_free(v);
    free(line);
    return seed;
}

/* Reads the whole log into `text`. False (said why) when it exists and cannot be read. */
static bool read_log(match *m, jsonl_buf *text, bool *found) {
    FILE *f = fopen(m->a->log, "rb");
    *found = f != NULL;
    if (!f) return true;
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) jsonl_putn(text, chunk, got);
    bool ok = !ferror(f) && !text->failed;
    fclose(f);
    if (!ok) snprintf(m->error, sizeof m->error, "cannot read the log '%s'", m->a->log);
    return ok;
}

/* Checks and counts every game of the log, line by line; stops at the first that does not reproduce
 * (said why, with its line). Returns the games counted and sets *keep to the bytes they fill: a last
 * line without its newline is one a kill cut short, noted in m->cut_line. */
static long long replay_log(match *m, lua_State *L, jsonl_buf *text, size_t *keep) {
    long long g = 0;
    size_t pos = 0;
    while (pos < text->len) {
        char *line = text->text + pos, *end = memchr(line, '\n', text->len - pos), why[400];
        game_result r;
        if (!end) {
            m->cut_line = g + 1;
            break;
        }
        *end = '\0';
        bool ok = false;
        if (memchr(line, '\0', (size_t)(end - line))) snprintf(why, sizeof why, "it holds a NUL byte");
        else if (g >= m->a->games) snprintf(why, sizeof why, "it holds more games than --games %lld", m->a->games);
        else ok = check_logged(m, L, line, g, &r, why, sizeof why);
        if (!ok) {
            snprintf(m->error, sizeof m->error, "the log '%.700s' is not this match's or is damaged: line %lld: %s "
                     "(resume with the arguments it was started with, or log to a new file)", m->a->log, g + 1, why);
            return -1;
        }
        count_result(m, &r);
        free(r.line);
        g++;
        pos = (size_t)(end - text->text) + 1;
    }
    *keep = pos;
    return g;
}

/* Resumes from an interrupted run's log: every logged game played again from its seed and actions and
 * checked against its record, then counted; a line the kill left half-written is cut off, to be played
 * again. Without --seed the match's seed is the log's. Sets m->first to the games kept. False (said
 * why) when the log is not this match's, is damaged, or cannot be read. */
static bool resume_log(match *m) {
    jsonl_buf text = {0};
    bool found;
    if (!read_log(m, &text, &found) || !found || !text.text) {
        jsonl_buf_free(&text);
        return !m->error[0];
    }
    if (!m->a->seed_given) m->seed = logged_match_seed(text.text, text.len);
    char err[300];
    lua_State *L = referee_new(m->a, err, sizeof err);
    long long g = -1;
    size_t keep = 0;
    if (!L) snprintf(m->error, sizeof m->error, "%s", err);
    else g = replay_log(m, L, &text, &keep);
    if (L) lua_close(L);
    jsonl_buf_free(&text);
    if (g < 0) return false;
    if (truncate(m->a->log, (off_t)keep) != 0) {
        snprintf(m->error, sizeof m->error, "cannot cut the half-written line off the log '%s'", m->a->log);
        return false;
    }
    m->first = m->next_game = m->next_count = g;
    return true;
}

/* ==================================================================================== the table */

/* The 95% Wilson score interval of k successes in n trials. */
static void wilson(long long k, long long n, double *lo, double *hi) {
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double z = 1.959963984540054, p = (double)k / (double)n, nn = (double)n, z2 = z * z;
    double denom = 1 + z2 / nn, centre = (p + z2 / (2 * nn)) / denom;
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
    *lo = centre - half < 0 ? 0 : centre - half;
    *hi = centre + half > 1 ? 1 : centre + half;
}

static void print_rate(long long k, long long n) {
    double lo, hi;
    wilson(k, n, &lo, &hi);
    printf("  %6.1f%%  [%5.1f%%, %5.1f%%]", n ? 100.0 * (double)k / (double)n : 0.0, 100 * lo, 100 * hi);
}

/* Which file each name came from: two bots may call themselves the same. */
static void print_files(const match *m, int width) {
    printf("\n%-*s  file\n", width, "bot");
    for (int i = 0; i < m->a->players; i++) {
        printf("%-*s  ", width, m->names[i]);
        text_write(stdout, m->a->paths[i], strlen(m->a->paths[i]), false);
        printf("\n");
    }
}

static void print_table(const match *m) {
    const match_args *a = m->a;
    int players = a->players, width = 4;
    for (int i = 0; i < players; i++)
        if ((int)strlen(m->names[i]) > width) width = (int)strlen(m->names[i]);
    printf("%s: %lld games, seed %lld, seats rotated", a->def->name, m->seat_games, m->seed);
    if (m->first || m->cut_line) printf(" (%lld from the log", m->first);
    if (m->cut_line) printf(", whose line %lld was cut short: its game was played again", m->cut_line);
    if (m->first || m->cut_line) printf(")");
    if (!a->seed_given) printf("\nThe seed was drawn at random: --seed %lld plays this match again.", m->seed);
    printf("\n\n%-*s  games   wins  draws  losses  forfeits  win rate  95%% interval     mean score\n", width,
           "bot");
    for (int i = 0; i < players; i++) {
        const bot_stats *b = &m->stats[i];
        printf("%-*s %6lld %6lld %6lld %7lld %9lld", width, m->names[i], b->games, b->wins, b->draws, b->losses,
               b->forfeits);
        print_rate(b->wins, b->games);
        printf(" %10.2f\n", b->games ? b->score_sum / (double)b->games : 0.0);
    }
    print_files(m, width);
    printf("\nseat  games   wins  win rate  95%% interval\n");
    for (int s = 0; s < players; s++) {
        printf("%-4d %6lld %6lld", s + 1, m->seat_games, m->seat_wins[s]);
        print_rate(m->seat_wins[s], m->seat_games);
        printf("\n");
    }
    printf("\nA win is a game won alone; a draw, a win shared. A forfeit loses the game.\n");
    if (m->forfeit_count) {
        printf("\nforfeits: %lld\n", m->forfeit_count);
        for (long long i = 0; i < m->forfeit_count && i < MATCH_FORFEITS_SHOWN; i++)
            printf("  %s\n", m->forfeits[i]);
        if (m->forfeit_count > MATCH_FORFEITS_SHOWN)
            printf("  ... and %lld more (the log has every reason)\n", m->forfeit_count - MATCH_FORFEITS_SHOWN);
    }
    printf("\n%-*s  decision time (games played in this run)\n%-*s  decisions   mean ms    max ms\n", width,
           "", width, "bot");
    for (int i = 0; i < players; i++) {
        const bot_stats *b = &m->stats[i];
        printf("%-*s %10lld %9.3f %9.3f\n", width, m->names[i], b->decisions,
               b->decisions ? b->ms_sum / (double)b->decisions : 0.0, b->ms_max);
    }
}

/* ==================================================================================== main */

static bool name_taken(const match *m, int i) {
    for (int j = 0; j < i; j++)
        if (strcmp(m->names[j], m->names[i]) == 0) return true;
    return false;
}

/* Names for the table and the log, unique: a bot given twice is "random" and "random#2". A bot's own
 * name is made plain first (text_bot_name), so it holds no '#' and cannot pose as another's. */
static void name_bots(match *m) {
    for (int i = 0; i < m->a->players; i++) {
        char plain[48];
        text_bot_name(plain, sizeof plain, m->codes[i]->name);
        snprintf(m->names[i], sizeof m->names[i], "%s", plain);
        for (int k = 2; name_taken(m, i); k++) snprintf(m->names[i], sizeof m->names[i], "%s#%d", plain, k);
    }
}

/* The match's error, escaped: it may quote a log's damaged line or a variant's message. */
static void say_error(const match *m) {
    fputs("meeple match: ", stderr);
    text_write(stderr, m->error, strlen(m->error), false);
    fputc('\n', stderr);
}

/* The seed a match without --seed draws, once it knows no log gives one. */
static bool draw_seed(match *m) {
    if (m->seed >= 0) return true;
    m->seed = cli_os_seed();
    if (m->seed < 0) snprintf(m->error, sizeof m->error, "cannot draw a seed from the system: give one with --seed");
    return m->seed >= 0;
}

static int run(match *m) {
    const match_args *a = m->a;
    if ((a->resume && !resume_log(m)) || !draw_seed(m)) {
        say_error(m);
        return 2;
    }
    if (a->log) {
        m->log = fopen(a->log, a->resume ? "ab" : "wb");
        if (!m->log) {
            fprintf(stderr, "meeple match: cannot write the log '%s'\n", a->log);
            return 2;
        }
    }
    long long todo = a->games - m->first;
    m->done = calloc((size_t)(todo > 0 ? todo : 1), sizeof *m->done);
    if (!m->done) {
        fprintf(stderr, "meeple match: out of memory\n");
        return 1;
    }
    m->tty = isatty(STDERR_FILENO);
    long long jobs = a->jobs < todo ? a->jobs : todo;
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
    free(m->done);
    if (m->log && fclose(m->log) != 0 && !m->error[0])
        snprintf(m->error, sizeof m->error, "cannot write the log '%s'", a->log);
    m->log = NULL;
    if (m->error[0]) {
        say_error(m);
        return 1;
    }
    print_table(m);
    return 0;
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
    m->seed = a.seed_given ? a.seed : -1;
    params_defaults(a.def, m->params);
    int status = 0;
    if (a.variant) { /* tried once here, so a bad variant is a bad argument */
        char err[300];
        lua_State *L = referee_new(&a, err, sizeof err);
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
    free(m);
    return status;
}
