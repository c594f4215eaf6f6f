/* bot.h — the bot runtime: a bot file run in a sandboxed lua_State of its own, asked for decisions.
 *
 * A bot (API.md "Bots") sees a view, the legal actions and a ctx; it never sees the true state. Its
 * lua_State has a whitelisted environment (no io, os, debug, package, file access; text chunks only;
 * `require` only of the project's bots/lib), and per call (loading, init, each choose) three limits:
 * Lua instructions, wall-clock time, and memory (its heap plus the game states it holds). A bot that
 * errors, answers something not legal or breaks a limit is done: bot_fault says why, and the caller
 * forfeits its game. The host never stops for a bot.
 *
 * One bot serves one seat; a lua_State is never shared between threads. bot_code is read-only once
 * loaded and may be shared by threads.
 *
 * A bot may also be external (extbot.h): a program named `exec:PROGRAM [ARGS]` or an executable file,
 * run as a child process per game that speaks the line protocol of docs/protocol.md. The same calls
 * run it; its limits are the wall-clock time per decision and the answer's length.
 *
 * The runtime (bot.c) runs either kind through its operations (bot_ops.h): Lua bots are luabot.c, over
 * the sandbox's builtins (bot_env.c), ctx (bot_ctx.c) and the limits engine (sandbox/limits.h); bot
 * files are read by bot_load.c. */
#ifndef MEEPLE_BOT_H
#define MEEPLE_BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meeple/game.h>

#include "bots/bot_ops.h" /* bot_limits, bot_code, bot_fault */

#define BOT_DEFAULT_MS 1000.0
#define BOT_DEFAULT_INSTRUCTIONS 1000000000LL
#define BOT_DEFAULT_MEMORY ((size_t)128 << 20)
#define BOT_HOOK_STEP 1000    /* the instruction hook fires every this many instructions (LIMITS_HOOK_STEP) */


/* Reads a bot file and tries it once (loads it in a sandbox, checks it returns a table with a `choose`
 * function, reads its name); for an external bot, checks its command and that its program may be run.
 * NULL and one line in `err` when it cannot be read or tried. */
bot_code *bot_code_load(const char *path, const bot_limits *limits, char *err, size_t errn);
/* The same from source text (`chunkname` names it in messages); for tests and `meeple bench`. */
bot_code *bot_code_from_text(const char *text, const char *chunkname, const bot_limits *limits,
                             char *err, size_t errn);
void bot_code_free(bot_code *code);

/* Where `require` looks: $MEEPLE_ROOT/bots/lib if MEEPLE_ROOT is set; otherwise <bot's folder>/lib
 * when it holds the library, else bots/lib in meeple's roots (paths.h). */
void bot_lib_dir(const char *bot_path, char *out, size_t n);

typedef struct bot bot;

/* A fresh sandboxed state with the bot's file run in it, for `players`-player games of `def` under
 * `params` (the samples it makes use them). NULL only when out of memory; a bot whose file fails has
 * bot_fault() set and every later call fails at once. `print` goes to stderr when `echo`, else nowhere. */
bot *bot_new(const bot_code *code, const game_def *def, const param_value *params, const bot_limits *limits,
             bool echo);

/* A new game at `st` (its start) for `seat` (0-based): a new ctx seeded from `seed`, then the bot's
 * init(game, seat, ctx) if it has one. False when the bot is done (bot_fault says why). */
bool bot_begin(bot *b, const void *st, int seat, uint64_t seed);

/* The bot's decision at `st`, for its seat, among acts[0..n): the index chosen, or -1 when the bot is
 * done (bot_fault says why). */
int bot_choose(bot *b, const void *st, const action_t *acts, int n);

/* The same with the legal actions given as texts (a game played under a variant's hooks, whose list
 * may differ from the rules'): `st` is then the state the view and the samples come from. */
int bot_choose_text(bot *b, const void *st, const char (*texts)[MEEPLE_ACTION_TEXT], int n);

/* A decision about to be played at `st` (by def->to_move(st)), `text` its action text there (made once
 * by the host for every seat): the bot notes what its seat sees of it (game_def.public_text; another
 * seat's secret pick stays secret). A Lua bot finds these in ctx.history, an external bot in its next
 * decide's `seen`. Hosts call it for every seat's bot before each decision is applied. */
void bot_saw(bot *b, const void *st, action_t a, const char *text);
/* The same for an action given as its text (a game under a variant's hooks): an action the rules do
 * not know (the variant added it) is seen as it is. */
void bot_saw_text(bot *b, const void *st, const char *action);

/* For `meeple bench`: the host's half of a decision alone. Builds the view, the legal list and calls
 * choose, ignoring its answer (the caller picks). False when the bot failed. */
bool bot_probe(bot *b, const void *st, const action_t *acts, int n);

/* The game is over: `scores` per seat, `winners` (0-based seats, nwinners of them). An external bot is
 * told so (game_over) and its program given a moment to exit; a Lua bot has nothing to do. */
void bot_end(bot *b, const int *scores, const int *winners, int nwinners);

bot_fault bot_fault_of(const bot *b);
/* One line: "error: bots/x.lua:3: boom", "chose 'fly', which is not a legal action",
 * "exceeded the instruction budget (1000000 per decision)", ... "" while the bot is fine. */
const char *bot_reason(const bot *b);
/* The bot's name (from its code). */
const char *bot_name(const bot *b);
/* Bytes of memory the bot holds now (its heap and its states), and its peak. */
size_t bot_memory(const bot *b, size_t *peak);

void bot_free(bot *b);

/* Asks every bot's running call, in every thread, to end at once (on: its reason says it was stopped;
 * an external bot's wait ends within 50 ms), or lets them run again (off). Async-signal-safe: a
 * SIGINT handler calls it. */
void bot_interrupt(bool on);

#endif
