/* bot.c — the bot runtime (bot.h): one sandboxed lua_State per bot, its limits, the view, ctx.
 *
 * The sandbox, from the outside in:
 *   - lua_newstate with our allocator: it refuses growth past the cap (frees and shrinks always work)
 *     and counts the game states the bot holds through meeple_set_charge;
 *   - a count hook installed before any bot code exists and never removed (coroutines copy it when
 *     they are made); it counts instructions, reads the clock, and once a limit trips it re-arms
 *     itself to every instruction and raises, so no pcall in the bot can swallow the trip;
 *   - only the base, table, string, math, utf8 and coroutine libraries are opened, and the globals
 *     table is cut to the allow list below: no io, os, debug, package, dofile, loadfile, string.dump;
 *     load takes text only; setmetatable refuses __gc (finalizers run with hooks off) and the host's
 *     metatables are locked; collectgarbage only counts; require reads the project's bots/lib only;
 *   - Lua would run some bot code with hooks off: xpcall's handler before the unwinding, and __close
 *     in a coroutine the hook killed; the handler runs after it, and coroutine bodies under a pcall;
 *   - C calls that could run long without a Lua instruction (patterns, string.rep, table.insert...)
 *     are priced first (guards.h), and refused, as the bot's forfeit, when they cannot finish in time.
 * The bot sees only plain data: the view (lazy_view.h: each table filled the first time it is read),
 * the legal strings, and ctx. Samples are fresh states re-dealt from the bot's view. */
#define _XOPEN_SOURCE 700 /* clock_gettime, realpath, readlink */

#include "bots/bot.h"
#include "sandbox/extproc.h"
#include "host/paths.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua/action_texts.h"
#include "bots/extbot.h"
#include "sandbox/guards.h"
#include "lua/lazy_view.h"
#include "lua/lmeeple.h"
#include <meeple/registry.h>
#include <meeple/rng.h>
#include <meeple/session.h>
#include "host/text.h"


/* The main thread's stack holds, at fixed places, after bot_new: */
enum {
    SLOT_TABLE = 1, /* what the bot file returned */
    SLOT_CHOOSE,    /* its choose */
    SLOT_INIT,      /* its init, or nil */
    SLOT_CTX,       /* this game's ctx, or nil */
    SLOT_VIEW_MT,   /* the metatable of unread views */
    SLOT_RNG_MT,    /* the metatable of ctx.rng */
    SLOT_SAMPLE,    /* the state method `sample` */
    SLOT_SEEDER,    /* the original math.randomseed */
    SLOT_TEMPLATE,  /* a state of this game, copied from the true one for each ctx.sample */
    SLOT_COUNT = SLOT_TEMPLATE
};

/* Which call is running, for the reason's wording. */
typedef enum { CALL_LOAD, CALL_INIT, CALL_CHOOSE } call_kind;

struct bot {
    extbot *ext;             /* an external bot: everything below but the texts is unused */
    lua_State *L;
    const bot_code *code;
    const game_def *def;
    param_value params[MEEPLE_MAX_PARAMS];
    bot_limits lim;
    bool echo;
    int seat;

    /* Memory: bytes held (heap and states), the peak, and a refused growth not yet retried. */
    size_t used, peak;
    bool refused;
    const void *refused_ptr;
    size_t refused_osize, refused_nsize;

    /* The call running: instructions counted, its deadline (monotonic ms), its start. */
    long long steps;
    double start, deadline;
    call_kind call;
    bool in_call;            /* bot code may be running: the allocator may refuse for the clock */
    int close_depth;         /* coroutine closes running inside each other */

    bot_fault fault;
    char reason[256];
    guard_meter meter;       /* prices the guarded C calls (guards.h) */

    const void *st;          /* the true state during a call, for ctx.sample; NULL between calls */
    const action_t *acts;    /* the legal actions during choose, or NULL when given as texts */
    const char (*given)[MEEPLE_ACTION_TEXT];  /* the legal actions' texts, when given so */
    int n;
    bool probe;              /* bot_probe: the answer is not read */
    rng ctx_rng, sample_rng;
    /* The decisions seen (bot_saw) and not yet in ctx.history: given to it inside a limited call (when
     * the bot first reads it, then before each choose), so the bot's memory limit covers them. */
    struct seen { int player; char text[MEEPLE_PUBLIC_TEXT]; } *seen;
    int seen_n, seen_cap;
    uint32_t keys[MEEPLE_MAX_ACTIONS]; /* the legal actions' text keys (action_texts.h) */
    char texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT];
};


static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static bot *bot_of(lua_State *L) { return *(bot **)lua_getextraspace(L); }

/* =====================================================================================================
 * Limits
 * ===================================================================================================== */

/* Records why the bot is done; the first reason stands. */
static void set_fault(bot *b, bot_fault f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_fault(bot *b, bot_fault f, const char *fmt, ...) {
    if (b->fault) return;
    b->fault = f;
    va_list args;
    va_start(args, fmt);
    vsnprintf(b->reason, sizeof b->reason, fmt, args);
    va_end(args);
    static const char *const where[] = {" while loading", " in init", ""};
    size_t len = strlen(b->reason);
    if (f != BOT_ANSWER && f != BOT_ERROR && len < sizeof b->reason)
        snprintf(b->reason + len, sizeof b->reason - len, "%s", where[b->call]);
}

static volatile sig_atomic_t stop_asked;
void bot_interrupt(bool on) {
    stop_asked = on;
    extproc_interrupt(on);
}

static void trip_limits(bot *b) {
    if (b->fault) return;
    if (stop_asked)
        set_fault(b, BOT_TIME, "was stopped: the match was interrupted");
    else if (b->refused)
        set_fault(b, BOT_MEMORY, "exceeded the memory cap (%zu MiB)", b->lim.memory >> 20);
    else if (b->steps > b->lim.instructions)
        set_fault(b, BOT_INSTRUCTIONS, "exceeded the instruction budget (%lld per decision)",
                  b->lim.instructions);
    else if (now_ms() > b->deadline)
        set_fault(b, BOT_TIME, "exceeded the time limit (%.0f ms per decision)", b->lim.ms);
}

static void hook(lua_State *L, lua_Debug *ar);

/* Re-arms the hook to fire at every instruction of this thread and raises the bot's reason. */
static int raise_fault(lua_State *L, bot *b) {
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    return luaL_error(L, "%s", b->reason);
}

/* The count hook. Never removed; after a trip it fires at every instruction of every thread that
 * runs, so the error it raises reaches the host whatever pcalls stand in between. */
static void hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    bot *b = bot_of(L);
    if (!b->fault) {
        b->steps += BOT_HOOK_STEP;
        trip_limits(b);
    }
    if (b->fault) raise_fault(L, b);
}

/* Charges `steps` instructions for work done in C once it is done (a playout) and checks every
 * limit, the clock too: C work runs between the hook's calls. */
static void charge_steps(lua_State *L, bot *b, double steps) {
    b->steps += steps > 1e15 ? (long long)1e15 : (long long)steps;
    trip_limits(b);
    if (b->fault) raise_fault(L, b);
}

#define BIG_ALLOCATION ((size_t)64 << 10)

/* The allocator: refuses growth past the cap. Lua retries a refused allocation once after an
 * emergency collection; a retry that succeeds clears the refusal, any other leaves it for the hook. */
static void *bot_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    bot *b = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        b->used -= old;
        return NULL;
    }
    bool retry = b->refused && ptr == b->refused_ptr && osize == b->refused_osize && nsize == b->refused_nsize;
    /* One instruction can copy megabytes (a .. b of long strings) and the hook counts instructions:
     * a big allocation reads the clock, and once the call is over time or done, growth is refused,
     * so each further such instruction fails at once until the hook raises the bot's reason. */
    if (nsize > old && b->in_call && (b->fault || (nsize - old >= BIG_ALLOCATION && now_ms() > b->deadline))) {
        trip_limits(b);
        return NULL;
    }
    if (nsize > old && b->used + (nsize - old) > b->lim.memory) {
        b->refused = true;
        b->refused_ptr = ptr;
        b->refused_osize = osize;
        b->refused_nsize = nsize;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    b->used = b->used - old + nsize;
    if (b->used > b->peak) b->peak = b->used;
    if (retry) b->refused = false;
    return p;
}

/* Game states the bot holds live outside its heap: they count against the cap too. */
static void charge_state(lua_State *L, void *ud, long long bytes) {
    bot *b = ud;
    b->used = (size_t)((long long)b->used + bytes);
    if (b->used > b->peak) b->peak = b->used;
    if (bytes > 0 && b->used > b->lim.memory) {
        b->refused = true;
        b->refused_ptr = NULL;
        b->refused_osize = b->refused_nsize = 0;
        trip_limits(b);
        luaL_error(L, "%s", b->reason);
    }
}

/* Runs the function below `nargs` arguments under the limits: true, or false when the bot is done. */
static bool limited_call(bot *b, call_kind kind, int nargs, int nresults) {
    lua_State *L = b->L;
    b->call = kind;
    b->steps = 0;
    b->start = now_ms();
    b->deadline = b->start + b->lim.ms;
    b->in_call = true;
    b->close_depth = 0;
    int status = lua_pcall(L, nargs, nresults, 0);
    b->in_call = false;
    /* A long C call runs without the hook: the clock is read once more. */
    if (!b->fault && (b->refused || stop_asked || now_ms() > b->deadline)) trip_limits(b);
    if (status != LUA_OK && !b->fault) {
        if (status == LUA_ERRMEM) {
            b->refused = true;
            trip_limits(b);
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
    else if (b->fault && nresults > 0) lua_pop(L, nresults);
    return !b->fault;
}

/* =====================================================================================================
 * The sandbox's own functions
 * ===================================================================================================== */

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

static size_t memory_left(const bot *b) { return b->used < b->lim.memory ? b->lim.memory - b->used : 0; }

/* s:playout, a whole game in one call: charged PLAYOUT_STEPS instructions per decision it played
 * (about what a C decision costs in Lua instructions' time), and the clock read, once it returns (a
 * playout is a game's length: well under a millisecond). It runs in C, out of the hook's reach, and its
 * history grows in the host's heap, so it is given no more decisions than the instructions and memory
 * left pay for: a policy going round in circles ends at the budget, not past it. Upvalue 1: the
 * original. */
enum { PLAYOUT_STEPS = 100 };

static int sb_playout(lua_State *L) {
    bot *b = bot_of(L);
    long long steps_left = b->lim.instructions > b->steps ? b->lim.instructions - b->steps : 0;
    long long affordable = steps_left / PLAYOUT_STEPS + 1;
    long long room = (long long)(memory_left(b) / sizeof(history_entry)) + 1;
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
    charge_steps(L, b, (double)lua_tointeger(L, -1) * PLAYOUT_STEPS);
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
    bot *b = bot_of(L);
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
    bot *b = bot_of(L);
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

/* ---- C calls that run long without a Lua instruction ----
 *
 * Priced before they run by the guards (guards.h), through the bot's meter below: a call that cannot
 * fit is refused before it starts, and the refusal is the bot's forfeit, so the host never waits on a
 * C loop past the clock. */

/* Charges `steps` instructions for the C call `what` about to run, and refuses it, as the bot's
 * forfeit, when they overrun the budget or its worst case (`worst_ns`) cannot finish in time. The
 * bot's guard_meter price; `self` is not needed: the bot is the lua_State's. */
static void price_call(lua_State *L, guard_meter *self, const char *what, double steps, double worst_ns) {
    (void)self;
    bot *b = bot_of(L);
    if (!b->fault && (double)b->steps + steps > (double)b->lim.instructions)
        set_fault(b, BOT_INSTRUCTIONS, "exceeded the instruction budget (%lld per decision): %s would cost "
                  "%.0f instructions", b->lim.instructions, what, steps);
    if (!b->fault && worst_ns > GUARD_NS_NEGLIGIBLE) {
        double left = b->deadline - now_ms();
        if (worst_ns * 1e-6 > left)
            set_fault(b, BOT_TIME, "exceeded the time limit (%.0f ms per decision): %s could take too long "
                      "for the %.0f ms left", b->lim.ms, what, left > 0 ? left : 0);
    }
    if (b->fault) raise_fault(L, b);
    b->steps += steps > 1e15 ? (long long)1e15 : (long long)steps;
}

static size_t meter_memory_left(lua_State *L, guard_meter *self) {
    (void)self;
    return memory_left(bot_of(L));
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
    bot *b = bot_of(L);
    if (status == LUA_OK || status == LUA_YIELD) {
        lua_pushboolean(L, 1);
        lua_replace(L, 1);
        return lua_gettop(L);
    }
    if (b->fault) return raise_fault(L, b);
    if (status != LUA_ERRMEM) {
        lua_pushvalue(L, 1);
        lua_insert(L, -2);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK && b->fault) return raise_fault(L, b);
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
    bot *b = bot_of(L);
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

/* =====================================================================================================
 * ctx
 * ===================================================================================================== */

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
    if (n > 1) price_call(L, NULL, "ctx.rng:shuffle", (double)n, (double)n * 4 * GUARD_NS_SLOT);
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

/* ctx.sample(): the true state with everything the seat cannot see re-dealt, as a fresh state.
 * Upvalues: the state method `sample` and this game's template state, which holds a copy of the
 * true state only while the method runs. */
static int ctx_sample(lua_State *L) {
    bot *b = bot_of(L);
    if (!b->st) return luaL_error(L, "ctx.sample: only during init or choose");
    session *t = meeple_to_session(L, lua_upvalueindex(2));
    memcpy(t->now, b->st, b->def->state_size);
    memcpy(t->start, b->st, b->def->state_size);
    t->history_len = 0;
    lua_settop(L, 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushinteger(L, b->seat + 1);
    lua_pushinteger(L, (lua_Integer)(((uint64_t)rng_next(&b->sample_rng) << 31) ^ rng_next(&b->sample_rng)));
    int status = lua_pcall(L, 3, 1, 0);
    /* The template's copy of the true state is wiped at once, whatever happened. */
    memset(t->now, 0, b->def->state_size);
    memset(t->start, 0, b->def->state_size);
    if (status != LUA_OK) return lua_error(L);
    return 1;
}

/* ctx.clock(): milliseconds since this call (choose or init) began. */
static int ctx_clock(lua_State *L) {
    lua_pushnumber(L, now_ms() - bot_of(L)->start);
    return 1;
}

/* =====================================================================================================
 * Setting up a state
 * ===================================================================================================== */

/* Replaces lib[name] with a C closure over the original and, when `lib_name` is given, the
 * function's full name ("string.find") for messages. */
static void wrap(lua_State *L, int lib, const char *name, lua_CFunction fn, const char *lib_name) {
    lib = lua_absindex(L, lib);
    lua_getfield(L, lib, name);
    if (lib_name) lua_pushfstring(L, "%s.%s", lib_name, name);
    lua_pushcclosure(L, fn, lib_name ? 2 : 1);
    lua_setfield(L, lib, name);
}

/* Locks a metatable (getmetatable answers false; setmetatable is refused). */
static void lock_metatable(lua_State *L, int idx) {
    lua_pushboolean(L, 0);
    lua_setfield(L, idx < 0 ? idx - 1 : idx, "__metatable");
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

/* Under lua_pcall: opens the allowed libraries, cuts the globals to the allow list, adds the
 * sandbox's functions, and returns the values of SLOT_VIEW_MT .. SLOT_TEMPLATE (as placeholders). */
static int setup(lua_State *L) {
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
    lock_metatable(L, -1);
    lua_getfield(L, -1, "__index");
    wrap(L, -1, "playout", sb_playout, NULL);
    lua_getfield(L, -1, "sample");
    int sample_fn = lua_gettop(L);
    /* The string metatable, locked too: its __index is the string table, guarded below. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lock_metatable(L, -1);
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
    guards_install(L, &bot_of(L)->meter, g);
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
    /* ctx.rng's type. */
    luaL_newmetatable(L, "meeple.bot_rng");
    int rng_mt = lua_gettop(L);
    static const luaL_Reg rng_methods[] = {
        {"random", rng_random}, {"pick", rng_pick}, {"shuffle", rng_shuffle}, {NULL, NULL},
    };
    luaL_newlib(L, rng_methods);
    lua_setfield(L, rng_mt, "__index");
    lua_pushcfunction(L, rng_random);
    lua_setfield(L, rng_mt, "__call");
    lock_metatable(L, rng_mt);
    /* The values for SLOT_VIEW_MT .. SLOT_TEMPLATE. */
    lua_pushvalue(L, view_mt);
    lua_pushvalue(L, rng_mt);
    lua_pushvalue(L, sample_fn);
    lua_pushvalue(L, seeder);
    lua_pushnil(L); /* the template, made per game */
    return SLOT_COUNT - SLOT_VIEW_MT + 1;
}

bot *bot_new(const bot_code *code, const game_def *def, const param_value *params, const bot_limits *limits,
             bool echo) {
    bot *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->code = code;
    b->def = def;
    if (code->external) {
        b->ext = extbot_new(code->path, code->name, def, params, limits->ms,
                            limits->program_memory, echo);
        if (!b->ext) {
            free(b);
            return NULL;
        }
        return b;
    }
    memcpy(b->params, params, sizeof *params * (size_t)def->num_params); /* the rest stays zero */
    b->lim = *limits;
    b->echo = echo;
    lua_State *L = b->L = lua_newstate(bot_alloc, b);
    if (!L) {
        free(b);
        return NULL;
    }
    *(bot **)lua_getextraspace(L) = b;
    b->meter = (guard_meter){.price = price_call, .memory_left = meter_memory_left};
    /* Views and legal lists die young: generational collection leaves the long-lived rest alone. */
    lua_gc(L, LUA_GCGEN, 0, 0);
    lua_sethook(L, hook, LUA_MASKCOUNT, BOT_HOOK_STEP); /* before any bot code: never removed */
    meeple_set_charge(L, charge_state, b);
    /* The bot's file: SLOT_TABLE; then the places after it are filled. */
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushcfunction(L, setup);
    b->call = CALL_LOAD;
    b->start = now_ms();
    b->deadline = b->start + b->lim.ms;
    if (lua_pcall(L, 0, SLOT_COUNT - SLOT_VIEW_MT + 1, 0) != LUA_OK) {
        if (!b->fault) set_fault(b, BOT_ERROR, "the sandbox could not be set up: %s", lua_tostring(L, -1));
        lua_settop(L, SLOT_COUNT);
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
    if (!limited_call(b, CALL_LOAD, 0, 1)) return b;
    lua_replace(L, SLOT_TABLE);
    if (lua_type(L, SLOT_TABLE) != LUA_TTABLE) {
        set_fault(b, BOT_ERROR, "the file must return a table with a choose function, not a %s",
                  luaL_typename(L, SLOT_TABLE));
        return b;
    }
    lua_pushliteral(L, "choose");
    lua_rawget(L, SLOT_TABLE);
    lua_replace(L, SLOT_CHOOSE);
    if (lua_type(L, SLOT_CHOOSE) != LUA_TFUNCTION) {
        set_fault(b, BOT_ERROR, "the file's table has no choose function");
        return b;
    }
    lua_pushliteral(L, "init");
    lua_rawget(L, SLOT_TABLE);
    lua_replace(L, SLOT_INIT);
    if (!lua_isnil(L, SLOT_INIT) && lua_type(L, SLOT_INIT) != LUA_TFUNCTION)
        set_fault(b, BOT_ERROR, "the file's init is a %s, not a function", luaL_typename(L, SLOT_INIT));
    return b;
}

static void give_seen(lua_State *L, bot *b);

/* ctx's __index: ctx.history, made on first reading from the decisions seen so far, then kept in ctx
 * (append_history adds to it before each choose). */
static int history_index(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE); /* the metatable is locked, but a bot calls what it can reach */
    if (lua_type(L, 2) != LUA_TSTRING || strcmp(lua_tostring(L, 2), "history") != 0) return 0;
    lua_newtable(L);
    give_seen(L, bot_of(L));
    lua_pushliteral(L, "history");
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

/* Under lua_pcall with the rng metatable, the `sample` method and math.randomseed: seeds
 * math.random, returns this game's template state and ctx. */
static int begin_game(lua_State *L) {
    enum { RNG_MT = 1, SAMPLE, SEEDER, TEMPLATE };
    bot *b = bot_of(L);
    const void *st = b->st;
    int players = b->def->num_players(st);
    /* A state of this game for ctx.sample to copy the true one into (and wipe after). */
    reason why = {{0}};
    session *t = session_new(b->def, players, b->params, 1, &why);
    if (!t) return luaL_error(L, "cannot make a state for samples: %s", why.text);
    meeple_push_state(L, t); /* TEMPLATE */
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
    lock_metatable(L, -1);
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

bool bot_begin(bot *b, const void *st, int seat, uint64_t seed) {
    b->seat = seat;
    b->seen_n = 0;
    if (b->ext) return extbot_begin(b->ext, st, seat, seed);
    if (b->fault) return false;
    lua_State *L = b->L;
    b->st = st;
    /* Derived one-way: a bot can rebuild its generators from what they give it, and must learn
     * neither the game's seed (the deal) nor another seat's generators from them. */
    rng_seed(&b->ctx_rng, rng_derive(seed, (uint64_t)seat * 2 + 1), 0xc7);
    rng_seed(&b->sample_rng, rng_derive(seed, (uint64_t)seat * 2 + 2), 0x5a);
    lua_pushcfunction(L, begin_game);
    lua_pushvalue(L, SLOT_RNG_MT);
    lua_pushvalue(L, SLOT_SAMPLE);
    lua_pushvalue(L, SLOT_SEEDER);
    bool ok = limited_call(b, CALL_INIT, 3, 2);
    if (ok) {
        lua_replace(L, SLOT_CTX);
        lua_replace(L, SLOT_TEMPLATE);
    }
    if (ok && !lua_isnil(L, SLOT_INIT)) {
        lua_pushvalue(L, SLOT_INIT);
        lua_pushstring(L, b->def->name);
        lua_pushinteger(L, seat + 1);
        lua_pushvalue(L, SLOT_CTX);
        ok = limited_call(b, CALL_INIT, 3, 0);
    }
    b->st = NULL;
    return ok;
}

/* =====================================================================================================
 * Decisions
 * ===================================================================================================== */

/* Appends the decisions seen and not yet given to the table on top of the stack. */
static void give_seen(lua_State *L, bot *b) {
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

/* Brings ctx.history up to date before a choose, once the bot has read it (unless it replaced it). */
static void append_history(lua_State *L, bot *b, int ctx) {
    lua_pushliteral(L, "history");
    if (lua_rawget(L, ctx) == LUA_TTABLE) give_seen(L, b);
    lua_pop(L, 1);
}

/* Under lua_pcall with choose, the view metatable and ctx: the view (lazy_view.h: tables that fill
 * themselves when first read), the legal strings, and the call. */
static int decide(lua_State *L) {
    enum { CHOOSE = 1, VIEW_MT, CTX };
    bot *b = bot_of(L);
    const game_def *def = b->def;
    append_history(L, b, CTX);
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

/* The decision's position is the caller's: the bot must not keep it past the decision. */
static void forget_decision(bot *b) {
    b->st = NULL;
    b->acts = NULL;
    b->given = NULL;
}

/* Calls choose; the answer (on success) is left on the stack, and the decision's position stays
 * known for answer() until forget_decision. */
static bool run_decision(bot *b, const void *st, const action_t *acts, const char (*given)[MEEPLE_ACTION_TEXT],
                         int n) {
    if (b->fault) return false;
    if (lua_isnil(b->L, SLOT_CTX)) {
        set_fault(b, BOT_ERROR, "error: asked to choose before a game began (bot_begin)");
        return false;
    }
    b->st = st;
    b->acts = acts;
    b->given = given;
    b->n = n;
    lua_pushcfunction(b->L, decide);
    lua_pushvalue(b->L, SLOT_CHOOSE);
    lua_pushvalue(b->L, SLOT_VIEW_MT);
    lua_pushvalue(b->L, SLOT_CTX);
    return limited_call(b, CALL_CHOOSE, 3, 1);
}

/* The index of the bot's answer (on top of the stack) among the legal actions: by their text keys
 * when the host gave them as actions, else by their texts; -1 (the fault set) when it is none. */
static int answer(bot *b, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
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

/* An external bot's decision: the texts made here when given as actions. */
static int ext_choose(bot *b, const void *st, const action_t *acts, const char (*given)[MEEPLE_ACTION_TEXT], int n) {
    for (int i = 0; acts && i < n; i++) b->def->action_text(st, acts[i], b->texts[i]);
    return extbot_choose(b->ext, st, acts ? (const char(*)[MEEPLE_ACTION_TEXT])b->texts : given, n);
}

int bot_choose(bot *b, const void *st, const action_t *acts, int n) {
    if (b->ext) return ext_choose(b, st, acts, NULL, n);
    int k = run_decision(b, st, acts, NULL, n) ? answer(b, NULL, n) : -1;
    forget_decision(b);
    return k;
}

int bot_choose_text(bot *b, const void *st, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
    if (b->ext) return ext_choose(b, st, NULL, texts, n);
    int k = run_decision(b, st, NULL, texts, n) ? answer(b, texts, n) : -1;
    forget_decision(b);
    return k;
}

bool bot_probe(bot *b, const void *st, const action_t *acts, int n) {
    if (b->ext) return ext_choose(b, st, acts, NULL, n) >= 0; /* its answer must be read all the same */
    bool ok = run_decision(b, st, acts, NULL, n);
    if (ok) lua_pop(b->L, 1);
    forget_decision(b);
    return ok;
}

void bot_end(bot *b, const int *scores, const int *winners, int nwinners) {
    if (b && b->ext) extbot_end(b->ext, scores, winners, nwinners);
}

/* The next entry of the seen list, or NULL when out of memory (that entry is lost, nothing else). */
static struct seen *next_seen(bot *b) {
    if (b->seen_n == b->seen_cap) {
        int cap = b->seen_cap ? b->seen_cap * 2 : 64;
        struct seen *grown = realloc(b->seen, sizeof *grown * (size_t)cap);
        if (!grown) return NULL;
        b->seen = grown;
        b->seen_cap = cap;
    }
    return &b->seen[b->seen_n];
}

/* Called for every seat at every decision: no formatting unless the action is secret to this seat. */
void bot_saw(bot *b, const void *st, action_t a, const char *text) {
    const game_def *def = b->def;
    int player = def->to_move(st);
    char secret[MEEPLE_PUBLIC_TEXT];
    bool hidden = player != b->seat && def->public_text(st, a, b->seat, secret);
    if (b->ext) {
        extbot_saw(b->ext, player, hidden ? secret : text);
        return;
    }
    struct seen *e = b->fault ? NULL : next_seen(b);
    if (!e) return;
    e->player = player;
    const char *shown = hidden ? secret : text;
    size_t len = strnlen(shown, MEEPLE_PUBLIC_TEXT - 1);
    memcpy(e->text, shown, len);
    e->text[len] = '\0';
    b->seen_n++;
}

void bot_saw_text(bot *b, const void *st, const char *action) {
    action_t a;
    char canonical[MEEPLE_ACTION_TEXT] = "";
    if (b->def->parse_action(st, action, &a, NULL) && b->def->check(st, a, NULL))
        b->def->action_text(st, a, canonical);
    if (canonical[0] && strcmp(canonical, action) == 0) {
        bot_saw(b, st, a, canonical);
        return;
    }
    /* an action the house rules added: seen as it is */
    struct seen *e = b->ext || b->fault ? NULL : next_seen(b);
    if (b->ext) extbot_saw(b->ext, b->def->to_move(st), action);
    if (!e) return;
    e->player = b->def->to_move(st);
    snprintf(e->text, sizeof e->text, "%s", action);
    b->seen_n++;
}

bot_fault bot_fault_of(const bot *b) { return b->ext ? extbot_fault(b->ext) : b->fault; }
const char *bot_reason(const bot *b) { return b->ext ? extbot_reason(b->ext) : b->reason; }
const char *bot_name(const bot *b) { return b->code->name; }

size_t bot_memory(const bot *b, size_t *peak) {
    if (peak) *peak = b->peak;
    return b->used;
}

void bot_free(bot *b) {
    if (!b) return;
    extbot_free(b->ext);
    if (b->L) lua_close(b->L);
    free(b->seen);
    free(b);
}

/* =====================================================================================================
 * Bot files
 * ===================================================================================================== */

static bool is_dir_with(const char *dir, const char *file) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, R_OK) == 0;
}

/* Sets `out` to `dir` when it holds the helper library. */
static bool try_lib(char *out, size_t n, const char *dir) {
    if (!is_dir_with(dir, "rules.lua")) return false;
    char real[PATH_MAX];
    snprintf(out, n, "%s", realpath(dir, real) ? real : dir);
    return true;
}

void bot_lib_dir(const char *bot_path, char *out, size_t n) {
    char dir[PATH_MAX + 32];
    out[0] = '\0';
    const char *root = getenv("MEEPLE_ROOT");
    if (root && *root) {
        snprintf(dir, sizeof dir, "%s/bots/lib", root);
        snprintf(out, n, "%s", dir);
        try_lib(out, n, dir);
        return;
    }
    if (bot_path) {
        const char *slash = strrchr(bot_path, '/');
        if (slash) snprintf(dir, sizeof dir, "%.*s/lib", (int)(slash - bot_path), bot_path);
        else snprintf(dir, sizeof dir, "lib");
        if (try_lib(out, n, dir)) return;
    }
    if (meeple_find("bots/lib/rules.lua", dir, sizeof dir)) {
        *strrchr(dir, '/') = '\0';
        if (try_lib(out, n, dir)) return;
    }
    out[0] = '\0';
}

/* The bot's name for tables and logs: printable, short, without spaces. */
static void set_name(bot_code *code, const char *name, size_t len) {
    size_t k = 0;
    for (size_t i = 0; i < len && k < sizeof code->name - 1; i++) {
        unsigned char c = (unsigned char)name[i];
        code->name[k++] = c <= ' ' || c == '"' || c == '\\' || c >= 0x7f ? '_' : (char)c;
    }
    code->name[k] = '\0';
}

/* Tries the code once in a sandbox; takes its name. */
static bot_code *try_code(bot_code *code, const bot_limits *limits, char *err, size_t errn) {
    param_value params[MEEPLE_MAX_PARAMS] = {{0}};
    bot *b = bot_new(code, meeple_games[0], params, limits, false);
    if (!b) {
        snprintf(err, errn, "out of memory");
        bot_code_free(code);
        return NULL;
    }
    if (b->fault) {
        snprintf(err, errn, "bot file '%s': %s", code->path, b->reason);
        bot_free(b);
        bot_code_free(code);
        return NULL;
    }
    lua_pushliteral(b->L, "name");
    if (lua_rawget(b->L, SLOT_TABLE) == LUA_TSTRING) {
        size_t len;
        const char *name = lua_tolstring(b->L, -1, &len);
        set_name(code, name, len);
    }
    bot_free(b);
    return code;
}

bot_code *bot_code_from_text(const char *text, const char *chunkname, const bot_limits *limits,
                             char *err, size_t errn) {
    bot_code *code = calloc(1, sizeof *code);
    if (code) code->text = malloc(strlen(text) + 1);
    if (!code || !code->text) {
        free(code);
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    code->len = strlen(text);
    memcpy(code->text, text, code->len + 1);
    snprintf(code->path, sizeof code->path, "%s", chunkname);
    set_name(code, chunkname, strlen(chunkname));
    bot_lib_dir(NULL, code->lib_dir, sizeof code->lib_dir);
    return try_code(code, limits, err, errn);
}

/* A bot file is read only when it is a regular file of at most BOT_FILE_MAX bytes: a pipe or a device
 * named as a bot would block or never end, and compiling is not under the clock (Lua's parser takes
 * time that grows faster than the text), so the size is what bounds it. */
#define BOT_FILE_MAX ((size_t)1 << 20)

static char *read_bot_file(const char *path, size_t *len, char *err, size_t errn) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errn, "cannot read the bot file '%s'", path);
        if (fd >= 0) close(fd);
        return NULL;
    }
    const char *refusal = !S_ISREG(st.st_mode) ? "is not a regular file"
                          : (size_t)st.st_size > BOT_FILE_MAX ? "is larger than 1 MiB" : NULL;
    char *text = refusal ? NULL : malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (!text || got != (size_t)st.st_size) {
        snprintf(err, errn, "the bot file '%s' %s", path, refusal ? refusal : "cannot be read whole");
        free(text);
        return NULL;
    }
    text[got] = '\0';
    *len = got;
    return text;
}

bool bot_is_external(const char *arg) { return extbot_is_command(arg); }

/* An external bot's code: its command, checked, and its name; nothing is run yet. */
static bot_code *external_code(bot_code *code, const char *arg, char *err, size_t errn) {
    char name[64];
    if (extbot_check(arg, name, sizeof name, err, errn)) { /* which bounds it to fit `path` */
        code->external = true;
        snprintf(code->path, sizeof code->path, "%s", arg);
        set_name(code, name, strlen(name));
        return code;
    }
    free(code);
    return NULL;
}

bot_code *bot_code_load(const char *path, const bot_limits *limits, char *err, size_t errn) {
    bot_code *code = calloc(1, sizeof *code);
    if (!code) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    if (extbot_is_command(path) || extbot_is_program_file(path)) return external_code(code, path, err, errn);
    code->text = read_bot_file(path, &code->len, err, errn);
    if (!code->text) {
        free(code);
        return NULL;
    }
    if (code->len > 2 && memcmp(code->text, "#!", 2) == 0) { /* a program, not Lua: the mode forgotten */
        snprintf(err, errn, "the bot file '%s' is a script (#!) that is not executable: chmod +x it, or give "
                 "'exec:INTERPRETER %s'", path, path);
        bot_code_free(code);
        return NULL;
    }
    code->text[code->len] = '\0';
    snprintf(code->path, sizeof code->path, "%s", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0) len -= 4;
    set_name(code, base, len);
    bot_lib_dir(path, code->lib_dir, sizeof code->lib_dir);
    return try_code(code, limits, err, errn);
}

void bot_code_free(bot_code *code) {
    if (!code) return;
    free(code->text);
    free(code);
}
