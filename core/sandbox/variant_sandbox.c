/* variant_sandbox.c — limits for a variant's hooks inside the caller's lua_State (variant_sandbox.h).
 *
 * A bot has a lua_State of its own; a variant cannot: its hooks work on the caller's states. So the
 * limits are put on for the length of one hook call and taken off after, leaving the caller's own
 * hook (the shell's Ctrl-C) and allocator as they were:
 *   - a count hook adds up instructions and reads the clock; once a limit breaks it fires at every
 *     instruction, so no pcall inside the variant can swallow the error and carry on;
 *   - the state's allocator is wrapped to refuse growth past the cap (frees always pass). Memory
 *     allocated under the wrapper is the same allocator's, so it may be freed after the unwrapping;
 *   - C library calls that could run long without an instruction (a pattern, string.rep) are priced
 *     before they run by the guards (guards.h) over the limits' meter: the variant's environment gets
 *     guarded copies (raw.guarded_libs), and string methods ("s:find") reach a guarded string table
 *     too, swapped in as the string metatable's __index for the length of the call. */
#define _XOPEN_SOURCE 700 /* clock_gettime, O_CLOEXEC */

#include "sandbox/variant_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sandbox/guards.h"

#include "host/text.h"

#define HOOK_STEP 1000

typedef struct limits {
    int depth;             /* limited calls running; only the outermost puts the limits on */
    long long steps;
    double deadline;       /* monotonic ms */
    long long grown;       /* bytes allocated less bytes freed since the outermost call began */
    long long cap;         /* what this call may add: VARIANT_MEMORY, less if the heap is near its bound */
    bool refused;          /* an allocation was refused for the cap */
    char broken[192];      /* why the call is stopped, or "" */
    char label[128];       /* what runs now ("variant X, hook Y"), for the reason; "" when unnamed */
    lua_Alloc alloc;       /* the state's own allocator, while wrapped */
    void *alloc_ud;
    lua_Hook old_hook;     /* the caller's hook, put back after */
    int old_mask, old_count;
    guard_meter meter;     /* prices the guarded C calls against these limits */
} limits;

static const char limits_key = 'l';
static const char methods_key = 'm'; /* the guarded string table for string methods */
static const char swapped_key = 's'; /* {string metatable, its own __index} during a limited call */

static void meter_price(lua_State *L, guard_meter *self, const char *what, double steps, double worst_ns);
static size_t meter_memory_left(lua_State *L, guard_meter *self);

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* This lua_State's limits, made once and kept in the registry (so the allocator's pointer to them
 * stays valid: userdata never move). */
static limits *limits_of(lua_State *L) {
    limits *lim;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &limits_key) == LUA_TUSERDATA) {
        lim = lua_touserdata(L, -1);
    } else {
        lua_pop(L, 1);
        lim = lua_newuserdatauv(L, sizeof *lim, 0);
        memset(lim, 0, sizeof *lim);
        lim->meter = (guard_meter){.price = meter_price, .memory_left = meter_memory_left};
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &limits_key);
    }
    lua_pop(L, 1);
    return lim;
}

static void check_limits(limits *lim) {
    if (lim->broken[0]) return;
    if (lim->refused)
        snprintf(lim->broken, sizeof lim->broken, "exceeded the memory limit (%zu MiB per call into the variant, %zu MiB "
                 "in all)", VARIANT_MEMORY >> 20, VARIANT_HEAP >> 20);
    else if (lim->steps > VARIANT_INSTRUCTIONS)
        snprintf(lim->broken, sizeof lim->broken, "exceeded the instruction limit (%lld per call into the variant)",
                 VARIANT_INSTRUCTIONS);
    else if (now_ms() > lim->deadline)
        snprintf(lim->broken, sizeof lim->broken, "exceeded the time limit (%.0f ms per call into the variant)", VARIANT_MS);
}

static void count_hook(lua_State *L, lua_Debug *ar);

/* Raises why the call is stopped, with the hook re-armed to every instruction so that no pcall in
 * the variant can carry on past it. */
static void raise_broken(lua_State *L, limits *lim) {
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    luaL_error(L, "%s", lim->broken);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    limits *lim = limits_of(L);
    lim->steps += HOOK_STEP;
    check_limits(lim);
    if (lim->broken[0]) raise_broken(L, lim);
}

/* ---- The meter for guarded C calls ---- */

static limits *limits_of_meter(guard_meter *m) { return (limits *)(void *)((char *)m - offsetof(limits, meter)); }

/* Outside a limited call the caller's own code runs, unlimited: nothing to price. Inside, the call's
 * instructions are charged, and a call that cannot finish before the deadline is refused first. */
static void meter_price(lua_State *L, guard_meter *self, const char *what, double steps, double worst_ns) {
    limits *lim = limits_of_meter(self);
    if (lim->depth == 0) return;
    if (!lim->broken[0] && (double)lim->steps + steps > (double)VARIANT_INSTRUCTIONS)
        snprintf(lim->broken, sizeof lim->broken, "exceeded the instruction limit (%lld per call into the variant): %s "
                 "would cost %.0f instructions", VARIANT_INSTRUCTIONS, what, steps);
    if (!lim->broken[0] && worst_ns > GUARD_NS_NEGLIGIBLE) {
        double left = lim->deadline - now_ms();
        if (worst_ns * 1e-6 > left)
            snprintf(lim->broken, sizeof lim->broken, "exceeded the time limit (%.0f ms per call into the variant): %s "
                     "could take too long for the %.0f ms left", VARIANT_MS, what, left > 0 ? left : 0);
    }
    if (lim->broken[0]) raise_broken(L, lim);
    lim->steps += steps > 1e15 ? (long long)1e15 : (long long)steps;
}

static size_t meter_memory_left(lua_State *L, guard_meter *self) {
    (void)L;
    limits *lim = limits_of_meter(self);
    if (lim->depth == 0) return SIZE_MAX;
    long long left = lim->cap - lim->grown; /* more than the cap once the call freed */
    return left > 0 ? (size_t)left : 0;
}

/* Pushes a copy of the table at `idx` without the field `skip` (may be NULL). */
static void push_copy(lua_State *L, int idx, const char *skip) {
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (skip && lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), skip) == 0) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
}

/* Sets libs[name] to a copy of the standard library `name` (as loaded), without `skip`. */
static void copy_lib(lua_State *L, int libs, const char *name, const char *skip) {
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, name) == LUA_TTABLE) {
        push_copy(L, -1, skip);
        lua_setfield(L, libs, name);
    }
    lua_pop(L, 2);
}

int variant_guarded_libs(lua_State *L) {
    limits *lim = limits_of(L);
    lua_newtable(L);
    int libs = lua_gettop(L);
    copy_lib(L, libs, LUA_STRLIBNAME, "dump");
    copy_lib(L, libs, LUA_TABLIBNAME, NULL);
    copy_lib(L, libs, LUA_UTF8LIBNAME, NULL);
    lua_getglobal(L, "tonumber");
    lua_setfield(L, libs, "tonumber");
    guards_install(L, &lim->meter, libs);
    return 1;
}

/* ---- String methods ---- */

/* The guarded string table methods reach during a limited call: made once from the string
 * metatable's own __index, kept where no variant can write to it. */
static void push_methods(lua_State *L, limits *lim, int original) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &methods_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_newtable(L);
    push_copy(L, original, "dump");
    lua_setfield(L, -2, LUA_STRLIBNAME);
    guards_install(L, &lim->meter, -1);
    lua_getfield(L, -1, LUA_STRLIBNAME);
    lua_remove(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &methods_key);
}

/* Makes "s:find(...)" reach the guarded string table until unswap_methods; the metatable and its
 * own __index are kept in the registry meanwhile. Done before the allocator is wrapped. */
static void swap_methods(lua_State *L, limits *lim) {
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    int mt = lua_gettop(L);
    if (lua_getfield(L, mt, "__index") != LUA_TTABLE) {
        lua_pop(L, 3);
        return;
    }
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, mt);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, mt + 1);
    lua_rawseti(L, -2, 2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &swapped_key);
    push_methods(L, lim, mt + 1);
    lua_setfield(L, mt, "__index");
    lua_pop(L, 3);
}

/* Puts the string metatable's own __index back. Reads the registry only: nothing to allocate. */
static void unswap_methods(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &swapped_key) == LUA_TTABLE) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        lua_setfield(L, -2, "__index");
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &swapped_key);
    }
    lua_pop(L, 1);
}

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    limits *lim = ud;
    size_t old = ptr ? osize : 0;
    if (nsize > old && lim->grown + (long long)(nsize - old) > lim->cap) {
        lim->refused = true;
        return NULL;
    }
    void *p = lim->alloc(lim->alloc_ud, ptr, osize, nsize);
    if (p || nsize == 0) lim->grown += (long long)nsize - (long long)old;
    return p;
}

/* The heap in bytes, after a full collection when it is large: what the variant kept from earlier
 * calls (in its upvalues) is then all that stands between it and the bound. */
static long long heap_bytes(lua_State *L) {
    long long bytes = (long long)lua_gc(L, LUA_GCCOUNT) * 1024 + lua_gc(L, LUA_GCCOUNTB);
    if (bytes < (long long)(VARIANT_HEAP / 2)) return bytes;
    lua_gc(L, LUA_GCCOLLECT);
    return (long long)lua_gc(L, LUA_GCCOUNT) * 1024 + lua_gc(L, LUA_GCCOUNTB);
}

static void put_on(lua_State *L, limits *lim) {
    /* A call may add VARIANT_MEMORY, and never take the state's heap past VARIANT_HEAP: memory kept
     * across calls counts too. */
    long long room = (long long)VARIANT_HEAP - heap_bytes(L);
    lim->cap = room < (long long)VARIANT_MEMORY ? (room > 0 ? room : 0) : (long long)VARIANT_MEMORY;
    swap_methods(L, lim);
    lim->steps = lim->grown = 0;
    lim->refused = false;
    lim->broken[0] = '\0';
    lim->deadline = now_ms() + VARIANT_MS;
    lim->old_hook = lua_gethook(L);
    lim->old_mask = lua_gethookmask(L);
    lim->old_count = lua_gethookcount(L);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
    lim->alloc = lua_getallocf(L, &lim->alloc_ud);
    lua_setallocf(L, capped_alloc, lim);
}

static void take_off(lua_State *L, limits *lim) {
    lua_setallocf(L, lim->alloc, lim->alloc_ud);
    lua_sethook(L, lim->old_hook, lim->old_mask, lim->old_count);
    unswap_methods(L);
}

int variant_limited(lua_State *L) {
    const char *label = luaL_optstring(L, 1, "");
    luaL_checktype(L, 2, LUA_TFUNCTION);
    limits *lim = limits_of(L);
    char outer[sizeof lim->label]; /* put back on a normal return; an error leaves the innermost */
    memcpy(outer, lim->label, sizeof outer);
    if (*label) snprintf(lim->label, sizeof lim->label, "%s", label);
    lua_remove(L, 1);
    int nargs = lua_gettop(L) - 1;
    if (lim->depth > 0) { /* inside a limited call already: its budget, its error handling */
        lua_call(L, nargs, LUA_MULTRET);
        memcpy(lim->label, outer, sizeof outer);
        return lua_gettop(L);
    }
    put_on(L, lim);
    lim->depth = 1;
    int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
    lim->depth = 0;
    /* A long C call (a pattern, a sort) runs between the hook's counts: the clock once more. */
    check_limits(lim);
    take_off(L, lim);
    /* Once a limit broke, no Lua code could add the hook's name to the reason: it is added here. */
    char where[sizeof lim->label];
    memcpy(where, lim->label, sizeof where);
    lim->label[0] = '\0';
    if (lim->broken[0]) return luaL_error(L, "%s%s%s", where, where[0] ? ": " : "", lim->broken);
    if (status != LUA_OK) return lua_error(L);
    return lua_gettop(L);
}

/* ---- Reading a variant file ---- */

static int refuse(lua_State *L, int fd, const char *fmt, const char *path) {
    if (fd >= 0) close(fd);
    lua_pushnil(L);
    lua_pushfstring(L, fmt, path);
    return 2;
}

int variant_read_file(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before it is seen not to be a file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        bool missing = errno == ENOENT || errno == ENOTDIR;
        lua_pushnil(L);
        lua_pushfstring(L, "variant file '%s' cannot be read: %s", path, strerror(errno));
        lua_pushboolean(L, missing);
        return 3;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return refuse(L, fd, "variant file '%s' is not a regular file", path);
    if (st.st_size > VARIANT_FILE_MAX) return refuse(L, fd, "variant file '%s' is larger than 1 MiB", path);
    luaL_Buffer b;
    char *text = luaL_buffinitsize(L, &b, (size_t)st.st_size + 1);
    size_t got = 0;
    for (;;) { /* up to one byte past the size seen: a file growing meanwhile is refused */
        ssize_t n = read(fd, text + got, (size_t)st.st_size + 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
        if (got > (size_t)st.st_size) break;
    }
    close(fd);
    if (got > (size_t)st.st_size) return refuse(L, -1, "variant file '%s' changed while it was read", path);
    luaL_pushresultsize(&b, got);
    return 1;
}

int variant_names(lua_State *L) {
    const char *folder = luaL_checkstring(L, 1);
    lua_newtable(L);
    DIR *dir = opendir(folder);
    if (!dir) return 1;
    int n = 0;
    for (struct dirent *e; n < 1000 && (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len < 128 && strcmp(e->d_name + len - 4, ".lua") == 0) {
            lua_pushlstring(L, e->d_name, len - 4);
            lua_rawseti(L, -2, ++n);
        }
    }
    closedir(dir);
    return 1;
}

/* print(...): Lua's, with control characters escaped (text.h) — newlines too, so a variant can
 * neither move the terminal's cursor nor write a line that passes for the host's. */
int variant_print(lua_State *L) {
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *text = luaL_tolstring(L, i, &len);
        if (i > 1) fputc('\t', stdout);
        text_write(stdout, text, len, false);
        lua_pop(L, 1);
    }
    fputc('\n', stdout);
    fflush(stdout);
    return 0;
}
