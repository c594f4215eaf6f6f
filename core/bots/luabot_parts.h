/* luabot_parts.h — inside a Lua bot: what luabot.c (the bot's lua_State and its calls), bot_env.c (the
 * sandbox's builtins) and bot_ctx.c (ctx) share. The rest of the host sees luabot.h (or bot.h). */
#ifndef MEEPLE_LUABOT_PARTS_H
#define MEEPLE_LUABOT_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "bots/bot_ops.h"
#include "lua/lmeeple.h"
#include "sandbox/limits.h"
#include <meeple/game.h>
#include <meeple/rng.h>

/* The main thread's stack holds, at fixed places, after luabot_new: */
enum {
    LUABOT_SLOT_TABLE = 1,  /* what the bot file returned */
    LUABOT_SLOT_CHOOSE,     /* its choose */
    LUABOT_SLOT_INIT,       /* its init, or nil */
    LUABOT_SLOT_CTX,        /* this game's ctx, or nil */
    LUABOT_SLOT_VIEW_MT,    /* the metatable of unread views */
    LUABOT_SLOT_RNG_MT,     /* the metatable of ctx.rng */
    LUABOT_SLOT_SAMPLE,     /* the state method `sample` */
    LUABOT_SLOT_SEEDER,     /* the original math.randomseed */
    LUABOT_SLOT_TEMPLATE,   /* a state of this game, copied from the true one for each ctx.sample */
    LUABOT_SLOTS = LUABOT_SLOT_TEMPLATE
};

/* The instructions a playout's decision is charged (s:playout, meeple.search): about what a C
 * decision costs in Lua instructions' time. */
#define LUABOT_PLAYOUT_STEPS 100

/* Which call is running, for the reason's wording. */
typedef enum { LUABOT_CALL_LOAD, LUABOT_CALL_INIT, LUABOT_CALL_CHOOSE } luabot_call;

typedef struct luabot luabot; /* as luabot.h has it */
struct luabot {
    lua_State *L;
    const bot_code *code;
    const game_def *def;
    param_value params[MEEPLE_MAX_PARAMS];
    bool echo;
    int seat;

    /* The limits engine: the budget (ctx.budget shows it), the call's count and clock, the memory
     * held (the heap and the game states), and the fault with its reason. */
    limits lim;
    int close_depth;         /* coroutine closes running inside each other */

    const void *st;          /* the true state during a call, for ctx.sample; NULL between calls */
    const action_t *acts;    /* the legal actions during choose, or NULL when given as texts */
    const char (*given)[MEEPLE_ACTION_TEXT];  /* the legal actions' texts, when given so */
    int n;
    rng ctx_rng, sample_rng;
    /* The decisions seen (bot_saw) and not yet in ctx.history: given to it inside a limited call (when
     * the bot first reads it, then before each choose), so the bot's memory limit covers them. */
    struct luabot_seen { int player; char text[MEEPLE_PUBLIC_TEXT]; } *seen;
    int seen_n, seen_cap;
    uint32_t keys[MEEPLE_MAX_ACTIONS]; /* the legal actions' text keys (action_texts.h) */
    meeple_search_host search; /* meeple.search with ctx deals as ctx.sample does (bot_ctx.c) */
};

/* The Lua bot of the state L (its extra space holds it). */
static inline luabot *luabot_of(lua_State *L) { return *(luabot **)lua_getextraspace(L); }

/* Locks a metatable (getmetatable answers false; setmetatable is refused). */
static inline void luabot_lock_metatable(lua_State *L, int idx) {
    lua_pushboolean(L, 0);
    lua_setfield(L, idx < 0 ? idx - 1 : idx, "__metatable");
}

/* bot_env.c. Under lua_pcall: opens the allowed libraries, cuts the globals to the allow list, adds the
 * sandbox's functions, and returns the values of LUABOT_SLOT_VIEW_MT .. LUABOT_SLOT_TEMPLATE. */
int luabot_setup(lua_State *L);

/* bot_ctx.c. Pushes the metatable of ctx.rng. */
void luabot_push_rng_type(lua_State *L);
/* Under lua_pcall with the rng metatable, the `sample` method and math.randomseed: seeds math.random,
 * returns this game's template state and ctx. */
int luabot_begin_game(lua_State *L);
/* Brings ctx.history (ctx at `ctx`) up to date before a choose, once the bot has read it. */
void luabot_append_history(lua_State *L, luabot *b, int ctx);

#endif
