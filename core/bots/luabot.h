/* luabot.h — Lua bots, one kind of bot behind the runtime (bot.h, bot_ops.h): a bot file run in a
 * sandboxed lua_State of its own under the limits engine. luabot_parts.h is its inside. */
#ifndef MEEPLE_LUABOT_H
#define MEEPLE_LUABOT_H

#include <stdbool.h>
#include <stddef.h>

#include "bots/bot_ops.h"
#include <meeple/game.h>

typedef struct luabot luabot;

/* A fresh sandboxed state with the bot's file run in it (bot_new); NULL only when out of memory. Its
 * operations (self: a luabot) are luabot_ops. */
luabot *luabot_new(const bot_code *code, const game_def *def, const param_value *params, const bot_limits *budget,
                   bool echo);
extern const bot_ops luabot_ops;

/* The bot file's table's `name`, when it is a string (`len` its length), else NULL. */
const char *luabot_table_name(luabot *b, size_t *len);

#endif
