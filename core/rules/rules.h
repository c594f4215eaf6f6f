/* rules.h — what the games and the host are written with, beyond the public interface: the short
 * `reason` name, deny, reading a parameter's value, and the small checks every game's reader shares.
 * Internal: not installed (the public name of a reason is meeple_reason, <meeple/game.h>). */
#ifndef MEEPLE_RULES_H
#define MEEPLE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meeple/game.h>

/* Inside meeple a refusal's text is plainly a reason; the public headers spell it meeple_reason so as
 * not to take so common a word from a program that includes them. The same type under two names. */
typedef meeple_reason reason;

/* Fills `why` (when not NULL) and returns false, so a rule reads `return deny(why, "...", ...)`.
 * Rule checks run with why == NULL while generating legal actions and in playouts: deny is a macro
 * that tests `why` first, so then neither the formatting nor the evaluation of its arguments (a count,
 * a name lookup) happens. `why` is evaluated twice: pass a plain variable. */
#define deny(why, ...) (reason_wanted(why) ? deny_format((why), __VA_ARGS__) : false)

/* A function, not `(why) != NULL`, so that `deny(&local, ...)` raises no "always true" warning. */
static inline bool reason_wanted(const reason *why) { return why != NULL; }

/* deny's slow half: formats the reason into `why` (never NULL) and returns false. */
bool deny_format(reason *why, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A parameter's value as the game reads it: `fallback` where the value leaves it to the game (not
 * set, or a table that does not name this player count or this name). */
int32_t param_int_or(const param_value *v, int32_t fallback);
int32_t param_for_players(const param_value *v, int players, int32_t fallback);
int32_t param_by_name(const param_value *v, int name, int item, int width, int32_t fallback);

/* Whether each of the `n` bytes at `p` is 0 or 1. validate checks a state's bools this way before
 * anything reads them: a loaded state's bytes are anyone's, and reading a bool byte of 2 is undefined. */
bool bytes_are_bools(const void *p, size_t n);

/* Splits `text` in place on blanks into at most `max` words; returns their number, or -1 when there
 * are more. (strtok's hidden state is not safe for parallel matches.) */
int split_words(char *text, char **words, int max);

#endif
