/* serve_game.c — the games `meeple serve` holds: created from a request or from the database, each
 * in a lua_State of its own (serve_game.lua), its human seats behind secret tokens and its bot seats
 * in their sandboxes; actions checked, committed, then played; the game document for each reader. */
#define _GNU_SOURCE /* getrandom */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <jansson.h>
#include <lauxlib.h>

#include "cli.h"
#include "host/paths.h"
#include "lua/lmeeple.h"
#include "serve.h"
#include <meeple/registry.h>
#include <meeple/session.h>

extern const char meeple_lua_serve_game[]; /* serve/serve_game.lua */
extern const char meeple_lua_render[];     /* scripts/render.lua: the colours the pages paint cards in */

typedef struct bot_cache {
    char name[SERVE_NAME_LEN];
    bot_code *code;
    struct bot_cache *next;
} bot_cache;

bool serve_error_set(serve_error *e, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    e->status = status;
    vsnprintf(e->why, sizeof e->why, fmt, ap);
    va_end(ap);
    return false;
}

/* n random bytes from the OS as 2n hex digits. */
static bool random_hex(char *out, size_t bytes) {
    unsigned char buf[64];
    if (bytes > sizeof buf) return false;
    size_t got = 0;
    while (got < bytes) {
        ssize_t r = getrandom(buf + got, bytes - got, 0);
        if (r <= 0) return false;
        got += (size_t)r;
    }
    for (size_t i = 0; i < bytes; i++) snprintf(out + 2 * i, 3, "%02x", buf[i]);
    return true;
}

/* ==================================================================================== the game's Lua */

/* Calls G[fn] with the nargs values on top; nres results, or the error's first line in why. */
static bool g_call(serve_game *g, const char *fn, int nargs, int nres, char *why, size_t n) {
    lua_State *L = g->L;
    lua_getfield(L, 1, fn);
    lua_insert(L, -(nargs + 1));
    if (lua_pcall(L, nargs, nres, 0) == LUA_OK) return true;
    const char *msg = lua_tostring(L, -1);
    if (why) snprintf(why, n, "%.*s", (int)strcspn(msg ? msg : "an error", "\n"), msg ? msg : "an error");
    lua_settop(L, 1);
    return false;
}

static bool game_lua(serve_game *g, char *why, size_t n) {
    lua_State *L = g->L = cli_new_lua();
    if (!L) return snprintf(why, n, "out of memory"), false;
    if (cli_load_program(L, meeple_lua_serve_game, "=serve") != LUA_OK) {
        snprintf(why, n, "%s", lua_tostring(L, -1));
        return false;
    }
    lua_getglobal(L, "meeple");
    lua_pushstring(L, g->def->name);
    lua_pushinteger(L, g->players);
    lua_pushinteger(L, (lua_Integer)g->seed);
    if (g->variant[0]) lua_pushstring(L, g->variant);
    else lua_pushnil(L);
    lua_pushstring(L, g->params_json);
    if (cli_load_program(L, meeple_lua_render, "=render.lua") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        snprintf(why, n, "%s", lua_tostring(L, -1));
        return false;
    }
    if (lua_pcall(L, 7, 1, 0) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        snprintf(why, n, "%.*s", (int)strcspn(msg ? msg : "", "\n"), msg ? msg : "the game cannot be made");
        return false;
    }
    return true;
}

static const session *plain_session(serve_game *g) {
    if (!g->L) return NULL;
    if (!g_call(g, "plain", 0, 1, NULL, 0)) return NULL;
    session *s = meeple_to_session(g->L, -1);
    lua_settop(g->L, 1);
    return s;
}

const void *serve_plain_state(serve_game *g) {
    const session *s = plain_session(g);
    return s ? s->now : NULL;
}

/* The seat to move (1-based), 0 when the game is over. */
static int to_move(serve_game *g) {
    if (!g->L) return 0;
    if (!g_call(g, "to_move", 0, 1, NULL, 0)) return 0;
    int p = lua_isinteger(g->L, -1) ? (int)lua_tointeger(g->L, -1) : 0;
    lua_settop(g->L, 1);
    return p;
}

static bool game_over(serve_game *g) {
    if (!g->L) return true;
    if (!g_call(g, "over", 0, 1, NULL, 0)) return true;
    bool over = lua_toboolean(g->L, -1);
    lua_settop(g->L, 1);
    return over;
}

static long long decisions(serve_game *g) {
    if (!g->L) return g->final_decisions;
    if (!g_call(g, "decisions", 0, 1, NULL, 0)) return 0;
    long long n = (long long)lua_tointeger(g->L, -1);
    lua_settop(g->L, 1);
    return n;
}

/* The document's fields that never change: id, game, players, variant, seats. */
static json_t *seats_json(const serve_game *g, bool tokens) {
    json_t *a = json_array();
    for (int s = 0; s < g->players; s++) {
        json_t *o = json_pack("{s:i, s:s, s:s}", "seat", s + 1, "kind", g->seats[s].human ? "human" : "bot", "name",
                              g->seats[s].name);
        if (tokens && g->seats[s].human) json_object_set_new(o, "token", json_string(g->seats[s].token));
        json_array_append_new(a, o);
    }
    return a;
}

static bool set_meta(serve_game *g, char *why, size_t n) {
    json_t *meta = json_pack("{s:s, s:s, s:i, s:s, s:o}", "id", g->id, "game", g->def->name, "players", g->players,
                             "variant", g->variant, "seats", seats_json(g, false));
    char *text = meta ? json_dumps(meta, JSON_COMPACT) : NULL;
    json_decref(meta);
    if (!text) return snprintf(why, n, "out of memory"), false;
    lua_pushstring(g->L, text);
    free(text);
    return g_call(g, "set_meta", 1, 0, why, n);
}

static char *build_document(serve_game *g, int seat) {
    if (seat > 0) lua_pushinteger(g->L, seat);
    else lua_pushnil(g->L);
    char why[SERVE_REASON_LEN];
    if (!g_call(g, "document", 1, 1, why, sizeof why)) {
        json_t *e = json_pack("{s:s}", "error", why);
        char *text = json_dumps(e, JSON_COMPACT);
        json_decref(e);
        return text;
    }
    char *text = strdup(lua_tostring(g->L, -1));
    lua_settop(g->L, 1);
    return text;
}

char *serve_document(serve_game *g, int seat) {
    if (seat < 0 || seat > g->players) return NULL;
    if (g->docs[seat].text && g->docs[seat].version == g->version) return strdup(g->docs[seat].text);
    if (!g->L) return NULL;
    char *text = build_document(g, seat);
    free(g->docs[seat].text);
    g->docs[seat].text = text ? strdup(text) : NULL;
    g->docs[seat].version = g->version;
    return text;
}

/* ==================================================================================== seats and bots */

int serve_token_seat(const serve_game *g, const char *token) {
    if (!token) return 0;
    /* Every human seat's token is compared, each in full: the time taken tells nothing of any. */
    char given[SERVE_TOKEN_LEN];
    size_t len = strnlen(token, SERVE_TOKEN_LEN + 1);
    memset(given, 0, sizeof given);
    memcpy(given, token, len < SERVE_TOKEN_LEN ? len : SERVE_TOKEN_LEN);
    int found = -1;
    for (int s = 0; s < g->players; s++) {
        unsigned char diff = len != SERVE_TOKEN_LEN || !g->seats[s].human;
        for (int i = 0; i < SERVE_TOKEN_LEN; i++) diff |= (unsigned char)(given[i] ^ g->seats[s].token[i]);
        if (diff == 0) found = s + 1;
    }
    return found;
}

/* A bot's name is a file bots/NAME.lua in meeple's roots (never a path a request makes up), or exec:
 * under --allow-exec. */
static bool bot_file(const serve_server *sv, const char *name, char *path, size_t n, serve_error *e) {
    if (strncmp(name, "exec:", 5) == 0) {
        if (!sv->cfg.allow_exec)
            return serve_error_set(e, 400, "bot '%.60s': exec: bots run only on a server started with --allow-exec",
                                   name);
        snprintf(path, n, "%s", name);
        return true;
    }
    size_t len = strlen(name);
    bool plain = len > 0 && len < 64 && name[0] != '.';
    for (size_t i = 0; i < len && plain; i++) plain = isalnum((unsigned char)name[i]) || strchr("_-", name[i]);
    char rel[128];
    snprintf(rel, sizeof rel, "bots/%s.lua", name);
    if (!plain || !meeple_find(rel, path, n))
        return serve_error_set(e, 400, "unknown bot '%.60s' (GET /api/catalog lists the bots)", name);
    return true;
}

/* The bot's code, loaded once and shared by every game (bot_code is read-only once loaded). Loaded
 * with the server's lock released (a bot's file takes a while to compile; requests wait on that lock);
 * two requests that load the same bot at once keep the first. An exec: bot is not cached (its name is
 * any command: the cache would grow without bound): *own is set and the caller frees it. */
static bot_code *bot_code_of(serve_server *sv, const char *name, bool *own, serve_error *e) {
    char path[MEEPLE_PATH_LEN], err[300];
    *own = false;
    if (!bot_file(sv, name, path, sizeof path, e)) return NULL;
    bool exec = strncmp(name, "exec:", 5) == 0;
    pthread_mutex_lock(&sv->lock);
    bot_cache *c = sv->codes;
    while (!exec && c && strcmp(c->name, name) != 0) c = c->next;
    pthread_mutex_unlock(&sv->lock);
    if (c && !exec) return c->code;
    bot_code *code = bot_code_load(path, &sv->cfg.limits, err, sizeof err);
    if (!code) return serve_error_set(e, 400, "bot '%.60s': %.220s", name, err), NULL;
    if (exec) return *own = true, code;
    bot_cache *fresh = calloc(1, sizeof *fresh);
    if (!fresh) return bot_code_free(code), serve_error_set(e, 500, "out of memory"), NULL;
    snprintf(fresh->name, sizeof fresh->name, "%s", name);
    fresh->code = code;
    pthread_mutex_lock(&sv->lock);
    for (c = sv->codes; c && strcmp(c->name, name) != 0;) c = c->next;
    if (!c) fresh->next = sv->codes, sv->codes = c = fresh, fresh = NULL;
    pthread_mutex_unlock(&sv->lock);
    if (fresh) bot_code_free(fresh->code), free(fresh);
    return c->code;
}

/* Seats from their names: "human" or a bot. */
/* Each seat's name and kind, and a bot seat's code unless `with_bots` is false: a finished game replays
 * with the rules alone, so it must not depend on its bots' files still being there (or unchanged). */
static bool seats_from(serve_server *sv, serve_game *g, const char *const *names, bool with_bots, serve_error *e) {
    for (int s = 0; s < g->players; s++) {
        serve_seat *seat = &g->seats[s];
        snprintf(seat->name, sizeof seat->name, "%s", names[s]);
        if (strlen(names[s]) >= sizeof seat->name) return serve_error_set(e, 400, "seat %d: name too long", s + 1);
        seat->human = strcmp(names[s], "human") == 0;
        if (seat->human || !with_bots) continue;
        seat->code = bot_code_of(sv, names[s], &seat->own_code, e);
        if (!seat->code) return false;
    }
    return true;
}

static void record_forfeit(serve_game *g, int seat, const char *reason) {
    g->forfeit = seat;
    snprintf(g->forfeit_reason, sizeof g->forfeit_reason, "%s", reason);
    lua_pushinteger(g->L, seat);
    lua_pushstring(g->L, g->forfeit_reason);
    g_call(g, "forfeit", 2, 0, NULL, 0);
}

/* Each bot seat its sandbox, begun at the game's start. A bot that cannot begin forfeits (returned). */
static int bots_begin(serve_server *sv, serve_game *g, serve_error *e) {
    const session *s = plain_session(g);
    if (!s) return serve_error_set(e, 500, "the game has no plain state"), -1;
    g->bot_state = malloc(g->def->state_size);
    if (!g->bot_state) return serve_error_set(e, 500, "out of memory"), -1;
    for (int p = 0; p < g->players; p++) {
        serve_seat *seat = &g->seats[p];
        if (seat->human) continue;
        seat->b = bot_new(seat->code, s->def, s->params, &sv->cfg.limits, false);
        if (!seat->b) return serve_error_set(e, 500, "out of memory"), -1;
        if (!bot_begin(seat->b, s->now, p, g->seed)) return p + 1;
    }
    return 0;
}

/* ==================================================================================== changes */

/* g takes no more actions; its document says why. Lock held. */
static void set_broken(serve_game *g, const char *reason) {
    g->broken = true;
    snprintf(g->broken_reason, sizeof g->broken_reason, "%s", reason);
    if (!g->L) return;
    lua_pushstring(g->L, g->broken_reason);
    g_call(g, "set_broken", 1, 0, NULL, 0);
}

static bool store_ev(serve_server *sv, serve_game *g, const char *kind, int seat, const char *text, serve_error *e) {
    char err[300];
    if (!sv->store) return true;
    if (store_event(sv->store, g->id, g->events + 1, kind, seat, text, err, sizeof err)) {
        g->events++;
        return true;
    }
    set_broken(g, "the server could not store an event of this game: it takes no more actions");
    fprintf(stderr, "meeple serve: game %s: %s\n", g->id, err);
    return serve_error_set(e, 500, "the server could not store the event");
}

/* The game is over: each bot is told the result (an external bot's program then ends) and freed. */
static void free_bots(serve_game *g) {
    int scores[MEEPLE_MAX_PLAYERS] = {0}, winners[MEEPLE_MAX_PLAYERS] = {0}, nwinners = 0;
    if (g_call(g, "result", 0, 2, NULL, 0)) {
        for (int p = 0; p < g->players; p++) {
            lua_rawgeti(g->L, -2, p + 1);
            scores[p] = (int)lua_tointeger(g->L, -1);
            lua_pop(g->L, 1);
        }
        for (int i = 0; i < (int)lua_rawlen(g->L, -1) && i < g->players; i++) {
            lua_rawgeti(g->L, -1, i + 1);
            winners[nwinners++] = (int)lua_tointeger(g->L, -1) - 1;
            lua_pop(g->L, 1);
        }
        lua_settop(g->L, 1);
    }
    for (int p = 0; p < g->players; p++) {
        if (!g->seats[p].b) continue;
        bot_end(g->seats[p].b, scores, winners, nwinners);
        bot_free(g->seats[p].b);
        g->seats[p].b = NULL;
    }
}

/* A finished game keeps only its documents, one a reader, built now: its lua_State and bots are freed
 * and it no longer counts towards --max-games. */
static void retire(serve_server *sv, serve_game *g) {
    for (int seat = 0; seat <= g->players; seat++) free(serve_document(g, seat));
    g->final_decisions = decisions(g);
    lua_close(g->L);
    g->L = NULL;
    free(g->bot_state);
    g->bot_state = NULL;
    pthread_mutex_lock(&sv->lock);
    if (g->counted) sv->unfinished--;
    g->counted = false;
    pthread_mutex_unlock(&sv->lock);
}

/* After any change: the end stored once, the bots told, the streams and the bots' queue woken. */
static void changed(serve_server *sv, serve_game *g) {
    if (!g->L) return; /* retired: nothing changes any more */
    bool over = !sv->resuming && game_over(g);
    if (over && !g->ended && !g->broken) {
        serve_error e;
        const char *text = g_call(g, "result_json", 0, 1, NULL, 0) ? lua_tostring(g->L, -1) : "{}";
        char *copy = strdup(text ? text : "{}");
        lua_settop(g->L, 1);
        if (copy && store_ev(sv, g, "end", 0, copy, &e)) g->ended = true;
        free(copy);
    }
    if (over) free_bots(g); /* an external bot's program is told and ends */
    g->version++;
    http_changed(g);
    if (g->ended && !sv->resuming) retire(sv, g);
    else bots_wake(sv, g);
}

/* Plays `text` for `seat` (1-based): checked, committed (when `store`), seen by the bots, played. Lock held. */
static bool play_locked(serve_server *sv, serve_game *g, int seat, const char *text, bool store, serve_error *e) {
    char why[SERVE_REASON_LEN];
    if (g->broken) return serve_error_set(e, 503, "this game takes no actions: %s", g->broken_reason);
    if (!g->L) return serve_error_set(e, 409, "the game is over");
    lua_pushinteger(g->L, seat);
    lua_pushstring(g->L, text);
    if (!g_call(g, "check", 2, 2, why, sizeof why)) return serve_error_set(e, 409, "%s", why);
    bool ok = lua_toboolean(g->L, -2);
    if (!ok) {
        const char *reason = lua_tostring(g->L, -1);
        serve_error_set(e, 409, "%s", reason ? reason : "not a legal action now");
        lua_settop(g->L, 1);
        return false;
    }
    lua_settop(g->L, 1);
    if (store && !store_ev(sv, g, "action", seat, text, e)) return false;
    if (!store) g->events++;
    const void *st = serve_plain_state(g);
    for (int p = 0; p < g->players; p++)
        if (g->seats[p].b && st) bot_saw_text(g->seats[p].b, st, text);
    lua_pushstring(g->L, text);
    if (!g_call(g, "play", 1, 0, why, sizeof why)) {
        g->broken = true;
        return serve_error_set(e, 500, "the checked action failed: %s", why);
    }
    changed(sv, g);
    return true;
}

/* A bot's legal actions as texts, one list a thread (a bot decides on a worker, or on the main thread
 * at a restart): no allocation a decision. */
static _Thread_local char decision_texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT];

/* The legal actions of the seat to move into texts, and the plain state into st (a copy the bot may
 * read with the game unlocked); how many actions, 0 when there are none, -1 when there are more than
 * a bot can be given (MEEPLE_MAX_ACTIONS). Lock held. */
static int decision_inputs(serve_game *g, char (*texts)[MEEPLE_ACTION_TEXT], void *st) {
    const void *now = serve_plain_state(g);
    int n = 0;
    if (!now || !g_call(g, "legal", 0, 1, NULL, 0)) return 0;
    n = (int)lua_rawlen(g->L, -1);
    if (n > MEEPLE_MAX_ACTIONS) return lua_settop(g->L, 1), -1;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(g->L, -1, i + 1);
        snprintf(texts[i], MEEPLE_ACTION_TEXT, "%s", lua_tostring(g->L, -1));
        lua_pop(g->L, 1);
    }
    lua_settop(g->L, 1);
    memcpy(st, now, g->def->state_size);
    return n;
}

/* At a restart, a bot seat is asked again for each decision it took (the answer is the stored one
 * anyway): its own generator and memory then stand where they stood, and it goes on as it would have. */
static void bot_choose_again(serve_game *g, int seat) {
    bot *b = g->seats[seat - 1].b;
    int n = b && g->bot_state ? decision_inputs(g, decision_texts, g->bot_state) : 0;
    if (n > 0) bot_choose_text(b, g->bot_state, (const char(*)[MEEPLE_ACTION_TEXT])decision_texts, n);
}

void serve_bot_move(serve_server *sv, serve_game *g) {
    pthread_mutex_lock(&g->lock);
    int seat = to_move(g);
    bot *b = seat > 0 ? g->seats[seat - 1].b : NULL;
    if (!b || g->broken || sv->stopping) {
        g->bot_queued = false;
        pthread_mutex_unlock(&g->lock);
        return;
    }
    char(*texts)[MEEPLE_ACTION_TEXT] = decision_texts;
    void *st = g->bot_state; /* the game's own: one bot of a game decides at a time */
    int n = st ? decision_inputs(g, texts, st) : 0;
    long long version = g->version;
    pthread_mutex_unlock(&g->lock);
    /* The bot thinks with the game unlocked: readers are served meanwhile, and nothing else can move
     * (the bot's seat decides). */
    int k = n > 0 ? bot_choose_text(b, st, (const char(*)[MEEPLE_ACTION_TEXT])texts, n) : -2;
    pthread_mutex_lock(&g->lock);
    g->bot_queued = false;
    serve_error e;
    if (sv->stopping) {
        /* stopped: the decision is made again on the next start */
    } else if (g->version != version) {
        bots_wake(sv, g); /* the game changed meanwhile: decided again on what it is now */
    } else if (k == -2) {
        /* a seat that cannot be given its choices cannot move: the game must not wait for it forever */
        char reason[SERVE_REASON_LEN];
        if (n < 0) snprintf(reason, sizeof reason, "more legal actions (over %d) than a bot can be given", MEEPLE_MAX_ACTIONS);
        else snprintf(reason, sizeof reason, "the bot's seat has no legal action");
        if (store_ev(sv, g, "forfeit", seat, reason, &e)) {
            record_forfeit(g, seat, reason);
            changed(sv, g);
        }
    } else if (k < 0) {
        if (store_ev(sv, g, "forfeit", seat, bot_reason(b), &e)) {
            record_forfeit(g, seat, bot_reason(b));
            changed(sv, g);
        }
    } else if (!play_locked(sv, g, seat, texts[k], true, &e)) {
        fprintf(stderr, "meeple serve: game %s: bot seat %d: %s\n", g->id, seat, e.why);
    }
    pthread_mutex_unlock(&g->lock);
}

/* ==================================================================================== creation */

static serve_game *game_alloc(void) {
    serve_game *g = calloc(1, sizeof *g);
    if (g) pthread_mutex_init(&g->lock, NULL);
    return g;
}

static void game_free(serve_game *g) {
    if (!g) return;
    for (int p = 0; p < MEEPLE_MAX_PLAYERS; p++) {
        bot_free(g->seats[p].b);
        if (g->seats[p].own_code) bot_code_free(g->seats[p].code);
    }
    if (g->L) lua_close(g->L);
    free(g->bot_state);
    for (int p = 0; p <= MEEPLE_MAX_PLAYERS; p++) free(g->docs[p].text);
    free(g->params_json);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* Holds g (the cap on unfinished games is applied before, by reserve_slot; never while resuming). */
static bool add_game(serve_server *sv, serve_game *g, bool counted, serve_error *e) {
    pthread_mutex_lock(&sv->lock);
    bool ok = sv->ngames < sv->cap;
    if (!ok) {
        serve_game **grown = realloc(sv->games, sizeof *grown * (size_t)(sv->cap * 2));
        if (grown) sv->games = grown, sv->cap *= 2, ok = true;
    }
    if (ok) sv->games[sv->ngames++] = g, g->counted = counted;
    pthread_mutex_unlock(&sv->lock);
    if (!ok) serve_error_set(e, 500, "out of memory");
    return ok;
}

/* A slot for a new game under --max-games (unfinished games only), taken before the game is made and
 * stored so two creations at once cannot both pass the cap; released if the creation fails. */
static bool reserve_slot(serve_server *sv, serve_error *e) {
    pthread_mutex_lock(&sv->lock);
    bool ok = sv->unfinished < sv->cfg.max_games;
    if (ok) sv->unfinished++;
    pthread_mutex_unlock(&sv->lock);
    if (!ok)
        serve_error_set(e, 503, "the server holds its most unfinished games (%lld): --max-games", sv->cfg.max_games);
    return ok;
}

static void release_slot(serve_server *sv) {
    pthread_mutex_lock(&sv->lock);
    sv->unfinished--;
    pthread_mutex_unlock(&sv->lock);
}

serve_game *serve_find(serve_server *sv, const char *id) {
    serve_game *found = NULL;
    pthread_mutex_lock(&sv->lock);
    for (long long i = 0; i < sv->ngames && !found; i++)
        if (strcmp(sv->games[i]->id, id) == 0) found = sv->games[i];
    pthread_mutex_unlock(&sv->lock);
    return found;
}

/* The fields every game has, from a request or the database: game, players, seed, variant, params. */
static bool game_fields(serve_game *g, const char *game, long long players, long long seed, const char *variant,
                        const char *params, serve_error *e) {
    g->def = game_find(game);
    if (!g->def) return serve_error_set(e, 400, "unknown game '%.40s'; games: %s", game, game_names());
    if (players < g->def->min_players || players > g->def->max_players)
        return serve_error_set(e, 400, "%s is for %d to %d players, got %lld", g->def->name, g->def->min_players,
                               g->def->max_players, players);
    g->players = (int)players;
    if (seed < 0 || seed > MEEPLE_SEED_MAX)
        return serve_error_set(e, 400, "seed must be a whole number from 0 to %lld", MEEPLE_SEED_MAX);
    g->seed = (uint64_t)seed;
    size_t vlen = strlen(variant);
    bool plain = vlen < sizeof g->variant;
    for (size_t i = 0; i < vlen && plain; i++) plain = isalnum((unsigned char)variant[i]) || strchr("_-", variant[i]);
    if (!plain) return serve_error_set(e, 400, "variant must be a variant's name (GET /api/catalog lists them)");
    snprintf(g->variant, sizeof g->variant, "%s", variant);
    g->params_json = strdup(params);
    if (!g->params_json) return serve_error_set(e, 500, "out of memory");
    char why[SERVE_REASON_LEN];
    if (!game_lua(g, why, sizeof why)) return serve_error_set(e, 400, "%s", why);
    return true;
}

static char *created_answer(const serve_game *g) {
    json_t *seats = seats_json(g, true);
    size_t i;
    json_t *seat;
    json_array_foreach(seats, i, seat) {
        char url[200];
        const char *token = json_string_value(json_object_get(seat, "token"));
        if (token) snprintf(url, sizeof url, "/play/%s#token=%s", g->id, token);
        else snprintf(url, sizeof url, "/play/%s", g->id);
        json_object_set_new(seat, "url", json_string(url));
    }
    char watch[64];
    snprintf(watch, sizeof watch, "/play/%s", g->id);
    json_t *o = json_pack("{s:s, s:o, s:s}", "id", g->id, "seats", seats, "watch_url", watch);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* The request's fields, checked: one reason for the first that is wrong. */
static bool read_request(json_t *o, const char **game, long long *players, long long *seed, const char **variant,
                         char **params, const char *names[], serve_error *e) {
    json_t *jg = json_object_get(o, "game"), *jp = json_object_get(o, "players"), *js = json_object_get(o, "seats"),
           *jseed = json_object_get(o, "seed"), *jv = json_object_get(o, "variant"), *jpar = json_object_get(o, "params");
    if (!json_is_string(jg)) return serve_error_set(e, 400, "\"game\" must be a game's name; games: %s", game_names());
    *game = json_string_value(jg);
    if (!json_is_array(js) || json_array_size(js) == 0 || json_array_size(js) > MEEPLE_MAX_PLAYERS)
        return serve_error_set(e, 400, "\"seats\" must be a list of one entry a seat: \"human\" or a bot's name");
    *players = jp ? (json_is_integer(jp) ? json_integer_value(jp) : -1) : (long long)json_array_size(js);
    if (*players < 0) return serve_error_set(e, 400, "\"players\" must be a whole number");
    if ((size_t)*players != json_array_size(js))
        return serve_error_set(e, 400, "%lld players need %lld seats, got %zu", *players, *players, json_array_size(js));
    for (size_t i = 0; i < json_array_size(js); i++) {
        names[i] = json_string_value(json_array_get(js, i));
        if (!names[i]) return serve_error_set(e, 400, "seat %zu must be \"human\" or a bot's name", i + 1);
    }
    if (jseed && !json_is_integer(jseed)) return serve_error_set(e, 400, "\"seed\" must be a whole number");
    *seed = jseed ? json_integer_value(jseed) : cli_os_seed();
    if (jv && !json_is_string(jv) && !json_is_null(jv)) return serve_error_set(e, 400, "\"variant\" must be a name");
    *variant = json_is_string(jv) ? json_string_value(jv) : "";
    if (jpar && !json_is_object(jpar) && !json_is_null(jpar))
        return serve_error_set(e, 400, "\"params\" must be an object of the game's parameters");
    *params = json_is_object(jpar) ? json_dumps(jpar, JSON_COMPACT) : strdup("{}");
    if (!*params) return serve_error_set(e, 500, "out of memory");
    return true;
}

static char *create_game(serve_server *sv, json_t *o, serve_error *e) {
    const char *game = NULL, *variant = NULL, *names[MEEPLE_MAX_PLAYERS];
    long long players = 0, seed = 0;
    char *params = NULL, err[300];
    if (!read_request(o, &game, &players, &seed, &variant, &params, names, e)) return free(params), NULL;
    serve_game *g = game_alloc();
    if (!g) return free(params), serve_error_set(e, 500, "out of memory"), NULL;
    bool ok = game_fields(g, game, players, seed, variant, params, e) && seats_from(sv, g, names, true, e);
    free(params);
    g->created = (long long)time(NULL);
    ok = ok && (random_hex(g->id, SERVE_ID_LEN / 2) || serve_error_set(e, 500, "no randomness from the OS"));
    for (int p = 0; ok && p < g->players; p++)
        if (g->seats[p].human && !random_hex(g->seats[p].token, SERVE_TOKEN_BYTES))
            ok = serve_error_set(e, 500, "no randomness from the OS");
    char why[SERVE_REASON_LEN];
    if (ok && !set_meta(g, why, sizeof why)) ok = serve_error_set(e, 500, "%s", why);
    int forfeit = ok ? bots_begin(sv, g, e) : 0;
    ok = ok && forfeit >= 0;
    json_t *seats = ok ? seats_json(g, true) : NULL;
    char *seats_text = seats ? json_dumps(seats, JSON_COMPACT) : NULL;
    json_decref(seats);
    if (ok && !(seats_text && store_create(sv->store, g, seats_text, err, sizeof err)))
        ok = serve_error_set(e, 500, "the server could not store the game: %s", seats_text ? err : "out of memory");
    free(seats_text);
    if (ok && !add_game(sv, g, true, e)) ok = false; /* stored but not held: it comes back at the next start */
    if (!ok) return release_slot(sv), game_free(g), NULL;
    pthread_mutex_lock(&g->lock);
    if (forfeit > 0 && store_ev(sv, g, "forfeit", forfeit, bot_reason(g->seats[forfeit - 1].b), e))
        record_forfeit(g, forfeit, bot_reason(g->seats[forfeit - 1].b));
    changed(sv, g);
    char *answer = created_answer(g);
    pthread_mutex_unlock(&g->lock);
    return answer;
}

char *serve_create(serve_server *sv, const char *body, size_t len, serve_error *e) {
    json_error_t jerr;
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!o || !json_is_object(o)) {
        if (o) serve_error_set(e, 400, "the body must be a JSON object");
        else serve_error_set(e, 400, "malformed JSON: %s", jerr.text);
        json_decref(o);
        return NULL;
    }
    char *answer = reserve_slot(sv, e) ? create_game(sv, o, e) : NULL;
    json_decref(o);
    return answer;
}

char *serve_act(serve_server *sv, serve_game *g, const char *body, size_t len, serve_error *e) {
    json_error_t jerr;
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    const char *token = json_string_value(json_object_get(o, "token"));
    const char *action = json_string_value(json_object_get(o, "action"));
    char *doc = NULL;
    if (!o) serve_error_set(e, 400, "malformed JSON: %s", jerr.text);
    else if (!json_is_object(o)) serve_error_set(e, 400, "the body must be a JSON object");
    else if (json_object_get(o, "token") && !token) serve_error_set(e, 400, "\"token\" must be a seat's token (text)");
    else if (!token) serve_error_set(e, 403, "a seat's \"token\" is needed to act");
    else if (!action) serve_error_set(e, 400, "\"action\" must be the action's text");
    if (!o || !token || !action) return json_decref(o), NULL;
    pthread_mutex_lock(&g->lock);
    int seat = serve_token_seat(g, token);
    if (seat <= 0) serve_error_set(e, 403, "wrong token for this game");
    else if (play_locked(sv, g, seat, action, true, e)) doc = serve_document(g, seat);
    pthread_mutex_unlock(&g->lock);
    json_decref(o);
    return doc;
}

/* ==================================================================================== lists */

char *serve_list(serve_server *sv) {
    pthread_mutex_lock(&sv->lock);
    long long n = sv->ngames;
    serve_game **copy = malloc(sizeof *copy * (size_t)(n ? n : 1));
    if (copy) memcpy(copy, sv->games, sizeof *copy * (size_t)n);
    pthread_mutex_unlock(&sv->lock);
    if (!copy) return NULL;
    json_t *games = json_array();
    for (long long i = n - 1; i >= 0; i--) {
        serve_game *g = copy[i];
        pthread_mutex_lock(&g->lock);
        int p = to_move(g);
        json_array_append_new(games, json_pack("{s:s, s:s, s:i, s:s, s:o, s:o, s:b, s:I, s:I}", "id", g->id, "game",
                                               g->def ? g->def->name : g->game_name, "players", g->players,
                                               "variant", g->variant, "seats", seats_json(g, false), "to_move",
                                               p ? json_integer(p) : json_null(), "over", g->def && game_over(g), "decisions", (json_int_t)decisions(g), "created",
                                               (json_int_t)g->created));
        pthread_mutex_unlock(&g->lock);
    }
    free(copy);
    json_t *o = json_pack("{s:o}", "games", games);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* The names NAME of ROOT/folder/NAME.lua in every root, once each, sorted. */
static json_t *names_in(const char *folder) {
    char roots[MEEPLE_MAX_ROOTS][MEEPLE_PATH_LEN], path[MEEPLE_PATH_LEN + 128];
    int nroots = meeple_roots(roots, MEEPLE_MAX_ROOTS);
    json_t *names = json_array();
    for (int r = 0; r < nroots; r++) {
        snprintf(path, sizeof path, "%.1000s/%.100s", roots[r], folder);
        DIR *d = opendir(path);
        for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
            size_t len = strlen(de->d_name);
            if (len < 5 || strcmp(de->d_name + len - 4, ".lua") != 0 || de->d_name[0] == '.') continue;
            json_t *name = json_stringn(de->d_name, len - 4);
            bool seen = false;
            for (size_t i = 0; i < json_array_size(names); i++) seen |= json_equal(json_array_get(names, i), name);
            if (!seen && name) json_array_append(names, name);
            json_decref(name);
        }
        if (d) closedir(d);
    }
    /* sorted, by insertion: the lists are short */
    for (size_t i = 1; i < json_array_size(names); i++)
        for (size_t j = i; j > 0 && strcmp(json_string_value(json_array_get(names, j - 1)),
                                           json_string_value(json_array_get(names, j))) > 0; j--) {
            json_t *a = json_incref(json_array_get(names, j - 1));
            json_array_set(names, j - 1, json_array_get(names, j));
            json_array_set_new(names, j, a);
        }
    return names;
}

/* A bot whose name ends in another game's name (greedy_babel) suits that game alone; others suit all. */
static bool bot_suits(const char *bot, const game_def *def) {
    size_t len = strlen(bot);
    for (int i = 0; i < meeple_game_count; i++) {
        const char *name = meeple_games[i]->name;
        size_t n = strlen(name);
        if (len > n && bot[len - n - 1] == '_' && strcmp(bot + len - n, name) == 0) return meeple_games[i] == def;
    }
    return true;
}

char *serve_catalog(serve_server *sv) {
    (void)sv;
    json_t *bots = names_in("bots"), *games = json_array();
    for (int i = 0; i < meeple_game_count; i++) {
        const game_def *def = meeple_games[i];
        char folder[96];
        snprintf(folder, sizeof folder, "scripts/variants/%s", def->name);
        json_t *suits = json_array();
        for (size_t b = 0; b < json_array_size(bots); b++)
            if (bot_suits(json_string_value(json_array_get(bots, b)), def))
                json_array_append(suits, json_array_get(bots, b));
        json_array_append_new(games, json_pack("{s:s, s:i, s:i, s:o, s:o}", "name", def->name, "min_players",
                                               def->min_players, "max_players", def->max_players, "variants",
                                               names_in(folder), "bots", suits));
    }
    json_t *o = json_pack("{s:o, s:o}", "games", games, "bots", bots);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* ==================================================================================== resume */

typedef struct resume_ctx {
    serve_server *sv;
    serve_game *g;
    bool skip;                       /* g is broken: its remaining events are not replayed */
} resume_ctx;

/* A stored game that cannot be made again: held read-only, a document that says why and no more. */
static serve_game *broken_placeholder(const char *id, const char *game, long long created, const char *why) {
    serve_game *g = game_alloc();
    if (!g) return NULL;
    memcpy(g->id, id, SERVE_ID_LEN + 1);
    snprintf(g->game_name, sizeof g->game_name, "%s", game);
    g->created = created;
    g->broken = true;
    snprintf(g->broken_reason, sizeof g->broken_reason, "%s", why);
    json_t *d = json_pack("{s:s, s:s, s:i, s:s, s:[], s:i, s:n, s:b, s:b, s:{}, s:[], s:s}", "id", g->id, "game",
                          g->game_name, "players", 0, "variant", "", "seats", "decisions", 0, "to_move", "your_turn",
                          false, "over", false, "view", "history", "broken", g->broken_reason);
    g->docs[0].text = d ? json_dumps(d, JSON_COMPACT) : NULL;
    json_decref(d);
    if (!g->docs[0].text) return game_free(g), NULL;
    return g;
}

/* One line on stderr for a stored game kept read-only. */
static void log_broken(const char *id, const char *why) {
    fprintf(stderr, "meeple serve: game %s is kept read-only: %s\n", id, why);
}

/* A stored game's seats: one object a seat, kind and name, and a human's token of 64 hex digits. */
static bool stored_seats(serve_server *sv, serve_game *g, const char *text, bool with_bots, serve_error *e) {
    json_t *a = json_loads(text, 0, NULL);
    const char *names[MEEPLE_MAX_PLAYERS];
    bool ok = json_is_array(a) && json_array_size(a) == (size_t)g->players;
    for (int p = 0; ok && p < g->players; p++) {
        json_t *s = json_array_get(a, (size_t)p);
        const char *kind = json_string_value(json_object_get(s, "kind"));
        names[p] = json_string_value(json_object_get(s, "name"));
        ok = kind && names[p] && (strcmp(kind, "human") == 0) == (strcmp(names[p], "human") == 0);
        const char *token = json_string_value(json_object_get(s, "token"));
        if (ok && strcmp(kind, "human") == 0) {
            ok = token && strlen(token) == SERVE_TOKEN_LEN && strspn(token, "0123456789abcdef") == SERVE_TOKEN_LEN;
            if (ok) memcpy(g->seats[p].token, token, SERVE_TOKEN_LEN + 1);
        }
    }
    if (!ok) serve_error_set(e, 400, "its seats are not a list of %d seats with their tokens", g->players);
    else ok = seats_from(sv, g, names, with_bots, e);
    json_decref(a);
    return ok;
}

static bool on_game(void *ud, const char *id, const char *game, long long players, long long seed,
                    const char *variant, const char *params, const char *seats, long long created, bool finished,
                    char *err, size_t n) {
    resume_ctx *rc = ud;
    serve_error e = {0};
    (void)err, (void)n;
    rc->g = NULL, rc->skip = true;
    if (strlen(id) != SERVE_ID_LEN || strspn(id, "0123456789abcdef") != SERVE_ID_LEN) {
        fprintf(stderr, "meeple serve: a stored game's id is not 16 hex digits: the game is left out\n");
        return false;
    }
    serve_game *g = rc->g = game_alloc();
    if (!g) return log_broken(id, "out of memory"), false;
    memcpy(g->id, id, SERVE_ID_LEN + 1);
    g->created = created;
    char why[SERVE_REASON_LEN];
    bool ok = game_fields(g, game, players, seed, variant, params, &e) && stored_seats(rc->sv, g, seats, !finished, &e) &&
              (set_meta(g, why, sizeof why) || serve_error_set(&e, 500, "%s", why));
    /* A finished game's bots are not begun: its actions replay with the rules alone (its document needs
     * nothing of them). A bot that cannot begin forfeited when the game was made: its event says so. */
    int forfeit = ok && !finished ? bots_begin(rc->sv, g, &e) : 0;
    if (ok && forfeit >= 0 && add_game(rc->sv, g, false, &e)) return rc->skip = false, true;
    char line[SERVE_REASON_LEN];
    snprintf(line, sizeof line, "it cannot be made again: %.260s", e.why[0] ? e.why : "the stored game is refused");
    log_broken(id, line);
    game_free(g);
    rc->g = broken_placeholder(id, game, created, line);
    if (rc->g && !add_game(rc->sv, rc->g, false, &e)) game_free(rc->g);
    rc->g = NULL;
    return false;
}

static bool on_event(void *ud, const char *id, long long n, const char *kind, long long seat, const char *text,
                     char *err, size_t errn) {
    resume_ctx *rc = ud;
    serve_game *g = rc->g;
    serve_error e = {0};
    (void)err, (void)errn;
    if (rc->skip || !g) return false;
    bool ok = n == g->events + 1;
    if (!ok) serve_error_set(&e, 400, "events are not numbered 1, 2, ...");
    else if (g->ended || (g->forfeit && strcmp(kind, "end") != 0))
        ok = serve_error_set(&e, 400, "an event after the game's end");
    else if (seat < 0 || seat > g->players) ok = serve_error_set(&e, 400, "no seat %lld", seat);
    else if (strcmp(kind, "action") == 0) {
        if (seat > 0 && g->seats[seat - 1].b && to_move(g) == seat) bot_choose_again(g, (int)seat);
        ok = play_locked(rc->sv, g, (int)seat, text, false, &e);
    }
    else if (strcmp(kind, "forfeit") == 0 && seat > 0) g->events++, record_forfeit(g, (int)seat, text), changed(rc->sv, g);
    else if (strcmp(kind, "end") == 0) {
        const char *mine = game_over(g) && g_call(g, "result_json", 0, 1, NULL, 0) ? lua_tostring(g->L, -1) : NULL;
        ok = mine && strcmp(mine, text) == 0;
        lua_settop(g->L, 1);
        if (!ok) serve_error_set(&e, 400, "its end (%.80s) is not where its actions lead", text);
        else g->events++, g->ended = true;
    } else ok = serve_error_set(&e, 400, "unknown event '%.20s'", kind);
    if (!ok) {
        char why[SERVE_REASON_LEN];
        snprintf(why, sizeof why, "its event %lld does not replay: %.240s", n, e.why);
        log_broken(id, why);
        set_broken(g, why);
        rc->skip = true;
    }
    return ok;
}

bool serve_resume(serve_server *sv, char *err, size_t n) {
    resume_ctx rc = {sv, NULL, false};
    sv->resuming = true;
    bool ok = store_load(sv->store, &rc, on_game, on_event, err, n);
    sv->resuming = false;
    if (!ok) return false;
    /* An end not stored yet (killed between the last action and its end event), and the bots' turns. */
    for (long long i = 0; i < sv->ngames; i++) {
        serve_game *g = sv->games[i];
        pthread_mutex_lock(&g->lock);
        changed(sv, g);
        if (g->L && !g->broken) {
            pthread_mutex_lock(&sv->lock);
            g->counted = true, sv->unfinished++;
            pthread_mutex_unlock(&sv->lock);
        }
        pthread_mutex_unlock(&g->lock);
    }
    return true;
}

void serve_games_free(serve_server *sv) {
    for (long long i = 0; i < sv->ngames; i++) game_free(sv->games[i]);
    free(sv->games);
    sv->games = NULL;
    sv->ngames = 0;
    while (sv->codes) {
        bot_cache *next = sv->codes->next;
        bot_code_free(sv->codes->code);
        free(sv->codes);
        sv->codes = next;
    }
}
