/* lmeeple.c — the `meeple` Lua module: states as userdata over a session, generic over every game. */
#include "lua/lmeeple.h"
#include "lua/action_texts.h"
#include "lua/luajson.h"
#include "host/paths.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include <meeple/registry.h>
#include "sandbox/variant_sandbox.h"

#define STATE_MT "meeple.state"

/* scripts/render.lua, compiled in by cmake/embed.cmake so the module works from any directory. */
extern const char meeple_lua_render[];

/* The registry key of the loaded renderer: the address is unique, the value is never read. */
static const char render_key = 'r';

/* =====================================================================================================
 * Writing state tables into Lua
 * ===================================================================================================== */

#define WRITER_DEPTH 32
/* Pre-sized tables: a view is built for every bot decision, and growing each map from empty (rehash
 * after rehash) made it a quarter slower. Most state maps hold 5..15 fields, most lists a few cards. */
#define LIST_HINT 4
#define MAP_HINT 8

typedef struct lua_writer {
    tree_writer base;
    lua_State *L;
    int root;                  /* an existing table the root map is written into, or 0 */
    int depth;                 /* open maps and lists */
    int count[WRITER_DEPTH];   /* items so far in each open list; -1 marks a map */
    bool keyed[WRITER_DEPTH];  /* a map's key is on the stack, waiting for its value */
} lua_writer;

/* The value on top of the stack joins the innermost open container; the root stays on the stack. */
static void lw_place(lua_writer *lw) {
    lua_State *L = lw->L;
    if (lw->depth == 0) return;
    int d = lw->depth - 1;
    if (lw->count[d] >= 0) {
        lua_rawseti(L, -2, ++lw->count[d]);
    } else {
        /* A value without a key would shift the stack under us: a bug in the game's write_table. */
        if (!lw->keyed[d]) luaL_error(L, "write_table: a map value without a key");
        lua_rawset(L, -3);
        lw->keyed[d] = false;
    }
}

static void lw_open(lua_writer *lw, bool list) {
    if (lw->depth == WRITER_DEPTH) luaL_error(lw->L, "write_table: nested deeper than %d", WRITER_DEPTH);
    luaL_checkstack(lw->L, 3, "write_table");
    if (lw->depth == 0 && lw->root) lua_pushvalue(lw->L, lw->root);
    else lua_createtable(lw->L, list ? LIST_HINT : 0, list ? 0 : MAP_HINT);
    lw->count[lw->depth] = list ? 0 : -1;
    lw->keyed[lw->depth] = false;
    lw->depth++;
}

static void lw_open_map(tree_writer *w) { lw_open((lua_writer *)w, false); }
static void lw_open_list(tree_writer *w) { lw_open((lua_writer *)w, true); }

static void lw_close(tree_writer *w) {
    lua_writer *lw = (lua_writer *)w;
    if (lw->depth == 0) luaL_error(lw->L, "write_table: close without open");
    lw->depth--;
    lw_place(lw);
}

static void lw_key(tree_writer *w, const char *key) {
    lua_writer *lw = (lua_writer *)w;
    int d = lw->depth - 1;
    if (d < 0 || lw->count[d] >= 0 || lw->keyed[d])
        luaL_error(lw->L, "write_table: key '%s' outside a map", key);
    luaL_checkstack(lw->L, 2, "write_table");
    lua_pushstring(lw->L, key);
    lw->keyed[d] = true;
}

static void lw_str(tree_writer *w, const char *value) {
    lua_writer *lw = (lua_writer *)w;
    lua_pushstring(lw->L, value);
    lw_place(lw);
}

static void lw_num(tree_writer *w, int64_t value) {
    lua_writer *lw = (lua_writer *)w;
    lua_pushinteger(lw->L, (lua_Integer)value);
    lw_place(lw);
}

static void lw_boolean(tree_writer *w, bool value) {
    lua_writer *lw = (lua_writer *)w;
    lua_pushboolean(lw->L, value);
    lw_place(lw);
}

void meeple_push_table(lua_State *L, const game_def *def, const void *st, int viewer) {
    lua_writer lw = {
        .base = {lw_open_map, lw_open_list, lw_close, lw_key, lw_str, lw_num, lw_boolean},
        .L = L,
    };
    int top = lua_gettop(L);
    def->write_table(st, viewer, &lw.base);
    if (lw.depth != 0 || lua_gettop(L) != top + 1)
        luaL_error(L, "write_table of '%s' left %d containers open", def->name, lw.depth);
}

void meeple_push_cards(lua_State *L, const game_def *def, const void *st) {
    lua_writer lw = {
        .base = {lw_open_map, lw_open_list, lw_close, lw_key, lw_str, lw_num, lw_boolean},
        .L = L,
    };
    int top = lua_gettop(L);
    if (!def->write_cards) {
        lua_newtable(L);
        return;
    }
    def->write_cards(st, &lw.base);
    if (lw.depth != 0 || lua_gettop(L) != top + 1)
        luaL_error(L, "write_cards of '%s' left %d containers open", def->name, lw.depth);
}

void meeple_fill_table(lua_State *L, int idx, const game_def *def, const void *st, int viewer) {
    lua_writer lw = {
        .base = {lw_open_map, lw_open_list, lw_close, lw_key, lw_str, lw_num, lw_boolean},
        .L = L,
        .root = lua_absindex(L, idx),
    };
    int top = lua_gettop(L);
    def->write_table(st, viewer, &lw.base);
    if (lw.depth != 0 || lua_gettop(L) != top + 1)
        luaL_error(L, "write_table of '%s' left %d containers open", def->name, lw.depth);
    lua_pop(L, 1);
}

void meeple_push_legal(lua_State *L, const game_def *def, const void *st) {
    action_t acts[MEEPLE_MAX_ACTIONS];
    int n = def->is_over(st) ? 0 : def->legal(st, acts);
    action_texts_push(L, def, st, acts, n, NULL);
}

/* =====================================================================================================
 * Reading tables from Lua. The value entered last is on top of the stack; enter pushes, leave pops.
 * Only raw accesses: no metamethod (no Lua code) runs while a game is reading.
 * ===================================================================================================== */

/* Copies user text for a message: at most n - 1 bytes, "..." when cut, control characters as '?', so
 * a message stays one line whatever the user passed. */
static void clean_copy(char *out, size_t n, const char *text, size_t len) {
    size_t keep = len < n ? len : n - 4;
    for (size_t i = 0; i < keep; i++) out[i] = (unsigned char)text[i] < 0x20 ? '?' : text[i];
    strcpy(out + keep, len < n ? "" : "...");
}

static tree_kind lr_kind_at(lua_State *L, int idx) {
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return TREE_ABSENT;
    case LUA_TBOOLEAN: return TREE_BOOL;
    case LUA_TSTRING: return TREE_STR;
    case LUA_TTABLE: return TREE_TABLE;
    case LUA_TNUMBER: {
        int isint;
        lua_tointegerx(L, idx, &isint); /* 3.0 counts as an integer, 3.5 does not */
        return isint ? TREE_NUM : TREE_OTHER;
    }
    default: return TREE_OTHER;
    }
}

static tree_kind lr_enter_key(tree_reader *r, const char *key) {
    luatree_reader *lr = (luatree_reader *)r;
    lua_State *L = lr->L;
    luaL_checkstack(L, 2, "tree reader");
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushstring(L, key);
        lua_rawget(L, -2);
    } else {
        lua_pushnil(L);
    }
    tree_path_enter(&lr->path, key, 0);
    return lr_kind_at(L, -1);
}

static tree_kind lr_enter_index(tree_reader *r, int index) {
    luatree_reader *lr = (luatree_reader *)r;
    lua_State *L = lr->L;
    luaL_checkstack(L, 2, "tree reader");
    if (lua_type(L, -1) == LUA_TTABLE) lua_rawgeti(L, -1, index);
    else lua_pushnil(L);
    tree_path_enter(&lr->path, NULL, index);
    return lr_kind_at(L, -1);
}

static void lr_leave(tree_reader *r) {
    luatree_reader *lr = (luatree_reader *)r;
    if (lr->path.depth == 0) return; /* unbalanced leave: a bug in the game, but never below our root */
    lua_pop(lr->L, 1);
    tree_path_leave(&lr->path);
}

static tree_kind lr_kind(tree_reader *r) { return lr_kind_at(((luatree_reader *)r)->L, -1); }

static int lr_length(tree_reader *r) {
    lua_State *L = ((luatree_reader *)r)->L;
    if (lua_type(L, -1) != LUA_TTABLE) return 0;
    lua_Unsigned n = lua_rawlen(L, -1);
    return n > 1000000 ? 1000000 : (int)n; /* no game has a million cards; keep it an int */
}

static bool lr_get_int(tree_reader *r, int64_t *out) {
    lua_State *L = ((luatree_reader *)r)->L;
    if (lua_type(L, -1) != LUA_TNUMBER) return false; /* "3" is a string, not a number */
    int isint;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    if (isint) *out = (int64_t)v;
    return isint;
}

static const char *lr_get_str(tree_reader *r) {
    lua_State *L = ((luatree_reader *)r)->L;
    return lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
}

static bool lr_get_bool(tree_reader *r) { return lua_toboolean(((luatree_reader *)r)->L, -1); }

/* The smallest unknown key by byte order, so the message does not depend on the table's layout. */
static const char *lr_unknown_key(tree_reader *r, const char *const *known) {
    luatree_reader *lr = (luatree_reader *)r;
    lua_State *L = lr->L;
    if (lua_type(L, -1) != LUA_TTABLE) return NULL;
    bool found = false;
    char text[sizeof lr->unknown];
    luaL_checkstack(L, 3, "tree reader");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            size_t len;
            const char *key = lua_tolstring(L, -2, &len);
            if (tree_key_known(key, known)) { lua_pop(L, 1); continue; }
            clean_copy(text, sizeof text, key, len);
        } else if (lua_isinteger(L, -2)) {
            snprintf(text, sizeof text, "[%lld]", (long long)lua_tointeger(L, -2));
            if (tree_key_known(text, known)) { lua_pop(L, 1); continue; }
        } else {
            snprintf(text, sizeof text, "[a %s key]", luaL_typename(L, -2));
        }
        if (!found || strcmp(text, lr->unknown) < 0) memcpy(lr->unknown, text, sizeof text);
        found = true;
        lua_pop(L, 1);
    }
    return found ? lr->unknown : NULL;
}

static const char *lr_path(tree_reader *r) { return tree_path_text(&((luatree_reader *)r)->path, "table"); }

void luatree_reader_init(luatree_reader *lr, lua_State *L, int idx) {
    memset(lr, 0, sizeof *lr);
    lr->base = (tree_reader){lr_enter_key, lr_enter_index, lr_leave, lr_kind,   lr_length,
                             lr_get_int,   lr_get_str,     lr_get_bool, lr_unknown_key, lr_path};
    lr->L = L;
    idx = lua_absindex(L, idx);
    lr->top = lua_gettop(L);
    luaL_checkstack(L, TREE_PATH_DEPTH + 4, "tree reader");
    lua_pushvalue(L, idx);
}

void luatree_reader_done(luatree_reader *lr) { lua_settop(lr->L, lr->top); }

/* =====================================================================================================
 * Arguments: every check names the function and says what was expected and what came.
 * ===================================================================================================== */

/* A short description of the value at `idx` for messages: 'text', 2.5, or a type name. */
static const char *describe(lua_State *L, int idx) {
    char text[48];
    size_t len;
    switch (lua_type(L, idx)) {
    case LUA_TSTRING:
        lua_tolstring(L, idx, &len);
        clean_copy(text, sizeof text, lua_tostring(L, idx), len);
        return lua_pushfstring(L, "'%s'", text);
    case LUA_TNUMBER:
        lua_pushvalue(L, idx);
        return lua_tostring(L, -1); /* converts the copy, not the argument */
    case LUA_TNONE: return "nothing";
    default: return luaL_typename(L, idx);
    }
}

static lua_Integer arg_int(lua_State *L, int idx, const char *fn, const char *what) {
    int isint = 0;
    lua_Integer v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
    if (!isint) luaL_error(L, "%s: %s must be an integer, got %s", fn, what, describe(L, idx));
    return v;
}

static lua_Integer arg_opt_int(lua_State *L, int idx, const char *fn, const char *what, lua_Integer d) {
    return lua_isnoneornil(L, idx) ? d : arg_int(L, idx, fn, what);
}

static const char *arg_str(lua_State *L, int idx, const char *fn, const char *what) {
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_error(L, "%s: %s must be a string, got %s", fn, what, describe(L, idx));
    return lua_tostring(L, idx);
}

/* An action's text from argument 2: NULL and the reason when it holds a NUL byte, which the C side
 * would cut there ("plant 1\0x" would be checked, and played, as "plant 1"). */
static const char *arg_action(lua_State *L, const char *fn, reason *why) {
    size_t len;
    arg_str(L, 2, fn, "action");
    const char *text = lua_tolstring(L, 2, &len);
    if (strlen(text) != len) {
        deny_format(why, "an action is text without NUL bytes: this one holds one at byte %zu", strlen(text) + 1);
        return NULL;
    }
    return text;
}

static const game_def *arg_game(lua_State *L, int idx, const char *fn) {
    const char *name = arg_str(L, idx, fn, "game");
    const game_def *def = game_find(name);
    if (!def) luaL_error(L, "unknown game %s; games: %s", describe(L, idx), game_names());
    return def;
}

/* The registry key of the states' metatable, besides its name: a search bot calls a state method
 * per node, and finding the metatable by name hashed that name every time. */
static const char state_mt_key = 'm';

void *meeple_test_udata(lua_State *L, int idx, const void *mt_key) {
    void *u = lua_touserdata(L, idx);
    if (!u || !lua_getmetatable(L, idx)) return NULL;
    lua_rawgetp(L, LUA_REGISTRYINDEX, mt_key);
    bool ours = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return ours ? u : NULL;
}

static void *test_state(lua_State *L, int idx) { return meeple_test_udata(L, idx, &state_mt_key); }

static session *arg_state(lua_State *L, const char *fn) {
    session **u = test_state(L, 1);
    if (!u)
        luaL_error(L, "%s: expected a meeple state (call it as s:%s(...)), got %s", fn, fn, describe(L, 1));
    if (!*u) luaL_error(L, "%s: this state has been freed", fn);
    return *u;
}

/* A 1-based player argument, returned 0-based. */
static int arg_player(lua_State *L, int idx, const session *s, const char *fn) {
    int n = s->def->num_players(s->now);
    lua_Integer p = arg_int(L, idx, fn, "player");
    if (p < 1 || p > n) luaL_error(L, "%s: player must be 1..%d, got %I", fn, n, p);
    return (int)(p - 1);
}

/* A params table read over the game's defaults. */
static void arg_params(lua_State *L, int idx, const game_def *def, param_value *out, const char *fn) {
    params_defaults(def, out);
    if (lua_isnoneornil(L, idx)) return;
    if (!lua_istable(L, idx)) luaL_error(L, "%s: params must be a table, got %s", fn, describe(L, idx));
    luatree_reader lr;
    reason why = {{0}};
    luatree_reader_init(&lr, L, idx);
    bool ok = params_read(def, &lr.base, out, &why);
    luatree_reader_done(&lr);
    if (!ok) luaL_error(L, "%s", why.text);
}

/* Raises the reason as the whole message: `play` promises exactly the reason a player would read. */
static int raise_reason(lua_State *L, const reason *why) {
    lua_pushstring(L, why->text[0] ? why->text : "refused without a reason");
    return lua_error(L);
}

/* Raises the core's reason for a refused construction, with the caller's position like any
 * argument error, so a script's author finds the line. */
static int raise_refusal(lua_State *L, const reason *why) {
    return luaL_error(L, "%s", why->text[0] ? why->text : "refused without a reason");
}

/* =====================================================================================================
 * The state userdata
 * ===================================================================================================== */

/* The userdata: the session first, so a `session **` reads it, then what was charged for it; a clone
 * keeps its session in the userdata itself (session_clone_into), one allocation in all. */
typedef struct state_box {
    session *s;
    size_t charged;
    bool metered; /* its lua_State has a charge hook: what the session holds in the heap is charged */
    alignas(max_align_t) unsigned char block[];
} state_box;

/* The registry key of a lua_State's charge hook (a full userdata holding a charge_hook). */
static const char charge_key = 'c';

typedef struct charge_hook {
    meeple_charge_fn fn;
    void *ud;
} charge_hook;

void meeple_set_charge(lua_State *L, meeple_charge_fn fn, void *ud) {
    charge_hook *h = lua_newuserdatauv(L, sizeof *h, 0);
    *h = (charge_hook){fn, ud};
    lua_rawsetp(L, LUA_REGISTRYINDEX, &charge_key);
}

/* Tells the charge hook, if the lua_State has one, of `bytes` more (or fewer) held outside its heap. */
static void charge(lua_State *L, long long bytes) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &charge_key) != LUA_TUSERDATA) {
        lua_pop(L, 1);
        return;
    }
    charge_hook h = *(charge_hook *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    h.fn(L, h.ud, bytes);
}

/* Pushes an empty state userdata with room for a session block of `block` bytes, so that a session
 * made after it cannot leak if pushing fails. */
static state_box *push_box(lua_State *L, size_t block) {
    state_box *u = lua_newuserdatauv(L, offsetof(state_box, block) + block, 0);
    u->s = NULL;
    u->charged = 0;
    u->metered = false;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &state_mt_key);
    lua_setmetatable(L, -2);
    return u;
}

/* The box owns `s` from now on (in its block, or in the heap). */
static void box_own(lua_State *L, state_box *u, session *s) {
    u->s = s;
    u->metered = lua_rawgetp(L, LUA_REGISTRYINDEX, &charge_key) != LUA_TNIL;
    lua_pop(L, 1);
    u->charged = u->metered ? session_heap_bytes(s) : 0;
    if (u->charged) charge(L, (long long)u->charged); /* may raise: the collector then frees s and uncharges */
}

/* Pushes a copy of `s` in a state userdata of its own: one allocation, in the lua_State's heap. A
 * clone keeps the history; a copy of the position alone starts where `s` stands (a sample). */
static session *push_copy(lua_State *L, const session *s, bool with_history) {
    state_box *u = push_box(L, with_history ? session_clone_size(s) : session_position_size(s));
    session *c = with_history ? session_clone_into(s, u->block) : session_position_into(s, u->block);
    box_own(L, u, c);
    return c;
}

session *meeple_push_position(lua_State *L, const session *s) { return push_copy(L, s, false); }

session *meeple_to_plain_session(lua_State *L, int idx) {
    session **u = test_state(L, idx);
    return u ? *u : NULL;
}

const char *meeple_describe(lua_State *L, int idx) { return describe(L, idx); }

void meeple_push_state(lua_State *L, session *s) {
    box_own(L, push_box(L, 0), s);
}

/* The box of the state at `idx` (a plain state, or the plain state under a variant's table), or NULL. */
static state_box *to_box(lua_State *L, int idx) {
    state_box *u = test_state(L, idx);
    if (u) return u;
    /* A state under a variant (scripts/variant.lua) is a table over a plain state, its `_raw`. */
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return NULL;
    bool wrapper = lua_getfield(L, -1, "__name") == LUA_TSTRING && strcmp(lua_tostring(L, -1), STATE_MT) == 0;
    lua_pop(L, 2);
    if (!wrapper) return NULL;
    lua_pushstring(L, "_raw");
    lua_rawget(L, idx < 0 && idx > LUA_REGISTRYINDEX ? idx - 1 : idx);
    u = test_state(L, -1);
    lua_pop(L, 1);
    return u;
}

session *meeple_to_session(lua_State *L, int idx) {
    state_box *u = to_box(L, idx);
    return u ? u->s : NULL;
}

/* A state's history grows as it is played on, in the host's heap: the growth is charged as the
 * state was. The charge may raise; the box then holds it all, and its collection gives it back. */
static void charge_growth(lua_State *L, int idx) {
    state_box *u = to_box(L, idx);
    if (!u || !u->s || !u->metered) return;
    size_t held = session_heap_bytes(u->s);
    if (held <= u->charged) return;
    long long more = (long long)(held - u->charged);
    u->charged = held;
    charge(L, more);
}

static int s_game(lua_State *L) {
    lua_pushstring(L, arg_state(L, "game")->def->name);
    return 1;
}

static int s_num_players(lua_State *L) {
    session *s = arg_state(L, "num_players");
    lua_pushinteger(L, s->def->num_players(s->now));
    return 1;
}

static int s_turn(lua_State *L) {
    session *s = arg_state(L, "turn");
    lua_pushinteger(L, s->def->turn(s->now));
    return 1;
}

static int s_to_move(lua_State *L) {
    session *s = arg_state(L, "to_move");
    int p = s->def->is_over(s->now) ? -1 : s->def->to_move(s->now);
    if (p < 0) lua_pushnil(L);
    else lua_pushinteger(L, p + 1);
    return 1;
}

static int s_is_over(lua_State *L) {
    session *s = arg_state(L, "is_over");
    lua_pushboolean(L, s->def->is_over(s->now));
    return 1;
}

static int s_scores(lua_State *L) {
    session *s = arg_state(L, "scores");
    int out[MEEPLE_MAX_PLAYERS] = {0};
    int n = s->def->num_players(s->now);
    s->def->scores(s->now, out);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, out[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int s_winners(lua_State *L) {
    session *s = arg_state(L, "winners");
    if (!s->def->is_over(s->now)) {
        lua_pushnil(L);
        return 1;
    }
    int out[MEEPLE_MAX_PLAYERS] = {0};
    int n = s->def->winners(s->now, out);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, out[i] + 1);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int s_legal(lua_State *L) {
    session *s = arg_state(L, "legal");
    meeple_push_legal(L, s->def, s->now);
    return 1;
}

static int s_check(lua_State *L) {
    session *s = arg_state(L, "check");
    reason why = {{0}};
    const char *text = arg_action(L, "check", &why);
    if (text && session_check_text(s, text, NULL, &why)) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_pushstring(L, why.text);
    return 2;
}

static int s_play(lua_State *L) {
    session *s = arg_state(L, "play");
    reason why = {{0}};
    const char *text = arg_action(L, "play", &why);
    if (!text) return raise_reason(L, &why);
    bool played = session_play_text(s, text, &why);
    charge_growth(L, 1);
    if (!played) return raise_reason(L, &why);
    lua_settop(L, 1);
    return 1;
}

static int s_try(lua_State *L) {
    session *s = arg_state(L, "try");
    reason why = {{0}};
    const char *text = arg_action(L, "try", &why);
    bool played = text && session_play_text(s, text, &why);
    charge_growth(L, 1);
    if (played) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, why.text);
    return 2;
}

static int s_undo(lua_State *L) {
    session *s = arg_state(L, "undo");
    lua_Integer n = arg_opt_int(L, 2, "undo", "n", 1);
    if (n < 0) luaL_error(L, "undo: n must be 0 or more, got %I", n);
    session_undo(s, n > s->history_len ? s->history_len : (int)n);
    lua_settop(L, 1);
    return 1;
}

/* An action's text depends on the position it was taken in, so history replays from the start. With a
 * player, each decision is written as that player saw it (game_def.public_text). */
static int s_history(lua_State *L) {
    session *s = arg_state(L, "history");
    const game_def *def = s->def;
    int viewer = lua_isnoneornil(L, 2) ? -1 : arg_player(L, 2, s, "history");
    void *st = lua_newuserdatauv(L, def->state_size, 0); /* scratch the collector frees, even on error */
    memcpy(st, s->start, def->state_size);
    lua_createtable(L, s->history_len, 0);
    for (int i = 0; i < s->history_len; i++) {
        char text[MEEPLE_ACTION_TEXT];
        game_public_text(def, st, s->history[i].action, viewer, text);
        def->apply(st, s->history[i].action);
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, s->history[i].player + 1);
        lua_setfield(L, -2, "player");
        lua_pushstring(L, text);
        lua_setfield(L, -2, "action");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* What player p sees of the legal action `a` if it is played now: its text, or what the others see. */
static int s_public_text(lua_State *L) {
    session *s = arg_state(L, "public_text");
    reason why = {{0}};
    const char *text = arg_action(L, "public_text", &why);
    int viewer = arg_player(L, 3, s, "public_text");
    action_t a;
    if (!text || !session_check_text(s, text, &a, &why)) {
        lua_pushnil(L);
        lua_pushstring(L, why.text);
        return 2;
    }
    char shown[MEEPLE_PUBLIC_TEXT];
    game_public_text(s->def, s->now, a, viewer, shown);
    lua_pushstring(L, shown);
    return 1;
}

static int s_hidden_information(lua_State *L) {
    session *s = arg_state(L, "hidden_information");
    lua_pushboolean(L, s->def->information == INFORMATION_HIDDEN);
    return 1;
}

static int s_table(lua_State *L) {
    session *s = arg_state(L, "table");
    meeple_push_table(L, s->def, s->now, -1);
    return 1;
}

static int s_view(lua_State *L) {
    session *s = arg_state(L, "view");
    int p = arg_player(L, 2, s, "view");
    meeple_push_table(L, s->def, s->now, p);
    return 1;
}

static int s_cards(lua_State *L) {
    session *s = arg_state(L, "cards");
    meeple_push_cards(L, s->def, s->now);
    return 1;
}

static int s_clone(lua_State *L) {
    push_copy(L, arg_state(L, "clone"), true);
    return 1;
}

/* A determinization: what `p` cannot see re-dealt. The sample starts where it stands, so its own
 * history is empty and its save carries the position as a table, and no trace of `s` (session_sample). */
static int s_sample(lua_State *L) {
    session *s = arg_state(L, "sample");
    int p = arg_player(L, 2, s, "sample");
    lua_Integer seed = arg_opt_int(L, 3, "sample", "seed", 1);
    session_sample(push_copy(L, s, false), p, (uint64_t)seed);
    return 1;
}

/* Random play in C, seeded: a search bot's playout without a Lua call per decision. */
static int s_playout(lua_State *L) {
    session *s = arg_state(L, "playout");
    lua_Integer seed = arg_int(L, 2, "playout", "seed");
    lua_Integer limit = arg_opt_int(L, 3, "playout", "n", SESSION_PLAYOUT_TO_END);
    if (limit < SESSION_PLAYOUT_TO_END || limit > INT_MAX)
        luaL_error(L, "playout: n must be a count of decisions, got %I (nil or -1: to the end; at most %d are played)",
                   limit, SESSION_PLAYOUT_MAX);
    lua_Number greedy = luaL_opt(L, lua_tonumber, 4, 0);
    if (!lua_isnoneornil(L, 4) && (lua_type(L, 4) != LUA_TNUMBER || !(greedy >= 0 && greedy <= 1)))
        luaL_error(L, "playout: greedy must be a share between 0 and 1, got %s", describe(L, 4));
    rng r;
    rng_seed(&r, (uint64_t)seed, SESSION_PLAYOUT_STREAM);
    int played = session_playout(s, &r, (int)limit, greedy);
    charge_growth(L, 1);
    if (played < 0) luaL_error(L, "playout: out of memory");
    lua_pushinteger(L, played);
    return 1;
}

/* The legal actions, the playout policy's favourites first (ties by the seed): where a search
 * starts trying. */
static int s_ranked(lua_State *L) {
    session *s = arg_state(L, "ranked");
    lua_Integer seed = arg_opt_int(L, 2, "ranked", "seed", 1);
    action_t acts[MEEPLE_MAX_ACTIONS];
    rng r;
    rng_seed(&r, (uint64_t)seed, SESSION_RANKED_STREAM);
    int n = session_ranked(s, &r, acts);
    action_texts_push(L, s->def, s->now, acts, n, NULL);
    return 1;
}

/* A save's text, made in the host's heap, while it is copied into Lua. */
typedef struct save_text {
    char *text;
    size_t len;
    bool charged;
} save_text;

/* Under lua_pcall: the text charged (it is the bot's memory while it lives) and pushed; either may
 * raise, and the caller frees the text whatever happens. */
static int push_save_text(lua_State *L) {
    save_text *t = lua_touserdata(L, 1);
    t->charged = true; /* the charge counts even when it raises */
    charge(L, (long long)t->len);
    lua_pushlstring(L, t->text, t->len);
    return 1;
}

static int s_save(lua_State *L) {
    save_text t = {session_save(arg_state(L, "save")), 0, false};
    if (!t.text) luaL_error(L, "save: out of memory");
    t.len = strlen(t.text);
    lua_pushcfunction(L, push_save_text);
    lua_pushlightuserdata(L, &t);
    int status = lua_pcall(L, 1, 1, 0);
    free(t.text);
    if (t.charged) charge(L, -(long long)t.len);
    if (status != LUA_OK) return lua_error(L);
    return 1;
}

/* The renderer is compiled once per lua_State and kept in the registry. */
static void push_renderer(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &render_key) == LUA_TFUNCTION) return;
    lua_pop(L, 1);
    if (luaL_loadbufferx(L, meeple_lua_render, strlen(meeple_lua_render), "=render.lua", "t") != LUA_OK)
        lua_error(L);
    lua_call(L, 0, 1);
    if (!lua_isfunction(L, -1)) luaL_error(L, "render.lua must return a function");
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &render_key);
}

void meeple_set_renderer(lua_State *L) {
    luaL_checktype(L, -1, LUA_TFUNCTION);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &render_key);
}

static int s_tostring(lua_State *L) {
    session *s = arg_state(L, "tostring");
    push_renderer(L);
    meeple_push_table(L, s->def, s->now, -1);
    lua_call(L, 1, 1);
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "tostring: the renderer returned no string");
    return 1;
}

static int s_gc(lua_State *L) {
    state_box *u = test_state(L, 1);
    if (u && u->s) {
        session_free(u->s);
        u->s = NULL;
        if (u->charged) charge(L, -(long long)u->charged);
        u->charged = 0;
    }
    return 0;
}

/* The variants' primitives, defined with the variant module below. */
static int s_move(lua_State *L);
static int s_add(lua_State *L);
static int s_base_score(lua_State *L);
static int s_variant(lua_State *L);
static int s_turn_key(lua_State *L);

static const luaL_Reg state_methods[] = {
    {"game", s_game},       {"num_players", s_num_players}, {"turn", s_turn},
    {"to_move", s_to_move}, {"is_over", s_is_over},         {"scores", s_scores},
    {"winners", s_winners}, {"legal", s_legal},             {"check", s_check},
    {"play", s_play},       {"try", s_try},                 {"undo", s_undo},
    {"history", s_history}, {"table", s_table},             {"view", s_view},
    {"public_text", s_public_text}, {"hidden_information", s_hidden_information},
    {"clone", s_clone},     {"sample", s_sample},           {"save", s_save},
    {"tostring", s_tostring}, {"move", s_move},           {"add", s_add},
    {"base_score", s_base_score}, {"variant", s_variant}, {"_turn_key", s_turn_key},
    {"playout", s_playout}, {"ranked", s_ranked}, {"cards", s_cards},
    {NULL, NULL},
};

static void register_state_type(lua_State *L) {
    if (!luaL_newmetatable(L, STATE_MT)) { /* already there: another require in this lua_State */
        lua_pop(L, 1);
        return;
    }
    luaL_newlib(L, state_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, s_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, s_gc);
    lua_setfield(L, -2, "__gc");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &state_mt_key);
}

/* =====================================================================================================
 * The module
 * ===================================================================================================== */

static int m_games(lua_State *L) {
    lua_createtable(L, meeple_game_count, 0);
    for (int i = 0; i < meeple_game_count; i++) {
        lua_pushstring(L, meeple_games[i]->name);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static const char *const new_options[] = {"seed", "players", "params", "variant", NULL};

/* Refuses any option but `known`, naming the first unknown one (in byte order) and the valid ones. */
static void check_options(lua_State *L, int idx, const char *fn, const char *const *known) {
    luatree_reader lr;
    luatree_reader_init(&lr, L, idx);
    const char *bad = lr.base.unknown_key(&lr.base, known);
    if (!bad) {
        luatree_reader_done(&lr);
        return;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *const *k = known; *k; k++) {
        if (k != known) luaL_addstring(&b, ", ");
        luaL_addstring(&b, *k);
    }
    luaL_pushresult(&b);
    luaL_error(L, "%s: unknown option '%s' (valid: %s)", fn, bad, lua_tostring(L, -1));
}

/* Pushes t[key] without metamethods: no user code runs in the middle of a binding. */
static int push_raw_field(lua_State *L, int idx, const char *key) {
    idx = lua_absindex(L, idx);
    lua_pushstring(L, key);
    return lua_rawget(L, idx);
}

static lua_Integer opt_field_int(lua_State *L, int idx, const char *key, const char *fn, lua_Integer d) {
    push_raw_field(L, idx, key);
    lua_Integer v = arg_opt_int(L, -1, fn, key, d);
    lua_pop(L, 1);
    return v;
}

/* =====================================================================================================
 * Variants: the primitives a house rule changes a state with, and the variant module (the embedded
 * scripts/variant.lua), which plays a state under a variant's hooks
 * ===================================================================================================== */

extern const char meeple_lua_variant[];
static const char variant_key = 'v';

/* s:move(from, to [, {card = C, count = N, bottom = true}]): cards between zones, none created or
 * lost. The position becomes the state's new start: undo does not go back past a move. */
static int s_move(lua_State *L) {
    session *s = arg_state(L, "move");
    const char *from = arg_str(L, 2, "move", "from");
    const char *to = arg_str(L, 3, "move", "to");
    card_move m = {NULL, 1, false};
    if (!lua_isnoneornil(L, 4)) {
        if (!lua_istable(L, 4)) luaL_error(L, "move: options must be a table, got %s", describe(L, 4));
        static const char *const known[] = {"card", "count", "bottom", NULL};
        check_options(L, 4, "move", known);
        if (push_raw_field(L, 4, "card") != LUA_TNIL) {
            if (!lua_isstring(L, -1)) luaL_error(L, "move: card must be a name or a level");
            m.card = lua_tostring(L, -1); /* stays on the stack, so it stays alive */
        }
        m.count = (int)opt_field_int(L, 4, "count", "move", 1);
        if (m.count < 1 || m.count > 100) luaL_error(L, "move: count must be 1..100");
        push_raw_field(L, 4, "bottom");
        m.to_bottom = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    reason why = {{0}};
    if (!s->def->move(s->now, from, to, &m, &why)) return raise_reason(L, &why);
    session_rebase(s);
    lua_settop(L, 1);
    return 1;
}

/* s:add(counter, n): adds n (maybe negative) to a counter such as "players[1].gold". */
static int s_add(lua_State *L) {
    session *s = arg_state(L, "add");
    const char *counter = arg_str(L, 2, "add", "counter");
    lua_Integer n = arg_int(L, 3, "add", "n");
    if (n < -100000 || n > 100000) luaL_error(L, "add: n is out of range");
    reason why = {{0}};
    if (!s->def->add(s->now, counter, (int)n, &why)) return raise_reason(L, &why);
    session_rebase(s);
    lua_settop(L, 1);
    return 1;
}

/* s:base_score(p): the rules' score, which a variant's score hook may build on. */
static int s_base_score(lua_State *L) {
    session *s = arg_state(L, "base_score");
    int p = arg_player(L, 2, s, "base_score");
    int out[MEEPLE_MAX_PLAYERS] = {0};
    s->def->scores(s->now, out);
    lua_pushinteger(L, out[p]);
    return 1;
}

/* s:variant(): the variant's name, or nil under the base rules. */
static int s_variant(lua_State *L) {
    session *s = arg_state(L, "variant");
    if (s->variant[0]) lua_pushstring(L, s->variant);
    else lua_pushnil(L);
    return 1;
}

/* s:_turn_key(): for the variant module's turn_end hook (a number, and whose turn it is). */
static int s_turn_key(lua_State *L) {
    session *s = arg_state(L, "_turn_key");
    int owner = -1;
    lua_pushinteger(L, s->def->turn_key(s->now, &owner));
    if (owner < 0) lua_pushnil(L);
    else lua_pushinteger(L, owner + 1);
    return 2;
}

static int raw_set_variant(lua_State *L) {
    session *s = arg_state(L, "set_variant");
    const char *name = arg_str(L, 2, "set_variant", "name");
    if (strlen(name) >= sizeof s->variant) luaL_error(L, "variant name too long");
    snprintf(s->variant, sizeof s->variant, "%s", name);
    return 0;
}

static int raw_rebase(lua_State *L) {
    session_rebase(arg_state(L, "rebase"));
    return 0;
}

static int m_new(lua_State *L);
static int m_from_table(lua_State *L);
static int m_load_plain(lua_State *L);

/* The folders named variants are looked up in, in order (paths.h), as an array. */
static void push_roots(lua_State *L) {
    char roots[MEEPLE_MAX_ROOTS][MEEPLE_PATH_LEN];
    int count = meeple_roots(roots, MEEPLE_MAX_ROOTS);
    lua_createtable(L, count, 0);
    for (int i = 0; i < count; i++) {
        lua_pushstring(L, roots[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* Pushes the variant module, loading it once per lua_State with the raw functions it builds on. */
static void push_variant_module(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &variant_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    if (luaL_loadbufferx(L, meeple_lua_variant, strlen(meeple_lua_variant), "=variant.lua", "t") != LUA_OK)
        lua_error(L);
    static const luaL_Reg raw[] = {{"new", m_new}, {"from_table", m_from_table}, {"load", m_load_plain},
                                   {"set_variant", raw_set_variant}, {"rebase", raw_rebase},
                                   {"limited", variant_limited}, {"read_file", variant_read_file},
                                   {"names", variant_names},
                                   {"print", variant_print}, {"guarded_libs", variant_guarded_libs},
                                   {NULL, NULL}};
    luaL_newlib(L, raw);
    push_roots(L);
    lua_setfield(L, -2, "roots");
    lua_call(L, 1, 1);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &variant_key);
}

/* Calls variant.<fn> with the `nargs` arguments from stack index 1; returns its one result. */
static int call_variant(lua_State *L, const char *fn, int nargs) {
    lua_settop(L, nargs);
    push_variant_module(L);
    lua_getfield(L, -1, fn);
    lua_remove(L, -2);
    lua_insert(L, 1);
    lua_call(L, nargs, 1);
    return 1;
}

static int m_new(lua_State *L) {
    const game_def *def = arg_game(L, 1, "new");
    lua_Integer seed = 1, players = def->default_players;
    param_value params[MEEPLE_MAX_PARAMS];
    if (!lua_isnoneornil(L, 2) && !lua_istable(L, 2))
        luaL_error(L, "new: options must be a table, got %s", describe(L, 2));
    if (lua_istable(L, 2)) {
        check_options(L, 2, "new", new_options);
        if (push_raw_field(L, 2, "variant") != LUA_TNIL) return call_variant(L, "new", 2);
        lua_pop(L, 1);
        seed = opt_field_int(L, 2, "seed", "new", 1);
        players = opt_field_int(L, 2, "players", "new", def->default_players);
        bool fits = players >= def->min_players && players <= def->max_players;
        if (!fits && def->min_players == def->max_players)
            luaL_error(L, "new: %s is for exactly %d players, got %I", def->name, def->min_players, players);
        if (!fits)
            luaL_error(L, "new: players must be %d..%d for %s, got %I", def->min_players, def->max_players,
                       def->name, players);
        push_raw_field(L, 2, "params");
        arg_params(L, lua_gettop(L), def, params, "new");
    } else {
        params_defaults(def, params);
    }
    reason why = {{0}};
    session *s = session_new(def, (int)players, params, (uint64_t)seed, &why);
    if (!s) return raise_refusal(L, &why);
    meeple_push_state(L, s);
    return 1;
}

/* A shallow copy of the table at `idx` without the host's own keys, so a game reading its table
 * sees only the state's fields and may refuse the rest. */
static void push_state_fields(lua_State *L, int idx) {
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        bool host_key = strcmp(key, "seed") == 0 || strcmp(key, "params") == 0 || strcmp(key, "variant") == 0;
        if (host_key) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
}

static int m_from_table(lua_State *L) {
    if (!lua_istable(L, 1)) luaL_error(L, "from_table: expected a state table, got %s", describe(L, 1));
    lua_settop(L, 1);
    push_raw_field(L, 1, "game");
    if (lua_isnil(L, -1)) luaL_error(L, "from_table: the table needs a game field (game = \"babel\")");
    const game_def *def = arg_game(L, 2, "from_table");
    if (push_raw_field(L, 1, "variant") != LUA_TNIL) {
        lua_settop(L, 1);
        return call_variant(L, "from_table", 1);
    }
    lua_pop(L, 1);
    lua_Integer seed = opt_field_int(L, 1, "seed", "from_table", 1);
    param_value params[MEEPLE_MAX_PARAMS];
    push_raw_field(L, 1, "params");
    arg_params(L, 3, def, params, "from_table");
    push_state_fields(L, 1);
    luatree_reader lr;
    reason why = {{0}};
    luatree_reader_init(&lr, L, 4);
    session *s = session_from_table(def, &lr.base, params, (uint64_t)seed, &why);
    luatree_reader_done(&lr);
    if (!s) return raise_refusal(L, &why);
    meeple_push_state(L, s);
    return 1;
}

/* A save naming a variant replays through the variant's hooks. */
static bool names_variant(const char *text) {
    return strncmp(text, "variant ", 8) == 0 || strstr(text, "\nvariant ") != NULL;
}

static int m_load_plain(lua_State *L) {
    const char *text = arg_str(L, 1, "load", "text");
    reason why = {{0}};
    session *s = session_load(text, &why);
    if (!s) return raise_refusal(L, &why);
    meeple_push_state(L, s);
    return 1;
}

static int m_load(lua_State *L) {
    const char *text = arg_str(L, 1, "load", "text");
    if (names_variant(text)) return call_variant(L, "load", 2);
    reason why = {{0}};
    session *s = session_load(text, &why);
    if (!s) return raise_refusal(L, &why);
    meeple_push_state(L, s);
    return 1;
}

/* meeple.cards(game [, options]): the catalogue of a game as meeple.new(game, options) would play it
 * (a variant's or the caller's parameters applied). */
static int m_cards(lua_State *L) {
    lua_settop(L, 2);
    lua_pushcfunction(L, m_new);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    lua_getfield(L, -1, "cards");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
    return 1;
}

static const luaL_Reg module_functions[] = {
    {"games", m_games}, {"new", m_new},     {"from_table", m_from_table},
    {"load", m_load},   {"cards", m_cards}, {"search", meeple_search}, {NULL, NULL},
};

int meeple_open(lua_State *L) {
    register_state_type(L);
    luaL_newlib(L, module_functions);
    luajson_open(L);
    lua_setfield(L, -2, "json");
    lua_pushliteral(L, MEEPLE_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
