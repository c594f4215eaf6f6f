/* luajson.h — Lua values to JSON and back, over Debian's jansson: `meeple.json` for scripts, and the one
 * conversion the host uses wherever a Lua table leaves as JSON (external bots' views, HTML replays).
 *
 * The mapping: a table whose keys are exactly 1..n is an array (the empty table too); a table whose
 * keys are all strings is an object; anything else (mixed keys, functions, NaN, a string that is not
 * UTF-8, nesting deeper than LUAJSON_MAX_DEPTH, which is also where a cycle ends) is refused with a
 * reason. JSON null is `meeple.json.null` (a light userdata), so an array keeps its holes. Objects are
 * written with sorted keys: Lua's table order changes from run to run, output must not. */
#ifndef MEEPLE_LUAJSON_H
#define MEEPLE_LUAJSON_H

#include <stddef.h>

#include <jansson.h>
#include <lua.h>

#define LUAJSON_MAX_DEPTH 64

/* The Lua value at `idx` as a new JSON value (the caller json_decref's it); NULL and the reason in
 * `err` when it has no JSON form. Dump it with JSON_SORT_KEYS for output that does not vary. */
json_t *luajson_encode_value(lua_State *L, int idx, char *err, size_t errn);

/* Pushes `v` as a Lua value: arrays and objects become tables, null becomes meeple.json.null. */
void luajson_push(lua_State *L, const json_t *v);

/* Pushes the `meeple.json` table: encode(value [, {indent = true | N}]) --> text (raises on a value
 * with no JSON form), decode(text) --> value | nil, reason, and null. */
void luajson_open(lua_State *L);

#endif
