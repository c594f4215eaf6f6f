/* seating.h — who sits where in a match: the seating designs (`--seating`) and their duplicate deals.
 *
 * A design cuts the games into blocks; every game of a block plays the same deal (the same seed for the
 * game's own randomness), with the bots in the block's seatings. Deal d (0-based) is block d: games
 * d*B .. d*B+B-1, for the design's block size B. See docs/api.md, "Seating designs". */
#ifndef MEEPLE_SEATING_H
#define MEEPLE_SEATING_H

#include <stdbool.h>
#include <stdint.h>

#include <meeple/game.h>

typedef enum seating_design {
    SEATING_ROTATE,   /* cyclic rotation: P games a deal */
    SEATING_BALANCED, /* seats and left neighbours balanced: P(P-1) games a deal */
    SEATING_PERMUTE,  /* every order: P! games a deal, P <= SEATING_PERMUTE_MAX */
    SEATING_RANDOM,   /* a uniformly random order per game, one game a deal */
} seating_design;

#define SEATING_PERMUTE_MAX 5
#define SEATING_NAMES "rotate, balanced, permute, random"

const char *seating_name(seating_design d);
/* The design called `name`; false when there is none. */
bool seating_parse(const char *name, seating_design *d);
/* Games a deal (the block) for `players` seats; 0 when the design cannot seat that many. */
long long seating_block(seating_design d, int players);
/* Into bots[seat] the bot (its index in the command line's order, 0-based) in each seat of game `game`
 * (0-based); `game_seed` is the game's own (its deal's) seed, which the random design draws from. */
void seating_of_game(seating_design d, int players, long long game, uint64_t game_seed, int bots[MEEPLE_MAX_PLAYERS]);

#endif
