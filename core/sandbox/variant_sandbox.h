/* variant_sandbox.h — the limits a house-rule variant's code runs under, and how its file is read.
 *
 * A variant is code from a file anyone may have written, run inside the caller's lua_State (the shell,
 * a script, a match's referee). Its hooks get a bot's default limits per call: instructions, wall
 * clock and memory growth; a hook that breaks one raises one line, and the caller's state is intact. */
#ifndef MEEPLE_VARIANT_SANDBOX_H
#define MEEPLE_VARIANT_SANDBOX_H

#include <lua.h>

#define VARIANT_MS 1000.0                    /* wall clock per call into the variant */
#define VARIANT_INSTRUCTIONS 1000000000LL    /* Lua instructions per call into the variant */
#define VARIANT_MEMORY ((size_t)128 << 20)   /* memory a hook call may add */
#define VARIANT_HEAP ((size_t)1 << 30)       /* the bound of the caller's heap while a hook runs */
#define VARIANT_FILE_MAX ((long)1 << 20)     /* a variant file's size */

/* limited(label, f, ...): calls f(...) under the limits and returns its results; a broken limit raises
 * "LABEL: exceeded the time limit (1000 ms per call into the variant)" and the like (LABEL, as
 * "variant X, hook Y", names what ran when it broke; nil for none), however f catches errors. Calls
 * nested inside a limited call share its budget. */
int variant_limited(lua_State *L);

/* guarded_libs(): fresh copies of string (without dump), table and utf8, and tonumber, whose C calls
 * that could run long are priced before they run (guards.h) against the limits of the limited call
 * running; outside one they run as Lua's. */
int variant_guarded_libs(lua_State *L);

/* read_file(path): the text of a regular file of at most VARIANT_FILE_MAX bytes, or nil, why and
 * whether the file is simply not there (devices, pipes and directories are refused unread). */
int variant_read_file(lua_State *L);
/* names(folder) -> the names of the .lua files in it (without ".lua"; none when it cannot be read), for
 * a misspelt variant's nearest name. */
int variant_names(lua_State *L);

/* print(...): as Lua's, with control characters (newlines too) escaped. */
int variant_print(lua_State *L);

#endif
