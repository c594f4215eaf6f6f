/* test_action_texts.c — the interned action texts (core/lua/action_texts.h) on a made-up game whose text
 * of action `a` is "act A" (and "act A @P" where the position shows, as Babel's "@N" does): each list
 * holds the texts in order as Lua strings, the same action gives the very same string from one call
 * to the next, a text's key folds in what the position shows, and an answer is found by its text
 * whether the cache still holds it or let it go after ACTION_TEXTS_MAX texts. */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lua/action_texts.h"
#include "check.h"

/* The made-up state: one byte, whether positions show. */
static uint32_t fake_text_key(const void *st, action_t a) {
    return *(const unsigned char *)st ? a | 1u << 31 : a & 0xffff;
}

static void fake_text(const void *st, action_t a, char *out) {
    if (*(const unsigned char *)st) snprintf(out, MEEPLE_ACTION_TEXT, "act %u @%u", a & 0xffff, a >> 16);
    else snprintf(out, MEEPLE_ACTION_TEXT, "act %u", a & 0xffff);
}

static const game_def fake_game = {.name = "fake", .state_size = 1, .action_text = fake_text,
                                   .text_key = fake_text_key};

/* Pushes the list for acts[0..n) and checks it holds their texts, in order. */
static void push_and_check(lua_State *L, const void *st, const action_t *acts, int n, uint32_t *keys) {
    action_texts_push(L, &fake_game, st, acts, n, keys);
    CHECK(lua_rawlen(L, -1) == (lua_Unsigned)n, "a list of %d texts has %llu", n, (unsigned long long)lua_rawlen(L, -1));
    for (int i = 0; i < n; i++) {
        char want[MEEPLE_ACTION_TEXT];
        fake_text(st, acts[i], want);
        lua_rawgeti(L, -1, i + 1);
        CHECK(strcmp(lua_tostring(L, -1), want) == 0, "text %d is '%s', not '%s'", i + 1, lua_tostring(L, -1), want);
        CHECK(keys[i] == fake_text_key(st, acts[i]), "text %d has key %#x", i + 1, keys[i]);
        lua_pop(L, 1);
    }
}

static void texts_are_interned(lua_State *L) {
    unsigned char hidden = 0, shown = 1;
    action_t acts[3] = {7, 7 | 2u << 16, 9};
    uint32_t keys[3];
    push_and_check(L, &hidden, acts, 1, keys);
    push_and_check(L, &hidden, acts, 3, keys);
    CHECK(keys[0] == keys[1], "the position folded out of the key where it does not show");
    lua_rawgeti(L, -2, 1);
    lua_rawgeti(L, -2, 1);
    CHECK(lua_topointer(L, -1) == lua_topointer(L, -2), "the same text is the same string");
    lua_pop(L, 4);
    push_and_check(L, &shown, acts, 3, keys);
    CHECK(keys[0] != keys[1], "a position that shows is in the key");
    lua_pushstring(L, "act 7 @2");
    CHECK(action_texts_find(L, -1, &fake_game, &shown, acts, keys, 3) == 1, "found by its text");
    lua_pushstring(L, "act 7 @3");
    CHECK(action_texts_find(L, -1, &fake_game, &shown, acts, keys, 3) == -1, "another text is no action's");
    lua_pushinteger(L, 7);
    CHECK(action_texts_find(L, -1, &fake_game, &shown, acts, keys, 3) == -1, "a number is no action's text");
    lua_settop(L, 0);
}

/* Past ACTION_TEXTS_MAX texts the cache starts afresh; texts from before are found all the same. */
static void a_full_cache_starts_afresh(lua_State *L) {
    unsigned char hidden = 0;
    action_t first[1] = {1};
    uint32_t first_key[1], key[1];
    push_and_check(L, &hidden, first, 1, first_key);
    lua_rawgeti(L, -1, 1); /* "act 1", kept as a bot keeps its answer */
    for (action_t a = 2; a <= ACTION_TEXTS_MAX + 10; a++) {
        action_t one[1] = {a};
        action_texts_push(L, &fake_game, &hidden, one, 1, key);
        lua_pop(L, 1);
    }
    CHECK(action_texts_find(L, -1, &fake_game, &hidden, first, first_key, 1) == 0,
          "a text the cache let go is still found");
    lua_pushstring(L, "act 2");
    CHECK(action_texts_find(L, -1, &fake_game, &hidden, first, first_key, 1) == -1, "and another is not");
    CHECK(lua_gettop(L) == 3, "find leaves the stack as it was (%d)", lua_gettop(L));
    lua_settop(L, 0);
}

int main(void) {
    lua_State *L = luaL_newstate();
    texts_are_interned(L);
    a_full_cache_starts_afresh(L);
    lua_close(L);
    printf("action texts are interned, keyed by what they show, and found however old\n");
    return 0;
}
