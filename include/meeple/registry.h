/* registry.h — the explicit table of every game the host knows. */
#ifndef MEEPLE_REGISTRY_H
#define MEEPLE_REGISTRY_H

#include <meeple/game.h>

extern const game_def *const meeple_games[];
extern const int meeple_game_count;

/* The game called `name`, or NULL. */
const game_def *game_find(const char *name);
/* "babel, citadels": the registered names, for messages. */
const char *game_names(void);

/* What a game's definition leaves out that every game must give (a function every host calls, whether
 * it has hidden information): one line, or NULL when it is complete. The conformance test asks it of
 * every registered game, so a new game that forgets one fails there, not before a player. */
const char *game_def_problem(const game_def *def);

#endif
