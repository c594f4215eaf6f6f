/* registry.h — the explicit table of every game the host knows. */
#ifndef MEEPLE_REGISTRY_H
#define MEEPLE_REGISTRY_H

#include "game.h"

extern const game_def *const meeple_games[];
extern const int meeple_game_count;

/* The game called `name`, or NULL. */
const game_def *game_find(const char *name);
/* "babel, citadels": the registered names, for messages. */
const char *game_names(void);

#endif
