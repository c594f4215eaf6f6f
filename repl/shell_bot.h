/* shell_bot.h — a bot file playing decisions for the shell (`:bot`, `:auto`) and for `meeple play`:
 * load the file, then ask it for the decision now in a session, for whichever seat is to move. Over the
 * host's sandboxed bot runtime (core/bots/bot.h), which gives each seat a bot of its own. */
#ifndef MEEPLE_SHELL_BOT_H
#define MEEPLE_SHELL_BOT_H

#include <stddef.h>
#include <stdint.h>

#include <meeple/game.h>
#include <meeple/session.h>

typedef struct shell_bot shell_bot;

/* Loads the bot file at `path`; `seed` seeds each seat's ctx (seat k draws from seed and k); the bot's
 * `print` goes to stderr when `echo`, else nowhere. NULL and the reason (one line) in `err` when the
 * file cannot be read or is not a bot. */
shell_bot *shell_bot_load(const char *path, uint64_t seed, bool echo, char *err, size_t errn);

/* The bot's name: its `name` field, or the file's name. */
const char *shell_bot_name(const shell_bot *b);

/* Asks the bot for the decision now in `s`, for the seat to move, and writes the action's text to
 * `out`. `texts` (n of them), when not NULL, are the legal actions (a variant's list); else the rules'.
 * False and the reason in `err` when the bot fails or chooses an action that is not legal. */
bool shell_bot_choose(shell_bot *b, const session *s, const char (*texts)[MEEPLE_ACTION_TEXT], int n,
                      char out[MEEPLE_ACTION_TEXT], char *err, size_t errn);

void shell_bot_free(shell_bot *b);

#endif
