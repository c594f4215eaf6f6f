/* guards.h — pricing C library calls before they run.
 *
 * A C function of Lua's libraries (a pattern match, string.rep, table.sort...) runs without a Lua
 * instruction, so a count hook cannot stop it: one call can outlast any limit. A guard stands in for
 * such a function: it works out what the call can cost from its arguments (instructions, an upper
 * bound on its wall-clock time, the bytes it may write), asks the sandbox's meter for them, and only
 * then calls Lua's own function. The meter is the limits engine's (limits.h), for whoever runs the
 * code under limits (a bot, a variant's hook call): it charges the instructions and refuses, by
 * raising the limit's error, a call whose worst case cannot finish in the time left. */
#ifndef MEEPLE_GUARDS_H
#define MEEPLE_GUARDS_H

#include <stddef.h>

#include <lua.h>

/* What one table slot read or written costs (ns); for host functions that price their own loops. */
#define GUARD_NS_SLOT 50.0
/* A worst case under this (ns) needs no clock read: it cannot overrun a limit by more than 0.1 ms. */
#define GUARD_NS_NEGLIGIBLE 1e5

typedef struct guard_meter guard_meter;
struct guard_meter {
    /* Charges `steps` instructions for the C call `what` ("string.find") about to run; raises the
     * sandbox's error (does not return) when they overrun its budget or when `worst_ns` cannot
     * finish before its deadline. */
    void (*price)(lua_State *L, guard_meter *self, const char *what, double steps, double worst_ns);
    /* The bytes the code may still allocate: what a call's output is bounded by. */
    size_t (*memory_left)(lua_State *L, guard_meter *self);
};

/* Replaces, in the table at `libs`, the functions that could run long with guards priced by `meter`:
 * those of libs.string, libs.table and libs.utf8 (in place), libs.tonumber and libs.load (load for
 * text only). Any of these fields may be absent. `meter` must outlive every guard made: the guards
 * hold it as a light userdata. */
void guards_install(lua_State *L, guard_meter *meter, int libs);

#endif
