/* tree.h — plain nested data (maps, lists, strings, integers, booleans) crossing the core's boundary.
 *
 * Games describe their state through a tree_writer and read a state back through a tree_reader, so the
 * rules never depend on Lua: the bindings implement both over Lua tables, tests and logs write text. */
#ifndef MEEPLE_TREE_H
#define MEEPLE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Keys and string values are the game's constant names (its tables of people, districts, phases):
 * a writer may keep the pointers past the call (lazy_view.c records a view that way). */
typedef struct tree_writer tree_writer;
struct tree_writer {
    void (*open_map)(tree_writer *w);
    void (*open_list)(tree_writer *w);
    void (*close)(tree_writer *w);
    void (*key)(tree_writer *w, const char *key);   /* inside a map, before each value */
    void (*str)(tree_writer *w, const char *value);
    void (*num)(tree_writer *w, int64_t value);
    void (*boolean)(tree_writer *w, bool value);
    /* Optional (NULL: every key is wanted): whether the value of `key`, a key of the root map, is
     * wanted. A lazy view fills its fields one by one and declines the others (lazy_view.c). */
    bool (*wants)(tree_writer *w, const char *key);
};

/* Writes `key` if its value is wanted, and says so: the game then writes the value, and skips it
 * otherwise. A game asks for every top-level value that takes work to write (a list of players, a
 * deck); a writer that declines a key drops whatever value follows it anyway, so asking is only ever
 * a saving. */
bool tw_key(tree_writer *w, const char *key);

/* Shorthands for the common "key = value" pairs (asking tw_key first). */
void tw_key_str(tree_writer *w, const char *key, const char *value);
void tw_key_num(tree_writer *w, const char *key, int64_t value);
void tw_key_bool(tree_writer *w, const char *key, bool value);

/* A writer of compact, canonical text ({a=1,b={"x","y"}}); keys appear in the order written.
 * Used for tests, golden files and logs. Grows its buffer as needed. */
typedef struct text_writer {
    tree_writer base;
    char *buf;
    size_t len, cap;
    bool need_comma;
} text_writer;
void text_writer_init(text_writer *t);
void text_writer_free(text_writer *t);

typedef enum {
    TREE_ABSENT = 0, /* the key is missing (or the value is nil) */
    TREE_BOOL,
    TREE_NUM,
    TREE_STR,
    TREE_TABLE,      /* a map or a list */
    TREE_OTHER       /* a value that is none of the above (a function, a float, ...) */
} tree_kind;

/* A reader walks a tree by entering fields and list items; every enter is matched by a leave, even
 * when the value is absent. It keeps the path for messages ("players[2].rows.medes"). */
typedef struct tree_reader tree_reader;
struct tree_reader {
    tree_kind (*enter_key)(tree_reader *r, const char *key);
    tree_kind (*enter_index)(tree_reader *r, int index);  /* 1-based */
    void (*leave)(tree_reader *r);
    tree_kind (*kind)(tree_reader *r);                     /* of the value entered last */
    int (*length)(tree_reader *r);                         /* of the current list */
    bool (*get_int)(tree_reader *r, int64_t *out);         /* integer value, false if not one */
    const char *(*get_str)(tree_reader *r);                /* string value or NULL */
    bool (*get_bool)(tree_reader *r);
    /* The first key of the current map that is not in `known` (NULL-terminated), or NULL. An
     * integer key is named "[3]", in messages and in `known` alike. */
    const char *(*unknown_key)(tree_reader *r, const char *const *known);
    /* The current path, for messages. */
    const char *(*path)(tree_reader *r);
};

/* ---- For writing a tree_reader: the path it is at, for messages ("players[2].rows.medes") ---- */
#define TREE_PATH_DEPTH 24

typedef struct tree_path {
    int depth; /* values entered and not yet left (it goes on counting past TREE_PATH_DEPTH) */
    struct {
        char key[48];
        int index; /* 0 when the step is a key */
    } steps[TREE_PATH_DEPTH];
    char text[512];
} tree_path;

/* One step in (a key, or a 1-based index with key NULL), and one back out: every enter a leave. */
void tree_path_enter(tree_path *p, const char *key, int index);
void tree_path_leave(tree_path *p);
/* The path as text, kept in `p` ("players[2].rows.medes"; `root` where nothing is entered). */
const char *tree_path_text(tree_path *p, const char *root);
/* Whether `key` is one of `known` (NULL-terminated), as a reader's unknown_key asks of each key. */
bool tree_key_known(const char *key, const char *const *known);

#endif
