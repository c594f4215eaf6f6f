/* fuzz_load.c — save text into session_load (meeple.load without a variant): whatever it accepts must
 * be a state every other part of the API can use. */
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    reason why = {{0}};
    session *s = session_load(text, &why);
    free(text);
    if (!s) {
        if (!why.text[0]) fuzz_fail("a save was refused without a reason");
        return 0;
    }
    fuzz_exercise(s);
    session_free(s);
    return 0;
}
