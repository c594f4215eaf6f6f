/* lab.h — the variant lab's shared piece (repl/compare.c, repl/lab.c): a `meeple match` run in a child
 * process, logged to a file, its errors and progress shown as the calling command's. */
#ifndef MEEPLE_LAB_H
#define MEEPLE_LAB_H

#include <stdbool.h>

#include <meeple/game.h>

#include "cli.h"

typedef struct lab_match {
    const char *cmd;                        /* "compare", "evaluate", "tune": whose messages these are */
    const char *game, *variant, *seating, *log;
    const char *label;                      /* the progress line's name for the rules; NULL: the variant's */
    const char *bots[MEEPLE_MAX_PLAYERS];
    int nbots;
    long long games, seed, jobs;
    long long max_decisions;                /* match's --max-decisions; 0: its default */
    long long ms;                           /* match's --ms, a bot's time per decision; 0: its default */
    bool quiet;                             /* no "N games under ..." line first */
} lab_match;

/* Runs the match; its exit status (2: a bad argument, said as cmd's), -1 when it could not run. */
int lab_run_match(const lab_match *spec, const cli_options *opts);

#endif
