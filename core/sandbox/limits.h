/* limits.h — the limits other people's code runs under, per call: Lua instructions, wall clock, memory.
 *
 * One engine for both sandboxes: a bot (a lua_State of its own, limited from its creation on) and a
 * variant's hooks (limited inside the caller's lua_State for the length of one call). Its parts:
 *   - limits_hook, a count hook firing every LIMITS_HOOK_STEP instructions: it counts them, reads the
 *     clock, and once a limit trips re-arms itself to fire at every instruction of every thread and
 *     raises, so no pcall in the limited code can swallow the trip;
 *   - limits_alloc, an allocator that refuses growth past the cap (frees and shrinks always pass);
 *   - the meter that prices C library calls before they run (guards.h) against the call's budget;
 *   - the reason: the owner words each limit (limits_words_fn); the engine adds what the priced call
 *     would cost and where it happened, and keeps the first reason. */
#ifndef MEEPLE_LIMITS_H
#define MEEPLE_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include <lua.h>

#include "sandbox/guards.h"

#define LIMITS_HOOK_STEP 1000 /* the count hook fires every this many instructions */
#define LIMITS_REASON 256     /* the bytes of a reason, its end included */

/* Which limit broke. */
typedef enum limits_kind {
    LIMITS_INSTRUCTIONS,
    LIMITS_TIME,
    LIMITS_MEMORY,
    LIMITS_STOPPED /* limits_interrupt: the host asked every call to end */
} limits_kind;

typedef struct limits limits;

/* How the owner names a broken limit: writes the words ("exceeded the time limit (1000 ms per
 * decision)") into out and returns its own fault code for it (not 0). */
typedef int limits_words_fn(const limits *lim, limits_kind kind, char *out, size_t n);

struct limits {
    /* Set by the owner before the first call. */
    long long instructions;  /* per call */
    double ms;               /* wall clock per call */
    size_t memory;           /* what `used` may grow to */
    bool stoppable;          /* limits_interrupt ends its calls */
    limits_words_fn *words;
    const char *where;       /* added to a broken limit's reason (" while loading"); "" or NULL for none */
    lua_Alloc base;          /* the allocator limits_alloc hands on to; NULL: realloc and free */
    void *base_ud;

    /* The call running. */
    bool in_call;            /* limited code may run: C calls are priced, growth is refused once done */
    long long steps;         /* instructions counted */
    double start, deadline;  /* monotonic ms */

    /* Memory: the bytes allocated through limits_alloc and charged (limits_charge), and the peak. */
    size_t used, peak;
    bool refused;            /* a growth refused for the cap, not yet retried */
    const void *refused_ptr;
    size_t refused_osize, refused_nsize;

    /* Why the code is stopped: the owner's fault code (0 while it runs) and one line. */
    int fault;
    char reason[LIMITS_REASON];

    guard_meter meter;       /* prices the guarded C calls (guards.h) against this call */
};

/* Sets lim up with the owner's budget and words; the rest zero. */
void limits_init(limits *lim, long long instructions, double ms, size_t memory, limits_words_fn *words);

/* The limits L's code runs under: those limits_alloc was given (lua_newstate for a bot, for the
 * length of a call for a variant), else NULL. The allocator says it, so no registry lookup is needed
 * when the hook fires. */
limits *limits_of(lua_State *L);

/* The count hook (lua_sethook(L, limits_hook, LUA_MASKCOUNT, LIMITS_HOOK_STEP)), over limits_of(L). */
void limits_hook(lua_State *L, lua_Debug *ar);

/* The allocator (ud: the limits): refuses growth past lim->memory, and, during a call, any big growth
 * once the call is over time or done (one instruction can copy megabytes). Lua retries a refused
 * allocation once after an emergency collection: a retry that succeeds clears the refusal; any other
 * leaves it for the hook to raise. */
void *limits_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* Charges bytes held outside the Lua heap (the game states a bot holds; negative when freed): past the
 * cap, the memory limit trips and is raised. `ud`: the limits (lmeeple.h's meeple_charge_fn). */
void limits_charge(lua_State *L, void *ud, long long bytes);

/* A call begins: the instructions count from 0, the clock from now. */
void limits_begin_call(limits *lim);
/* The call has returned: a long C call runs between the hook's counts, so every limit is checked once
 * more. */
void limits_end_call(limits *lim);

/* Records why the code is stopped, as the owner's fault code (not 0); the first reason stands. */
void limits_fail(limits *lim, int fault, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Trips the first limit broken, if any (interrupted, memory, instructions, the clock). */
void limits_check(limits *lim);
/* Re-arms the hook to every instruction of this thread and raises the reason: does not return. */
int limits_raise(lua_State *L, limits *lim);

/* Charges `steps` instructions for work done in C once it is done (a playout), checks every limit
 * and raises a trip. */
void limits_charge_steps(lua_State *L, limits *lim, double steps);
/* Prices the C call `what` about to run (guards.h): raises when `steps` instructions overrun the
 * budget or `worst_ns` cannot finish before the deadline; else charges them. Outside a call, nothing. */
void limits_price(lua_State *L, limits *lim, const char *what, double steps, double worst_ns);
/* The bytes the code may still allocate (SIZE_MAX outside a call). */
size_t limits_memory_left(const limits *lim);

/* Asks every stoppable call, in every thread, to end at once (on), or lets them run again (off).
 * Async-signal-safe. */
void limits_interrupt(bool on);

#endif
