/* bot_ops.h — what the bot runtime (bot.h) asks of each kind of bot: Lua bots (luabot.h) and external
 * programs (extbot.h) each fill one bot_ops, so the runtime never asks which kind it runs. */
#ifndef MEEPLE_BOT_OPS_H
#define MEEPLE_BOT_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meeple/game.h>

/* Why a bot is done. */
typedef enum bot_fault {
    BOT_OK = 0,
    BOT_ERROR,          /* it raised an error (or its file did, or init) */
    BOT_ANSWER,         /* choose returned something that is not one of `legal` */
    BOT_INSTRUCTIONS,   /* instruction budget */
    BOT_TIME,           /* wall-clock limit */
    BOT_MEMORY          /* memory cap */
} bot_fault;

/* One decision asked of a bot: the legal actions as actions (texts NULL) or as texts (acts NULL). */
typedef struct bot_decision {
    const void *st;
    const action_t *acts;
    const char (*texts)[MEEPLE_ACTION_TEXT];
    int n;
    bool probe;         /* bot_probe: the answer is not read (0 stands for any) */
} bot_decision;

/* `self` is the kind's own bot. */
typedef struct bot_ops {
    /* A new game at `st` for `seat`, the bot's generators derived from `seed`: false when it is done. */
    bool (*begin)(void *self, const void *st, int seat, uint64_t seed);
    /* The index chosen among the legal actions, or -1 when the bot is done. */
    int (*decide)(void *self, const bot_decision *d);
    /* A decision by `player` about to be played, as the bot's seat sees it. */
    void (*saw)(void *self, int player, const char *text);
    /* The game is over. */
    void (*end)(void *self, const int *scores, const int *winners, int nwinners);
    bot_fault (*fault)(const void *self);
    const char *(*reason)(const void *self);
    /* Bytes held now, and the peak. */
    size_t (*memory)(const void *self, size_t *peak);
    void (*free)(void *self);
} bot_ops;

#endif
