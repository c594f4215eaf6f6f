/* lazy_view.h — a player's view handed to a Lua bot as tables that fill themselves when first read.
 *
 * A decision costs a copy of the state and one empty table. Reading a field of the view writes that
 * field alone (the game's write_table declining the others); a field holding tables within tables is
 * recorded as a flat token list, each of its tables filled from that record only when the bot reads it:
 * a bot that looks at its hand builds its hand, not the 30-odd other tables. A walk (pairs, next) fills
 * the table walked and everything below it at once. Once filled, a table is a plain table the bot owns. */
#ifndef MEEPLE_LAZY_VIEW_H
#define MEEPLE_LAZY_VIEW_H

#include <stdbool.h>

#include <lua.h>

#include <meeple/game.h>

/* Pushes the metatable of the views' unread roots, locked (__metatable = false); registers the types
 * of the data they keep. Once per lua_State, before lazy_view_push. */
void lazy_view_metatable(lua_State *L);

/* Pushes `viewer`'s (0-based) view of `st` as an unread table; `mt` is the index of the metatable. */
void lazy_view_push(lua_State *L, const game_def *def, const void *st, int viewer, int mt);

/* Fills the table at `idx` if it is an unread part of a view (for raw access: rawget, getmetatable,
 * ...); with `whole`, every table below it as well (pairs: a walk is coming, and building the tables
 * outright costs less than leaving each to fill itself). */
void lazy_view_touch(lua_State *L, int idx, bool whole);

/* next(t, k), filling an unread table first, whole: the only `next` a bot may hold (the stock one
 * would show an unread table's hidden keys). */
int lazy_view_next(lua_State *L);

#endif
