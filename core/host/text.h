/* text.h — text from bots and files made safe to show: control characters as escapes, bots' names plain.
 *
 * A bot's error, print or name, and anything read from a log, may hold ESC, BEL or CR: printed raw they
 * move the cursor, recolour or retitle the terminal, or overwrite what came before. Everything such
 * text goes through on its way to a terminal is escaped here, in one way. */
#ifndef MEEPLE_TEXT_H
#define MEEPLE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes len bytes of `s` to f with every control character escaped: C0 and DEL as \xHH, C1
 * characters (U+0080..U+009F) as \u00HH, bytes that are not UTF-8 as \xHH. Tab stays; newline
 * stays when `keep_newlines` (a traceback under --debug), else it is \x0a too. */
void text_write(FILE *f, const char *s, size_t len, bool keep_newlines);
/* The same into out[n] (always terminated; cut before an escape or a character that would not fit). */
void text_escape(char *out, size_t n, const char *s, bool keep_newlines);

/* s made valid UTF-8 into out[n] (always terminated, cut on a character's boundary): every byte that
 * does not start a whole character, a character cut short at the end among them, becomes U+FFFD. For
 * text that must be UTF-8 where it goes (JSON), whatever a bot or a rule put in it. */
void text_utf8_valid(char *out, size_t n, const char *s);

/* A bot's own name, made plain for tables and logs: letters, digits, '_', '-' and '.' kept, every other
 * byte written '_' — so no control character, no space, and no '#', the mark the host adds to a name
 * given twice ("random#2"), which a bot can then never imitate. At most 40 bytes; "bot" when empty. */
void text_bot_name(char *out, size_t n, const char *name);

#endif
