/* lmeeple.h — the Lua bindings: the `meeple` module, the state userdata, and Lua-side tree readers and
 * writers, all generic over game_def and session (no game is named here). */
#ifndef MEEPLE_LMEEPLE_H
#define MEEPLE_LMEEPLE_H

#include <stdint.h>

#include <lua.h>

#include "rules/rules.h" /* reason: the bindings and the bots over them refuse with one */
#include <meeple/session.h>

/* Pushes the module table (games, new, from_table, load) and registers the state metatable. */
int meeple_open(lua_State *L);

/* Pops a function and makes it this lua_State's renderer behind tostring(state), in place of the
 * compiled-in scripts/render.lua (the shell reads render.lua from disk when it can). */
void meeple_set_renderer(lua_State *L);

/* Pushes `s` as a "meeple.state" userdata; the userdata owns it from now on (freed by __gc). */
void meeple_push_state(lua_State *L, session *s);
/* The session behind the state at stack index `idx`, or NULL when it is not one. */
session *meeple_to_session(lua_State *L, int idx);
/* luaL_testudata by address: the full userdata at `idx` if its metatable is the registry's value at
 * light-userdata key `mt_key`, else NULL. No name is hashed: the hot paths (a state method per search
 * node, every view table filled) ask it. */
void *meeple_test_udata(lua_State *L, int idx, const void *mt_key);
/* (A state under a variant is a Lua table over a plain state: this gives that plain state's session,
 * whose rules are the base rules; its legal actions are the variant's `legal()`.) */

/* Pushes the state table of `st` as `viewer` (-1: everything; a 0-based seat: what that seat sees). */
void meeple_push_table(lua_State *L, const game_def *def, const void *st, int viewer);
/* The game's card catalogue as this state plays it (def->write_cards; empty when it has none). */
void meeple_push_cards(lua_State *L, const game_def *def, const void *st);
/* Writes the state table's fields into the existing table at `idx` (a bot's view, read lazily). */
void meeple_fill_table(lua_State *L, int idx, const game_def *def, const void *st, int viewer);
/* Pushes the legal actions of `st` as an array of canonical strings. */
void meeple_push_legal(lua_State *L, const game_def *def, const void *st);

/* Memory a lua_State's states hold outside its heap (a session is malloc'd), for a sandbox that caps
 * memory: once set, `fn` is told of each state's bytes when it is pushed (+) and collected (-). It may
 * raise an error when a state is pushed; the state is then collected as usual. */
typedef void (*meeple_charge_fn)(lua_State *L, void *ud, long long bytes);
void meeple_set_charge(lua_State *L, meeple_charge_fn fn, void *ud);


/* ---- meeple.search (lsearch.c): information-set MCTS in C (host/search.h) ---- */
int meeple_search(lua_State *L);

/* What a bot's runtime lends the search when a bot passes its ctx: deals consistent with the seat's
 * view, drawn exactly as ctx.sample() draws them (the same generator), so the search never sees the
 * true state. Registered per lua_State (NULL: none); the bots layer keeps it alive. */
typedef struct meeple_search_host {
    const session *like; /* a state of the game being played, with its parameters (not the true one) */
    int seat;            /* 0-based: whose information every deal keeps */
    /* A deal into `st` (like->def->state_size bytes); false outside a call (no position to deal from). */
    bool (*deal)(void *ud, void *st);
    void *ud;
    int steps_per_decision; /* instructions a playout's decision is charged, as s:playout is */
} meeple_search_host;
void meeple_set_search_host(lua_State *L, const meeple_search_host *host);

#define MEEPLE_SEARCH_RATES 16384
/* Searches run on this thread since the last take: for `meeple bench --bot` (taking resets them). */
typedef struct meeple_search_totals {
    long long searches, iterations;
    double ms, playout_ms; /* the searches' time, and the part of it spent in playouts' decisions */
    double hook_ms;        /* the part of it spent in the evaluate and prior hooks */
    double cpu_ms;         /* the searches' time on the thread's CPU clock (the load left out) */
    /* Each search's iterations per 100 ms of that CPU time, for a median (the measure: a
     * long, cheap endgame search must not stand for the typical decision); the first
     * MEEPLE_SEARCH_RATES searches since the last take. */
    int rates;
    float rate[MEEPLE_SEARCH_RATES];
} meeple_search_totals;
void meeple_search_totals_take(meeple_search_totals *out);
/* Whether this thread's searches count in the totals from now on (they do until told otherwise):
 * `bench --against` counts its bot's searches, not those of the bots it plays against. */
void meeple_search_totals_count(bool counting);

/* A copy of `s`'s position pushed as a state of its own (history empty): a hook's view of the search. */
session *meeple_push_position(lua_State *L, const session *s);
/* The plain state at `idx` (not one under a variant's table), or NULL. */
session *meeple_to_plain_session(lua_State *L, int idx);
/* 'text', 2.5 or a type name, for messages (pushes a string). */
const char *meeple_describe(lua_State *L, int idx);

/* ---- A tree_reader over a Lua table, for session_from_table and params_read ---- */
typedef struct luatree_reader {
    tree_reader base;
    lua_State *L;
    int top;        /* the stack top before the reader pushed its root, restored by luatree_reader_done */
    tree_path path; /* its depth: values entered and not yet left */
    char unknown[64];
} luatree_reader;

/* Starts reading the table at stack index `idx`; the reader keeps its own values on top of the stack. */
void luatree_reader_init(luatree_reader *lr, lua_State *L, int idx);
/* Pops whatever the reader left on the stack. */
void luatree_reader_done(luatree_reader *lr);

#endif
