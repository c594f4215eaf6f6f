/* fuzz.h — what the fuzz targets share: one Lua state with the module, and the exercise every state a
 * loader accepted goes through. A loader's promise is that whatever it accepts can be used in every
 * way a user can use a state; the exercise holds it to that, and aborts (a finding) where it cannot. */
#ifndef MEEPLE_FUZZ_H
#define MEEPLE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include <meeple/session.h>
#include "rules/rules.h"

/* libFuzzer's entry point, which every target defines (standalone.c calls it without libFuzzer). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The process's Lua state with the `meeple` module as a global; the stack is empty between calls. */
lua_State *fuzz_lua(void);

/* Uses `s` every way the API allows, in C and through Lua, checking that each result is again a state
 * that validates. `s` is left as it was. Aborts with a message on any broken promise. */
void fuzz_exercise(const session *s);

/* Loads the save `text` (freed here): refused with a reason, or a state put through fuzz_exercise.
 * `what` names the input in the message when a refusal comes without a reason. */
void fuzz_load_text(char *text, const char *what);

/* Prints the message and aborts: the fuzzer keeps the input that got here. */
_Noreturn void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A NUL-terminated copy of the input, or NULL (caller frees). */
char *fuzz_text(const uint8_t *data, size_t size);

#endif
