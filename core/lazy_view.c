/* lazy_view.c — views that fill themselves table by table (lazy_view.h).
 *
 * Unread tables keep their data under light-userdata keys, which no bot code can name. The root keeps
 * a copy of the state; its first read turns the copy into a record, a flat list of tokens in the order
 * the game wrote them, each container knowing where it ends, so filling a table visits its own items
 * only. The tables inside share a metatable that holds the record, and each keeps the index of its
 * token. Short lists of scalars (hands, rows, temples: most of a view) are filled with their parent,
 * as an unread table would cost more than they do. The record holds the game's strings by address:
 * tree.h promises they are constants. */
#include "lazy_view.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>

#include "tree.h"

static const char data_key = 'd';  /* the root's snapshot, or the record in its tables' metatable */
static const char index_key = 'i'; /* an inner table's token in the record */

/* The userdata types only this file makes: a bot can neither make userdata nor set their metatables,
 * so a value that passes luaL_testudata against these is one of ours, whatever a table claims. */
#define SNAPSHOT_TYPE "meeple.view_snapshot"
#define RECORD_TYPE "meeple.view_record"

enum { TOKEN_MAP = TREE_OTHER + 1, TOKEN_LIST };

typedef struct view_token {
    const char *key; /* in a map: the key; in a list: NULL */
    union {
        int64_t num;
        const char *str;
    } v;
    int32_t end;   /* a container: the index after its last item */
    int32_t items; /* a container: how many items it holds */
    int16_t kind;  /* TREE_BOOL, TREE_NUM, TREE_STR, TOKEN_MAP or TOKEN_LIST */
    bool nested;   /* a container: some of its items are containers */
} view_token;

/* The root's data until it is read: the game, the viewer, then the state's bytes. */
typedef struct snapshot {
    const game_def *def;
    int viewer;
    alignas(max_align_t) unsigned char state[];
} snapshot;

/* ============================================================================ recording the view */

enum { MAX_DEPTH = 16, STACK_TOKENS = 256, EAGER_ITEMS = 8 };

typedef struct recorder {
    tree_writer base;
    view_token *tok;
    int n, cap; /* tokens past `cap` are counted, not kept */
    int open[MAX_DEPTH];
    int depth;
    bool too_deep;
    const char *key;
} recorder;

static view_token *add_token(recorder *r, int kind) {
    int at = r->n++;
    if (r->depth > 0 && r->open[r->depth - 1] < r->cap) {
        view_token *parent = &r->tok[r->open[r->depth - 1]];
        parent->items++;
        parent->nested |= kind >= TOKEN_MAP;
    }
    if (at >= r->cap) return NULL;
    view_token *t = &r->tok[at];
    *t = (view_token){.key = r->key, .kind = (int16_t)kind};
    r->key = NULL;
    return t;
}

static void open_container(recorder *r, int kind) {
    int at = r->n;
    add_token(r, kind);
    if (r->depth == MAX_DEPTH) r->too_deep = true;
    else r->open[r->depth++] = at;
}

static void rec_open_map(tree_writer *w) { open_container((recorder *)w, TOKEN_MAP); }
static void rec_open_list(tree_writer *w) { open_container((recorder *)w, TOKEN_LIST); }

static void rec_close(tree_writer *w) {
    recorder *r = (recorder *)w;
    if (r->depth == 0) return;
    int at = r->open[--r->depth];
    if (at < r->cap) r->tok[at].end = r->n;
}

static void rec_key(tree_writer *w, const char *key) { ((recorder *)w)->key = key; }

static void rec_str(tree_writer *w, const char *value) {
    view_token *t = add_token((recorder *)w, TREE_STR);
    if (t) t->v.str = value;
}

static void rec_num(tree_writer *w, int64_t value) {
    view_token *t = add_token((recorder *)w, TREE_NUM);
    if (t) t->v.num = value;
}

static void rec_boolean(tree_writer *w, bool value) {
    view_token *t = add_token((recorder *)w, TREE_BOOL);
    if (t) t->v.num = value;
}

static void record_into(recorder *r, const snapshot *sn, view_token *tok, int cap) {
    *r = (recorder){
        .base = {rec_open_map, rec_open_list, rec_close, rec_key, rec_str, rec_num, rec_boolean},
        .tok = tok,
        .cap = cap,
    };
    sn->def->write_table(sn->state, sn->viewer, &r->base);
}

/* Replaces the snapshot at `idx` with the record of its view. The usual view fits the C stack and is
 * copied once; a bigger one is written a second time straight into its userdata. */
static void record(lua_State *L, int idx) {
    const snapshot *sn = lua_touserdata(L, idx);
    view_token local[STACK_TOKENS];
    recorder r;
    record_into(&r, sn, local, STACK_TOKENS);
    if (r.depth != 0 || r.too_deep || r.n == 0 || local[0].kind != TOKEN_MAP || local[0].end != r.n)
        luaL_error(L, "the view of '%s' is not one well-formed table", sn->def->name);
    int n = r.n;
    view_token *out = lua_newuserdatauv(L, sizeof *out * (size_t)n, 0);
    luaL_setmetatable(L, RECORD_TYPE);
    if (n <= STACK_TOKENS) memcpy(out, local, sizeof *out * (size_t)n);
    else record_into(&r, sn, out, n);
    lua_replace(L, idx);
}

/* ============================================================================== filling a table */

static void fill_items(lua_State *L, int t, const view_token *tok, int k, int mt);

/* Pushes an item's value: scalars as they are; a short container of scalars filled at once (most of
 * a view is such lists: a hand, a row, a temple, and an unread table costs more than a short one);
 * any other container as an unread table. */
static void push_item(lua_State *L, const view_token *tok, int i, int mt) {
    const view_token *t = &tok[i];
    switch (t->kind) {
    case TREE_BOOL: lua_pushboolean(L, (int)t->v.num); return;
    case TREE_NUM: lua_pushinteger(L, (lua_Integer)t->v.num); return;
    case TREE_STR: lua_pushstring(L, t->v.str); return;
    default: break;
    }
    bool list = t->kind == TOKEN_LIST;
    if (!t->nested && t->items <= EAGER_ITEMS) {
        lua_createtable(L, list ? t->items : 0, list ? 0 : t->items);
        fill_items(L, lua_gettop(L), tok, i, mt);
        return;
    }
    lua_createtable(L, list ? t->items : 0, (list ? 0 : t->items) + 1);
    lua_pushinteger(L, i);
    lua_rawsetp(L, -2, &index_key);
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
}

/* Sets the items of container `k` into the table at `t`. */
static void fill_items(lua_State *L, int t, const view_token *tok, int k, int mt) {
    bool map = tok[k].kind == TOKEN_MAP;
    lua_Integer n = 0;
    for (int i = k + 1; i < tok[k].end; i = tok[i].kind >= TOKEN_MAP ? tok[i].end : i + 1) {
        if (map) {
            lua_pushstring(L, tok[i].key ? tok[i].key : "?");
            push_item(L, tok, i, mt);
            lua_rawset(L, t);
        } else {
            push_item(L, tok, i, mt);
            lua_rawseti(L, t, ++n);
        }
    }
}

static int view_index(lua_State *L);
static int view_newindex(lua_State *L);
static int view_len(lua_State *L);
static int view_pairs(lua_State *L);

static const luaL_Reg view_methods[] = {
    {"__index", view_index}, {"__newindex", view_newindex}, {"__len", view_len},
    {"__pairs", view_pairs}, {NULL, NULL},
};

/* A metatable for unread tables, locked like every host metatable a bot can meet; with a record at
 * `data` (0: none, the root's), that record's, shared by all its unread tables. */
static void push_metatable(lua_State *L, int data) {
    lua_createtable(L, 0, 6);
    luaL_setfuncs(L, view_methods, 0);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    if (data) {
        lua_pushvalue(L, data);
        lua_rawsetp(L, -2, &data_key);
    }
}

/* Fills the unread table at `t` from its data and makes it plain (the marks go last, so a memory
 * error halfway leaves it unread, to be filled again). */
static void fill(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int top = lua_gettop(L);
    if (!lua_getmetatable(L, t)) return;
    int mt = top + 1, data = top + 2;
    lua_Integer k = 0;
    lua_rawgetp(L, mt, &data_key);
    const view_token *tok = luaL_testudata(L, data, RECORD_TYPE);
    if (tok) { /* inside: the record is the metatable's */
        lua_rawgetp(L, t, &index_key);
        int valid = 0;
        k = lua_tointegerx(L, -1, &valid);
        lua_Integer n = (lua_Integer)(lua_rawlen(L, data) / sizeof *tok);
        if (!valid || k < 0 || k >= n || tok[k].kind < TOKEN_MAP || tok[k].end > n) {
            lua_settop(L, top);
            return;
        }
    } else { /* the root: record its snapshot, and make the metatable its tables will share */
        lua_pop(L, 1);
        lua_rawgetp(L, t, &data_key);
        if (!luaL_testudata(L, data, SNAPSHOT_TYPE)) {
            lua_settop(L, top);
            return;
        }
        record(L, data);
        push_metatable(L, data);
        lua_replace(L, mt);
        tok = lua_touserdata(L, data);
    }
    fill_items(L, t, tok, (int)k, mt);
    lua_pushnil(L);
    lua_rawsetp(L, t, &data_key);
    lua_pushnil(L);
    lua_rawsetp(L, t, &index_key);
    lua_pushnil(L);
    lua_setmetatable(L, t);
    lua_settop(L, top);
}

void lazy_view_touch(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TTABLE) fill(L, idx);
}

/* ============================================================================== the metamethods */

static int view_index(lua_State *L) {
    fill(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

static int view_newindex(lua_State *L) {
    fill(L, 1);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

static int view_len(lua_State *L) {
    fill(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

int lazy_view_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    fill(L, 1);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int view_pairs(lua_State *L) {
    fill(L, 1);
    lua_pushcfunction(L, lazy_view_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

void lazy_view_metatable(lua_State *L) {
    static const char *const types[] = {SNAPSHOT_TYPE, RECORD_TYPE};
    for (int i = 0; i < 2; i++) {
        luaL_newmetatable(L, types[i]);
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
        lua_pop(L, 1);
    }
    push_metatable(L, 0);
}

void lazy_view_push(lua_State *L, const game_def *def, const void *st, int viewer, int mt) {
    mt = lua_absindex(L, mt);
    lua_createtable(L, 0, 16); /* room for a state table's top level when it fills */
    snapshot *sn = lua_newuserdatauv(L, sizeof *sn + def->state_size, 0);
    luaL_setmetatable(L, SNAPSHOT_TYPE);
    sn->def = def;
    sn->viewer = viewer;
    memcpy(sn->state, st, def->state_size);
    lua_rawsetp(L, -2, &data_key);
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
}
