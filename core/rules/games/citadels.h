/* citadels.h — Citadels, the original base game for 2 to 7 players, by shared/rules/citadels.md. */
#ifndef MEEPLE_CITADELS_H
#define MEEPLE_CITADELS_H

#include <meeple/game.h>

extern const game_def citadels_game;

#endif
