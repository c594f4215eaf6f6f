/* shortest_json.h — JSON text as every JSON meeple prints is written: over jansson's values, with reals
 * in their shortest form that reads back exactly (jansson's own dumps writes 17 digits). */
#ifndef MEEPLE_SHORTEST_JSON_H
#define MEEPLE_SHORTEST_JSON_H

#include <stddef.h>

#include <jansson.h>

/* `v` as JSON text with every real in its shortest form that reads back exactly (0.0003, not
 * 0.00029999999999999997), as every JSON meeple prints; `flags` as json_dumps takes them (JSON_COMPACT,
 * JSON_INDENT, JSON_SORT_KEYS). malloc'd; NULL when out of memory. */
char *shortest_json_dumps(const json_t *v, size_t flags);

#endif
