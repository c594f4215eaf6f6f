/* lazy_view.c — views that fill themselves field by field and table by table (lazy_view.h).
 *
 * An unread root keeps a copy of the state. Reading one of its fields writes that field alone: the
 * game's write_table runs under a writer that declines every other top-level key (tree.h tw_key), and
 * the root remembers the field was written, so that a field the bot then removes stays removed. Any
 * other use of the root (pairs, next, a new key, #) writes the fields not yet written and makes it a
 * plain table.
 *
 * A field whose value holds containers within containers is recorded as a flat list of tokens, in the
 * order the game wrote them, each container knowing where it ends; its inner tables fill themselves
 * from that record when first read, each keeping the index of its token, so filling a table visits
 * its own items only. A table of scalars (a hand, a row, a temple: most of a view) is filled with its
 * parent, however long, as an unread table would cost more than it does; a walk (pairs, next) fills
 * everything below the table walked at once. Unread tables keep their data under light-userdata keys,
 * which no bot code can name, and all share one locked metatable. The record holds the game's strings
 * by address: tree.h promises they are constants. */
#include "lua/lazy_view.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/lmeeple.h"
#include <meeple/tree.h>

static const char data_key = 'd';  /* a root's snapshot, or an inner table's record */
static const char index_key = 'i'; /* an inner table's token in the record */

/* The userdata types only this file makes, their metatables kept in the registry under these keys (a
 * lookup by address: every table filled asks): a bot can neither make userdata nor set their
 * metatables, so a value whose metatable is one of these is one of ours, whatever a table claims. */
static const char snapshot_type = 's';
static const char record_type = 'r';

static void set_type(lua_State *L, const char *type) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, type);
    lua_setmetatable(L, -2);
}

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

/* MAX_WRITTEN: fields a root writes one by one before it writes the rest at once (a bot reading that
 * many will likely read them all; the list is in every decision's snapshot, so it stays short). */
enum { MAX_DEPTH = 16, STACK_TOKENS = 256, MAX_WRITTEN = 16 };

/* A root's data until it is plain: the game, the viewer, the fields written so far (the game's own
 * key strings), then the state's bytes. */
typedef struct snapshot {
    const game_def *def;
    int viewer;
    int written;
    const char *written_keys[MAX_WRITTEN];
    alignas(max_align_t) unsigned char state[];
} snapshot;

/* ============================================================================ recording the view */

typedef struct recorder {
    tree_writer base;
    view_token *tok;
    int n, cap; /* tokens past `cap` are counted, not kept */
    int open[MAX_DEPTH];
    int depth;
    bool too_deep;
    const char *key;
    /* Which top-level fields to record: `only` one (a string of Lua's), else all but those `sn` has
     * written. A declined key's value is dropped: `drop_next` for the value to come, `dropping` the
     * depth of containers open inside a dropped one. */
    const char *only;
    size_t only_len;
    const snapshot *sn;
    bool drop_next;
    int dropping;
} recorder;

static bool written_already(const snapshot *sn, const char *key) {
    for (int i = 0; i < sn->written; i++)
        if (strcmp(sn->written_keys[i], key) == 0) return true;
    return false;
}

static bool rec_wants(tree_writer *w, const char *key) {
    const recorder *r = (const recorder *)w;
    if (r->depth != 1 || r->dropping) return r->dropping == 0;
    if (r->only) return strlen(key) == r->only_len && memcmp(key, r->only, r->only_len) == 0;
    return !written_already(r->sn, key);
}

/* Whether the value starting now is dropped (and, for a container, the drop opened). */
static bool dropped(recorder *r, bool container) {
    if (r->dropping) {
        r->dropping += container;
        return true;
    }
    if (!r->drop_next) return false;
    r->drop_next = false;
    r->dropping = container;
    return true;
}

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
    if (dropped(r, true)) return;
    int at = r->n;
    add_token(r, kind);
    if (r->depth == MAX_DEPTH) r->too_deep = true;
    else r->open[r->depth++] = at;
}

static void rec_open_map(tree_writer *w) { open_container((recorder *)w, TOKEN_MAP); }
static void rec_open_list(tree_writer *w) { open_container((recorder *)w, TOKEN_LIST); }

static void rec_close(tree_writer *w) {
    recorder *r = (recorder *)w;
    if (r->dropping) {
        r->dropping--;
        return;
    }
    if (r->depth == 0) return;
    int at = r->open[--r->depth];
    if (at < r->cap) r->tok[at].end = r->n;
}

static void rec_key(tree_writer *w, const char *key) {
    recorder *r = (recorder *)w;
    if (r->dropping) return;
    if (r->depth == 1 && !rec_wants(w, key)) r->drop_next = true; /* a game that did not ask */
    else r->key = key;
}

static void rec_str(tree_writer *w, const char *value) {
    recorder *r = (recorder *)w;
    if (dropped(r, false)) return;
    view_token *t = add_token(r, TREE_STR);
    if (t) t->v.str = value;
}

static void rec_num(tree_writer *w, int64_t value) {
    recorder *r = (recorder *)w;
    if (dropped(r, false)) return;
    view_token *t = add_token(r, TREE_NUM);
    if (t) t->v.num = value;
}

static void rec_boolean(tree_writer *w, bool value) {
    recorder *r = (recorder *)w;
    if (dropped(r, false)) return;
    view_token *t = add_token(r, TREE_BOOL);
    if (t) t->v.num = value;
}

/* Records `sn`'s view into tok[0..cap): the field `only` (of `only_len` bytes), or with `only` NULL
 * every field not yet written. */
static void record_into(recorder *r, const snapshot *sn, const char *only, size_t only_len, view_token *tok,
                        int cap) {
    *r = (recorder){
        .base = {rec_open_map, rec_open_list, rec_close, rec_key, rec_str, rec_num, rec_boolean, rec_wants},
        .tok = tok,
        .cap = cap,
        .only = only,
        .only_len = only_len,
        .sn = sn,
    };
    sn->def->write_table(sn->state, sn->viewer, &r->base);
}

/* The tokens of what `record_into` wrote: `local` when they fit, else a record userdata pushed with
 * them (written a second time, straight into it). */
static const view_token *record(lua_State *L, const snapshot *sn, const char *only, size_t only_len,
                                view_token *local, int *n, bool *pushed) {
    recorder r;
    record_into(&r, sn, only, only_len, local, STACK_TOKENS);
    if (r.depth != 0 || r.too_deep || r.n == 0 || local[0].kind != TOKEN_MAP || local[0].end != r.n)
        luaL_error(L, "the view of '%s' is not one well-formed table", sn->def->name);
    *n = r.n;
    *pushed = r.n > STACK_TOKENS;
    if (!*pushed) return local;
    view_token *out = lua_newuserdatauv(L, sizeof *out * (size_t)r.n, 0);
    set_type(L, &record_type);
    record_into(&r, sn, only, only_len, out, *n);
    return out;
}

/* ============================================================================== filling a table */

/* Where a fill's tokens live: `tok` (n of them), `rec` the stack index of their record userdata once
 * an unread inner table needs one (0 until then), `mt` the index of the shared metatable. */
typedef struct source {
    const view_token *tok;
    int n, rec, mt;
    bool whole; /* every container filled at once: a walk is coming (pairs, next) */
} source;

static void fill_items(lua_State *L, int t, source *src, int k);

/* Makes sure the tokens have a record userdata on the stack before container `k`'s items (or, with
 * `k` -1, item 1 alone) are pushed, if an unread inner table among them will read from it: a copy of
 * the tokens, once. Only a container of containers becomes an unread table. */
static void ensure_record(lua_State *L, source *src, int k) {
    const view_token *tok = src->tok;
    bool needed = false;
    if (k < 0) needed = src->n > 1 && tok[1].kind >= TOKEN_MAP && tok[1].nested;
    for (int i = k + 1; k >= 0 && i < tok[k].end && !needed; i = tok[i].kind >= TOKEN_MAP ? tok[i].end : i + 1)
        needed = tok[i].kind >= TOKEN_MAP && tok[i].nested;
    if (!needed || src->rec || src->whole) return;
    view_token *copy = lua_newuserdatauv(L, sizeof *copy * (size_t)src->n, 0);
    set_type(L, &record_type);
    memcpy(copy, tok, sizeof *copy * (size_t)src->n);
    src->rec = lua_gettop(L);
}

/* Pushes item `i`'s value: scalars as they are; a container of scalars filled at once, however long
 * (most of a view is such lists, and setting up an unread table costs more than filling one); a
 * container of containers as an unread table, unless the fill is whole. */
static void push_item(lua_State *L, source *src, int i) {
    const view_token *t = &src->tok[i];
    switch (t->kind) {
    case TREE_BOOL: lua_pushboolean(L, (int)t->v.num); return;
    case TREE_NUM: lua_pushinteger(L, (lua_Integer)t->v.num); return;
    case TREE_STR: lua_pushstring(L, t->v.str); return;
    default: break;
    }
    bool list = t->kind == TOKEN_LIST;
    if (!t->nested || src->whole) {
        lua_createtable(L, list ? t->items : 0, list ? 0 : t->items);
        fill_items(L, lua_gettop(L), src, i);
        return;
    }
    if (!src->rec) luaL_error(L, "view: an unread table without its record"); /* ensure_record's job */
    lua_createtable(L, list ? t->items : 0, (list ? 0 : t->items) + 2);
    lua_pushvalue(L, src->rec);
    lua_rawsetp(L, -2, &data_key);
    lua_pushinteger(L, i);
    lua_rawsetp(L, -2, &index_key);
    lua_pushvalue(L, src->mt);
    lua_setmetatable(L, -2);
}

/* Sets the items of container `k` into the table at `t`. */
static void fill_items(lua_State *L, int t, source *src, int k) {
    const view_token *tok = src->tok;
    bool map = tok[k].kind == TOKEN_MAP;
    lua_Integer n = 0;
    luaL_checkstack(L, 4, "view"); /* per level: a whole fill nests as deep as the view */
    for (int i = k + 1; i < tok[k].end; i = tok[i].kind >= TOKEN_MAP ? tok[i].end : i + 1) {
        if (map) {
            lua_pushstring(L, tok[i].key ? tok[i].key : "?");
            push_item(L, src, i);
            lua_rawset(L, t);
        } else {
            push_item(L, src, i);
            lua_rawseti(L, t, ++n);
        }
    }
}

/* Makes the unread table at `t` plain: its marks go last, so a memory error halfway through a fill
 * leaves it unread, to be filled again. */
static void make_plain(lua_State *L, int t) {
    lua_pushnil(L);
    lua_rawsetp(L, t, &data_key);
    lua_pushnil(L);
    lua_rawsetp(L, t, &index_key);
    lua_pushnil(L);
    lua_setmetatable(L, t);
}

/* Fills the rest of the root at `t` (its snapshot at `data`, its metatable at `mt`). */
static void fill_root(lua_State *L, int t, int data, int mt, bool whole) {
    const snapshot *sn = lua_touserdata(L, data);
    view_token local[STACK_TOKENS];
    int n;
    bool pushed;
    const view_token *tok = record(L, sn, NULL, 0, local, &n, &pushed);
    source src = {tok, n, pushed ? lua_gettop(L) : 0, mt, whole};
    ensure_record(L, &src, 0);
    fill_items(L, t, &src, 0);
}

/* Fills the inner table at `t` from its record at `data`, if its index is one of the record's. */
static void fill_inner(lua_State *L, int t, int data, int mt, bool whole) {
    const view_token *tok = lua_touserdata(L, data);
    lua_rawgetp(L, t, &index_key);
    int valid = 0;
    lua_Integer k = lua_tointegerx(L, -1, &valid);
    lua_Integer n = (lua_Integer)(lua_rawlen(L, data) / sizeof *tok);
    if (!valid || k < 0 || k >= n || tok[k].kind < TOKEN_MAP || tok[k].end > n) return;
    source src = {tok, (int)n, data, mt, whole};
    fill_items(L, t, &src, (int)k);
}

/* Fills the unread table at `t` (root or inner) all at once and makes it plain, and with `whole`
 * every table below it too; leaves any other table alone. */
static void fill(lua_State *L, int t, bool whole) {
    t = lua_absindex(L, t);
    int top = lua_gettop(L);
    if (!lua_getmetatable(L, t)) return;
    int mt = top + 1, data = top + 2;
    lua_rawgetp(L, t, &data_key);
    if (meeple_test_udata(L, data, &snapshot_type)) fill_root(L, t, data, mt, whole);
    else if (meeple_test_udata(L, data, &record_type)) fill_inner(L, t, data, mt, whole);
    else {
        lua_settop(L, top);
        return;
    }
    make_plain(L, t);
    lua_settop(L, top);
}

/* Whether the table at `idx` may be an unread one: it has a metatable (most tables a bot walks have
 * none, and this is asked at every step of every walk). */
static bool may_be_unread(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return false;
    lua_pop(L, 1);
    return true;
}

void lazy_view_touch(lua_State *L, int idx, bool whole) {
    if (lua_type(L, idx) == LUA_TTABLE && may_be_unread(L, idx)) fill(L, idx, whole);
}

/* ============================================================================== the metamethods */

/* root[key] for a root still unread at `key` (its snapshot at `data`): writes that field alone and
 * pushes its value (nil when the view has no such field). */
static void read_field(lua_State *L, int t, int key, int data, int mt) {
    snapshot *sn = lua_touserdata(L, data);
    size_t len;
    const char *name = lua_tolstring(L, key, &len);
    if (sn->written == MAX_WRITTEN) { /* a bot reading field after field: the rest at once */
        fill(L, t, false);
        lua_pushvalue(L, key);
        lua_rawget(L, t);
        return;
    }
    view_token local[STACK_TOKENS];
    int n;
    bool pushed;
    const view_token *tok = record(L, sn, name, len, local, &n, &pushed);
    if (n < 2) {
        lua_pushnil(L);
        return;
    }
    source src = {tok, n, pushed ? lua_gettop(L) : 0, mt, false};
    ensure_record(L, &src, -1);
    push_item(L, &src, 1);
    lua_pushvalue(L, key);
    lua_pushvalue(L, -2);
    lua_rawset(L, t);
    sn->written_keys[sn->written++] = tok[1].key;
}

/* A state table's top level is a map of names: a root is asked for other keys only in vain. */
static int view_index(lua_State *L) {
    lua_settop(L, 2);
    if (lua_getmetatable(L, 1)) {
        int mt = 3, data = 4;
        lua_rawgetp(L, 1, &data_key);
        snapshot *sn = meeple_test_udata(L, data, &snapshot_type);
        if (sn && (lua_type(L, 2) != LUA_TSTRING || written_already(sn, lua_tostring(L, 2)))) {
            lua_pushnil(L);
            return 1;
        }
        if (sn) {
            read_field(L, 1, 2, data, mt);
            return 1;
        }
        lua_settop(L, 2);
    }
    fill(L, 1, false);
    lua_rawget(L, 1);
    return 1;
}

static int view_newindex(lua_State *L) {
    fill(L, 1, false);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

static int view_len(lua_State *L) {
    fill(L, 1, false);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

int lazy_view_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (may_be_unread(L, 1)) fill(L, 1, true);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int view_pairs(lua_State *L) {
    fill(L, 1, true);
    lua_pushcfunction(L, lazy_view_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static const luaL_Reg view_methods[] = {
    {"__index", view_index}, {"__newindex", view_newindex}, {"__len", view_len},
    {"__pairs", view_pairs}, {NULL, NULL},
};

void lazy_view_metatable(lua_State *L) {
    static const char *const types[] = {&snapshot_type, &record_type};
    for (int i = 0; i < 2; i++) {
        lua_createtable(L, 0, 1);
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
        lua_rawsetp(L, LUA_REGISTRYINDEX, types[i]);
    }
    /* The one metatable of unread tables, locked like every host metatable a bot can meet. */
    lua_createtable(L, 0, 5);
    luaL_setfuncs(L, view_methods, 0);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
}

void lazy_view_push(lua_State *L, const game_def *def, const void *st, int viewer, int mt) {
    mt = lua_absindex(L, mt);
    lua_createtable(L, 0, 8); /* room for the fields a bot reads one by one */
    snapshot *sn = lua_newuserdatauv(L, offsetof(snapshot, state) + def->state_size, 0);
    set_type(L, &snapshot_type);
    sn->def = def;
    sn->viewer = viewer;
    sn->written = 0;
    memcpy(sn->state, st, def->state_size);
    lua_rawsetp(L, -2, &data_key);
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
}
