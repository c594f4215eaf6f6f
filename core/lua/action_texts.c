/* action_texts.c — actions' canonical texts, interned per lua_State and game (action_texts.h).
 *
 * The registry holds, under &caches_key, a table from each game's definition (a light userdata) to its
 * cache: integer keys are text keys and hold the texts, string keys are texts and hold their keys, and
 * &count_key holds how many texts it has. */
#include "lua/action_texts.h"

#include <string.h>

#include <lauxlib.h>

static const char caches_key = 'c';
static const char count_key = 'n';

/* Pushes `def`'s cache, made (empty) when this lua_State has none yet. */
static void push_cache(lua_State *L, const game_def *def) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &caches_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &caches_key);
    }
    if (lua_rawgetp(L, -1, def) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 64);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, -3, def);
    }
    lua_remove(L, -2);
}

/* Counts a text into the cache at `cache`; a full cache is let go (its texts live on where they are
 * used), so the next push starts afresh. */
static void count_text(lua_State *L, int cache, const game_def *def) {
    lua_rawgetp(L, cache, &count_key);
    lua_Integer count = lua_tointeger(L, -1) + 1;
    lua_pop(L, 1);
    lua_pushinteger(L, count);
    lua_rawsetp(L, cache, &count_key);
    if (count < ACTION_TEXTS_MAX) return;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &caches_key);
    lua_pushnil(L);
    lua_rawsetp(L, -2, def);
    lua_pop(L, 1);
}

/* Pushes the text of `a` (key `key`), formatting and recording it in the cache at `cache` when new. */
static void push_text(lua_State *L, int cache, const game_def *def, const void *st, action_t a, uint32_t key) {
    if (lua_rawgeti(L, cache, (lua_Integer)key) == LUA_TSTRING) return;
    lua_pop(L, 1);
    char text[MEEPLE_ACTION_TEXT];
    def->action_text(st, a, text);
    lua_pushstring(L, text);
    lua_pushvalue(L, -1);
    lua_rawseti(L, cache, (lua_Integer)key);
    lua_pushvalue(L, -1);
    lua_pushinteger(L, (lua_Integer)key);
    lua_rawset(L, cache);
    count_text(L, cache, def);
}

void action_texts_push(lua_State *L, const game_def *def, const void *st, const action_t *acts, int n,
                       uint32_t *keys) {
    luaL_checkstack(L, 6, "action texts");
    push_cache(L, def);
    int cache = lua_gettop(L);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        uint32_t key = action_text_key(def, st, acts[i]);
        if (keys) keys[i] = key;
        push_text(L, cache, def, st, acts[i], key);
        lua_rawseti(L, -2, i + 1);
    }
    lua_remove(L, cache);
}

/* The slow way, for a text the cache no longer knows (it started afresh during the bot's call). */
static int find_by_formatting(const char *chosen, size_t len, const game_def *def, const void *st,
                              const action_t *acts, int n) {
    for (int i = 0; i < n; i++) {
        char text[MEEPLE_ACTION_TEXT];
        def->action_text(st, acts[i], text);
        if (strlen(text) == len && memcmp(text, chosen, len) == 0) return i;
    }
    return -1;
}

int action_texts_find(lua_State *L, int idx, const game_def *def, const void *st, const action_t *acts,
                      const uint32_t *keys, int n) {
    if (lua_type(L, idx) != LUA_TSTRING) return -1;
    size_t len;
    const char *chosen = lua_tolstring(L, idx, &len);
    if (!lua_checkstack(L, 3)) return find_by_formatting(chosen, len, def, st, acts, n);
    idx = lua_absindex(L, idx);
    int top = lua_gettop(L);
    int found = -2; /* -2: the cache cannot tell */
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &caches_key) == LUA_TTABLE && lua_rawgetp(L, -1, def) == LUA_TTABLE) {
        lua_pushvalue(L, idx);
        if (lua_rawget(L, -2) == LUA_TNUMBER) {
            uint32_t key = (uint32_t)lua_tointeger(L, -1);
            found = -1;
            for (int i = 0; i < n && found < 0; i++)
                if (keys[i] == key) found = i;
        }
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    return found >= -1 ? found : find_by_formatting(chosen, len, def, st, acts, n);
}
