/* shell_bot.c — shell_bot.h over the host's bot runtime (core/bots/bot.h): the bot file is read once, and
 * each seat it plays gets a sandboxed bot of its own, begun when it first decides in a game. A bot
 * that fails is dropped, so the next decision asked of it starts it afresh. */
#include "shell_bot.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"

struct shell_bot {
    bot_code *code;
    bot_limits limits;
    uint64_t seed;
    bool echo;
    bot *seat[MEEPLE_MAX_PLAYERS];
    const session *game[MEEPLE_MAX_PLAYERS]; /* the session each seat's bot was begun in */
    action_t *fed[MEEPLE_MAX_PLAYERS];       /* the decisions each seat's bot has seen (ctx.history) */
    int fed_n[MEEPLE_MAX_PLAYERS], fed_cap[MEEPLE_MAX_PLAYERS];
};

static const bot_limits shell_limits = {BOT_DEFAULT_MS, BOT_DEFAULT_INSTRUCTIONS, BOT_DEFAULT_MEMORY, 0};

shell_bot *shell_bot_load(const char *path, uint64_t seed, bool echo, char *err, size_t errn) {
    shell_bot *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errn, "cannot load the bot '%s': out of memory", path);
        return NULL;
    }
    b->limits = shell_limits;
    b->seed = seed;
    b->echo = echo;
    b->code = bot_code_load(path, &b->limits, err, errn);
    if (!b->code) {
        free(b);
        return NULL;
    }
    return b;
}

const char *shell_bot_name(const shell_bot *b) { return b->code->name; }

static void drop_seat(shell_bot *b, int seat) {
    bot_free(b->seat[seat]);
    b->seat[seat] = NULL;
    b->game[seat] = NULL;
    b->fed_n[seat] = 0;
}

/* Whether the decisions the seat's bot has seen still begin the game's history (an undo may have taken
 * them back, and other decisions taken their place). */
static bool history_holds(const shell_bot *b, int seat, const session *s) {
    if (b->fed_n[seat] > s->history_len) return false;
    for (int i = 0; i < b->fed_n[seat]; i++)
        if (s->history[i].action != b->fed[seat][i]) return false;
    return true;
}

/* Shows the seat's bot the decisions since it last decided (bot_saw, from the position each was taken
 * in). False when out of memory. */
static bool feed_history(shell_bot *b, int seat, const session *s) {
    const game_def *def = s->def;
    if (b->fed_cap[seat] < s->history_len) {
        action_t *grown = realloc(b->fed[seat], sizeof *grown * (size_t)s->history_len);
        if (!grown) return false;
        b->fed[seat] = grown;
        b->fed_cap[seat] = s->history_len;
    }
    _Alignas(max_align_t) unsigned char st[MEEPLE_MAX_STATE];
    memcpy(st, s->start, def->state_size);
    for (int i = 0; i < s->history_len; i++) {
        action_t a = s->history[i].action;
        if (i >= b->fed_n[seat]) {
            char text[MEEPLE_ACTION_TEXT];
            def->action_text(st, a, text);
            bot_saw(b->seat[seat], st, a, text);
            b->fed[seat][i] = a;
        }
        def->apply(st, a);
    }
    b->fed_n[seat] = s->history_len;
    return true;
}

bool shell_bot_choose(shell_bot *b, const session *s, const char (*texts)[MEEPLE_ACTION_TEXT], int n,
                      char out[MEEPLE_ACTION_TEXT], char *err, size_t errn) {
    const game_def *def = s->def;
    if (def->is_over(s->now)) {
        snprintf(err, errn, "the game is over: there is nothing to decide");
        return false;
    }
    int seat = def->to_move(s->now);
    /* another game, or decisions it saw taken back: a fresh bot */
    if (b->seat[seat] && (b->game[seat] != s || !history_holds(b, seat, s))) drop_seat(b, seat);
    if (!b->seat[seat]) {
        b->seat[seat] = bot_new(b->code, def, s->params, &b->limits, b->echo);
        if (!b->seat[seat]) {
            snprintf(err, errn, "bot '%s': out of memory", b->code->name);
            return false;
        }
        b->game[seat] = s;
        bot_begin(b->seat[seat], s->now, seat, b->seed * 1000003u + (uint64_t)seat);
    }
    if (!feed_history(b, seat, s)) {
        snprintf(err, errn, "bot '%s': out of memory", b->code->name);
        return false;
    }
    action_t acts[MEEPLE_MAX_ACTIONS];
    bool ready = bot_fault_of(b->seat[seat]) == BOT_OK;
    int k = -1;
    if (ready && texts) {
        k = bot_choose_text(b->seat[seat], s->now, texts, n);
    } else if (ready) {
        n = def->legal(s->now, acts);
        k = bot_choose(b->seat[seat], s->now, acts, n);
    }
    if (k < 0) {
        snprintf(err, errn, "bot '%s' %s", b->code->name, bot_reason(b->seat[seat]));
        drop_seat(b, seat);
        return false;
    }
    if (texts) snprintf(out, MEEPLE_ACTION_TEXT, "%s", texts[k]);
    else def->action_text(s->now, acts[k], out);
    return true;
}

void shell_bot_free(shell_bot *b) {
    if (!b) return;
    for (int seat = 0; seat < MEEPLE_MAX_PLAYERS; seat++) {
        bot_free(b->seat[seat]);
        free(b->fed[seat]);
    }
    bot_code_free(b->code);
    free(b);
}
