/* luajson.c — Lua values to JSON and back (see luajson.h). */
#include "lua/luajson.h"
#include "host/shortest_json.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

/* The address that is meeple.json.null: a light userdata no other value can equal. */
static const char json_null_tag = 0;
#define LUA_JSON_NULL ((void *)&json_null_tag)

/* Where in the value the encoder is, for a reason that says where the trouble is ("players[2].hand"). */
typedef struct json_path {
    char text[200];
    size_t len;
} json_path;

typedef struct encoder {
    lua_State *L;
    json_path path;
    char *err;
    size_t errn;
} encoder;

static json_t *fail(encoder *e, const char *what) {
    if (e->path.len) snprintf(e->err, e->errn, "%s: %s", e->path.text, what);
    else snprintf(e->err, e->errn, "%s", what);
    return NULL;
}

/* Appends ".key" or "[i]" to the path; returns the old length, to restore it. */
static size_t path_push(json_path *p, const char *key, lua_Integer index) {
    size_t old = p->len, room = sizeof p->text - p->len;
    int n = key ? snprintf(p->text + p->len, room, "%s%.40s", p->len ? "." : "", key)
                : snprintf(p->text + p->len, room, "[%lld]", (long long)index);
    if (n > 0) p->len += (size_t)n < room ? (size_t)n : room - 1;
    return old;
}

static void path_pop(json_path *p, size_t old) {
    p->len = old;
    p->text[old] = '\0';
}

static json_t *encode_at(encoder *e, int idx, int depth);

/* How the table at `idx` maps: its array length n (keys exactly 1..n), or -1 for an object (all keys
 * strings), or -2 for neither. */
static lua_Integer table_shape(lua_State *L, int idx) {
    lua_Integer count = 0, max = 0;
    bool strings = false, integers = false;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            strings = true;
        } else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) {
            integers = true;
            lua_Integer k = lua_tointeger(L, -1);
            if (k > max) max = k;
        } else {
            lua_pop(L, 1);
            return -2;
        }
        count++;
    }
    if (strings) return integers ? -2 : -1;
    return max == count ? count : -2;
}

static json_t *encode_array(encoder *e, int idx, lua_Integer n, int depth) {
    json_t *array = json_array();
    if (!array) return fail(e, "out of memory");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(e->L, idx, i);
        size_t old = path_push(&e->path, NULL, i);
        json_t *item = encode_at(e, lua_gettop(e->L), depth + 1);
        path_pop(&e->path, old);
        lua_pop(e->L, 1);
        if (!item || json_array_append_new(array, item) != 0) {
            json_decref(array);
            return item ? fail(e, "out of memory") : NULL;
        }
    }
    return array;
}

static json_t *encode_object(encoder *e, int idx, int depth) {
    lua_State *L = e->L;
    json_t *object = json_object();
    if (!object) return fail(e, "out of memory");
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        size_t len;
        const char *key = lua_tolstring(L, -2, &len);   /* a string already: no conversion in next */
        size_t old = path_push(&e->path, key, 0);
        json_t *item = len == strlen(key) ? encode_at(e, lua_gettop(L), depth + 1)
                                          : fail(e, "a key holds a NUL byte");
        path_pop(&e->path, old);
        lua_pop(L, 1);
        if (!item || json_object_setn_new(object, key, len, item) != 0) {
            lua_pop(L, 1);
            json_decref(object);
            return item ? fail(e, "a key is not UTF-8") : NULL;
        }
    }
    return object;
}

static json_t *encode_table(encoder *e, int idx, int depth) {
    if (depth >= LUAJSON_MAX_DEPTH) {  /* the path would be 64 steps long: say what it is instead */
        snprintf(e->err, e->errn, "tables nested deeper than %d (a table that holds itself?)", LUAJSON_MAX_DEPTH);
        return NULL;
    }
    if (!lua_checkstack(e->L, 4)) return fail(e, "out of stack");
    lua_Integer shape = table_shape(e->L, idx);
    if (shape == -2) return fail(e, "a table is an array (keys 1..n) or an object (string keys) in JSON, not both");
    return shape >= 0 ? encode_array(e, idx, shape, depth) : encode_object(e, idx, depth);
}

static json_t *encode_at(encoder *e, int idx, int depth) {
    lua_State *L = e->L;
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return json_null();
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) return json_integer((json_int_t)lua_tointeger(L, idx));
        if (!isfinite(lua_tonumber(L, idx))) return fail(e, "NaN and infinities have no JSON form");
        return json_real(lua_tonumber(L, idx));
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        json_t *v = json_stringn(s, len);
        return v ? v : fail(e, "a string is not UTF-8");
    }
    case LUA_TTABLE:
        return encode_table(e, idx, depth);
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == LUA_JSON_NULL) return json_null();
        /* fall through */
    default: {
        char what[64];
        snprintf(what, sizeof what, "a %s has no JSON form", luaL_typename(L, idx));
        return fail(e, what);
    }
    }
}

json_t *luajson_encode_value(lua_State *L, int idx, char *err, size_t errn) {
    encoder e = {.L = L, .err = err, .errn = errn};
    return encode_at(&e, lua_absindex(L, idx), 0);
}

/* ============================================================================== JSON to Lua */

void luajson_push(lua_State *L, const json_t *v) {
    luaL_checkstack(L, 3, "JSON nested too deep");
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        lua_createtable(L, 0, (int)json_object_size(v));
        const char *key;
        json_t *item;
        json_object_foreach((json_t *)v, key, item) {
            luajson_push(L, item);
            lua_setfield(L, -2, key);
        }
        break;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        lua_createtable(L, n < 1u << 20 ? (int)n : 0, 0);
        for (size_t i = 0; i < n; i++) {
            luajson_push(L, json_array_get(v, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    }
    case JSON_STRING:
        lua_pushlstring(L, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        lua_pushinteger(L, (lua_Integer)json_integer_value(v));
        break;
    case JSON_REAL:
        lua_pushnumber(L, json_real_value(v));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        lua_pushboolean(L, json_is_true(v));
        break;
    case JSON_NULL:
        lua_pushlightuserdata(L, LUA_JSON_NULL);
        break;
    }
}

/* ============================================================================== meeple.json */

static size_t encode_flags(lua_State *L) {
    size_t flags = JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_COMPACT;
    if (lua_isnoneornil(L, 2)) return flags;
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "indent");
    if (lua_isinteger(L, -1)) {
        lua_Integer n = lua_tointeger(L, -1);
        luaL_argcheck(L, n >= 0 && n <= 31, 2, "indent is 0 to 31 spaces");
        if (n > 0) flags = (flags & ~(size_t)JSON_COMPACT) | JSON_INDENT(n);
    } else if (lua_toboolean(L, -1)) {
        flags = (flags & ~(size_t)JSON_COMPACT) | JSON_INDENT(2);
    }
    lua_pop(L, 1);
    return flags;
}

static int json_encode_lua(lua_State *L) {
    luaL_checkany(L, 1);
    size_t flags = encode_flags(L);
    char err[300];
    json_t *v = luajson_encode_value(L, 1, err, sizeof err);
    if (!v) return luaL_error(L, "json.encode: %s", err);
    char *text = shortest_json_dumps(v, flags);
    json_decref(v);
    if (!text) return luaL_error(L, "json.encode: out of memory");
    lua_pushstring(L, text);
    free(text);
    return 1;
}

static int json_decode_lua(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    json_error_t error;
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &error);
    if (!v) {
        luaL_pushfail(L);
        lua_pushfstring(L, "line %d, column %d: %s", error.line, error.column, error.text);
        return 2;
    }
    luajson_push(L, v);
    json_decref(v);
    return 1;
}

void luajson_open(lua_State *L) {
    static const luaL_Reg functions[] = {{"encode", json_encode_lua}, {"decode", json_decode_lua}, {NULL, NULL}};
    luaL_newlib(L, functions);
    lua_pushlightuserdata(L, LUA_JSON_NULL);
    lua_setfield(L, -2, "null");
}
