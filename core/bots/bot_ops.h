/* bot_ops.h — what the bot runtime (bot.h) shares with each kind of bot: a bot's code, its limits, why
 * it is done, and the operations the runtime asks of it. Lua bots (luabot.h) and external programs
 * (extbot.h) each fill one bot_ops, so the runtime never asks which kind it runs. */
#ifndef MEEPLE_BOT_OPS_H
#define MEEPLE_BOT_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meeple/game.h>

/* What a bot may spend on one call; ctx.budget shows it to the bot. */
typedef struct bot_limits {
    double ms;                /* wall-clock milliseconds */
    long long instructions;   /* Lua VM instructions (counted in steps of BOT_HOOK_STEP, bot.h) */
    size_t memory;            /* bytes: the bot's Lua heap plus the game states it holds */
    size_t program_memory;    /* bytes of address space each process of an external bot may map; 0: no cap */
} bot_limits;

/* A bot file, read once: its text, its name and where its `require`s come from. */
typedef struct bot_code {
    char path[1024];
    char name[64];       /* the table's `name`, else the file's name without .lua */
    char lib_dir[1024];  /* bots/lib for `require`, "" when none was found */
    char *text;          /* NULL for an external bot */
    size_t len;
    bool external;       /* `path` is an exec: command or a program file */
} bot_code;

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
