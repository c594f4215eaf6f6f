/* babel.h — Babel, two players, by the rules digest in shared/rules/babel.md. */
#ifndef MEEPLE_BABEL_H
#define MEEPLE_BABEL_H

#include <meeple/game.h>

extern const game_def babel_game;

#endif
