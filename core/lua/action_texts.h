/* action_texts.h — actions' canonical texts as Lua strings, formatted once per lua_State and game.
 *
 * A bot is handed the legal actions as strings at every decision, and a search bot asks s:legal() at
 * every node it visits: formatting those texts was most of what a decision cost the host. Each
 * lua_State keeps, per game, one table from text key (game.h text_key) to the text's string and from
 * the string back to its key, so a text is formatted the first time it is met and is afterwards one
 * table read. The table is bounded: past ACTION_TEXTS_MAX texts it starts afresh. */
#ifndef MEEPLE_ACTION_TEXTS_H
#define MEEPLE_ACTION_TEXTS_H

#include <lua.h>

#include <meeple/game.h>

#define ACTION_TEXTS_MAX 32768

/* The text key of `a` at `st` (the action itself when the game's texts depend on it alone). */
static inline uint32_t action_text_key(const game_def *def, const void *st, action_t a) {
    return def->text_key ? def->text_key(st, a) : a;
}

/* Pushes the list of the texts of acts[0..n) at `st`; keys[i] (when keys is not NULL) gets each
 * action's text key. Raises only when out of memory. */
void action_texts_push(lua_State *L, const game_def *def, const void *st, const action_t *acts, int n,
                       uint32_t *keys);

/* Which of acts[0..n) (whose text keys are keys[0..n)) has the value at `idx` as its text: its index,
 * or -1 when that value is no action's text. Never raises. */
int action_texts_find(lua_State *L, int idx, const game_def *def, const void *st, const action_t *acts,
                      const uint32_t *keys, int n);

#endif
