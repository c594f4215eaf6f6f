/* test_limits.c — the limits engine (core/sandbox/limits.h) on its own, in a bare lua_State: the
 * pitfalls of STYLE.md's "Lua embedding" hold whoever owns the limits (a bot, a variant's hooks). */
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "check.h"
#include "sandbox/guards.h"
#include "sandbox/limits.h"

enum { FAULT_LIMIT = 7 };

static int words(const limits *lim, limits_kind kind, char *out, size_t n) {
    static const char *const names[] = {"instructions", "time", "memory", "stopped"};
    snprintf(out, n, "over the %s limit (%lld)", names[kind], lim->instructions);
    return FAULT_LIMIT;
}

/* A state whose every allocation and instruction goes through `lim`, as a bot's does. */
static lua_State *limited_state(limits *lim, long long instructions, double ms, size_t memory) {
    limits_init(lim, instructions, ms, memory, words);
    lua_State *L = lua_newstate(limits_alloc, lim);
    CHECK(L, "lua_newstate failed");
    luaL_openlibs(L);
    lua_sethook(L, limits_hook, LUA_MASKCOUNT, LIMITS_HOOK_STEP);
    return L;
}

/* Runs `code` as one limited call: its status. */
static int run(lua_State *L, limits *lim, const char *code) {
    CHECK(luaL_loadstring(L, code) == LUA_OK, "cannot load %s", code);
    limits_begin_call(lim);
    int status = lua_pcall(L, 0, 0, 0);
    limits_end_call(lim);
    lua_settop(L, 0);
    return status;
}

/* Once the limit trips its error is raised again at the next instruction, so a pcall that catches it
 * cannot carry on: without the re-arming, the loops below, each under a pcall, never end (the test's
 * timeout fails it). The reason is the owner's words plus where. */
static void test_pcall_cannot_swallow_the_instruction_limit(void) {
    limits lim;
    lua_State *L = limited_state(&lim, 100000, 60000, (size_t)64 << 20);
    lim.where = " in init";
    int status = run(L, &lim, "caught = 0 local function spin() while true do end end "
                          "local function forever() while true do pcall(spin) caught = caught + 1 end end "
                          "while true do pcall(forever) caught = caught + 1 end");
    CHECK(status != LUA_OK, "the loop ended without an error");
    lua_getglobal(L, "caught");
    CHECK(lua_tointeger(L, -1) <= 1, "the trip was caught %lld times", (long long)lua_tointeger(L, -1));
    CHECK(lim.fault == FAULT_LIMIT, "fault %d", lim.fault);
    CHECK(strcmp(lim.reason, "over the instructions limit (100000) in init") == 0, "reason '%s'", lim.reason);
    lua_close(L);
}

/* Past the cap growth is refused; frees and shrinks pass even over the cap (a bot's held states can
 * take it there), and the memory is counted back. */
static void test_allocator_refuses_only_growth(void) {
    limits lim;
    limits_init(&lim, 1000, 1000, 1000, words);
    void *p = limits_alloc(&lim, NULL, 0, 800);
    CHECK(p && lim.used == 800, "800 bytes: %zu used", lim.used);
    CHECK(!limits_alloc(&lim, NULL, 0, 300), "growth past the cap was allowed");
    CHECK(lim.refused, "the refusal is not recorded");
    lim.memory = 500; /* now over the cap */
    void *q = limits_alloc(&lim, p, 800, 600);
    CHECK(q && lim.used == 600, "a shrink over the cap was refused or miscounted: %zu used", lim.used);
    CHECK(limits_alloc(&lim, q, 600, 0) == NULL && lim.used == 0, "a free left %zu used", lim.used);
    CHECK(lim.peak == 800, "peak %zu", lim.peak);
    limits_check(&lim);
    CHECK(lim.fault == FAULT_LIMIT && strstr(lim.reason, "memory"), "reason '%s'", lim.reason);
}

/* Lua retries a refused allocation after an emergency collection: when the retry fits, the code goes
 * on under its cap with no fault. */
static void test_a_retry_that_fits_clears_the_refusal(void) {
    limits lim;
    limits_init(&lim, 1000, 60000, 1000, words);
    limits_begin_call(&lim);
    void *p = limits_alloc(&lim, NULL, 0, 600);
    CHECK(!limits_alloc(&lim, NULL, 0, 600), "growth past the cap was allowed");
    limits_alloc(&lim, p, 600, 0); /* the collection frees */
    void *q = limits_alloc(&lim, NULL, 0, 600);
    CHECK(q && !lim.refused, "the retry failed or left the refusal");
    limits_check(&lim);
    CHECK(lim.fault == 0, "a fault after a retry that fit: %s", lim.reason);
    limits_alloc(&lim, q, 600, 0);
}

/* A long C call is priced before it runs: refused, naming the call, when it overruns the budget. */
static void test_long_c_calls_are_priced_first(void) {
    limits lim;
    lua_State *L = limited_state(&lim, 1000000, 60000, (size_t)64 << 20);
    lua_pushglobaltable(L);
    guards_install(L, &lim.meter, -1);
    lua_pop(L, 1);
    int status = run(L, &lim, "local s = string.rep('a', 10000000)");
    CHECK(status != LUA_OK, "string.rep ran");
    CHECK(strcmp(lim.reason, "over the instructions limit (1000000): string.rep would cost 20000000 "
                             "instructions") == 0, "reason '%s'", lim.reason);
    lua_close(L);
}

/* Outside a call nothing is priced, and the memory left is unbounded: a variant's caller runs free. */
static void test_nothing_is_priced_outside_a_call(void) {
    limits lim;
    limits_init(&lim, 10, 1000, 1000, words);
    lim.used = 5000;
    CHECK(limits_memory_left(&lim) == SIZE_MAX, "memory left outside a call: %zu", limits_memory_left(&lim));
    limits_price(NULL, &lim, "string.rep", 1e9, 1e12);
    CHECK(lim.fault == 0 && lim.steps == 0, "priced outside a call: %s", lim.reason);
}

int main(void) {
    test_pcall_cannot_swallow_the_instruction_limit();
    test_allocator_refuses_only_growth();
    test_a_retry_that_fits_clears_the_refusal();
    test_long_c_calls_are_priced_first();
    test_nothing_is_priced_outside_a_call();
    puts("test_limits: ok");
    return 0;
}
