/* shortest_json.c — JSON text with every real in its shortest exact form (shortest_json.h). */
#include "host/shortest_json.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dump_buf {
    char *text;
    size_t len, cap;
    bool failed;
} dump_buf;

static void put(dump_buf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *grown = realloc(b->text, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->text = grown;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
}

static void puts_buf(dump_buf *b, const char *s) { put(b, s, strlen(s)); }

/* The fewest significant digits that read back as x; a whole value keeps its ".0" as jansson writes it. */
static void put_real(dump_buf *b, double x) {
    char text[40];
    if (!isfinite(x)) x = 0; /* JSON has no infinities; jansson refuses them too */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        if (strtod(text, NULL) == x) break;
    }
    if (!strpbrk(text, ".eEn")) strcat(text, ".0");
    puts_buf(b, text);
}

/* Separators as json_dumps writes them: compact, indented, or spaced on one line. */
static void separator(dump_buf *b, size_t flags, const char *sep) {
    puts_buf(b, sep);
    if (!(flags & JSON_COMPACT) && (sep[0] == ':' || !(flags & JSON_MAX_INDENT))) puts_buf(b, " ");
}

static void newline(dump_buf *b, size_t flags, int depth) {
    int indent = (int)(flags & JSON_MAX_INDENT);
    if (!indent) return;
    puts_buf(b, "\n");
    for (int i = 0; i < indent * depth; i++) puts_buf(b, " ");
}

static int key_order(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

static void dump_value(dump_buf *b, const json_t *v, size_t flags, int depth);

static void dump_object(dump_buf *b, const json_t *v, size_t flags, int depth) {
    size_t n = json_object_size(v), i = 0;
    const char **keys = malloc(sizeof *keys * (n ? n : 1));
    if (!keys) {
        b->failed = true;
        return;
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)v, key, value) keys[i++] = key;
    if (flags & JSON_SORT_KEYS) qsort(keys, n, sizeof *keys, key_order);
    puts_buf(b, "{");
    for (i = 0; i < n; i++) {
        if (i) separator(b, flags, ",");
        newline(b, flags, depth + 1);
        json_t *k = json_string(keys[i]);
        dump_value(b, k, flags, depth + 1);
        json_decref(k);
        separator(b, flags, ":");
        dump_value(b, json_object_get(v, keys[i]), flags, depth + 1);
    }
    if (n) newline(b, flags, depth);
    puts_buf(b, "}");
    free(keys);
}

static void dump_value(dump_buf *b, const json_t *v, size_t flags, int depth) {
    if (json_is_real(v)) return put_real(b, json_real_value(v));
    if (json_is_object(v)) return dump_object(b, v, flags, depth);
    if (json_is_array(v)) {
        puts_buf(b, "[");
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) separator(b, flags, ",");
            newline(b, flags, depth + 1);
            dump_value(b, json_array_get(v, i), flags, depth + 1);
        }
        if (json_array_size(v)) newline(b, flags, depth);
        return puts_buf(b, "]");
    }
    char *text = json_dumps(v, JSON_ENCODE_ANY); /* strings, integers, true, false, null: jansson's own */
    if (!text) b->failed = true;
    else puts_buf(b, text);
    free(text);
}

/* Whether a real lies anywhere in v. */
static bool holds_real(const json_t *v) {
    if (json_is_real(v)) return true;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            if (holds_real(json_array_get(v, i))) return true;
        return false;
    }
    if (json_is_object(v)) {
        const char *key;
        json_t *value;
        json_object_foreach((json_t *)v, key, value) if (holds_real(value)) return true;
    }
    return false;
}

char *shortest_json_dumps(const json_t *v, size_t flags) {
    /* Without a real, jansson's own writer gives this text: the walk below writes everything but reals
     * as it does. It does so in one buffer, where the walk allocates for every key and scalar: the
     * server's documents (all integers and strings) spent a fifth of its time in the walk. */
    if (!holds_real(v)) return json_dumps(v, flags | JSON_ENCODE_ANY);
    dump_buf b = {0};
    dump_value(&b, v, flags, 0);
    if (b.failed || !b.text) {
        free(b.text);
        return NULL;
    }
    return b.text;
}
