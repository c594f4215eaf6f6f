/* tree_json.h — game trees (tree.h) as jansson values and back: a state's table written to JSON, and
 * a tree_reader over JSON, so C code can put a state through its game's read_table as Lua does. */
#ifndef MEEPLE_TREE_JSON_H
#define MEEPLE_TREE_JSON_H

#include <jansson.h>

#include "rules/rules.h"
#include <meeple/tree.h>

typedef void (*tree_source)(const game_def *def, const void *st, int seat, tree_writer *w);

/* The tree `source` writes, as a new JSON value; NULL when out of memory or malformed. */
json_t *tree_json(tree_source source, const game_def *def, const void *st, int seat);

/* A reader over `root` (borrowed): enter/leave keep a path for messages. */
#define JSON_READER_DEPTH 32
typedef struct json_reader {
    tree_reader base;
    json_t *stack[JSON_READER_DEPTH + 1];
    char names[JSON_READER_DEPTH][24];
    int depth;
    char path[JSON_READER_DEPTH * 24];
} json_reader;
void json_reader_init(json_reader *r, json_t *root);

/* Whether the table of `start` passes `def`'s read_table under `params` and `seed`, and what it reads
 * passes validate: the checks session_from_table makes of a table, made of a save's start state (whose
 * own bytes validate checks too). The reason is read_table's ("players[1].fields: ..."). */
bool tree_state_checks(const game_def *def, const void *start, const param_value *params, uint64_t seed,
                       reason *why);

#endif
