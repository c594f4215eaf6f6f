/* tree_json.c — game trees as jansson values and back (tree_json.h). */
#include "host/tree_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tree_writer into jansson values: the game's write_table gives the view as it gives Lua its table. */
#define JSON_DEPTH 32
typedef struct json_writer {
    tree_writer base;
    json_t *stack[JSON_DEPTH];
    int depth;
    const char *key;
    json_t *root;
    bool failed;
} json_writer;

static void jw_place(json_writer *w, json_t *v) {
    if (!v) {
        w->failed = true;
        return;
    }
    if (w->depth == 0) {
        if (w->root) json_decref(w->root);
        w->root = v;
        return;
    }
    json_t *parent = w->stack[w->depth - 1];
    int rc = json_is_object(parent) ? json_object_set_new(parent, w->key ? w->key : "", v)
                                    : json_array_append_new(parent, v);
    w->key = NULL;
    if (rc != 0) w->failed = true;
}

/* The parent holds one reference, the stack another until the close. */
static void jw_open(json_writer *w, json_t *v) {
    if (!v || w->depth >= JSON_DEPTH) {
        json_decref(v);
        w->failed = true;
        if (w->depth < JSON_DEPTH) w->stack[w->depth] = NULL;
        w->depth++; /* the closes to come stay in step */
        return;
    }
    jw_place(w, json_incref(v));
    w->stack[w->depth++] = v;
}

static void jw_open_map(tree_writer *t) { jw_open((json_writer *)t, json_object()); }
static void jw_open_list(tree_writer *t) { jw_open((json_writer *)t, json_array()); }
static void jw_close(tree_writer *t) {
    json_writer *w = (json_writer *)t;
    if (w->depth == 0) {
        w->failed = true;
        return;
    }
    w->depth--;
    if (w->depth < JSON_DEPTH) json_decref(w->stack[w->depth]);
}
static void jw_key(tree_writer *t, const char *key) { ((json_writer *)t)->key = key; }
static void jw_str(tree_writer *t, const char *value) { jw_place((json_writer *)t, json_string(value)); }
static void jw_num(tree_writer *t, int64_t value) { jw_place((json_writer *)t, json_integer((json_int_t)value)); }
static void jw_bool(tree_writer *t, bool value) { jw_place((json_writer *)t, json_boolean(value)); }

/* The tree `source` writes, as a new JSON value; NULL when out of memory or malformed. */
json_t *tree_json(tree_source source, const game_def *def, const void *st, int seat) {
    json_writer w = {.base = {jw_open_map, jw_open_list, jw_close, jw_key, jw_str, jw_num, jw_bool}};
    source(def, st, seat, &w.base);
    while (w.depth > 0) jw_close(&w.base);
    if (w.failed) {
        json_decref(w.root);
        return NULL;
    }
    return w.root;
}

/* ---- reading ---- */

static json_t *top(json_reader *r) { return r->stack[r->depth]; }

static tree_kind kind_of(json_t *v) {
    if (!v || json_is_null(v)) return TREE_ABSENT;
    if (json_is_boolean(v)) return TREE_BOOL;
    if (json_is_integer(v)) return TREE_NUM;
    if (json_is_string(v)) return TREE_STR;
    if (json_is_object(v) || json_is_array(v)) return TREE_TABLE;
    return TREE_OTHER;
}

static tree_kind push(json_reader *r, json_t *v, const char *name) {
    if (r->depth >= JSON_READER_DEPTH) v = NULL; /* deeper than any game's table: absent */
    else snprintf(r->names[r->depth], sizeof r->names[0], "%s", name);
    r->stack[++r->depth < JSON_READER_DEPTH + 1 ? r->depth : JSON_READER_DEPTH] = v;
    return kind_of(v);
}

static tree_kind jr_enter_key(tree_reader *t, const char *key) {
    json_reader *r = (json_reader *)t;
    json_t *v = json_is_object(top(r)) ? json_object_get(top(r), key) : NULL;
    return push(r, v, key);
}

static tree_kind jr_enter_index(tree_reader *t, int index) {
    json_reader *r = (json_reader *)t;
    json_t *v = json_is_array(top(r)) && index >= 1 ? json_array_get(top(r), (size_t)index - 1) : NULL;
    char name[24];
    snprintf(name, sizeof name, "[%d]", index);
    return push(r, v, name);
}

static void jr_leave(tree_reader *t) {
    json_reader *r = (json_reader *)t;
    if (r->depth > 0) r->depth--;
}

static tree_kind jr_kind(tree_reader *t) { return kind_of(top((json_reader *)t)); }

static int jr_length(tree_reader *t) {
    json_t *v = top((json_reader *)t);
    return json_is_array(v) ? (int)json_array_size(v) : 0;
}

static bool jr_get_int(tree_reader *t, int64_t *out) {
    json_t *v = top((json_reader *)t);
    if (!json_is_integer(v)) return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static const char *jr_get_str(tree_reader *t) { return json_string_value(top((json_reader *)t)); }
static bool jr_get_bool(tree_reader *t) { return json_is_true(top((json_reader *)t)); }

static const char *jr_unknown_key(tree_reader *t, const char *const *known) {
    json_t *v = top((json_reader *)t);
    const char *key;
    json_t *value;
    if (!json_is_object(v)) return NULL;
    json_object_foreach(v, key, value) {
        bool found = false;
        for (int i = 0; known[i] && !found; i++) found = strcmp(known[i], key) == 0;
        if (!found) return key;
    }
    return NULL;
}

static const char *jr_path(tree_reader *t) {
    json_reader *r = (json_reader *)t;
    size_t len = 0;
    r->path[0] = '\0';
    for (int i = 0; i < r->depth && i < JSON_READER_DEPTH; i++) {
        const char *name = r->names[i];
        int w = snprintf(r->path + len, sizeof r->path - len, "%s%s", i && name[0] != '[' ? "." : "", name);
        if (w < 0 || (size_t)w >= sizeof r->path - len) break;
        len += (size_t)w;
    }
    return r->path;
}

void json_reader_init(json_reader *r, json_t *root) {
    memset(r, 0, sizeof *r);
    r->base = (tree_reader){jr_enter_key, jr_enter_index, jr_leave, jr_kind,       jr_length,
                            jr_get_int,   jr_get_str,     jr_get_bool, jr_unknown_key, jr_path};
    r->stack[0] = root;
}

static void whole_table(const game_def *def, const void *st, int seat, tree_writer *w) {
    (void)seat;
    def->write_table(st, -1, w);
}

bool tree_state_checks(const game_def *def, const void *start, const param_value *params, uint64_t seed,
                       reason *why) {
    json_t *table = tree_json(whole_table, def, start, -1);
    void *again = calloc(1, def->state_size);
    bool ok = table && again;
    if (!ok) snprintf(why->text, sizeof why->text, "out of memory");
    json_reader r;
    if (ok) {
        json_reader_init(&r, table);
        ok = def->read_table(again, &r.base, params, seed, why) && def->validate(again, why);
    }
    json_decref(table);
    free(again);
    return ok;
}
