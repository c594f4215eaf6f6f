/* bot_ctx.c — a Lua bot's ctx (API.md "Bots"): its seat, the game, ctx.rng, ctx.sample, ctx.clock,
 * ctx.cards, ctx.history and ctx.budget, made anew for each game.
 *
 * ctx.rng and math.random come from generators derived one-way from the game's seed and the seat;
 * samples are fresh states re-dealt from the seat's view; the history holds what the seat saw of each
 * decision (game_def.public_text), turned into Lua tables only once the bot reads it. */
#include "bots/luabot_parts.h"
#include "host/timing.h"

#include <string.h>

#include <lauxlib.h>

#include "host/playout.h"
#include "lua/lmeeple.h"
#include "sandbox/guards.h"
#include "sandbox/limits.h"
#include <meeple/rng.h>
#include <meeple/session.h>

/* rng(m, n) and rng:random(m, n): math.random's contract, from the seat's own generator. */
static int rng_random(lua_State *L) {
    rng *r = luaL_checkudata(L, 1, "meeple.bot_rng");
    int nargs = lua_gettop(L) - 1;
    if (nargs == 0) {
        lua_pushnumber(L, rng_float(r));
        return 1;
    }
    lua_Integer lo = 1, hi = luaL_checkinteger(L, 2);
    if (nargs >= 2) {
        lo = hi;
        hi = luaL_checkinteger(L, 3);
    }
    int64_t drawn;
    const char *bad = rng_between(r, lo, hi, &drawn);
    luaL_argcheck(L, !bad, nargs >= 2 ? 3 : 2, bad);
    lua_pushinteger(L, drawn);
    return 1;
}

/* rng:pick(list): one element, uniformly (nil from an empty list). */
static int rng_pick(lua_State *L) {
    rng *r = luaL_checkudata(L, 1, "meeple.bot_rng");
    lua_Integer n = luaL_len(L, 2);
    if (n <= 0) return 0;
    luaL_argcheck(L, n < 0xffffffffLL, 2, "list is too long");
    lua_geti(L, 2, 1 + (lua_Integer)rng_below(r, (uint32_t)n));
    return 1;
}

/* rng:shuffle(list): shuffles in place and returns the list. */
static int rng_shuffle(lua_State *L) {
    rng *r = luaL_checkudata(L, 1, "meeple.bot_rng");
    lua_Integer n = luaL_len(L, 2);
    luaL_argcheck(L, n < 0xffffffffLL, 2, "list is too long");
    if (n > 1) limits_price(L, &luabot_of(L)->lim, "ctx.rng:shuffle", (double)n, (double)n * 4 * GUARD_NS_SLOT);
    for (lua_Integer i = n; i > 1; i--) {
        lua_Integer j = 1 + (lua_Integer)rng_below(r, (uint32_t)i);
        lua_geti(L, 2, i);
        lua_geti(L, 2, j);
        lua_seti(L, 2, i);
        lua_seti(L, 2, j);
    }
    lua_settop(L, 2);
    return 1;
}

void luabot_push_rng_type(lua_State *L) {
    luaL_newmetatable(L, "meeple.bot_rng");
    static const luaL_Reg rng_methods[] = {
        {"random", rng_random}, {"pick", rng_pick}, {"shuffle", rng_shuffle}, {NULL, NULL},
    };
    luaL_newlib(L, rng_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, rng_random);
    lua_setfield(L, -2, "__call");
    luabot_lock_metatable(L, -1);
}

/* The seed of the next deal: ctx.sample's and meeple.search's, from one generator, so a search in C
 * and the Lua reference over ctx.sample() deal alike. */
static uint64_t next_sample_seed(luabot *b) {
    return ((uint64_t)rng_next(&b->sample_rng) << 31) ^ rng_next(&b->sample_rng);
}

/* meeple.search's deals with ctx: ctx.sample()'s, straight into the search's state. */
static bool search_deal(void *ud, void *st) {
    luabot *b = ud;
    if (!b->st) return false;
    memcpy(st, b->st, b->def->state_size);
    state_sample(b->def, st, b->seat, next_sample_seed(b));
    return true;
}

/* ctx.sample(): the true state with everything the seat cannot see re-dealt, as a fresh state.
 * Upvalues: the state method `sample` and this game's template state, which holds a copy of the
 * true state only while the method runs. */
static int ctx_sample(lua_State *L) {
    luabot *b = luabot_of(L);
    if (!b->st) return luaL_error(L, "ctx.sample: only during init or choose");
    session *t = meeple_to_session(L, lua_upvalueindex(2));
    memcpy(t->now, b->st, b->def->state_size);
    memcpy(t->start, b->st, b->def->state_size);
    t->history_len = 0;
    lua_settop(L, 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushinteger(L, b->seat + 1);
    lua_pushinteger(L, (lua_Integer)next_sample_seed(b));
    int status = lua_pcall(L, 3, 1, 0);
    /* The template's copy of the true state is wiped at once, whatever happened. */
    memset(t->now, 0, b->def->state_size);
    memset(t->start, 0, b->def->state_size);
    if (status != LUA_OK) return lua_error(L);
    return 1;
}

/* ctx.clock(): milliseconds since this call (choose or init) began. */
static int ctx_clock(lua_State *L) {
    lua_pushnumber(L, timing_now_ms() - luabot_of(L)->lim.start);
    return 1;
}

/* Appends the decisions seen and not yet given to the table on top of the stack. */
static void give_seen(lua_State *L, luabot *b) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (int i = 0; i < b->seen_n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, b->seen[i].player + 1);
        lua_setfield(L, -2, "player");
        lua_pushstring(L, b->seen[i].text);
        lua_setfield(L, -2, "action");
        lua_rawseti(L, -2, n + 1 + i);
    }
    b->seen_n = 0;
}

/* ctx's __index: ctx.history, made on first reading from the decisions seen so far, then kept in ctx
 * (luabot_append_history adds to it before each choose). */
static int history_index(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE); /* the metatable is locked, but a bot calls what it can reach */
    if (lua_type(L, 2) != LUA_TSTRING || strcmp(lua_tostring(L, 2), "history") != 0) return 0;
    lua_newtable(L);
    give_seen(L, luabot_of(L));
    lua_pushliteral(L, "history");
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

int luabot_begin_game(lua_State *L) {
    enum { RNG_MT = 1, SAMPLE, SEEDER, TEMPLATE };
    luabot *b = luabot_of(L);
    const void *st = b->st;
    int players = b->def->num_players(st);
    /* A state of this game for ctx.sample to copy the true one into (and wipe after). */
    reason why = {{0}};
    session *t = session_new(b->def, players, b->params, 1, &why);
    if (!t) return luaL_error(L, "cannot make a state for samples: %s", why.text);
    meeple_push_state(L, t); /* TEMPLATE */
    b->search = (meeple_search_host){t, b->seat, search_deal, b, LUABOT_PLAYOUT_STEPS};
    meeple_set_search_host(L, &b->search);
    /* ctx */
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, b->seat + 1);
    lua_setfield(L, -2, "seat");
    lua_pushstring(L, b->def->name);
    lua_setfield(L, -2, "game");
    lua_pushinteger(L, players);
    lua_setfield(L, -2, "players");
    rng *r = lua_newuserdatauv(L, sizeof *r, 0);
    *r = b->ctx_rng;
    lua_pushvalue(L, RNG_MT);
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "rng");
    lua_pushvalue(L, SAMPLE);
    lua_pushvalue(L, TEMPLATE);
    lua_pushcclosure(L, ctx_sample, 2);
    lua_setfield(L, -2, "sample");
    lua_pushcfunction(L, ctx_clock);
    lua_setfield(L, -2, "clock");
    meeple_push_cards(L, b->def, st); /* public: the deck's make-up and the cards' data */
    lua_setfield(L, -2, "cards");
    /* ctx.history is made when first read (history_index): a bot that never reads it pays for no
     * Lua tables, only the texts bot_saw keeps. */
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, history_index);
    lua_setfield(L, -2, "__index");
    luabot_lock_metatable(L, -1);
    lua_setmetatable(L, -2);
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, b->lim.ms);
    lua_setfield(L, -2, "ms");
    lua_pushinteger(L, b->lim.instructions);
    lua_setfield(L, -2, "instructions");
    lua_pushinteger(L, (lua_Integer)b->lim.memory);
    lua_setfield(L, -2, "memory");
    lua_setfield(L, -2, "budget");
    /* math.random, from the host's seed. */
    uint64_t seed = rng_next(&b->sample_rng) | (uint64_t)rng_next(&b->sample_rng) << 32;
    lua_pushvalue(L, SEEDER);
    lua_pushinteger(L, (lua_Integer)(seed >> 1));
    lua_call(L, 1, 0);
    return 2;
}

/* Once the bot has read ctx.history (and unless it replaced it). */
void luabot_append_history(lua_State *L, luabot *b, int ctx) {
    lua_pushliteral(L, "history");
    if (lua_rawget(L, ctx) == LUA_TTABLE) give_seen(L, b);
    lua_pop(L, 1);
}
