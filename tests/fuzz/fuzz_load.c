/* fuzz_load.c — save text into session_load (meeple.load without a variant): whatever it accepts must
 * be a state every other part of the API can use. */
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    fuzz_load_text(text, "save");
    return 0;
}
