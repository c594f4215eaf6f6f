/* variant_sandbox.c — limits for a variant's hooks inside the caller's lua_State (variant_sandbox.h).
 *
 * A bot has a lua_State of its own; a variant cannot: its hooks work on the caller's states. So the
 * limits engine (limits.h) is put on for the length of one hook call and taken off after, leaving the
 * caller's own hook (the shell's Ctrl-C) and allocator as they were:
 *   - the engine's count hook replaces the caller's for the call;
 *   - the state's allocator is wrapped by the engine's, which hands on to it (frees always pass).
 *     Memory allocated under the wrapper is the same allocator's, so it may be freed after the
 *     unwrapping;
 *   - C library calls that could run long without an instruction (a pattern, string.rep) are priced
 *     before they run by the guards (guards.h) over the engine's meter: the variant's environment gets
 *     guarded copies (raw.guarded_libs), and string methods ("s:find") reach a guarded string table
 *     too, swapped in as the string metatable's __index for the length of the call. */
#define _XOPEN_SOURCE 700 /* O_CLOEXEC */

#include "sandbox/variant_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sandbox/guards.h"
#include "sandbox/limits.h"

#include "host/text.h"

/* This lua_State's variant limits: the engine's, and what a limited call puts back after. */
typedef struct variant_limits {
    limits lim;
    int depth;             /* limited calls running; only the outermost puts the limits on */
    char label[128];       /* what runs now ("variant X, hook Y"), for the reason; "" when unnamed */
    lua_Hook old_hook;     /* the caller's hook, put back after */
    int old_mask, old_count;
} variant_limits;

static const char variant_key = 'l'; /* this state's variant_limits */
static const char methods_key = 'm'; /* the guarded string table for string methods */
static const char swapped_key = 's'; /* {string metatable, its own __index} during a limited call */

static int variant_words(const limits *lim, limits_kind kind, char *out, size_t n) {
    (void)lim;
    if (kind == LIMITS_MEMORY)
        snprintf(out, n, "exceeded the memory limit (%zu MiB per call into the variant, %zu MiB in all)",
                 VARIANT_MEMORY >> 20, VARIANT_HEAP >> 20);
    else if (kind == LIMITS_INSTRUCTIONS)
        snprintf(out, n, "exceeded the instruction limit (%lld per call into the variant)", VARIANT_INSTRUCTIONS);
    else
        snprintf(out, n, "exceeded the time limit (%.0f ms per call into the variant)", VARIANT_MS);
    return 1;
}

/* This lua_State's limits, made once and kept in the registry (so the allocator's pointer to them
 * stays valid: userdata never move). */
static variant_limits *limits_here(lua_State *L) {
    variant_limits *v;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &variant_key) == LUA_TUSERDATA) {
        v = lua_touserdata(L, -1);
    } else {
        lua_pop(L, 1);
        /* A state limited already (a bot's) keeps its own limits: a variant's would lift them. */
        if (limits_of(L)) luaL_error(L, "a variant cannot run inside a bot's sandbox");
        v = lua_newuserdatauv(L, sizeof *v, 0);
        memset(v, 0, sizeof *v);
        limits_init(&v->lim, VARIANT_INSTRUCTIONS, VARIANT_MS, 0, variant_words);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &variant_key);
    }
    lua_pop(L, 1);
    return v;
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
    limits *lim = &limits_here(L)->lim;
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

/* The heap in bytes, after a full collection when it is large: what the variant kept from earlier
 * calls (in its upvalues) is then all that stands between it and the bound. */
static long long heap_bytes(lua_State *L) {
    long long bytes = (long long)lua_gc(L, LUA_GCCOUNT) * 1024 + lua_gc(L, LUA_GCCOUNTB);
    if (bytes < (long long)(VARIANT_HEAP / 2)) return bytes;
    lua_gc(L, LUA_GCCOLLECT);
    return (long long)lua_gc(L, LUA_GCCOUNT) * 1024 + lua_gc(L, LUA_GCCOUNTB);
}

static void put_on(lua_State *L, variant_limits *v) {
    limits *lim = &v->lim;
    /* A call may add VARIANT_MEMORY, and never take the state's heap past VARIANT_HEAP: memory kept
     * across calls counts too. */
    long long room = (long long)VARIANT_HEAP - heap_bytes(L);
    size_t cap = room < (long long)VARIANT_MEMORY ? (room > 0 ? (size_t)room : 0) : VARIANT_MEMORY;
    swap_methods(L, lim);
    /* What the call adds is counted from the heap's size now (every byte the allocator holds), or,
     * where Lua tells none (-1, in a finalizer), from a base no free can take below zero. */
    int kib = lua_gc(L, LUA_GCCOUNT), bytes = lua_gc(L, LUA_GCCOUNTB);
    lim->used = kib < 0 || bytes < 0 ? SIZE_MAX / 2 : (size_t)kib * 1024 + (size_t)bytes;
    lim->memory = lim->used + cap;
    lim->refused = false;
    lim->fault = 0;
    lim->reason[0] = '\0';
    limits_begin_call(lim);
    v->old_hook = lua_gethook(L);
    v->old_mask = lua_gethookmask(L);
    v->old_count = lua_gethookcount(L);
    lua_sethook(L, limits_hook, LUA_MASKCOUNT, LIMITS_HOOK_STEP);
    lim->base = lua_getallocf(L, &lim->base_ud);
    lua_setallocf(L, limits_alloc, lim);
}

static void take_off(lua_State *L, variant_limits *v) {
    lua_setallocf(L, v->lim.base, v->lim.base_ud);
    lua_sethook(L, v->old_hook, v->old_mask, v->old_count);
    unswap_methods(L);
}

int variant_limited(lua_State *L) {
    const char *label = luaL_optstring(L, 1, "");
    luaL_checktype(L, 2, LUA_TFUNCTION);
    variant_limits *v = limits_here(L);
    char outer[sizeof v->label]; /* put back on a normal return; an error leaves the innermost */
    memcpy(outer, v->label, sizeof outer);
    if (*label) snprintf(v->label, sizeof v->label, "%s", label);
    lua_remove(L, 1);
    int nargs = lua_gettop(L) - 1;
    if (v->depth > 0) { /* inside a limited call already: its budget, its error handling */
        lua_call(L, nargs, LUA_MULTRET);
        memcpy(v->label, outer, sizeof outer);
        return lua_gettop(L);
    }
    put_on(L, v);
    v->depth = 1;
    int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
    v->depth = 0;
    limits_end_call(&v->lim);
    take_off(L, v);
    /* Once a limit broke, no Lua code could add the hook's name to the reason: it is added here. */
    char where[sizeof v->label];
    memcpy(where, v->label, sizeof where);
    v->label[0] = '\0';
    if (v->lim.fault) return luaL_error(L, "%s%s%s", where, where[0] ? ": " : "", v->lim.reason);
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
