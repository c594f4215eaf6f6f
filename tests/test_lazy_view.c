/* test_lazy_view.c — the lazy view (core/lua/lazy_view.h) against the same view built whole: a made-up
 * game whose view is larger than the recorder's stack buffer (so the second recording pass runs),
 * with maps, lists, nested lists, long and short lists of scalars, empty containers and booleans, and
 * top-level values written both after asking (tw_key) and without. Fields read one by one must be the
 * whole view's, a field removed must stay removed, every way of reading a table must see the same
 * contents, each table must fill once, and the data an unread table keeps must never show through. The bot-facing rules (next, pairs, getmetatable)
 * are in tests/spec/bots_ctx_spec.lua and bots_sandbox_spec.lua. */
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "check.h"
#include "lua/lazy_view.h"
#include "lua/lmeeple.h"

static const char *const names[] = {"medes", "persians", "hittites", "assyrians", "sumerians"};

/* The made-up state: one byte, the viewer's seed for the contents. */
static void write_big(const void *st, int viewer, tree_writer *w) {
    int seed = *(const unsigned char *)st + viewer;
    w->open_map(w);
    tw_key_str(w, "game", "big");
    tw_key_bool(w, "flag", seed % 2 == 0);
    w->key(w, "long");
    w->open_list(w);
    for (int i = 0; i < 1500; i++) w->num(w, i * seed);
    w->close(w);
    w->key(w, "short");
    w->open_list(w);
    for (int i = 0; i < 3; i++) w->str(w, names[(i + seed) % 5]);
    w->close(w);
    w->key(w, "empty");
    w->open_map(w);
    w->close(w);
    if (!tw_key(w, "players")) {
        w->close(w);
        return;
    }
    w->open_list(w);
    for (int p = 0; p < 4; p++) {
        w->open_map(w);
        tw_key_num(w, "gold", p + seed);
        w->key(w, "rows");
        w->open_map(w);
        for (int k = 0; k < 5; k++) {
            w->key(w, names[k]);
            w->open_list(w);
            for (int c = 0; c < (k + p) % 4; c++) w->str(w, names[(c + k) % 5]);
            w->close(w);
        }
        w->close(w);
        w->close(w);
    }
    w->close(w);
    w->close(w);
}

static const game_def big_game = {.name = "big", .state_size = 1, .write_table = write_big};

/* Run with the lazy view and the whole view (built by the bindings' writer); raises on a difference. */
static const char *const checks =
    "local lazy, whole, fresh, original, set_first = ...\n"
    "local function ser(v)\n"
    "  if type(v) ~= 'table' then return tostring(v) end\n"
    "  local keys = {}\n"
    "  for k in pairs(v) do\n"
    "    assert(type(k) == 'string' or math.type(k) == 'integer', 'a hidden key shows: ' .. tostring(k))\n"
    "    keys[#keys + 1] = k\n"
    "  end\n"
    "  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)\n"
    "  local parts = {}\n"
    "  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. '=' .. ser(v[k]) end\n"
    "  return '{' .. table.concat(parts, ',') .. '}'\n"
    "end\n"
    "assert(getmetatable(lazy) == false, 'the root starts unread (its metatable locked)')\n"
    "assert(lazy.game == 'big', 'a field of the root')\n"
    "assert(getmetatable(lazy) == false, 'a root read field by field stays unread')\n"
    "assert(rawget(lazy, 'game') == 'big' and rawget(lazy, 'flag') == nil, 'only the field read is written')\n"
    "assert(lazy.nothing == nil and lazy[1] == nil, 'no such field')\n"
    "lazy.game, whole.game = nil, nil\n"
    "assert(lazy.game == nil, 'a field removed stays removed')\n"
    "local players = lazy.players\n"
    "assert(getmetatable(players) == false, 'a list of maps starts unread')\n"
    "assert(rawget(lazy, 'long') == nil, 'a field asked for alone leaves the others')\n"
    "assert(getmetatable(lazy.short) == nil, 'a list of scalars comes filled')\n"
    "assert(getmetatable(lazy.long) == nil and #lazy.long == 1500 and #whole.long == 1500, 'however long')\n"
    "assert(#players == 4, '__len of a list of maps')\n"
    "local rows = players[2].rows\n"
    "assert(players[2].rows == rows, 'a table fills once')\n"
    "assert(ser(rows) == ser(whole.players[2].rows), 'a nested map')\n"
    "assert(next(lazy.empty) == nil, 'an empty map')\n"
    "assert(ser(lazy) == ser(whole), 'the whole view: ' .. ser(lazy):sub(1, 200))\n"
    "assert(getmetatable(lazy) == nil, 'a root walked is plain')\n"
    "assert(ser(fresh) == ser(original), 'a root walked at once')\n"
    "set_first.flag, original.flag = 'mine', 'mine'\n"
    "assert(ser(set_first) == ser(original) and rawget(set_first, 'flag') == 'mine', 'a value set before any read')\n";

static void lazy_equals_whole(int seed) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    CHECK(luaL_loadstring(L, checks) == LUA_OK, "%s", lua_tostring(L, -1));
    unsigned char st = (unsigned char)seed;
    lazy_view_metatable(L);                        /* 2: the metatable of unread roots */
    lazy_view_push(L, &big_game, &st, 1, 2);       /* 3: a lazy view read field by field */
    lua_newtable(L);                               /* 4: the same view built whole */
    meeple_fill_table(L, 4, &big_game, &st, 1);
    lazy_view_push(L, &big_game, &st, 1, 2);       /* 5: a lazy view walked at once */
    lua_newtable(L);                               /* 6: the whole view again */
    meeple_fill_table(L, 6, &big_game, &st, 1);
    lazy_view_push(L, &big_game, &st, 1, 2);       /* 7: a lazy view given a value first */
    lua_remove(L, 2);
    CHECK(lua_pcall(L, 5, 0, 0) == LUA_OK, "seed %d: %s", seed, lua_tostring(L, -1));
    lua_close(L);
}

int main(void) {
    for (int seed = 1; seed <= 3; seed++) lazy_equals_whole(seed);
    printf("lazy views read as the whole view, each table filled once\n");
    return 0;
}
