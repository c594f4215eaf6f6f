/* jsonl.h — the little JSON that match logs need: building a line, and reading one back. */
#ifndef MEEPLE_JSONL_H
#define MEEPLE_JSONL_H

#include <stdbool.h>
#include <stddef.h>

/* ---- Writing: a growing text buffer. On out of memory it stops growing and `failed` is set. ---- */
typedef struct jsonl_buf {
    char *text;
    size_t len, cap;
    bool failed;
} jsonl_buf;

void jsonl_put(jsonl_buf *b, const char *text);
void jsonl_putn(jsonl_buf *b, const char *text, size_t n);
void jsonl_putf(jsonl_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A JSON string: quotes, escapes, control characters as \u00XX. */
void jsonl_put_string(jsonl_buf *b, const char *s);
void jsonl_buf_free(jsonl_buf *b);

/* ---- Reading ---- */
typedef enum { JSONL_NULL, JSONL_BOOL, JSONL_NUMBER, JSONL_STRING, JSONL_ARRAY, JSONL_OBJECT } jsonl_kind;

typedef struct jsonl_value jsonl_value;
struct jsonl_value {
    jsonl_kind kind;
    bool boolean;
    double number;
    char *string;         /* JSONL_STRING, NUL-terminated (a \u0000 ends it early) */
    int count;            /* items of an array, members of an object */
    jsonl_value *items;   /* JSONL_ARRAY and JSONL_OBJECT */
    char **keys;          /* JSONL_OBJECT: keys[i] names items[i] */
};

/* Parses one JSON value filling the whole text (spaces around it allowed). NULL and the reason in
 * `err` when it is not JSON. */
jsonl_value *jsonl_parse(const char *text, char *err, size_t errn);
/* The member `key` of an object, or NULL. */
const jsonl_value *jsonl_get(const jsonl_value *obj, const char *key);
/* Whether `v` is a number holding a whole value in [min, max]; it is then stored in `out`. */
bool jsonl_int(const jsonl_value *v, long long min, long long max, long long *out);
void jsonl_free(jsonl_value *v);

#endif
