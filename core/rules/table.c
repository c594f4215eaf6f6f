/* table.c — typed reads from state tables, shared by every game's read_table. */
#include "rules/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int table_name_index(const char *word, const char *const *names, int count) {
    for (int i = 0; i < count; i++)
        if (names[i] && strcmp(word, names[i]) == 0) return i;
    return -1;
}

bool table_refuse(tree_reader *r, reason *why, const char *what) {
    return deny(why, "%s: %s", r->path(r), what);
}

bool table_check_keys(tree_reader *r, const char *const *known, reason *why) {
    const char *unknown = r->unknown_key(r, known);
    if (!unknown) return true;
    char what[120];
    snprintf(what, sizeof what, "unknown field '%.60s'", unknown);
    return table_refuse(r, why, what);
}

bool table_read_int(tree_reader *r, const char *key, int min, int max, int *out, reason *why) {
    tree_kind kind = r->enter_key(r, key);
    int64_t v = *out;
    bool ok = kind == TREE_ABSENT || (kind == TREE_NUM && r->get_int(r, &v) && v >= min && v <= max);
    if (ok) {
        *out = (int)v;
    } else {
        char what[80];
        snprintf(what, sizeof what, "a whole number from %d to %d", min, max);
        table_refuse(r, why, what);
    }
    r->leave(r);
    return ok;
}

bool table_read_bool(tree_reader *r, const char *key, bool *out, reason *why) {
    tree_kind kind = r->enter_key(r, key);
    bool ok = kind == TREE_ABSENT || kind == TREE_BOOL;
    if (kind == TREE_BOOL) *out = r->get_bool(r);
    if (!ok) table_refuse(r, why, "true or false");
    r->leave(r);
    return ok;
}

bool table_read_name(tree_reader *r, const char *key, const char *const *names, int count, int *out,
                     const char *expect, reason *why) {
    tree_kind kind = r->enter_key(r, key);
    bool ok = true;
    if (kind != TREE_ABSENT) {
        const char *name = r->get_str(r);
        int index = name ? table_name_index(name, names, count) : -1;
        if (index < 0) ok = table_refuse(r, why, expect);
        else *out = index;
    }
    r->leave(r);
    return ok;
}

bool table_path_parse(const char *text, int players, table_path *out, reason *why) {
    memset(out, 0, sizeof *out);
    out->player = -1;
    const char *rest = text;
    if (strncmp(text, "players[", 8) == 0) {
        char *end;
        long n = strtol(text + 8, &end, 10);
        if (end == text + 8 || strncmp(end, "].", 2) != 0 || n < 1 || n > players)
            return deny(why, "'%.60s' is no zone: players[N] takes N from 1 to %d", text, players);
        out->player = (int)n - 1;
        rest = end + 2;
    }
    const char *dot = strchr(rest, '.');
    size_t key_len = dot ? (size_t)(dot - rest) : strlen(rest);
    size_t sub_len = dot ? strlen(dot + 1) : 0;
    if (key_len == 0 || key_len >= sizeof out->key || sub_len >= sizeof out->sub || (dot && !sub_len))
        return deny(why, "'%.60s' is no zone", text);
    memcpy(out->key, rest, key_len);
    if (dot) memcpy(out->sub, dot + 1, sub_len);
    return true;
}
