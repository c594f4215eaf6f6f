/* shell.h — the interactive shell (`meeple`, `meeple repl [GAME]`) and `meeple play`: a C front end
 * (line editing, history, multi-line chunks, Ctrl-C) over repl/shell.lua (commands, completion,
 * printing, the game loop of `play`). */
#ifndef MEEPLE_SHELL_H
#define MEEPLE_SHELL_H

#include "cli.h"

/* `meeple repl [GAME] [--seed S] [--players N] [--variant V]`, and `meeple` alone. */
int shell_main(int argc, char **argv, const cli_options *opts);

/* `meeple play GAME [--bot FILE]... [--seat N] [--seed S] [--players N] [--variant V]`. */
int play_main(int argc, char **argv, const cli_options *opts);

#endif
