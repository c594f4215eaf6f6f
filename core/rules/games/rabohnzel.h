/* rabohnzel.h — Rabohnzel, the fairy-tale Bohnanza for 3 to 5 players, by shared/rules/rabohnzel.md,
 * on the bean core of beans.h. */
#ifndef MEEPLE_RABOHNZEL_H
#define MEEPLE_RABOHNZEL_H

#include <meeple/game.h>

extern const game_def rabohnzel_game;

#endif
