/* fuzz_state.c — raw state bytes, as a save's `start` line carries them: the first byte picks the game,
 * the rest is the state. The bytes go through session_load exactly as a crafted save would, so this
 * target is fuzz_load without the hexadecimal in the way of the mutations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const game_def *def = meeple_games[data[0] % meeple_game_count];
    size_t n = size - 1 < def->state_size ? size - 1 : def->state_size;
    size_t head = 64, len = head + 2 * def->state_size + 2;
    char *text = malloc(len);
    if (!text) return 0;
    int used = snprintf(text, head, "meeple save 1\ngame %s\nseed 1\nstart ", def->name);
    /* Bytes the input does not give are zero: a short input is a state with a zeroed tail. */
    for (size_t i = 0; i < def->state_size; i++)
        snprintf(text + used + 2 * i, 3, "%02x", i < n ? data[1 + i] : 0);
    strcpy(text + used + 2 * def->state_size, "\n");
    reason why = {{0}};
    session *s = session_load(text, &why);
    free(text);
    if (!s) {
        if (!why.text[0]) fuzz_fail("a state was refused without a reason");
        return 0;
    }
    fuzz_exercise(s);
    session_free(s);
    return 0;
}
