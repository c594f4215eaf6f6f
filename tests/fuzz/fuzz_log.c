/* fuzz_log.c — match logs (JSON lines) through the reader: each line parsed, its fields read as
 * `meeple replay` reads them, its game replayed from the seed and the position reached exercised. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jsonl.h"
#include "registry.h"

/* A string written back and read again is the same string. */
static void string_round_trip(const char *s) {
    jsonl_buf b = {0};
    char err[200];
    jsonl_put_string(&b, s);
    if (b.failed) fuzz_fail("out of memory");
    jsonl_value *again = jsonl_parse(b.text, err, sizeof err);
    if (!again || again->kind != JSONL_STRING || strcmp(again->string, s) != 0)
        fuzz_fail("the string '%s' does not read back from %s (%s)", s, b.text, again ? "different" : err);
    jsonl_free(again);
    jsonl_buf_free(&b);
}

static void strings_of(const jsonl_value *v) {
    if (v->kind == JSONL_STRING) string_round_trip(v->string);
    for (int i = 0; (v->kind == JSONL_ARRAY || v->kind == JSONL_OBJECT) && i < v->count; i++) {
        if (v->kind == JSONL_OBJECT) string_round_trip(v->keys[i]);
        strings_of(&v->items[i]);
    }
}

/* The result fields, read with the bounds the readers use. */
static void read_result(const jsonl_value *v, int seats) {
    const jsonl_value *scores = jsonl_get(v, "scores"), *winners = jsonl_get(v, "winners"),
                      *forfeits = jsonl_get(v, "forfeits");
    long long n;
    for (int i = 0; scores && scores->kind == JSONL_ARRAY && i < scores->count; i++)
        (void)jsonl_int(&scores->items[i], -1000000000, 1000000000, &n);
    for (int i = 0; winners && winners->kind == JSONL_ARRAY && i < winners->count; i++)
        if (jsonl_int(&winners->items[i], 1, seats, &n) && (n < 1 || n > seats)) fuzz_fail("jsonl_int out of bounds");
    for (int i = 0; forfeits && forfeits->kind == JSONL_ARRAY && i < forfeits->count; i++)
        (void)jsonl_get(&forfeits->items[i], "reason");
    (void)jsonl_int(jsonl_get(v, "index"), 1, INT64_MAX / 2, &n);
}

static void replay_line(const jsonl_value *v) {
    const jsonl_value *game = jsonl_get(v, "game"), *seats = jsonl_get(v, "seats"),
                      *actions = jsonl_get(v, "actions"), *variant = jsonl_get(v, "variant");
    long long seed;
    bool fields = game && game->kind == JSONL_STRING && seats && seats->kind == JSONL_ARRAY && seats->count > 0 &&
                  actions && actions->kind == JSONL_ARRAY && (!variant || variant->kind == JSONL_NULL) &&
                  jsonl_int(jsonl_get(v, "seed"), 0, INT64_MAX / 2, &seed);
    if (!fields) return;
    read_result(v, seats->count);
    const game_def *def = game_find(game->string);
    if (!def) return;
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    reason why = {{0}};
    session *s = session_new(def, seats->count, params, (uint64_t)seed, &why);
    if (!s) return;
    for (int i = 0; i < actions->count; i++) {
        const jsonl_value *a = &actions->items[i];
        if (a->kind != JSONL_STRING || !session_play_text(s, a->string, &why)) break;
    }
    fuzz_exercise(s);
    session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        char err[200];
        jsonl_value *v = jsonl_parse(line, err, sizeof err);
        if (!v) continue;
        strings_of(v);
        if (v->kind == JSONL_OBJECT) replay_line(v);
        jsonl_free(v);
    }
    free(text);
    return 0;
}
