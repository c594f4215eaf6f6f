/* invariant.h — SQLite's ALWAYS and NEVER, for the places where a broken invariant would otherwise
 * corrupt a state silently (a card moved from an empty zone, an action applied that check() refuses).
 *
 * `if (NEVER(zone_is_empty)) return;` reads as the defensive branch it is: in a build with assertions
 * (Debug, which the sanitizer suite in CI uses) the impossible case stops the program at once, where it
 * happened; in a release build the condition is tested and the defensive branch taken, so a bug costs
 * one decision instead of a corrupt game. Neither may have side effects the program relies on beyond
 * the value of X. */
#ifndef MEEPLE_INVARIANT_H
#define MEEPLE_INVARIANT_H

#include <assert.h>

#ifndef NDEBUG
#define ALWAYS(X) ((X) ? 1 : (assert(!"ALWAYS(" #X ")"), 0))
#define NEVER(X) ((X) ? (assert(!"NEVER(" #X ")"), 1) : 0)
#else
#define ALWAYS(X) (X)
#define NEVER(X) (X)
#endif

#endif
