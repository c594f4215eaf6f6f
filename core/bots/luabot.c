/* luabot.c — a Lua bot (luabot.h, behind bot.h's runtime): one sandboxed lua_State per bot, its calls
 * under the limits engine, and its decisions.
 *
 * The sandbox, from the outside in:
 *   - lua_newstate with the engine's allocator (limits.h): it refuses growth past the cap (frees and
 *     shrinks always work) and counts the game states the bot holds through meeple_set_charge;
 *   - the engine's count hook, installed before any bot code exists and never removed (coroutines copy
 *     it when they are made); once a limit trips it re-arms itself to every instruction and raises, so
 *     no pcall in the bot can swallow the trip;
 *   - the whitelisted environment and the sandbox's builtins (bot_env.c), and ctx (bot_ctx.c).
 * The bot sees only plain data: the view (lazy_view.h: each table filled the first time it is read),
 * the legal strings, and ctx. Samples are fresh states re-dealt from the bot's view. */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "bots/luabot.h"
#include "host/timing.h"
#include "bots/luabot_parts.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/action_texts.h"
#include "lua/lazy_view.h"
#include "lua/lmeeple.h"

/* ---- Faults ---- */

static void set_fault(luabot *b, bot_fault f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records why the bot is done; the first reason stands. A broken limit says where it broke. */
static void set_fault(luabot *b, bot_fault f, const char *fmt, ...) {
    if (b->lim.fault) return;
    char text[LIMITS_REASON];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    bool limit = f != BOT_ANSWER && f != BOT_ERROR;
    limits_fail(&b->lim, f, "%s%s", text, limit ? b->lim.where : "");
}

/* How a bot's broken limits read (the engine adds where: " while loading", " in init"). */
static int bot_words(const limits *lim, limits_kind kind, char *out, size_t n) {
    switch (kind) {
    case LIMITS_STOPPED:
        snprintf(out, n, "was stopped: the match was interrupted");
        return BOT_TIME;
    case LIMITS_MEMORY:
        snprintf(out, n, "exceeded the memory cap (%zu MiB)", lim->memory >> 20);
        return BOT_MEMORY;
    case LIMITS_INSTRUCTIONS:
        snprintf(out, n, "exceeded the instruction budget (%lld per decision)", lim->instructions);
        return BOT_INSTRUCTIONS;
    case LIMITS_TIME:
        break;
    }
    snprintf(out, n, "exceeded the time limit (%.0f ms per decision)", lim->ms);
    return BOT_TIME;
}

static void set_call(luabot *b, luabot_call kind) {
    static const char *const where[] = {" while loading", " in init", ""};
    b->lim.where = where[kind];
}

/* Runs the function below `nargs` arguments under the limits: true, or false when the bot is done. */
static bool limited_call(luabot *b, luabot_call kind, int nargs, int nresults) {
    lua_State *L = b->L;
    set_call(b, kind);
    b->close_depth = 0;
    limits_begin_call(&b->lim);
    int status = lua_pcall(L, nargs, nresults, 0);
    limits_end_call(&b->lim);
    if (status != LUA_OK && !b->lim.fault) {
        if (status == LUA_ERRMEM) {
            b->lim.refused = true;
            limits_check(&b->lim);
        } else {
            const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            static const char *const what[] = {"error while loading", "error in init", "error"};
            if (msg)
                set_fault(b, BOT_ERROR, "%s: %.*s", what[kind], (int)strcspn(msg, "\n"), msg);
            else
                set_fault(b, BOT_ERROR, "%s: (an error object that is a %s)", what[kind],
                          luaL_typename(L, -1));
        }
    }
    if (status != LUA_OK) lua_pop(L, 1);
    else if (b->lim.fault && nresults > 0) lua_pop(L, nresults);
    return !b->lim.fault;
}

/* ---- A new bot ---- */

/* The file's table, its choose and init in their slots. */
static void take_table(luabot *b) {
    lua_State *L = b->L;
    lua_replace(L, LUABOT_SLOT_TABLE);
    if (lua_type(L, LUABOT_SLOT_TABLE) != LUA_TTABLE) {
        set_fault(b, BOT_ERROR, "the file must return a table with a choose function, not a %s",
                  luaL_typename(L, LUABOT_SLOT_TABLE));
        return;
    }
    lua_pushliteral(L, "choose");
    lua_rawget(L, LUABOT_SLOT_TABLE);
    lua_replace(L, LUABOT_SLOT_CHOOSE);
    if (lua_type(L, LUABOT_SLOT_CHOOSE) != LUA_TFUNCTION) {
        set_fault(b, BOT_ERROR, "the file's table has no choose function");
        return;
    }
    lua_pushliteral(L, "init");
    lua_rawget(L, LUABOT_SLOT_TABLE);
    lua_replace(L, LUABOT_SLOT_INIT);
    if (!lua_isnil(L, LUABOT_SLOT_INIT) && lua_type(L, LUABOT_SLOT_INIT) != LUA_TFUNCTION)
        set_fault(b, BOT_ERROR, "the file's init is a %s, not a function", luaL_typename(L, LUABOT_SLOT_INIT));
}

luabot *luabot_new(const bot_code *code, const game_def *def, const param_value *params, const bot_limits *budget,
                   bool echo) {
    luabot *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->code = code;
    b->def = def;
    memcpy(b->params, params, sizeof *params * (size_t)def->num_params); /* the rest stays zero */
    b->echo = echo;
    limits_init(&b->lim, budget->instructions, budget->ms, budget->memory, bot_words);
    b->lim.stoppable = true;
    lua_State *L = b->L = lua_newstate(limits_alloc, &b->lim);
    if (!L) {
        free(b);
        return NULL;
    }
    *(luabot **)lua_getextraspace(L) = b;
    /* Views and legal lists die young: generational collection leaves the long-lived rest alone. */
    lua_gc(L, LUA_GCGEN, 0, 0);
    lua_sethook(L, limits_hook, LUA_MASKCOUNT, LIMITS_HOOK_STEP); /* before any bot code: never removed */
    meeple_set_charge(L, limits_charge, &b->lim);
    /* The bot's file: LUABOT_SLOT_TABLE; then the places after it are filled. */
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushcfunction(L, luabot_setup);
    set_call(b, LUABOT_CALL_LOAD);
    b->lim.start = timing_now_ms();
    b->lim.deadline = b->lim.start + b->lim.ms;
    if (lua_pcall(L, 0, LUABOT_SLOTS - LUABOT_SLOT_VIEW_MT + 1, 0) != LUA_OK) {
        if (!b->lim.fault) set_fault(b, BOT_ERROR, "the sandbox could not be set up: %s", lua_tostring(L, -1));
        lua_settop(L, LUABOT_SLOTS);
        return b;
    }
    char chunkname[1100];
    snprintf(chunkname, sizeof chunkname, "@%s", code->path);
    int status = luaL_loadbufferx(L, code->text, code->len, chunkname, "t");
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        set_fault(b, status == LUA_ERRMEM ? BOT_MEMORY : BOT_ERROR, "cannot load: %s", msg ? msg : "?");
        lua_pop(L, 1);
        return b;
    }
    if (limited_call(b, LUABOT_CALL_LOAD, 0, 1)) take_table(b);
    return b;
}

const char *luabot_table_name(luabot *b, size_t *len) {
    lua_pushliteral(b->L, "name");
    if (lua_rawget(b->L, LUABOT_SLOT_TABLE) == LUA_TSTRING) return lua_tolstring(b->L, -1, len);
    lua_pop(b->L, 1);
    return NULL;
}

/* ---- A game ---- */

static bool lb_begin(void *self, const void *st, int seat, uint64_t seed) {
    luabot *b = self;
    b->seat = seat;
    b->seen_n = 0;
    if (b->lim.fault) return false;
    lua_State *L = b->L;
    b->st = st;
    /* Derived one-way: a bot can rebuild its generators from what they give it, and must learn
     * neither the game's seed (the deal) nor another seat's generators from them. */
    rng_seed(&b->ctx_rng, rng_derive(seed, (uint64_t)seat * 2 + 1), 0xc7);
    rng_seed(&b->sample_rng, rng_derive(seed, (uint64_t)seat * 2 + 2), 0x5a);
    lua_pushcfunction(L, luabot_begin_game);
    lua_pushvalue(L, LUABOT_SLOT_RNG_MT);
    lua_pushvalue(L, LUABOT_SLOT_SAMPLE);
    lua_pushvalue(L, LUABOT_SLOT_SEEDER);
    bool ok = limited_call(b, LUABOT_CALL_INIT, 3, 2);
    if (ok) {
        lua_replace(L, LUABOT_SLOT_CTX);
        lua_replace(L, LUABOT_SLOT_TEMPLATE);
    }
    if (ok && !lua_isnil(L, LUABOT_SLOT_INIT)) {
        lua_pushvalue(L, LUABOT_SLOT_INIT);
        lua_pushstring(L, b->def->name);
        lua_pushinteger(L, seat + 1);
        lua_pushvalue(L, LUABOT_SLOT_CTX);
        ok = limited_call(b, LUABOT_CALL_INIT, 3, 0);
    }
    b->st = NULL;
    return ok;
}

/* ---- Decisions ---- */

/* Under lua_pcall with choose, the view metatable and ctx: the view (lazy_view.h: tables that fill
 * themselves when first read), the legal strings, and the call. */
static int decide(lua_State *L) {
    enum { CHOOSE = 1, VIEW_MT, CTX };
    luabot *b = luabot_of(L);
    const game_def *def = b->def;
    luabot_append_history(L, b, CTX);
    lua_pushvalue(L, CHOOSE);
    lazy_view_push(L, def, b->st, b->seat, VIEW_MT);
    if (b->acts) {
        action_texts_push(L, def, b->st, b->acts, b->n, b->keys);
    } else {
        lua_createtable(L, b->n, 0);
        for (int i = 0; i < b->n; i++) {
            lua_pushstring(L, b->given[i]);
            lua_rawseti(L, -2, i + 1);
        }
    }
    lua_pushvalue(L, CTX);
    lua_call(L, 3, 1);
    return 1;
}

/* Calls choose; the answer (on success) is left on the stack, and the decision's position stays
 * known for answer() until the decision is over. */
static bool run_decision(luabot *b, const bot_decision *d) {
    if (b->lim.fault) return false;
    if (lua_isnil(b->L, LUABOT_SLOT_CTX)) {
        set_fault(b, BOT_ERROR, "error: asked to choose before a game began (bot_begin)");
        return false;
    }
    b->st = d->st;
    b->acts = d->acts;
    b->given = d->texts;
    b->n = d->n;
    lua_pushcfunction(b->L, decide);
    lua_pushvalue(b->L, LUABOT_SLOT_CHOOSE);
    lua_pushvalue(b->L, LUABOT_SLOT_VIEW_MT);
    lua_pushvalue(b->L, LUABOT_SLOT_CTX);
    return limited_call(b, LUABOT_CALL_CHOOSE, 3, 1);
}

/* The index of the bot's answer (on top of the stack) among the legal actions: by their text keys
 * when the host gave them as actions, else by their texts; -1 (the fault set) when it is none. */
static int answer(luabot *b, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
    lua_State *L = b->L;
    int k = -1;
    size_t len = 0;
    const char *chosen = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (chosen && b->acts) k = action_texts_find(L, -1, b->def, b->st, b->acts, b->keys, n);
    for (int i = 0; chosen && !b->acts && i < n && k < 0; i++)
        if (strlen(texts[i]) == len && memcmp(chosen, texts[i], len) == 0) k = i;
    if (k < 0 && chosen) {
        char text[64];
        size_t keep = len < 48 ? len : 48;
        for (size_t i = 0; i < keep; i++) text[i] = (unsigned char)chosen[i] < 0x20 ? '?' : chosen[i];
        snprintf(text + keep, sizeof text - keep, "%s", len > keep ? "..." : "");
        set_fault(b, BOT_ANSWER, "chose '%s', which is not a legal action", text);
    } else if (k < 0) {
        set_fault(b, BOT_ANSWER, "returned %s instead of an action", lua_isnil(L, -1) ? "nothing" :
                  luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return k;
}

static int lb_decide(void *self, const bot_decision *d) {
    luabot *b = self;
    int k = -1;
    if (run_decision(b, d)) {
        if (d->probe) lua_pop(b->L, 1);
        k = d->probe ? 0 : answer(b, d->texts, d->n);
    }
    /* The decision's position is the caller's: the bot must not keep it past the decision. */
    b->st = NULL;
    b->acts = NULL;
    b->given = NULL;
    return k;
}

/* The next entry of the seen list, or NULL when out of memory (that entry is lost, nothing else). */
static struct luabot_seen *next_seen(luabot *b) {
    if (b->seen_n == b->seen_cap) {
        int cap = b->seen_cap ? b->seen_cap * 2 : 64;
        struct luabot_seen *grown = realloc(b->seen, sizeof *grown * (size_t)cap);
        if (!grown) return NULL;
        b->seen = grown;
        b->seen_cap = cap;
    }
    return &b->seen[b->seen_n];
}

/* Kept as a text until a limited call turns it into ctx.history's entry. */
static void lb_saw(void *self, int player, const char *text) {
    luabot *b = self;
    struct luabot_seen *e = b->lim.fault ? NULL : next_seen(b);
    if (!e) return;
    e->player = player;
    size_t len = strnlen(text, MEEPLE_PUBLIC_TEXT - 1);
    memcpy(e->text, text, len);
    e->text[len] = '\0';
    b->seen_n++;
}

/* Nothing to tell a Lua bot: its state lives on to the next game. */
static void lb_end(void *self, const int *scores, const int *winners, int nwinners) {
    (void)self, (void)scores, (void)winners, (void)nwinners;
}

static bot_fault lb_fault(const void *self) { return (bot_fault)((const luabot *)self)->lim.fault; }
static const char *lb_reason(const void *self) { return ((const luabot *)self)->lim.reason; }

static size_t lb_memory(const void *self, size_t *peak) {
    const luabot *b = self;
    if (peak) *peak = b->lim.peak;
    return b->lim.used;
}

static void lb_free(void *self) {
    luabot *b = self;
    if (!b) return;
    if (b->L) lua_close(b->L);
    free(b->seen);
    free(b);
}

const bot_ops luabot_ops = {
    .begin = lb_begin, .decide = lb_decide, .saw = lb_saw, .end = lb_end,
    .fault = lb_fault, .reason = lb_reason, .memory = lb_memory, .free = lb_free,
};
