/* lazy_view.h — a player's view handed to a Lua bot as tables that fill themselves when first read.
 *
 * A decision costs a copy of the state and one empty table. The first read of the view records the
 * game's whole view once (the game's write_table into a flat token list); from then on each table is
 * filled from that record only when the bot reads it: a bot that looks at its hand builds its hand, not
 * the 30-odd other tables. Once filled, a table is a plain table the bot owns. */
#ifndef MEEPLE_LAZY_VIEW_H
#define MEEPLE_LAZY_VIEW_H

#include <lua.h>

#include "game.h"

/* Pushes the metatable of the views' unread roots, locked (__metatable = false); registers the types
 * of the data they keep. Once per lua_State, before lazy_view_push. */
void lazy_view_metatable(lua_State *L);

/* Pushes `viewer`'s (0-based) view of `st` as an unread table; `mt` is the index of the metatable. */
void lazy_view_push(lua_State *L, const game_def *def, const void *st, int viewer, int mt);

/* Fills the table at `idx` if it is an unread part of a view (for raw access: next, rawget, ...). */
void lazy_view_touch(lua_State *L, int idx);

/* next(t, k), filling an unread table first: the only `next` a bot may hold (the stock one would
 * show an unread table's hidden keys). */
int lazy_view_next(lua_State *L);

#endif
