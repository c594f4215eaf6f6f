/* bot.c — the bot runtime (bot.h): one bot per seat, whatever its kind, run through its operations
 * (bot_ops.h): a Lua bot (luabot.h) or an external program (extbot.h).
 *
 * What does not depend on the kind is done here once: which decisions a seat sees and how (another
 * seat's secret pick stays secret), and the texts of an action a variant added. */
#include "bots/bot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/extbot.h"
#include "bots/luabot.h"
#include "sandbox/extproc.h"
#include "sandbox/limits.h"

_Static_assert(BOT_HOOK_STEP == LIMITS_HOOK_STEP, "bot.h's hook step is the limits engine's");

struct bot {
    const bot_ops *ops;
    void *self;              /* the kind's own bot */
    const bot_code *code;
    const game_def *def;
    int seat;                /* this game's, for what it sees of the others' decisions */
};

bot *bot_new(const bot_code *code, const game_def *def, const param_value *params, const bot_limits *budget,
             bool echo) {
    bot *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->code = code;
    b->def = def;
    if (code->external) {
        b->ops = &extbot_ops;
        b->self = extbot_new(code->path, code->name, def, params, budget->ms, budget->program_memory, echo);
    } else {
        b->ops = &luabot_ops;
        b->self = luabot_new(code, def, params, budget, echo);
    }
    if (!b->self) {
        free(b);
        return NULL;
    }
    return b;
}

bool bot_begin(bot *b, const void *st, int seat, uint64_t seed) {
    b->seat = seat;
    return b->ops->begin(b->self, st, seat, seed);
}

int bot_choose(bot *b, const void *st, const action_t *acts, int n) {
    bot_decision d = {.st = st, .acts = acts, .n = n};
    return b->ops->decide(b->self, &d);
}

int bot_choose_text(bot *b, const void *st, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
    bot_decision d = {.st = st, .texts = texts, .n = n};
    return b->ops->decide(b->self, &d);
}

bool bot_probe(bot *b, const void *st, const action_t *acts, int n) {
    bot_decision d = {.st = st, .acts = acts, .n = n, .probe = true};
    return b->ops->decide(b->self, &d) >= 0;
}

void bot_end(bot *b, const int *scores, const int *winners, int nwinners) {
    if (b) b->ops->end(b->self, scores, winners, nwinners);
}

/* Called for every seat at every decision: no formatting unless the action is secret to this seat. */
void bot_saw(bot *b, const void *st, action_t a, const char *text) {
    const game_def *def = b->def;
    int player = def->to_move(st);
    char secret[MEEPLE_PUBLIC_TEXT];
    bool hidden = player != b->seat && def->public_text(st, a, b->seat, secret);
    b->ops->saw(b->self, player, hidden ? secret : text);
}

void bot_saw_text(bot *b, const void *st, const char *action) {
    action_t a;
    char canonical[MEEPLE_ACTION_TEXT] = "";
    if (b->def->parse_action(st, action, &a, NULL) && b->def->check(st, a, NULL))
        b->def->action_text(st, a, canonical);
    if (canonical[0] && strcmp(canonical, action) == 0) {
        bot_saw(b, st, a, canonical);
        return;
    }
    b->ops->saw(b->self, b->def->to_move(st), action); /* an action the house rules added: seen as it is */
}

bot_fault bot_fault_of(const bot *b) { return b->ops->fault(b->self); }
const char *bot_reason(const bot *b) { return b->ops->reason(b->self); }
const char *bot_name(const bot *b) { return b->code->name; }
size_t bot_memory(const bot *b, size_t *peak) { return b->ops->memory(b->self, peak); }

void bot_free(bot *b) {
    if (!b) return;
    b->ops->free(b->self);
    free(b);
}

void bot_interrupt(bool on) {
    limits_interrupt(on);
    extproc_interrupt(on);
}
