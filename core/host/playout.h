/* playout.h — a search's inner loop on a bare state (no session, no history): the same decisions,
 * from the same draws, as session_playout, session_ranked and session_sample make on a session's
 * `now`, so a search in C and one through the Lua state methods choose alike for a seed. */
#ifndef MEEPLE_PLAYOUT_H
#define MEEPLE_PLAYOUT_H

#include <meeple/game.h>

/* session_playout on `st` alone: up to `limit` decisions (negative: to the end), a `greedy` share of
 * them by the game's playout policy. Returns how many were played. */
int state_playout(const game_def *def, void *st, rng *r, int limit, double greedy);
/* session_ranked on `st`: the legal actions, the playout policy's favourites first. */
int state_ranked(const game_def *def, const void *st, rng *r, action_t *out);
/* The first of acts[0..n) (every legal action of `st`, in legal()'s order) in state_ranked's order
 * that `skip` does not mark, drawing from `r` as state_ranked does, without the sort; -1 when all are
 * skipped. Equal rankings go to the first in legal()'s order, as the stable sort gives. */
int state_first_ranked(const game_def *def, const void *st, rng *r, const action_t *acts, int n,
                       const bool *skip);
/* session_sample's deal on `st`: what `viewer` cannot see re-dealt from `seed`. */
void state_sample(const game_def *def, void *st, int viewer, uint64_t seed);

#endif
