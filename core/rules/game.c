/* game.c — what every game shares: the reason formatter, splitting words, reading parameters. */
#include "rules/rules.h"

#include <stdarg.h>
#include <stdio.h>

bool deny_format(reason *why, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(why->text, sizeof why->text, fmt, args);
    va_end(args);
    /* A reason is one line, but it may quote a name from a table or a save: a newline there would
     * split it (fuzz_table found one), and other control characters would reach the terminal. */
    for (char *c = why->text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return false;
}

void game_public_text(const game_def *def, const void *st, action_t a, int viewer, char out[MEEPLE_PUBLIC_TEXT]) {
    if (viewer < 0 || viewer == def->to_move(st) || !def->public_text(st, a, viewer, out)) def->action_text(st, a, out);
}

bool bytes_are_bools(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] > 1) return false;
    return true;
}

int split_words(char *text, char **words, int max) {
    int count = 0;
    for (char *c = text; *c;) {
        while (*c == ' ' || *c == '\t') *c++ = '\0';
        if (!*c) break;
        if (count == max) return -1;
        words[count++] = c;
        while (*c && *c != ' ' && *c != '\t') c++;
    }
    return count;
}

int32_t param_int_or(const param_value *v, int32_t fallback) {
    return v->count >= 1 && v->v[0] != PARAM_UNSET ? v->v[0] : fallback;
}

int32_t param_for_players(const param_value *v, int players, int32_t fallback) {
    if (v->count == 1) return v->v[0];
    if (v->count <= players || v->v[players] == PARAM_UNSET) return fallback;
    return v->v[players];
}

int32_t param_by_name(const param_value *v, int name, int item, int width, int32_t fallback) {
    int at = name * (width > 1 ? width : 1) + item;
    if (at >= v->count || v->v[at] == PARAM_UNSET) return fallback;
    return v->v[at];
}
