/* table.h — helpers for games reading state tables: typed fields with defaults, names from a list, and
 * refusals that say where ("players[2].pawn: ..."). Every helper enters and leaves its key itself. */
#ifndef MEEPLE_TABLE_H
#define MEEPLE_TABLE_H

#include "rules/rules.h"

/* The index of `word` in `names` (count entries), or -1. */
int table_name_index(const char *word, const char *const *names, int count);

/* Refuses at the reader's current place: "path: what". Returns false. */
bool table_refuse(tree_reader *r, reason *why, const char *what);
/* Refuses a map holding a key not in `known` (NULL-terminated). */
bool table_check_keys(tree_reader *r, const char *const *known, reason *why);

/* Absent keys leave *out as it is (the default); a value of the wrong kind is refused. */
bool table_read_int(tree_reader *r, const char *key, int min, int max, int *out, reason *why);
bool table_read_bool(tree_reader *r, const char *key, bool *out, reason *why);
/* A name from `names`; `expect` says what is wanted ("a phase: actions, halve or over"). */
bool table_read_name(tree_reader *r, const char *key, const char *const *names, int count, int *out,
                     const char *expect, reason *why);



/* A zone's or counter's path in the state table: "discard", "players[2].hand",
 * "players[1].rows.medes". */
typedef struct table_path {
    int player;      /* 0-based, or -1 for a shared zone */
    char key[32];    /* "hand", "rows", "discard" */
    char sub[32];    /* "medes" in "rows.medes", or "" */
} table_path;

bool table_path_parse(const char *text, int players, table_path *out, reason *why);
#endif
