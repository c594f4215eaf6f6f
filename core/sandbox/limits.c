/* limits.c — the limits engine (limits.h): the count hook, the capped allocator, the meter of priced
 * C calls and the reason a broken limit gives, for bots and variants alike. */
#include "sandbox/limits.h"
#include "host/timing.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

/* A growth this big reads the clock during a call. */
#define BIG_ALLOCATION ((size_t)64 << 10)

static volatile sig_atomic_t stop_asked;

void limits_interrupt(bool on) { stop_asked = on; }

/* ---- The reason ---- */

void limits_fail(limits *lim, int fault, const char *fmt, ...) {
    if (lim->fault) return;
    lim->fault = fault;
    va_list args;
    va_start(args, fmt);
    vsnprintf(lim->reason, sizeof lim->reason, fmt, args);
    va_end(args);
}

/* Trips `kind`: the owner's words, then `detail` (what a priced call would cost), then where. */
static void trip(limits *lim, limits_kind kind, const char *detail) {
    if (lim->fault) return;
    char words[LIMITS_REASON];
    int fault = lim->words(lim, kind, words, sizeof words);
    limits_fail(lim, fault, "%s%s%s", words, detail, lim->where ? lim->where : "");
}

void limits_check(limits *lim) {
    if (lim->fault) return;
    if (lim->stoppable && stop_asked) trip(lim, LIMITS_STOPPED, "");
    else if (lim->refused) trip(lim, LIMITS_MEMORY, "");
    else if (lim->steps > lim->instructions) trip(lim, LIMITS_INSTRUCTIONS, "");
    else if (timing_now_ms() > lim->deadline) trip(lim, LIMITS_TIME, "");
}

int limits_raise(lua_State *L, limits *lim) {
    lua_sethook(L, limits_hook, LUA_MASKCOUNT, 1);
    return luaL_error(L, "%s", lim->reason);
}

/* ---- The hook ---- */

limits *limits_of(lua_State *L) {
    void *ud;
    return lua_getallocf(L, &ud) == limits_alloc ? ud : NULL;
}

/* Never removed by a bot; after a trip it fires at every instruction of every thread that runs, so
 * the error it raises reaches the host whatever pcalls stand in between. */
void limits_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    limits *lim = limits_of(L);
    if (!lim->fault) {
        lim->steps += LIMITS_HOOK_STEP;
        limits_check(lim);
    }
    if (lim->fault) limits_raise(L, lim);
}

void limits_begin_call(limits *lim) {
    lim->steps = 0;
    lim->start = timing_now_ms();
    lim->deadline = lim->start + lim->ms;
    lim->in_call = true;
}

void limits_end_call(limits *lim) {
    lim->in_call = false;
    limits_check(lim);
}

/* ---- Memory ---- */

static void refuse(limits *lim, const void *ptr, size_t osize, size_t nsize) {
    lim->refused = true;
    lim->refused_ptr = ptr;
    lim->refused_osize = osize;
    lim->refused_nsize = nsize;
}

static void *base_alloc(limits *lim, void *ptr, size_t osize, size_t nsize) {
    if (lim->base) return lim->base(lim->base_ud, ptr, osize, nsize);
    if (nsize > 0) return realloc(ptr, nsize);
    free(ptr);
    return NULL;
}

void *limits_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    limits *lim = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        base_alloc(lim, ptr, osize, 0);
        lim->used -= old;
        return NULL;
    }
    bool retry = lim->refused && ptr == lim->refused_ptr && osize == lim->refused_osize &&
                 nsize == lim->refused_nsize;
    /* The hook counts instructions, and one instruction can copy megabytes (a .. b of long strings):
     * a big growth reads the clock, and once the call is over time or done growth is refused, so each
     * further such instruction fails at once until the hook raises the reason. */
    if (nsize > old && lim->in_call &&
        (lim->fault || (nsize - old >= BIG_ALLOCATION && timing_now_ms() > lim->deadline))) {
        limits_check(lim);
        return NULL;
    }
    if (nsize > old && lim->used + (nsize - old) > lim->memory) {
        refuse(lim, ptr, osize, nsize);
        return NULL;
    }
    void *p = base_alloc(lim, ptr, osize, nsize);
    if (!p) return NULL;
    lim->used = lim->used - old + nsize;
    if (lim->used > lim->peak) lim->peak = lim->used;
    if (retry) lim->refused = false;
    return p;
}

void limits_charge(lua_State *L, void *ud, long long bytes) {
    limits *lim = ud;
    lim->used = (size_t)((long long)lim->used + bytes);
    if (lim->used > lim->peak) lim->peak = lim->used;
    if (bytes > 0 && lim->used > lim->memory) {
        refuse(lim, NULL, 0, 0);
        limits_check(lim);
        limits_raise(L, lim);
    }
}

size_t limits_memory_left(const limits *lim) {
    if (!lim->in_call) return SIZE_MAX;
    return lim->used < lim->memory ? lim->memory - lim->used : 0;
}

/* ---- Priced C calls ---- */

/* Charges a C call's instructions; a price too large for a count is charged as overrunning any. */
static void add_steps(limits *lim, double steps) { lim->steps += steps > 1e15 ? (long long)1e15 : (long long)steps; }

void limits_charge_steps(lua_State *L, limits *lim, double steps) {
    add_steps(lim, steps);
    limits_check(lim);
    if (lim->fault) limits_raise(L, lim);
}

/* A call that cannot finish within the budget is refused before it starts, so the host never waits
 * on a C loop past the clock. */
void limits_price(lua_State *L, limits *lim, const char *what, double steps, double worst_ns) {
    if (!lim->in_call) return;
    char detail[LIMITS_REASON];
    if (!lim->fault && (double)lim->steps + steps > (double)lim->instructions) {
        snprintf(detail, sizeof detail, ": %s would cost %.0f instructions", what, steps);
        trip(lim, LIMITS_INSTRUCTIONS, detail);
    }
    if (!lim->fault && worst_ns > GUARD_NS_NEGLIGIBLE) {
        double left = lim->deadline - timing_now_ms();
        if (worst_ns * 1e-6 > left) {
            snprintf(detail, sizeof detail, ": %s could take too long for the %.0f ms left", what,
                     left > 0 ? left : 0);
            trip(lim, LIMITS_TIME, detail);
        }
    }
    if (lim->fault) limits_raise(L, lim);
    add_steps(lim, steps);
}

static limits *limits_of_meter(guard_meter *m) { return (limits *)(void *)((char *)m - offsetof(limits, meter)); }

static void meter_price(lua_State *L, guard_meter *self, const char *what, double steps, double worst_ns) {
    limits_price(L, limits_of_meter(self), what, steps, worst_ns);
}

static size_t meter_memory_left(lua_State *L, guard_meter *self) {
    (void)L;
    return limits_memory_left(limits_of_meter(self));
}

void limits_init(limits *lim, long long instructions, double ms, size_t memory, limits_words_fn *words) {
    memset(lim, 0, sizeof *lim);
    lim->instructions = instructions;
    lim->ms = ms;
    lim->memory = memory;
    lim->words = words;
    lim->meter = (guard_meter){.price = meter_price, .memory_left = meter_memory_left};
}
