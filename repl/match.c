/* match.c — `meeple match`: bots against each other over many games, seats rotated, in parallel
 * threads, each game logged as one JSON line, and a results table at the end.
 *
 * Game i (1-based) is dealt with seed S+i-1 and seat s gets bot (s+i-1) mod P, so every bot sits in
 * every seat equally often. Each bot gets a fresh sandboxed lua_State for each game, so a game's
 * result depends on its seed and its bots alone: the same whatever --jobs is, and whichever worker
 * plays it. Results are logged and counted in game order, as each game and all before it are done. */
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
#include "registry.h"
#include "session.h"

#define MATCH_MAX_DECISIONS 200000   /* a game still running after this many decisions is stuck */
#define MATCH_FORFEITS_SHOWN 8

typedef struct match_args {
    const game_def *def;
    int players;                               /* one seat per bot */
    char paths[MEEPLE_MAX_PLAYERS][1024];
    long long games, seed, jobs;
    const char *log, *variant;          /* variant: as given (a name or a path), or NULL */
    bool resume, echo;
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
    char names[MEEPLE_MAX_PLAYERS][80];        /* unique: "random", "random#2" */
    pthread_mutex_t lock;
    long long next_game, next_count;           /* the next game to hand out, and to log and count */
    long long first;                           /* the first game this run plays (earlier: the log) */
    game_result **done;                        /* finished, not yet counted, by game - first */
    FILE *log;
    bot_stats stats[MEEPLE_MAX_PLAYERS];
    long long seat_games, seat_wins[MEEPLE_MAX_PLAYERS];
    char forfeits[MATCH_FORFEITS_SHOWN][400];
    long long forfeit_count;
    bool stop, tty;
    char error[400];
} match;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int bot_of_seat(const match *m, long long game, int seat) {
    return (int)(((long long)seat + game) % m->a->players);
}

/* ==================================================================================== arguments */

/* A bot argument: a file, or the name of one in the project's bots/ ("greedy_babel"). */
static bool resolve_bot(const char *arg, char *out, size_t n) {
    if (access(arg, R_OK) == 0 || strchr(arg, '/')) {
        snprintf(out, n, "%s", arg);
        return access(arg, R_OK) == 0;
    }
    char lib[1024];
    bot_lib_dir(NULL, lib, sizeof lib);
    size_t len = strlen(lib);
    if (len > 4 && strcmp(lib + len - 4, "/lib") == 0) {
        lib[len - 4] = '\0';
        const char *ext = strstr(arg, ".lua") ? "" : ".lua";
        snprintf(out, n, "%s/%s%s", lib, arg, ext);
        if (access(out, R_OK) == 0) return true;
    }
    snprintf(out, n, "%s", arg);
    return false;
}

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
            if (!cli_parse_int(value, 0, INT64_MAX / 2, &a->seed))
                return cli_bad_args("match", "--seed must be a whole number from 0, got '%s'", value);
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
             m->a->seed + r->game, what);
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
    jsonl_putf(&b, ",\"seed\":%lld,\"variant\":", m->a->seed + r->game);
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
    uint64_t seed = (uint64_t)(a->seed + g);
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
    uint64_t seed = (uint64_t)(a->seed + g);
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
            char name[sizeof m->names[0]];
            memcpy(name, m->names[bot_of_seat(m, r->game, r->forfeit)], sizeof name);
            snprintf(m->forfeits[m->forfeit_count], sizeof m->forfeits[0], "game %lld, seat %d (%s): %s",
                     r->game + 1, r->forfeit + 1, name, r->reason);
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

/* Reads one logged game back, checking it belongs to this match. False with the reason. */
static bool read_logged(const match *m, const jsonl_value *v, long long g, game_result *r, char *why,
                        size_t n) {
    const match_args *a = m->a;
    int players = a->players;
    long long num;
    *r = (game_result){.game = g, .forfeit = -1};
    const jsonl_value *game = jsonl_get(v, "game"), *seats = jsonl_get(v, "seats"),
                      *scores = jsonl_get(v, "scores"), *winners = jsonl_get(v, "winners"),
                      *forfeits = jsonl_get(v, "forfeits"), *variant = jsonl_get(v, "variant");
    if (!jsonl_int(jsonl_get(v, "index"), g + 1, g + 1, &num)) {
        snprintf(why, n, "its index is not %lld", g + 1);
        return false;
    }
    if (!game || game->kind != JSONL_STRING || strcmp(game->string, a->def->name) != 0) {
        snprintf(why, n, "it is not a game of %s", a->def->name);
        return false;
    }
    if (!jsonl_int(jsonl_get(v, "seed"), a->seed + g, a->seed + g, &num)) {
        snprintf(why, n, "its seed is not %lld (this match's --seed is %lld)", a->seed + g, a->seed);
        return false;
    }
    bool same_variant = variant && (a->variant ? variant->kind == JSONL_STRING && strcmp(variant->string, a->variant) == 0
                                               : variant->kind == JSONL_NULL);
    if (!same_variant) {
        snprintf(why, n, "it was not played under %s%s", a->variant ? "the variant " : "the base rules",
                 a->variant ? a->variant : "");
        return false;
    }
    if (!seats || seats->kind != JSONL_ARRAY || seats->count != players) {
        snprintf(why, n, "it has not %d seats", players);
        return false;
    }
    for (int s = 0; s < players; s++) {
        const char *want = m->names[bot_of_seat(m, g, s)];
        if (seats->items[s].kind != JSONL_STRING || strcmp(seats->items[s].string, want) != 0) {
            snprintf(why, n, "seat %d is not %s", s + 1, want);
            return false;
        }
    }
    if (!scores || scores->kind != JSONL_ARRAY || scores->count != players || !winners ||
        winners->kind != JSONL_ARRAY || winners->count > players || !forfeits ||
        forfeits->kind != JSONL_ARRAY || forfeits->count > 1) {
        snprintf(why, n, "its scores, winners or forfeits are damaged");
        return false;
    }
    for (int s = 0; s < players; s++) {
        if (!jsonl_int(&scores->items[s], -1000000000, 1000000000, &num)) {
            snprintf(why, n, "its scores are damaged");
            return false;
        }
        r->scores[s] = (int)num;
    }
    for (int i = 0; i < winners->count; i++) {
        if (!jsonl_int(&winners->items[i], 1, players, &num)) {
            snprintf(why, n, "its winners are damaged");
            return false;
        }
        r->winners[r->nwinners++] = (int)num - 1;
    }
    if (forfeits->count == 1) {
        const jsonl_value *reason = jsonl_get(&forfeits->items[0], "reason");
        if (!jsonl_int(jsonl_get(&forfeits->items[0], "seat"), 1, players, &num) || !reason ||
            reason->kind != JSONL_STRING) {
            snprintf(why, n, "its forfeit is damaged");
            return false;
        }
        r->forfeit = (int)num - 1;
        snprintf(r->reason, sizeof r->reason, "%s", reason->string);
    }
    return true;
}

/* Counts the games of an interrupted run's log and cuts off a line the kill left half-written.
 * Sets m->first to the number of games the log holds. False (said why) when the log is not this
 * match's or cannot be read. */
static bool resume_log(match *m) {
    const char *path = m->a->log;
    FILE *f = fopen(path, "rb");
    if (!f) return true; /* nothing logged yet: start from the first game */
    jsonl_buf text = {0};
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) jsonl_putn(&text, chunk, got);
    bool ok = !ferror(f) && !text.failed;
    fclose(f);
    if (!ok) {
        snprintf(m->error, sizeof m->error, "cannot read the log '%s'", path);
        jsonl_buf_free(&text);
        return false;
    }
    size_t pos = 0, keep = 0;
    long long g = 0;
    while (ok && text.text && pos < text.len) {
        char *end = strchr(text.text + pos, '\n');
        if (!end) break; /* the last line, half-written when the run was killed */
        *end = '\0';
        char why[200];
        jsonl_value *v = jsonl_parse(text.text + pos, why, sizeof why);
        game_result r;
        if (g >= m->a->games) {
            snprintf(why, sizeof why, "it holds more games than --games %lld", m->a->games);
            ok = false;
        } else {
            ok = v && read_logged(m, v, g, &r, why, sizeof why);
        }
        jsonl_free(v);
        if (!ok) {
            snprintf(m->error, sizeof m->error,
                     "the log '%s' is not this match's: game %lld: %s (resume with the arguments it was "
                     "started with, or log to a new file)", path, g + 1, why);
            break;
        }
        count_result(m, &r);
        g++;
        pos = keep = (size_t)(end - text.text) + 1;
    }
    jsonl_buf_free(&text);
    if (!ok) return false;
    if (truncate(path, (off_t)keep) != 0) {
        snprintf(m->error, sizeof m->error, "cannot cut the half-written line off the log '%s'", path);
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

static void print_table(const match *m) {
    const match_args *a = m->a;
    int players = a->players, width = 4;
    for (int i = 0; i < players; i++)
        if ((int)strlen(m->names[i]) > width) width = (int)strlen(m->names[i]);
    printf("%s: %lld games, seed %lld, seats rotated", a->def->name, m->seat_games, a->seed);
    if (m->first) printf(" (%lld from the log)", m->first);
    printf("\n\n%-*s  games   wins  draws  losses  forfeits  win rate  95%% interval     mean score\n", width,
           "bot");
    for (int i = 0; i < players; i++) {
        const bot_stats *b = &m->stats[i];
        printf("%-*s %6lld %6lld %6lld %7lld %9lld", width, m->names[i], b->games, b->wins, b->draws, b->losses,
               b->forfeits);
        print_rate(b->wins, b->games);
        printf(" %10.2f\n", b->games ? b->score_sum / (double)b->games : 0.0);
    }
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

/* Names for the table and the log, unique: a bot given twice is "random" and "random#2". */
static void name_bots(match *m) {
    for (int i = 0; i < m->a->players; i++) {
        int same = 1;
        for (int j = 0; j < i; j++) same += strcmp(m->codes[j]->name, m->codes[i]->name) == 0;
        if (same == 1) snprintf(m->names[i], sizeof m->names[i], "%s", m->codes[i]->name);
        else snprintf(m->names[i], sizeof m->names[i], "%s#%d", m->codes[i]->name, same);
    }
}

static int run(match *m) {
    const match_args *a = m->a;
    if (a->resume && !resume_log(m)) {
        fprintf(stderr, "meeple match: %s\n", m->error);
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
        fprintf(stderr, "meeple match: %s\n", m->error);
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
