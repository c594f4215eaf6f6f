/* meeple_py.c — the `meeple` Python module's C half (`meeple._meeple`): states as Python objects over a
 * session, through the core's public API alone, with the Lua module's semantics (core/lua/lmeeple.c):
 * the same one-line reasons, 1-based seats, the same defaults. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meeple/game.h>
#include <meeple/registry.h>
#include <meeple/rng.h>
#include <meeple/session.h>
#include <meeple/tree.h>

static PyObject *Error;         /* meeple.Error: the core refused (a damaged save, an impossible table) */
static PyObject *IllegalAction; /* meeple.IllegalAction(Error): play() of an action the rules refuse */
static PyObject *load_function; /* the module's load(), for pickling a state */

/* =====================================================================================================
 * Messages: a short description of a value, as lmeeple.c's describe(): 'text', 2.5, or a type name
 * ===================================================================================================== */

/* Copies user text for a message: at most n - 1 bytes, "..." when cut, control characters as '?'. */
static void clean_copy(char *out, size_t n, const char *text, size_t len) {
    size_t keep = len < n ? len : n - 4;
    for (size_t i = 0; i < keep; i++) out[i] = (unsigned char)text[i] < 0x20 ? '?' : text[i];
    strcpy(out + keep, len < n ? "" : "...");
}

static void describe(PyObject *v, char *out, size_t n) {
    if (v == NULL) {
        snprintf(out, n, "nothing");
    } else if (PyUnicode_Check(v)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(v, &len);
        char copy[48];
        if (!text) {
            PyErr_Clear();
            snprintf(out, n, "a string that is not UTF-8");
            return;
        }
        clean_copy(copy, sizeof copy, text, (size_t)len);
        snprintf(out, n, "'%s'", copy);
    } else if ((PyLong_Check(v) && !PyBool_Check(v)) || PyFloat_Check(v)) {
        PyObject *r = PyObject_Repr(v);
        const char *text = r ? PyUnicode_AsUTF8(r) : NULL;
        if (text) clean_copy(out, n, text, strlen(text));
        else snprintf(out, n, "a number");
        if (!text) PyErr_Clear();
        Py_XDECREF(r);
    } else if (v == Py_None || PyBool_Check(v)) {
        snprintf(out, n, "%s", v == Py_None ? "None" : v == Py_True ? "True" : "False");
    } else {
        snprintf(out, n, "%.60s", Py_TYPE(v)->tp_name);
    }
}

/* Raises `type` with "fn: what must be ..., got <value>". */
static void *bad_arg(PyObject *type, const char *fn, const char *what, const char *expected, PyObject *v) {
    char got[80];
    describe(v, got, sizeof got);
    PyErr_Format(type, "%s: %s must be %s, got %s", fn, what, expected, got);
    return NULL;
}

static void *raise_reason(PyObject *type, const meeple_reason *why) {
    PyErr_SetString(type, why->text[0] ? why->text : "refused without a reason");
    return NULL;
}

/* =====================================================================================================
 * Arguments
 * ===================================================================================================== */

static bool is_int(PyObject *v) { return v && PyLong_Check(v) && !PyBool_Check(v); }

/* An integer argument in [lo, hi]; false with TypeError or ValueError set. */
static bool arg_int(PyObject *v, const char *fn, const char *what, long long lo, long long hi, long long *out) {
    if (!is_int(v)) return bad_arg(PyExc_TypeError, fn, what, "an integer", v), false;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return false;
    if (overflow || x < lo || x > hi) {
        char range[80];
        snprintf(range, sizeof range, "%lld..%lld", lo, hi);
        return bad_arg(PyExc_ValueError, fn, what, range, v), false;
    }
    *out = x;
    return true;
}

/* A seed: a whole number 0..MEEPLE_SEED_MAX, as the command line takes (saves and logs hold it exactly). */
static bool arg_seed(PyObject *v, const char *fn, uint64_t *out) {
    long long x;
    if (!arg_int(v, fn, "seed", 0, MEEPLE_SEED_MAX, &x)) return false;
    *out = (uint64_t)x;
    return true;
}

static bool arg_opt_seed(PyObject *v, const char *fn, uint64_t *out) {
    if (v == NULL || v == Py_None) {
        *out = 1;
        return true;
    }
    return arg_seed(v, fn, out);
}

static const game_def *arg_game(PyObject *v, const char *fn) {
    if (!PyUnicode_Check(v)) return bad_arg(PyExc_TypeError, fn, "game", "a string", v);
    const char *name = PyUnicode_AsUTF8(v);
    const game_def *def = name ? game_find(name) : NULL;
    if (!def) {
        char got[80];
        PyErr_Clear();
        describe(v, got, sizeof got);
        PyErr_Format(PyExc_ValueError, "unknown game %s; games: %s", got, game_names());
    }
    return def;
}

static const char variants_refused[] =
    "%s: variants are Lua scripts and the Python module runs no Lua; play a variant with `meeple` or the "
    "Lua module, or give its parameters as params";

/* =====================================================================================================
 * Actions' texts, interned: one Python string per game and text key (game.h text_key), formatted the
 * first time it is met, as core/lua/action_texts.c does for Lua. Bounded: a full cache starts afresh.
 * ===================================================================================================== */

#define TEXTS_MAX 32768

typedef struct text_cache {
    const game_def *def;
    uint32_t *keys;
    PyObject **texts; /* NULL: an empty slot */
    size_t cap, count;
} text_cache;

static text_cache *caches;
static int cache_count;

static text_cache *cache_of(const game_def *def) {
    for (int i = 0; i < cache_count; i++)
        if (caches[i].def == def) return &caches[i];
    return NULL;
}

static void cache_clear(text_cache *c) {
    for (size_t i = 0; i < c->cap; i++) Py_CLEAR(c->texts[i]);
    c->count = 0;
}

static size_t slot_of(uint32_t key, size_t cap) { return (size_t)((key * 2654435761u) >> 7) & (cap - 1); }

/* Doubles the table (or makes its first): false with MemoryError set. */
static bool cache_grow(text_cache *c) {
    size_t cap = c->cap ? c->cap * 2 : 512;
    uint32_t *keys = PyMem_Calloc(cap, sizeof *keys);
    PyObject **texts = PyMem_Calloc(cap, sizeof *texts);
    if (!keys || !texts) {
        PyMem_Free(keys);
        PyMem_Free(texts);
        PyErr_NoMemory();
        return false;
    }
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->texts[i]) continue;
        size_t j = slot_of(c->keys[i], cap);
        while (texts[j]) j = (j + 1) & (cap - 1);
        keys[j] = c->keys[i];
        texts[j] = c->texts[i];
    }
    PyMem_Free(c->keys);
    PyMem_Free(c->texts);
    c->keys = keys;
    c->texts = texts;
    c->cap = cap;
    return true;
}

/* The interned text of key `key`, borrowed, or NULL when the cache has none. */
static PyObject *cached_text(const text_cache *c, uint32_t key) {
    size_t i = c->cap ? slot_of(key, c->cap) : 0;
    while (c->cap && c->texts[i]) {
        if (c->keys[i] == key) return c->texts[i];
        i = (i + 1) & (c->cap - 1);
    }
    return NULL;
}

/* A new reference to the text of `a` at `st`, or NULL with an exception set. */
static PyObject *action_text(const game_def *def, const void *st, action_t a) {
    text_cache *c = cache_of(def);
    uint32_t key = def->text_key ? def->text_key(st, a) : a;
    PyObject *known = cached_text(c, key);
    if (known) {
        Py_INCREF(known);
        return known;
    }
    size_t i;
    char text[MEEPLE_ACTION_TEXT];
    def->action_text(st, a, text);
    PyObject *s = PyUnicode_FromString(text);
    if (!s) return NULL;
    if (c->count >= TEXTS_MAX) cache_clear(c);
    if (2 * (c->count + 1) > c->cap) {
        if (!cache_grow(c)) {
            PyErr_Clear(); /* no room to remember it: the text is good all the same */
            return s;
        }
    }
    i = slot_of(key, c->cap);
    while (c->texts[i]) i = (i + 1) & (c->cap - 1);
    c->keys[i] = key;
    c->texts[i] = s;
    c->count++;
    Py_INCREF(s);
    return s;
}

static PyObject *legal_list(const game_def *def, const void *st, const action_t *acts, int n) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *text = action_text(def, st, acts[i]);
        if (!text) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, text);
    }
    return list;
}

/* =====================================================================================================
 * Writing state tables as Python dicts and lists (a tree_writer), no JSON in between. Keys and string
 * values are the games' constant names (tree.h), so their Python strings are kept by address, checked
 * against the text before reuse.
 * ===================================================================================================== */

#define NAMES_CACHED 2048

static struct {
    const char *ptr;
    PyObject *text;
} names[NAMES_CACHED];

static PyObject *name_text(const char *s) {
    size_t i = ((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 53 & (NAMES_CACHED - 1);
    if (names[i].ptr == s && names[i].text && strcmp(PyUnicode_AsUTF8(names[i].text), s) == 0) {
        Py_INCREF(names[i].text);
        return names[i].text;
    }
    PyObject *text = PyUnicode_FromString(s);
    if (!text) return NULL;
    Py_XSETREF(names[i].text, text);
    names[i].ptr = s;
    Py_INCREF(text);
    return text;
}

#define WRITER_DEPTH 32

typedef struct py_writer {
    tree_writer base;
    int depth;
    PyObject *open[WRITER_DEPTH]; /* the open containers, owned */
    PyObject *key[WRITER_DEPTH];  /* a map's key waiting for its value, owned */
    PyObject *root;
    const char *problem;          /* the game wrote out of order (a bug), or NULL */
    bool failed;                  /* a Python error is set, or `problem`: the rest is ignored */
} py_writer;

static void pw_fail(py_writer *pw, const char *problem) {
    pw->failed = true;
    if (problem && !pw->problem) pw->problem = problem;
}

/* The value (a new reference, or NULL after an error) joins the innermost open container. */
static void pw_place(py_writer *pw, PyObject *v) {
    if (!v || pw->failed) {
        Py_XDECREF(v);
        pw_fail(pw, NULL);
        return;
    }
    if (pw->depth == 0) {
        if (pw->root) {
            Py_DECREF(v);
            return pw_fail(pw, "a second root");
        }
        pw->root = v;
        return;
    }
    int d = pw->depth - 1;
    int err;
    if (PyList_CheckExact(pw->open[d])) {
        err = PyList_Append(pw->open[d], v);
    } else if (!pw->key[d]) {
        Py_DECREF(v);
        return pw_fail(pw, "a map value without a key");
    } else {
        err = PyDict_SetItem(pw->open[d], pw->key[d], v);
        Py_CLEAR(pw->key[d]);
    }
    Py_DECREF(v);
    if (err) pw_fail(pw, NULL);
}

static void pw_open(py_writer *pw, bool list) {
    if (pw->failed) return;
    if (pw->depth == WRITER_DEPTH) return pw_fail(pw, "nested too deep");
    PyObject *c = list ? PyList_New(0) : PyDict_New();
    if (!c) return pw_fail(pw, NULL);
    pw->open[pw->depth] = c;
    pw->key[pw->depth] = NULL;
    pw->depth++;
}

static void pw_open_map(tree_writer *w) { pw_open((py_writer *)w, false); }
static void pw_open_list(tree_writer *w) { pw_open((py_writer *)w, true); }

static void pw_close(tree_writer *w) {
    py_writer *pw = (py_writer *)w;
    if (pw->failed) return;
    if (pw->depth == 0) return pw_fail(pw, "close without open");
    pw->depth--;
    Py_CLEAR(pw->key[pw->depth]);
    pw_place(pw, pw->open[pw->depth]);
    pw->open[pw->depth] = NULL;
}

static void pw_key(tree_writer *w, const char *key) {
    py_writer *pw = (py_writer *)w;
    if (pw->failed) return;
    int d = pw->depth - 1;
    if (d < 0 || !PyDict_CheckExact(pw->open[d]) || pw->key[d]) return pw_fail(pw, "a key outside a map");
    pw->key[d] = name_text(key);
    if (!pw->key[d]) pw_fail(pw, NULL);
}

static void pw_str(tree_writer *w, const char *value) {
    py_writer *pw = (py_writer *)w;
    if (!pw->failed) pw_place(pw, name_text(value));
}

static void pw_num(tree_writer *w, int64_t value) {
    py_writer *pw = (py_writer *)w;
    if (!pw->failed) pw_place(pw, PyLong_FromLongLong((long long)value));
}

static void pw_boolean(tree_writer *w, bool value) {
    py_writer *pw = (py_writer *)w;
    if (!pw->failed) pw_place(pw, PyBool_FromLong(value));
}

static void pw_init(py_writer *pw) {
    memset(pw, 0, sizeof *pw);
    pw->base = (tree_writer){pw_open_map, pw_open_list, pw_close, pw_key, pw_str, pw_num, pw_boolean, NULL};
}

/* The tree written (a new reference), or NULL with an exception set. */
static PyObject *pw_finish(py_writer *pw, const game_def *def, const char *what) {
    if (!pw->failed && pw->depth) pw_fail(pw, "containers left open");
    if (!pw->failed && !pw->root) pw_fail(pw, "nothing written");
    if (!pw->failed) return pw->root;
    for (int d = 0; d < pw->depth; d++) {
        Py_CLEAR(pw->open[d]);
        Py_CLEAR(pw->key[d]);
    }
    Py_CLEAR(pw->root);
    if (!PyErr_Occurred())
        PyErr_Format(Error, "%s of '%s': %s (a bug in the game)", what, def->name,
                     pw->problem ? pw->problem : "failed");
    return NULL;
}

static PyObject *state_table(const game_def *def, const void *st, int viewer) {
    py_writer pw;
    pw_init(&pw);
    def->write_table(st, viewer, &pw.base);
    return pw_finish(&pw, def, "write_table");
}

static PyObject *cards_table(const game_def *def, const void *st) {
    if (!def->write_cards) return PyDict_New();
    py_writer pw;
    pw_init(&pw);
    def->write_cards(st, &pw.base);
    return pw_finish(&pw, def, "write_cards");
}

/* =====================================================================================================
 * Reading dicts and lists (a tree_reader), for from_table and params. dicts are maps (integer keys for
 * tables by player count); lists and tuples are lists, read from 1 as in Lua. Integers are Python ints
 * (not bools, not floats).
 * ===================================================================================================== */

#define READER_STACK 64

typedef struct py_reader {
    tree_reader base;
    tree_path path;                  /* its depth: values entered and not yet left */
    PyObject *value[READER_STACK + 1]; /* value[0] the root; value[depth] the one entered last; owned */
    char unknown[64];
} py_reader;

static PyObject *pr_top(py_reader *pr) {
    return pr->path.depth <= READER_STACK ? pr->value[pr->path.depth] : NULL;
}

static tree_kind kind_of(PyObject *v) {
    if (!v || v == Py_None) return TREE_ABSENT;
    if (PyBool_Check(v)) return TREE_BOOL;
    if (PyLong_Check(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred()) PyErr_Clear();
        return overflow ? TREE_OTHER : TREE_NUM;
    }
    if (PyUnicode_Check(v)) return TREE_STR;
    if (PyDict_Check(v) || PyList_Check(v) || PyTuple_Check(v)) return TREE_TABLE;
    return TREE_OTHER;
}

static void pr_push(py_reader *pr, PyObject *v, const char *key, int index) {
    tree_path_enter(&pr->path, key, index);
    if (pr->path.depth <= READER_STACK) {
        Py_XINCREF(v);
        pr->value[pr->path.depth] = v;
    }
}

/* A lookup that may run a key's __eq__: an error there reads as an absent value. */
static PyObject *dict_get(PyObject *dict, PyObject *key) {
    PyObject *v = key ? PyDict_GetItemWithError(dict, key) : NULL;
    if (!v && PyErr_Occurred()) PyErr_Clear();
    return v;
}

static tree_kind pr_enter_key(tree_reader *r, const char *key) {
    py_reader *pr = (py_reader *)r;
    PyObject *cur = pr_top(pr), *v = NULL, *k = NULL;
    if (cur && PyDict_Check(cur)) {
        k = PyUnicode_FromString(key);
        if (!k) PyErr_Clear();
        v = dict_get(cur, k);
    }
    pr_push(pr, v, key, 0);
    Py_XDECREF(k);
    return kind_of(v);
}

static tree_kind pr_enter_index(tree_reader *r, int index) {
    py_reader *pr = (py_reader *)r;
    PyObject *cur = pr_top(pr), *v = NULL, *k = NULL;
    if (cur && (PyList_Check(cur) || PyTuple_Check(cur))) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(cur);
        if (index >= 1 && index <= n) v = PySequence_Fast_GET_ITEM(cur, index - 1);
    } else if (cur && PyDict_Check(cur)) {
        k = PyLong_FromLong(index);
        if (!k) PyErr_Clear();
        v = dict_get(cur, k);
    }
    pr_push(pr, v, NULL, index);
    Py_XDECREF(k);
    return kind_of(v);
}

static void pr_leave(tree_reader *r) {
    py_reader *pr = (py_reader *)r;
    if (pr->path.depth == 0) return; /* an unbalanced leave: a bug in the game, but never below our root */
    if (pr->path.depth <= READER_STACK) Py_CLEAR(pr->value[pr->path.depth]);
    tree_path_leave(&pr->path);
}

static tree_kind pr_kind(tree_reader *r) { return kind_of(pr_top((py_reader *)r)); }

/* Lua's length of a table: a list's size; for a dict, the run of integer keys 1, 2, ... */
static int pr_length(tree_reader *r) {
    PyObject *cur = pr_top((py_reader *)r);
    if (cur && (PyList_Check(cur) || PyTuple_Check(cur))) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(cur);
        return n > 1000000 ? 1000000 : (int)n; /* no game has a million cards; keep it an int */
    }
    if (!cur || !PyDict_Check(cur)) return 0;
    int n = 0;
    while (n < 1000000) {
        PyObject *k = PyLong_FromLong(n + 1);
        PyObject *v = dict_get(cur, k);
        Py_XDECREF(k);
        if (!v || v == Py_None) break;
        n++;
    }
    return n;
}

static bool pr_get_int(tree_reader *r, int64_t *out) {
    PyObject *cur = pr_top((py_reader *)r);
    if (kind_of(cur) != TREE_NUM) return false;
    *out = (int64_t)PyLong_AsLongLong(cur);
    return true;
}

/* A string without NUL bytes, which the C side would cut there. */
static const char *pr_get_str(tree_reader *r) {
    PyObject *cur = pr_top((py_reader *)r);
    if (!cur || !PyUnicode_Check(cur)) return NULL;
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(cur, &len);
    if (!text) PyErr_Clear();
    return text && strlen(text) == (size_t)len ? text : NULL;
}

static bool pr_get_bool(tree_reader *r) { return pr_top((py_reader *)r) == Py_True; }

/* The smallest unknown key by byte order, so the message does not depend on the dict's order. */
static const char *pr_unknown_key(tree_reader *r, const char *const *known) {
    py_reader *pr = (py_reader *)r;
    PyObject *cur = pr_top(pr);
    bool found = false;
    char text[sizeof pr->unknown];
    if (cur && (PyList_Check(cur) || PyTuple_Check(cur))) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(cur);
        for (Py_ssize_t i = 1; i <= n; i++) {
            snprintf(text, sizeof text, "[%zd]", i);
            if (tree_key_known(text, known)) continue;
            if (!found || strcmp(text, pr->unknown) < 0) memcpy(pr->unknown, text, sizeof text);
            found = true;
        }
        return found ? pr->unknown : NULL;
    }
    if (!cur || !PyDict_Check(cur)) return NULL;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(cur, &pos, &k, &v)) {
        if (PyUnicode_Check(k)) {
            Py_ssize_t len;
            const char *key = PyUnicode_AsUTF8AndSize(k, &len);
            if (!key) {
                PyErr_Clear();
                snprintf(text, sizeof text, "[a key that is not UTF-8]");
            } else {
                if (strlen(key) == (size_t)len && tree_key_known(key, known)) continue;
                clean_copy(text, sizeof text, key, (size_t)len);
            }
        } else if (kind_of(k) == TREE_NUM) {
            snprintf(text, sizeof text, "[%lld]", PyLong_AsLongLong(k));
            if (tree_key_known(text, known)) continue;
        } else {
            snprintf(text, sizeof text, "[a %.30s key]", Py_TYPE(k)->tp_name);
        }
        if (!found || strcmp(text, pr->unknown) < 0) memcpy(pr->unknown, text, sizeof text);
        found = true;
    }
    return found ? pr->unknown : NULL;
}

static const char *pr_path(tree_reader *r) { return tree_path_text(&((py_reader *)r)->path, "table"); }

static void pr_init(py_reader *pr, PyObject *root) {
    memset(pr, 0, sizeof *pr);
    pr->base = (tree_reader){pr_enter_key, pr_enter_index, pr_leave,       pr_kind, pr_length,
                             pr_get_int,   pr_get_str,     pr_get_bool,    pr_unknown_key, pr_path};
    Py_INCREF(root);
    pr->value[0] = root;
}

static void pr_done(py_reader *pr) {
    while (pr->path.depth > 0) pr_leave(&pr->base);
    Py_CLEAR(pr->value[0]);
}

/* A params dict read over the game's defaults (None: the defaults). */
static bool arg_params(PyObject *v, const game_def *def, param_value *out, const char *fn) {
    params_defaults(def, out);
    if (!v || v == Py_None) return true;
    if (!PyDict_Check(v)) return bad_arg(PyExc_TypeError, fn, "params", "a dict", v), false;
    py_reader pr;
    meeple_reason why = {{0}};
    pr_init(&pr, v);
    bool ok = params_read(def, &pr.base, out, &why);
    pr_done(&pr);
    if (!ok) PyErr_SetString(PyExc_ValueError, why.text); /* the reason alone, as from Lua */
    return ok;
}

/* =====================================================================================================
 * The State type
 * ===================================================================================================== */

/* A clone keeps its session in the object itself (session_clone_into): one allocation in all. */
typedef struct StateObject {
    PyObject_VAR_HEAD
    session *s;
    alignas(max_align_t) unsigned char block[];
} StateObject;

static PyTypeObject StateType;

/* A new State owning `s` (in the heap), or NULL (then `s` is freed). */
static PyObject *wrap(session *s) {
    StateObject *o = PyObject_NewVar(StateObject, &StateType, 0);
    if (!o) {
        session_free(s);
        return NULL;
    }
    o->s = s;
    return (PyObject *)o;
}

/* A copy of `s` in an object of its own: with its history (a clone), or of the position alone. */
static StateObject *copy(const session *s, bool with_history) {
    size_t size = with_history ? session_clone_size(s) : session_position_size(s);
    StateObject *o = PyObject_NewVar(StateObject, &StateType, (Py_ssize_t)size);
    if (!o) return NULL;
    o->s = with_history ? session_clone_into(s, o->block) : session_position_into(s, o->block);
    if (!o->s) {
        Py_DECREF(o);
        return (StateObject *)PyErr_NoMemory();
    }
    return o;
}

static void State_dealloc(StateObject *o) {
    if (o->s) session_free(o->s);
    o->s = NULL;
    PyObject_Free(o);
}

#define S(self) (((StateObject *)(self))->s)

/* A 1-based seat argument, returned 0-based; -1 with an exception set. */
static int arg_seat(PyObject *v, const session *s, const char *fn) {
    long long p;
    int n = s->def->num_players(s->now);
    if (!is_int(v)) return bad_arg(PyExc_TypeError, fn, "player", "an integer", v), -1;
    int overflow = 0;
    p = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || p < 1 || p > n) {
        char got[80];
        describe(v, got, sizeof got);
        PyErr_Format(PyExc_ValueError, "%s: player must be 1..%d, got %s", fn, n, got);
        return -1;
    }
    return (int)(p - 1);
}

/* An action's text: NULL and the reason when it holds a NUL byte, which the C side would cut there
 * ("plant 1\0x" would be checked, and played, as "plant 1"); NULL and an exception when no string. */
static const char *arg_action(PyObject *v, const char *fn, meeple_reason *why) {
    if (!PyUnicode_Check(v)) return bad_arg(PyExc_TypeError, fn, "action", "a string", v);
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(v, &len);
    if (!text) return NULL;
    size_t real = strlen(text);
    if (real != (size_t)len) {
        snprintf(why->text, sizeof why->text, "an action is text without NUL bytes: this one holds one at byte %zu",
                 real + 1);
        return NULL;
    }
    return text;
}

static PyObject *State_game(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyUnicode_FromString(S(self)->def->name);
}

static PyObject *State_num_players(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    return PyLong_FromLong(s->def->num_players(s->now));
}

static PyObject *State_turn(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    return PyLong_FromLong(s->def->turn(s->now));
}

static PyObject *State_to_move(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    int p = s->def->is_over(s->now) ? -1 : s->def->to_move(s->now);
    if (p < 0) Py_RETURN_NONE;
    return PyLong_FromLong(p + 1);
}

static PyObject *State_is_over(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    return PyBool_FromLong(s->def->is_over(s->now));
}

static PyObject *int_list(const int *v, int n, int add) {
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i] + add);
        if (!x) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
}

static PyObject *State_scores(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    int out[MEEPLE_MAX_PLAYERS] = {0};
    s->def->scores(s->now, out);
    return int_list(out, s->def->num_players(s->now), 0);
}

static PyObject *State_winners(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    if (!s->def->is_over(s->now)) Py_RETURN_NONE;
    int out[MEEPLE_MAX_PLAYERS] = {0};
    int n = s->def->winners(s->now, out);
    return int_list(out, n, 1);
}

static PyObject *State_legal(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    action_t acts[MEEPLE_MAX_ACTIONS];
    int n = s->def->is_over(s->now) ? 0 : s->def->legal(s->now, acts);
    return legal_list(s->def, s->now, acts, n);
}

static PyObject *State_ranked(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"seed", NULL};
    PyObject *seed_arg = NULL;
    uint64_t seed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:ranked", kwlist, &seed_arg)) return NULL;
    if (!arg_opt_seed(seed_arg, "ranked", &seed)) return NULL;
    session *s = S(self);
    action_t acts[MEEPLE_MAX_ACTIONS];
    rng r;
    rng_seed(&r, seed, SESSION_RANKED_STREAM);
    int n = session_ranked(s, &r, acts);
    return legal_list(s->def, s->now, acts, n);
}

static PyObject *State_check(PyObject *self, PyObject *arg) {
    meeple_reason why;
    why.text[0] = '\0';
    const char *text = arg_action(arg, "check", &why);
    if (!text && PyErr_Occurred()) return NULL;
    if (text && session_check_text(S(self), text, NULL, &why)) return Py_BuildValue("(OO)", Py_True, Py_None);
    return Py_BuildValue("(Os)", Py_False, why.text);
}

/* Whether `arg` is (or equals) the string legal() hands out for the action its text parses to: then
 * it is that action's canonical text, and session_play_text's check of it (formatting the text again)
 * can be skipped. The hot path of a program that plays what legal() lists, or the same text read back. */
static bool is_listed_text(const session *s, PyObject *arg, const char *text, action_t *a) {
    const game_def *def = s->def;
    if (def->to_move(s->now) < 0 || !def->parse_action(s->now, text, a, NULL)) return false;
    PyObject *known = cached_text(cache_of(def), def->text_key ? def->text_key(s->now, *a) : *a);
    return known && (known == arg || PyUnicode_Compare(known, arg) == 0);
}

static PyObject *State_play(PyObject *self, PyObject *arg) {
    meeple_reason why;
    why.text[0] = '\0';
    const char *text = arg_action(arg, "play", &why);
    if (!text) return PyErr_Occurred() ? NULL : raise_reason(IllegalAction, &why);
    session *s = S(self);
    action_t a;
    bool played = is_listed_text(s, arg, text, &a) ? session_play(s, a, &why) : session_play_text(s, text, &why);
    if (!played) return raise_reason(IllegalAction, &why);
    Py_RETURN_NONE;
}

static PyObject *State_undo(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"n", NULL};
    PyObject *n_arg = NULL;
    long long n = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:undo", kwlist, &n_arg)) return NULL;
    if (n_arg && !arg_int(n_arg, "undo", "n", 0, LLONG_MAX, &n)) return NULL;
    session *s = S(self);
    return PyLong_FromLong(session_undo(s, n > s->history_len ? s->history_len : (int)n));
}

/* An action's text depends on the position it was taken in, so history replays from the start. With a
 * player, each decision is written as that player saw it (game_def.public_text). */
static PyObject *State_history(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"player", NULL};
    PyObject *seat_arg = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:history", kwlist, &seat_arg)) return NULL;
    session *s = S(self);
    const game_def *def = s->def;
    int viewer = -1;
    if (seat_arg && seat_arg != Py_None && (viewer = arg_seat(seat_arg, s, "history")) < 0) return NULL;
    void *st = PyMem_Malloc(def->state_size);
    PyObject *list = st ? PyList_New(s->history_len) : PyErr_NoMemory();
    if (!list) {
        PyMem_Free(st);
        return NULL;
    }
    memcpy(st, s->start, def->state_size);
    for (int i = 0; i < s->history_len; i++) {
        char text[MEEPLE_ACTION_TEXT];
        game_public_text(def, st, s->history[i].action, viewer, text);
        def->apply(st, s->history[i].action);
        PyObject *entry = Py_BuildValue("{s:i,s:s}", "player", s->history[i].player + 1, "action", text);
        if (!entry) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, entry);
    }
    PyMem_Free(st);
    return list;
}

/* What player p sees of the legal action `a` if it is played now: its text, or what the others see. */
static PyObject *State_public_text(PyObject *self, PyObject *args) {
    PyObject *action, *seat_arg;
    if (!PyArg_ParseTuple(args, "OO:public_text", &action, &seat_arg)) return NULL;
    session *s = S(self);
    meeple_reason why;
    why.text[0] = '\0';
    const char *text = arg_action(action, "public_text", &why);
    if (!text && PyErr_Occurred()) return NULL;
    int viewer = arg_seat(seat_arg, s, "public_text");
    if (viewer < 0) return NULL;
    action_t a;
    if (!text || !session_check_text(s, text, &a, &why)) return raise_reason(IllegalAction, &why);
    char shown[MEEPLE_PUBLIC_TEXT];
    game_public_text(s->def, s->now, a, viewer, shown);
    return PyUnicode_FromString(shown);
}

static PyObject *State_hidden_information(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(S(self)->def->information == INFORMATION_HIDDEN);
}

static PyObject *State_table(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    return state_table(s->def, s->now, -1);
}

static PyObject *State_view(PyObject *self, PyObject *arg) {
    session *s = S(self);
    int p = arg_seat(arg, s, "view");
    return p < 0 ? NULL : state_table(s->def, s->now, p);
}

static PyObject *State_cards(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    return cards_table(s->def, s->now);
}

static PyObject *State_clone(PyObject *self, PyObject *unused) {
    (void)unused;
    return (PyObject *)copy(S(self), true);
}

static PyObject *State_deepcopy(PyObject *self, PyObject *memo) {
    (void)memo;
    return (PyObject *)copy(S(self), true);
}

/* A determinization: what `p` cannot see re-dealt. The sample starts where it stands, so its own
 * history is empty and its save carries the position as a table. */
static PyObject *State_sample(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"player", "seed", NULL};
    PyObject *seat_arg, *seed_arg = NULL;
    uint64_t seed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:sample", kwlist, &seat_arg, &seed_arg)) return NULL;
    session *s = S(self);
    int p = arg_seat(seat_arg, s, "sample");
    if (p < 0 || !arg_opt_seed(seed_arg, "sample", &seed)) return NULL;
    StateObject *c = copy(s, false);
    if (!c) return NULL;
    session_sample(c->s, p, seed);
    return (PyObject *)c;
}

/* Random play in C, seeded: a search's playout without a Python call per decision. */
static PyObject *State_playout(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"n", "seed", "greedy", NULL};
    PyObject *n_arg = NULL, *seed_arg = NULL, *greedy_arg = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO:playout", kwlist, &n_arg, &seed_arg, &greedy_arg)) return NULL;
    long long limit = SESSION_PLAYOUT_TO_END;
    uint64_t seed;
    double greedy = 0;
    if (n_arg && n_arg != Py_None) {
        if (!is_int(n_arg)) return bad_arg(PyExc_TypeError, "playout", "n", "an integer or None", n_arg);
        int overflow = 0;
        limit = PyLong_AsLongLongAndOverflow(n_arg, &overflow);
        if (overflow || limit < -1 || limit > INT_MAX) {
            char got[80];
            describe(n_arg, got, sizeof got);
            return PyErr_Format(PyExc_ValueError,
                                "playout: n must be a count of decisions, got %s (None or -1: to the end; at "
                                "most %d are played)", got, SESSION_PLAYOUT_MAX);
        }
    }
    if (!seed_arg || seed_arg == Py_None)
        return PyErr_Format(PyExc_TypeError, "playout: seed is required (a whole number 0..%lld), as in "
                                             "s.playout(seed=7)", MEEPLE_SEED_MAX);
    if (!arg_seed(seed_arg, "playout", &seed)) return NULL;
    if (greedy_arg && greedy_arg != Py_None) {
        if (PyBool_Check(greedy_arg) || !(PyFloat_Check(greedy_arg) || PyLong_Check(greedy_arg)))
            return bad_arg(PyExc_TypeError, "playout", "greedy", "a share between 0 and 1", greedy_arg);
        greedy = PyFloat_AsDouble(greedy_arg);
        if (greedy == -1 && PyErr_Occurred()) return NULL;
        if (!(greedy >= 0 && greedy <= 1))
            return bad_arg(PyExc_ValueError, "playout", "greedy", "a share between 0 and 1", greedy_arg);
    }
    rng r;
    rng_seed(&r, seed, SESSION_PLAYOUT_STREAM);
    int played = session_playout(S(self), &r, (int)limit, greedy);
    if (played < 0) return PyErr_NoMemory();
    return PyLong_FromLong(played);
}

static PyObject *State_save(PyObject *self, PyObject *unused) {
    (void)unused;
    char *text = session_save(S(self));
    if (!text) return PyErr_NoMemory();
    PyObject *result = PyUnicode_FromString(text);
    free(text);
    return result;
}

/* Pickling goes through the save text: pickle.loads gives meeple.load(s.save()). */
static PyObject *State_reduce(PyObject *self, PyObject *unused) {
    PyObject *text = State_save(self, unused);
    if (!text) return NULL;
    return Py_BuildValue("(O(N))", load_function, text);
}

static PyObject *State_variant(PyObject *self, PyObject *unused) {
    (void)unused;
    session *s = S(self);
    if (!s->variant[0]) Py_RETURN_NONE;
    return PyUnicode_FromString(s->variant);
}

static PyObject *State_repr(PyObject *self) {
    session *s = S(self);
    const game_def *def = s->def;
    int p = def->is_over(s->now) ? -1 : def->to_move(s->now);
    if (p < 0)
        return PyUnicode_FromFormat("<meeple.State %s, %d players, turn %d, over>", def->name,
                                    def->num_players(s->now), def->turn(s->now));
    return PyUnicode_FromFormat("<meeple.State %s, %d players, turn %d, player %d to move>", def->name,
                                def->num_players(s->now), def->turn(s->now), p + 1);
}

static PyMethodDef State_methods[] = {
    {"game", State_game, METH_NOARGS, "game() -> the game's name"},
    {"num_players", State_num_players, METH_NOARGS, "num_players() -> int"},
    {"turn", State_turn, METH_NOARGS, "turn() -> the turn's number"},
    {"to_move", State_to_move, METH_NOARGS, "to_move() -> the 1-based seat that decides now, None when over"},
    {"is_over", State_is_over, METH_NOARGS, "is_over() -> bool"},
    {"scores", State_scores, METH_NOARGS, "scores() -> [score by seat]"},
    {"winners", State_winners, METH_NOARGS, "winners() -> [1-based seats] (several on a draw), None while running"},
    {"legal", State_legal, METH_NOARGS, "legal() -> [canonical action strings] for to_move()"},
    {"ranked", (PyCFunction)(void (*)(void))State_ranked, METH_VARARGS | METH_KEYWORDS,
     "ranked(seed=1) -> legal(), the playout policy's favourites first"},
    {"check", State_check, METH_O, "check(action) -> (True, None) or (False, reason)"},
    {"play", State_play, METH_O, "play(action): raises meeple.IllegalAction(reason) and changes nothing if illegal"},
    {"undo", (PyCFunction)(void (*)(void))State_undo, METH_VARARGS | METH_KEYWORDS,
     "undo(n=1) -> decisions taken back"},
    {"history", (PyCFunction)(void (*)(void))State_history, METH_VARARGS | METH_KEYWORDS,
     "history(player=None) -> [{'player': seat, 'action': text}], as that player saw it"},
    {"public_text", State_public_text, METH_VARARGS, "public_text(action, player) -> what player sees of it"},
    {"hidden_information", State_hidden_information, METH_NOARGS, "hidden_information() -> bool"},
    {"table", State_table, METH_NOARGS, "table() -> the whole state as dicts and lists"},
    {"view", State_view, METH_O, "view(player) -> the state as that player sees it"},
    {"cards", State_cards, METH_NOARGS, "cards() -> the card catalogue as this state plays it"},
    {"clone", State_clone, METH_NOARGS, "clone() -> an independent copy, history included"},
    {"sample", (PyCFunction)(void (*)(void))State_sample, METH_VARARGS | METH_KEYWORDS,
     "sample(player, seed=1) -> a position consistent with view(player), the hidden cards re-dealt"},
    {"playout", (PyCFunction)(void (*)(void))State_playout, METH_VARARGS | METH_KEYWORDS,
     "playout(n=None, seed=..., greedy=0.0) -> decisions played at random in C (None: to the end)"},
    {"save", State_save, METH_NOARGS, "save() -> text that meeple.load() rebuilds exactly"},
    {"variant", State_variant, METH_NOARGS, "variant() -> None (the Python module plays the base rules)"},
    {"__copy__", State_clone, METH_NOARGS, NULL},
    {"__deepcopy__", State_deepcopy, METH_O, NULL},
    {"__reduce__", State_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "meeple.State",
    .tp_basicsize = offsetof(StateObject, block),
    .tp_itemsize = 1,
    .tp_dealloc = (destructor)State_dealloc,
    .tp_repr = State_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game being played: made by meeple.new, meeple.load, meeple.from_table, clone or sample.",
    .tp_methods = State_methods,
};

/* =====================================================================================================
 * The module's functions
 * ===================================================================================================== */

static PyObject *m_games(PyObject *mod, PyObject *unused) {
    (void)mod, (void)unused;
    PyObject *list = PyList_New(meeple_game_count);
    for (int i = 0; list && i < meeple_game_count; i++) {
        PyObject *name = PyUnicode_FromString(meeple_games[i]->name);
        if (!name) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, name);
    }
    return list;
}

/* The player count argument (None: the game's default); -1 with an exception set. */
static int arg_players(PyObject *v, const game_def *def, const char *fn) {
    if (!v || v == Py_None) return def->default_players;
    long long players;
    if (!is_int(v)) return bad_arg(PyExc_TypeError, fn, "players", "an integer", v), -1;
    int overflow = 0;
    players = PyLong_AsLongLongAndOverflow(v, &overflow);
    char got[80];
    describe(v, got, sizeof got);
    bool fits = !overflow && players >= def->min_players && players <= def->max_players;
    if (!fits && def->min_players == def->max_players)
        return PyErr_Format(PyExc_ValueError, "%s: %s is for exactly %d players, got %s", fn, def->name,
                            def->min_players, got), -1;
    if (!fits)
        return PyErr_Format(PyExc_ValueError, "%s: players must be %d..%d for %s, got %s", fn, def->min_players,
                            def->max_players, def->name, got), -1;
    return (int)players;
}

static PyObject *m_new(PyObject *mod, PyObject *args, PyObject *kw) {
    (void)mod;
    static char *kwlist[] = {"game", "players", "seed", "params", "variant", NULL};
    PyObject *game, *players_arg = NULL, *seed_arg = NULL, *params_arg = NULL, *variant = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOO:new", kwlist, &game, &players_arg, &seed_arg, &params_arg,
                                     &variant))
        return NULL;
    const game_def *def = arg_game(game, "new");
    if (!def) return NULL;
    if (variant && variant != Py_None) return PyErr_Format(Error, variants_refused, "new");
    int players = arg_players(players_arg, def, "new");
    uint64_t seed;
    param_value params[MEEPLE_MAX_PARAMS];
    if (players < 0 || !arg_opt_seed(seed_arg, "new", &seed) || !arg_params(params_arg, def, params, "new"))
        return NULL;
    meeple_reason why = {{0}};
    session *s = session_new(def, players, params, seed, &why);
    if (!s) return raise_reason(Error, &why);
    return wrap(s);
}

static PyObject *m_cards(PyObject *mod, PyObject *args, PyObject *kw) {
    PyObject *state = m_new(mod, args, kw);
    if (!state) return NULL;
    PyObject *cards = State_cards(state, NULL);
    Py_DECREF(state);
    return cards;
}

static PyObject *m_from_table(PyObject *mod, PyObject *t) {
    (void)mod;
    if (!PyDict_Check(t)) return bad_arg(PyExc_TypeError, "from_table", "the table", "a dict", t);
    PyObject *name = PyUnicode_FromString("game");
    if (!name) return NULL;
    PyObject *game = dict_get(t, name);
    Py_DECREF(name);
    if (!game || game == Py_None)
        return PyErr_Format(PyExc_ValueError, "from_table: the table needs a game field (game = \"babel\")");
    const game_def *def = arg_game(game, "from_table");
    if (!def) return NULL;
    PyObject *fields = PyDict_Copy(t);
    if (!fields) return NULL;
    /* The host's own keys, taken out so that the game reads only the state's fields and may refuse the
     * rest. */
    PyObject *host[3] = {NULL, NULL, NULL};
    static const char *const host_keys[] = {"seed", "params", "variant"};
    for (int i = 0; i < 3; i++) {
        PyObject *k = PyUnicode_FromString(host_keys[i]);
        if (!k) goto fail;
        host[i] = dict_get(fields, k);
        Py_XINCREF(host[i]);
        if (host[i] && PyDict_DelItem(fields, k) < 0) {
            Py_DECREF(k);
            goto fail;
        }
        Py_DECREF(k);
    }
    if (host[2] && host[2] != Py_None) {
        PyErr_Format(Error, variants_refused, "from_table");
        goto fail;
    }
    uint64_t seed;
    param_value params[MEEPLE_MAX_PARAMS];
    if (!arg_opt_seed(host[0], "from_table", &seed) || !arg_params(host[1], def, params, "from_table")) goto fail;
    py_reader pr;
    meeple_reason why = {{0}};
    pr_init(&pr, fields);
    session *s = session_from_table(def, &pr.base, params, seed, &why);
    pr_done(&pr);
    for (int i = 0; i < 3; i++) Py_XDECREF(host[i]);
    Py_DECREF(fields);
    if (!s) return raise_reason(Error, &why);
    return wrap(s);
fail:
    for (int i = 0; i < 3; i++) Py_XDECREF(host[i]);
    Py_DECREF(fields);
    return NULL;
}

/* A save naming a variant replays through the variant's hooks, which are Lua. */
static bool names_variant(const char *text) {
    return strncmp(text, "variant ", 8) == 0 || strstr(text, "\nvariant ") != NULL;
}

static PyObject *m_load(PyObject *mod, PyObject *arg) {
    (void)mod;
    if (!PyUnicode_Check(arg)) return bad_arg(PyExc_TypeError, "load", "text", "a string", arg);
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!text) return NULL;
    if (strlen(text) != (size_t)len)
        return PyErr_Format(Error, "load: a save is text without NUL bytes: this one holds one at byte %zu",
                            strlen(text) + 1);
    if (names_variant(text)) return PyErr_Format(Error, variants_refused, "load");
    meeple_reason why = {{0}};
    session *s = session_load(text, &why);
    if (!s) return raise_reason(Error, &why);
    return wrap(s);
}

/* info(game): what a program needs to know of a game before playing it (player counts, parameters). */
static PyObject *m_info(PyObject *mod, PyObject *arg) {
    (void)mod;
    const game_def *def = arg_game(arg, "info");
    if (!def) return NULL;
    PyObject *params = PyDict_New();
    for (int i = 0; params && i < def->num_params; i++) {
        PyObject *doc = PyUnicode_FromString(def->params[i].doc ? def->params[i].doc : "");
        if (!doc || PyDict_SetItemString(params, def->params[i].name, doc) < 0) Py_CLEAR(params);
        Py_XDECREF(doc);
    }
    if (!params) return NULL;
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:i,s:O,s:s,s:N}", "name", def->name, "title", def->title,
                         "min_players", def->min_players, "max_players", def->max_players, "default_players",
                         def->default_players, "hidden_information",
                         def->information == INFORMATION_HIDDEN ? Py_True : Py_False, "rules",
                         def->rules ? def->rules : "", "params", params);
}

static PyMethodDef module_methods[] = {
    {"info", m_info, METH_O,
     "info(game) -> {name, title, min_players, max_players, default_players, hidden_information, rules, params}"},
    {"games", m_games, METH_NOARGS, "games() -> the games' names"},
    {"new", (PyCFunction)(void (*)(void))m_new, METH_VARARGS | METH_KEYWORDS,
     "new(game, players=None, seed=1, params=None) -> State"},
    {"from_table", m_from_table, METH_O, "from_table(table) -> State built from a (partial) state table"},
    {"load", m_load, METH_O, "load(text) -> State from State.save()"},
    {"cards", (PyCFunction)(void (*)(void))m_cards, METH_VARARGS | METH_KEYWORDS,
     "cards(game, players=None, seed=1, params=None) -> the game's card catalogue"},
    {NULL, NULL, 0, NULL},
};

static void free_module(void *mod) {
    (void)mod;
    for (int i = 0; i < cache_count; i++) {
        cache_clear(&caches[i]);
        PyMem_Free(caches[i].keys);
        PyMem_Free(caches[i].texts);
    }
    PyMem_Free(caches);
    caches = NULL;
    cache_count = 0;
    for (int i = 0; i < NAMES_CACHED; i++) Py_CLEAR(names[i].text);
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "meeple._meeple", "meeple's C core: games, states, their rules.", -1, module_methods,
    NULL, NULL, NULL, free_module,
};

PyMODINIT_FUNC PyInit__meeple(void) {
    if (PyType_Ready(&StateType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    caches = PyMem_Calloc((size_t)meeple_game_count, sizeof *caches);
    if (!caches) goto fail;
    cache_count = meeple_game_count;
    for (int i = 0; i < cache_count; i++) caches[i].def = meeple_games[i];
    Error = PyErr_NewExceptionWithDoc("meeple.Error", "What the core refused, with its one-line reason.", NULL, NULL);
    if (!Error || PyModule_AddObjectRef(m, "Error", Error) < 0) goto fail;
    IllegalAction = PyErr_NewExceptionWithDoc("meeple.IllegalAction",
                                              "An action the rules refuse now; the message is the reason.",
                                              Error, NULL);
    if (!IllegalAction || PyModule_AddObjectRef(m, "IllegalAction", IllegalAction) < 0) goto fail;
    if (PyModule_AddObjectRef(m, "State", (PyObject *)&StateType) < 0) goto fail;
    if (PyModule_AddStringConstant(m, "version", MEEPLE_VERSION) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "SEED_MAX", MEEPLE_SEED_MAX) < 0) goto fail;
    load_function = PyObject_GetAttrString(m, "load");
    if (!load_function) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
