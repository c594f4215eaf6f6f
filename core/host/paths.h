/* paths.h — where meeple finds the files it ships (bots, their library, variants, scripts) by name, the
 * same for the executable, `meeple.so` under stock lua5.4, installed or in a build tree.
 *
 * A root is a folder laid out like the source tree (bots/, bots/lib/, scripts/variants/GAME/). Names
 * are looked up in the roots in this order:
 *   1. $MEEPLE_ROOT, when set (a checkout to work from; the tests use it);
 *   2. meeple's own: <prefix>/share/meeple for an installed copy, found from where the running
 *      executable or meeple.so lies (so `cmake --install --prefix P` works wherever P is), else the
 *      source tree this build came from;
 *   3. each folder of $MEEPLE_PATH (colon-separated), for a user's or a site's own bots and variants.
 * Never the current directory: a name a log carries must not find a file dropped beside the log (a
 * file in the current directory is used only when the user names it as a path). */
#ifndef MEEPLE_PATHS_H
#define MEEPLE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#define MEEPLE_MAX_ROOTS 16
#define MEEPLE_PATH_LEN 1024

/* The roots in lookup order, each an existing folder; returns how many (at most MEEPLE_MAX_ROOTS). */
int meeple_roots(char roots[][MEEPLE_PATH_LEN], int max);

/* The first readable ROOT/relative into `out`; false (out holds the last tried) when none is. */
bool meeple_find(const char *relative, char *out, size_t n);

/* A bot argument as a file: `exec:COMMAND` as it is (an external bot); a path when it names one (or
 * has a '/'); else bots/NAME.lua (".lua" may be given) in the roots. False when no such file is
 * readable; `out` then holds the argument. */
bool meeple_find_bot(const char *arg, char *out, size_t n);

#endif
