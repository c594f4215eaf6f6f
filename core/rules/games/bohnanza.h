/* bohnanza.h — Bohnanza, the base game for 3 to 5 players, by shared/rules/bohnanza.md, on the bean
 * core of beans.h. */
#ifndef MEEPLE_BOHNANZA_H
#define MEEPLE_BOHNANZA_H

#include <meeple/game.h>

extern const game_def bohnanza_game;

#endif
