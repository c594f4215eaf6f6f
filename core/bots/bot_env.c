/* bot_env.c — a Lua bot's environment: the whitelisted globals and the sandbox's own builtins.
 *
 * Only the base, table, string, math, utf8 and coroutine libraries are opened, and the globals table
 * is cut to the allow list below: no io, os, debug, package, dofile, loadfile, string.dump; load takes
 * text only; setmetatable refuses __gc (finalizers run with hooks off) and the host's metatables are
 * locked; collectgarbage only counts; require reads the project's bots/lib only. Lua would run some
 * bot code with hooks off: xpcall's handler before the unwinding, and __close in a coroutine the hook
 * killed; here the handler runs after it, and coroutine bodies under a pcall. C calls that could run
 * long without a Lua instruction (patterns, string.rep, table.insert...) are priced first (guards.h)
 * through the limits engine's meter, and refused, as the bot's forfeit, when they cannot finish in
 * time. */
#define _XOPEN_SOURCE 700 /* flockfile */

#include "bots/luabot_parts.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "host/text.h"
#include "lua/lazy_view.h"
#include "lua/lmeeple.h"
#include "sandbox/guards.h"
#include "sandbox/limits.h"
#include <meeple/session.h>

/* pairs, and below the raw functions, getmetatable and setmetatable: as Lua's, filling an unread part
 * of a view first (lazy_view.h), so the bot only ever meets plain tables. `next` is lazy_view_next,
 * and pairs hands out nothing else: the stock next would show an unread table's hidden keys. */
static int sb_pairs(lua_State *L) {
    luaL_checkany(L, 1);
    lazy_view_touch(L, 1, true);
    if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 3);
        return 3;
    }
    lua_pushcfunction(L, lazy_view_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* rawget, rawset, rawlen, getmetatable: Lua's own (upvalue 1), once an unread part of a view given as
 * the first argument is filled. */
static int sb_fill_first(lua_State *L) {
    lazy_view_touch(L, 1, false);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* setmetatable without finalizers: a __gc would run with hooks off, out of every limit. (A __gc
 * added to a metatable afterwards is never called: Lua marks objects when the metatable is set.) */
static int sb_setmetatable(lua_State *L) {
    lazy_view_touch(L, 1, false);
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc (finalizers) is not allowed in bots");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* s:playout, a whole game in one call: charged PLAYOUT_STEPS instructions per decision it played
 * (about what a C decision costs in Lua instructions' time), and the clock read, once it returns (a
 * playout is a game's length: well under a millisecond). It runs in C, out of the hook's reach, and its
 * history grows in the host's heap, so it is given no more decisions than the instructions and memory
 * left pay for: a policy going round in circles ends at the budget, not past it. Upvalue 1: the
 * original. */
enum { PLAYOUT_STEPS = LUABOT_PLAYOUT_STEPS };

static int sb_playout(lua_State *L) {
    limits *lim = &luabot_of(L)->lim;
    long long steps_left = lim->instructions > lim->steps ? lim->instructions - lim->steps : 0;
    long long affordable = steps_left / PLAYOUT_STEPS + 1;
    long long room = (long long)(limits_memory_left(lim) / sizeof(history_entry)) + 1;
    if (room < affordable) affordable = room;
    int isnum = 0;
    lua_Integer asked = lua_tointegerx(L, 3, &isnum);
    if (lua_isnoneornil(L, 3) || (isnum && (asked < 0 || asked > affordable))) {
        if (lua_gettop(L) < 3) lua_settop(L, 3);
        lua_pushinteger(L, (lua_Integer)affordable);
        lua_replace(L, 3);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    limits_charge_steps(L, lim, (double)lua_tointeger(L, -1) * PLAYOUT_STEPS);
    return 1;
}

static int sb_collectgarbage(lua_State *L) {
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_error(L, "collectgarbage: only \"count\" is allowed in bots, got \"%s\"", opt);
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024);
    return 1;
}

/* print: to stderr, one line per call and prefixed with the bot's name, when echoing; else nowhere. */
static int sb_print(lua_State *L) {
    luabot *b = luabot_of(L);
    if (!b->echo) return 0;
    int n = lua_gettop(L);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&buf, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&buf);
    }
    luaL_pushresult(&buf);
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    /* Escaped: what a bot prints must not drive the terminal it is shown on. One line, whole, even
     * when bots print from several threads. */
    flockfile(stderr);
    fputc('[', stderr);
    text_write(stderr, b->code->name, strlen(b->code->name), false);
    fputs("] ", stderr);
    text_write(stderr, text, len > 2000 ? 2000 : len, false);
    fputc('\n', stderr);
    funlockfile(stderr);
    return 0;
}

/* require NAME: bots/lib/NAME.lua (dots as folders), run once per bot in the bot's environment. */
static int sb_require(lua_State *L) {
    luabot *b = luabot_of(L);
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    bool ok = len > 0 && len < 64;
    for (size_t i = 0; ok && i < len; i++) {
        char c = name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
             (c == '.' && i > 0 && name[i - 1] != '.');
    }
    if (!ok) return luaL_error(L, "require: '%s' is not a module name (letters, digits, _ and .)", name);
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1)); /* 2: the modules loaded so far */
    if (lua_getfield(L, 2, name) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    if (!b->code->lib_dir[0]) return luaL_error(L, "require: no bots/lib folder found (set MEEPLE_ROOT)");
    char path[1200], file[72];
    snprintf(file, sizeof file, "%s", name);
    for (char *c = file; *c; c++)
        if (*c == '.') *c = '/';
    snprintf(path, sizeof path, "%s/%s.lua", b->code->lib_dir, file);
    FILE *f = fopen(path, "rb");
    if (!f) return luaL_error(L, "require: no module '%s' in %s", name, b->code->lib_dir);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    size_t got;
    char chunk[4096];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) luaL_addlstring(&buf, chunk, got);
    fclose(f);
    luaL_pushresult(&buf); /* 3 */
    size_t text_len;
    const char *text = lua_tolstring(L, 3, &text_len);
    lua_pushfstring(L, "@%s", path);
    if (luaL_loadbufferx(L, text, text_len, lua_tostring(L, -1), "t") != LUA_OK) return lua_error(L);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, name);
    return 1;
}


/* Calls Lua's own function (upvalue 1) with the arguments given; returns all it returns. */
static int forward(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- Bot code Lua would run with the hook off ----
 *
 * When the count hook raises, hooks stay off in that thread until the error is caught: Lua runs an
 * xpcall message handler before the unwinding, and a coroutine killed by the hook keeps its hooks off
 * for the __close variables coroutine.close or coroutine.wrap later run. So no handler runs before
 * the unwinding, and every coroutine body runs under a pcall of its own. */

/* xpcall: the function under pcall, the handler afterwards as an ordinary call under every limit,
 * and never once the bot is done (Lua calls none for a memory error either). Stack: handler, then
 * the results or the error. */
static int xpcall_finish(lua_State *L, int status, lua_KContext ctx) {
    (void)ctx;
    luabot *b = luabot_of(L);
    if (status == LUA_OK || status == LUA_YIELD) {
        lua_pushboolean(L, 1);
        lua_replace(L, 1);
        return lua_gettop(L);
    }
    if (b->lim.fault) return limits_raise(L, &b->lim);
    if (status != LUA_ERRMEM) {
        lua_pushvalue(L, 1);
        lua_insert(L, -2);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK && b->lim.fault) return limits_raise(L, &b->lim);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

static int sb_xpcall(lua_State *L) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_replace(L, 1); /* the handler first, */
    lua_replace(L, 2); /* then the function and its arguments */
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, xpcall_finish);
    return xpcall_finish(L, status, 0);
}

/* A coroutine's body: the bot's function (upvalue 1) under a pcall inside the coroutine, whose
 * unwinding turns hooks back on before any __close runs, then the error raised again. */
static int guarded_finish(lua_State *L, int status, lua_KContext ctx) {
    (void)ctx;
    if (status != LUA_OK && status != LUA_YIELD) return lua_error(L);
    return lua_gettop(L);
}

static int guarded_body(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, 0, guarded_finish);
    return guarded_finish(L, status, 0);
}

/* coroutine.create and coroutine.wrap, over a guarded body (upvalue 1: the original). */
static int sb_coroutine(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_pushcclosure(L, guarded_body, 1);
    return forward(L);
}

/* Closing a coroutine runs its pending __close handlers, which may close another coroutine, and so
 * on: Lua 5.4.4 counts none of that against its C stack limit, so a chain of a few thousand crashes
 * the host. coroutine.close and a wrap function (which closes its coroutine on an error) are counted
 * here, and a chain deeper than a few dozen is an error. Upvalue 1: the function counted. */
#define MAX_CLOSE_DEPTH 64

static int sb_counted_close(lua_State *L) {
    luabot *b = luabot_of(L);
    if (b->close_depth >= MAX_CLOSE_DEPTH)
        return luaL_error(L, "coroutines closed inside each other more than %d deep", MAX_CLOSE_DEPTH);
    b->close_depth++;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    b->close_depth--;
    if (status != LUA_OK) return lua_error(L);
    return lua_gettop(L);
}

static int sb_wrap(lua_State *L) {
    sb_coroutine(L);
    lua_pushcclosure(L, sb_counted_close, 1);
    return 1;
}

/* ---- Setting up a state ---- */

/* Replaces lib[name] with a C closure over the original and, when `lib_name` is given, the
 * function's full name ("string.find") for messages. */
static void wrap(lua_State *L, int lib, const char *name, lua_CFunction fn, const char *lib_name) {
    lib = lua_absindex(L, lib);
    lua_getfield(L, lib, name);
    if (lib_name) lua_pushfstring(L, "%s.%s", lib_name, name);
    lua_pushcclosure(L, fn, lib_name ? 2 : 1);
    lua_setfield(L, lib, name);
}

static const char *const allowed_globals[] = {
    "assert", "error", "getmetatable", "ipairs", "pairs", "pcall", "select", "tonumber", "tostring",
    "type", "xpcall", "rawequal", "_VERSION", "_G",
    "string", "table", "math", "utf8", "coroutine",
    /* wrapped below before any bot code runs: */
    "rawget", "rawset", "rawlen", "setmetatable", "load", NULL,
};

static bool allowed(const char *name) {
    for (const char *const *a = allowed_globals; *a; a++)
        if (strcmp(*a, name) == 0) return true;
    return false;
}

int luabot_setup(lua_State *L) {
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},         {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string},  {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine},
        {NULL, NULL},
    };
    for (const luaL_Reg *lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    /* The meeple.state type, for samples and their clones; its metatable is locked. */
    lua_pushcfunction(L, meeple_open);
    lua_call(L, 0, 0);
    luaL_getmetatable(L, "meeple.state");
    luabot_lock_metatable(L, -1);
    lua_getfield(L, -1, "__index");
    wrap(L, -1, "playout", sb_playout, NULL);
    lua_getfield(L, -1, "sample");
    int sample_fn = lua_gettop(L);
    /* The string metatable, locked too: its __index is the string table, guarded below. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    luabot_lock_metatable(L, -1);
    lua_pop(L, 2);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    /* Cut the globals to the allow list (collect first: no changes while traversing). */
    lua_newtable(L);
    int drop = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, g)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING || !allowed(lua_tostring(L, -1))) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, drop, (lua_Integer)lua_rawlen(L, drop) + 1);
        }
    }
    for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, drop); i <= n; i++) {
        lua_rawgeti(L, drop, i);
        lua_pushnil(L);
        lua_rawset(L, g);
    }
    lua_pop(L, 1);
    /* The metatable of unread views. */
    lazy_view_metatable(L);
    int view_mt = lua_gettop(L);
    /* Functions that fill a view first; load for text only; the originals kept as upvalues only. */
    lua_pushcfunction(L, lazy_view_next);
    lua_setfield(L, g, "next");
    lua_pushcfunction(L, sb_pairs);
    lua_setfield(L, g, "pairs");
    static const char *const fill_first[] = {"rawget", "rawset", "rawlen", "getmetatable"};
    for (int i = 0; i < 4; i++) wrap(L, g, fill_first[i], sb_fill_first, NULL);
    wrap(L, g, "setmetatable", sb_setmetatable, NULL);
    lua_pushcfunction(L, sb_xpcall);
    lua_setfield(L, g, "xpcall");
    /* meeple.search, the one module function a bot has: it deals from ctx, never the true state. */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, meeple_search);
    lua_setfield(L, -2, "search");
    lua_setfield(L, g, "meeple");
    lua_pushcfunction(L, sb_collectgarbage);
    lua_setfield(L, g, "collectgarbage");
    lua_pushcfunction(L, sb_print);
    lua_setfield(L, g, "print");
    lua_newtable(L);
    lua_pushcclosure(L, sb_require, 1);
    lua_setfield(L, g, "require");
    /* string: no dump. C calls that could run long (string, table, utf8, tonumber, load): priced
     * through the bot's meter, the string metatable's __index included (it is the string table). */
    lua_getfield(L, g, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    guards_install(L, &luabot_of(L)->lim.meter, g);
    /* coroutine bodies guarded (see "Bot code Lua would run with the hook off") */
    lua_getfield(L, g, "coroutine");
    wrap(L, -1, "create", sb_coroutine, NULL);
    wrap(L, -1, "wrap", sb_wrap, NULL);
    wrap(L, -1, "close", sb_counted_close, NULL);
    lua_pop(L, 1);
    /* math.randomseed, kept by the host to seed math.random for each game. */
    lua_getfield(L, g, "math");
    lua_getfield(L, -1, "randomseed");
    int seeder = lua_gettop(L);
    luabot_push_rng_type(L); /* ctx.rng's type */
    int rng_mt = lua_gettop(L);
    /* The values for LUABOT_SLOT_VIEW_MT .. LUABOT_SLOT_TEMPLATE. */
    lua_pushvalue(L, view_mt);
    lua_pushvalue(L, rng_mt);
    lua_pushvalue(L, sample_fn);
    lua_pushvalue(L, seeder);
    lua_pushnil(L); /* the template, made per game */
    return LUABOT_SLOTS - LUABOT_SLOT_VIEW_MT + 1;
}