/* fuzz_table.c — meeple.from_table over a Lua table built from JSON (objects are maps, arrays lists, a
 * key "[3]" the integer key 3 as in params by player count). The table goes through the real binding:
 * the Lua tree reader, the game's read_table, then validate; what it accepts is exercised. */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "fuzz.h"
#include "jsonl.h"
#include "lmeeple.h"

static void push_json(lua_State *L, const jsonl_value *v, int depth);

/* "[12]" as the integer 12; false for any other key. */
static bool integer_key(const char *key, lua_Integer *out) {
    if (key[0] != '[') return false;
    char *end;
    long long n = strtoll(key + 1, &end, 10);
    if (end == key + 1 || strcmp(end, "]") != 0) return false;
    *out = n;
    return true;
}

static void push_json(lua_State *L, const jsonl_value *v, int depth) {
    luaL_checkstack(L, 4, "fuzz_table");
    switch (v->kind) {
    case JSONL_NULL: lua_pushnil(L); break;
    case JSONL_BOOL: lua_pushboolean(L, v->boolean); break;
    case JSONL_NUMBER:
        /* Whole numbers in range become integers, as a Lua table written by hand would hold them. */
        if (v->number > -9e18 && v->number < 9e18 && v->number == (double)(lua_Integer)v->number)
            lua_pushinteger(L, (lua_Integer)v->number);
        else
            lua_pushnumber(L, v->number);
        break;
    case JSONL_STRING: lua_pushstring(L, v->string); break;
    case JSONL_ARRAY:
        lua_createtable(L, v->count, 0);
        for (int i = 0; i < v->count; i++) {
            push_json(L, &v->items[i], depth + 1);
            lua_rawseti(L, -2, i + 1);
        }
        break;
    case JSONL_OBJECT:
        lua_createtable(L, 0, v->count);
        for (int i = 0; i < v->count; i++) {
            lua_Integer k;
            /* A variant names a file to load: not this target's business (and not the fuzzer's to
             * read the disk with). */
            if (depth == 0 && strcmp(v->keys[i], "variant") == 0) continue;
            if (integer_key(v->keys[i], &k)) lua_pushinteger(L, k);
            else lua_pushstring(L, v->keys[i]);
            push_json(L, &v->items[i], depth + 1);
            lua_rawset(L, -3);
        }
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size), err[200];
    if (!text) return 0;
    jsonl_value *v = jsonl_parse(text, err, sizeof err);
    free(text);
    if (!v) return 0;
    lua_State *L = fuzz_lua();
    lua_getglobal(L, "meeple");
    lua_getfield(L, -1, "from_table");
    push_json(L, v, 0);
    jsonl_free(v);
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
