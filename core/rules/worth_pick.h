/* worth_pick.h — a greedy playout decision's choice among a decision's actions, as the host makes it:
 * the highest worth, ties at random by reservoir sampling (one draw for each action as good as the
 * best before it, rng_below(ties)). The host's scan over playout_worths and a game's playout_pick
 * (game_def) both walk their actions through these, so that they choose alike, draw for draw. */
#ifndef MEEPLE_WORTH_PICK_H
#define MEEPLE_WORTH_PICK_H

#include <limits.h>

#include "rules/rng_step.h"

typedef struct worth_pick {
    int best;       /* the index chosen so far */
    int best_worth; /* its worth */
    uint32_t ties;  /* how many actions of that worth were seen */
} worth_pick;

/* The first action, at index 0. */
static inline worth_pick worth_pick_first(int worth) { return (worth_pick){.best = 0, .best_worth = worth, .ties = 1}; }
/* Before any action: the first one given to worth_pick_next (at index 0) is chosen, with no draw, as
 * worth_pick_first would choose it (no worth is INT_MIN). */
static inline worth_pick worth_pick_none(void) { return (worth_pick){.best = 0, .best_worth = INT_MIN, .ties = 0}; }

/* The action at index i (> 0 after worth_pick_first, >= 0 after worth_pick_none; after every index
 * before it). A worse one, the common case, is one comparison. */
static inline void worth_pick_next(worth_pick *p, rng *r, int i, int worth) {
    if (worth < p->best_worth) return;
    if (worth > p->best_worth) *p = (worth_pick){.best = i, .best_worth = worth, .ties = 1};
    else if (rng_step_below(r, ++p->ties) == 0) p->best = i;
}

#endif
