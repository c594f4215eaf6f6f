/* game.c — what every game shares: the reason formatter. */
#include "game.h"

#include <stdarg.h>
#include <stdio.h>

bool deny(reason *why, const char *fmt, ...) {
    if (why) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(why->text, sizeof why->text, fmt, args);
        va_end(args);
    }
    return false;
}
