/* fuzz_table.c — meeple.from_table over a Lua table built from JSON (objects are maps, arrays lists, a
 * key "[3]" the integer key 3 as in params by player count). The table goes through the real binding:
 * the Lua tree reader, the game's read_table, then validate; what it accepts is exercised. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <lauxlib.h>

#include "fuzz.h"
#include "lua/lmeeple.h"

static void push_json(lua_State *L, const json_t *v, int depth);

/* "[12]" as the integer 12; false for any other key. */
static bool integer_key(const char *key, lua_Integer *out) {
    if (key[0] != '[') return false;
    char *end;
    long long n = strtoll(key + 1, &end, 10);
    if (end == key + 1 || strcmp(end, "]") != 0) return false;
    *out = n;
    return true;
}

static void push_json(lua_State *L, const json_t *v, int depth) {
    luaL_checkstack(L, 4, "fuzz_table");
    switch (json_typeof(v)) {
    case JSON_NULL: lua_pushnil(L); break;
    case JSON_TRUE:
    case JSON_FALSE: lua_pushboolean(L, json_is_true(v)); break;
    case JSON_INTEGER: lua_pushinteger(L, (lua_Integer)json_integer_value(v)); break;
    case JSON_REAL: {
        /* Whole numbers in range become integers, as a Lua table written by hand would hold them. */
        double x = json_real_value(v);
        if (x > -9e18 && x < 9e18 && x == (double)(lua_Integer)x) lua_pushinteger(L, (lua_Integer)x);
        else lua_pushnumber(L, x);
        break;
    }
    case JSON_STRING: lua_pushlstring(L, json_string_value(v), json_string_length(v)); break;
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        lua_createtable(L, (int)n, 0);
        for (size_t i = 0; i < n; i++) {
            push_json(L, json_array_get(v, i), depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    }
    case JSON_OBJECT: {
        const char *key;
        json_t *item;
        lua_createtable(L, 0, (int)json_object_size(v));
        json_object_foreach((json_t *)v, key, item) {
            lua_Integer k;
            /* A variant names a file to load: not this target's business (and not the fuzzer's to
             * read the disk with). */
            if (depth == 0 && strcmp(key, "variant") == 0) continue;
            if (integer_key(key, &k)) lua_pushinteger(L, k);
            else lua_pushstring(L, key);
            push_json(L, item, depth + 1);
            lua_rawset(L, -3);
        }
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    json_error_t error;
    json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY, &error);
    if (!v) return 0;
    lua_State *L = fuzz_lua();
    lua_getglobal(L, "meeple");
    lua_getfield(L, -1, "from_table");
    push_json(L, v, 0);
    json_decref(v);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        const char *why = lua_tostring(L, -1);
        if (!why || !why[0] || strchr(why, '\n')) fuzz_fail("from_table refused without a one-line reason: %s", why ? why : "(none)");
    } else {
        session *s = meeple_to_session(L, -1);
        if (!s) fuzz_fail("from_table returned no state");
        fuzz_exercise(s);
    }
    lua_settop(L, 0);
    return 0;
}
