/* jsonl.c — building JSON lines and reading them back (jsonl.h). Enough of RFC 8259 for match logs:
 * every value kind, string escapes including \u (surrogate pairs too), nesting up to 64 deep. */
#include "jsonl.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================================================================================== writing */

static bool reserve(jsonl_buf *b, size_t more) {
    if (b->failed) return false;
    if (b->len + more + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) cap *= 2;
    char *grown = realloc(b->text, cap);
    if (!grown) {
        b->failed = true;
        return false;
    }
    b->text = grown;
    b->cap = cap;
    return true;
}

void jsonl_putn(jsonl_buf *b, const char *text, size_t n) {
    if (!reserve(b, n)) return;
    memcpy(b->text + b->len, text, n);
    b->len += n;
    b->text[b->len] = '\0';
}

void jsonl_put(jsonl_buf *b, const char *text) { jsonl_putn(b, text, strlen(text)); }

void jsonl_putf(jsonl_buf *b, const char *fmt, ...) {
    char small[256];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        jsonl_putn(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n)) return;
    va_start(args, fmt);
    vsnprintf(b->text + b->len, (size_t)n + 1, fmt, args);
    va_end(args);
    b->len += (size_t)n;
}

void jsonl_put_string(jsonl_buf *b, const char *s) {
    jsonl_putn(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            jsonl_putn(b, esc, 2);
        } else if (c == '\n') {
            jsonl_putn(b, "\\n", 2);
        } else if (c == '\t') {
            jsonl_putn(b, "\\t", 2);
        } else if (c < 0x20 || c == 0x7f) {
            jsonl_putf(b, "\\u%04x", c);
        } else {
            jsonl_putn(b, (const char *)&c, 1);
        }
    }
    jsonl_putn(b, "\"", 1);
}

void jsonl_buf_free(jsonl_buf *b) {
    free(b->text);
    *b = (jsonl_buf){0};
}

/* ===================================================================================== reading */

#define JSONL_DEPTH 64

typedef struct parser {
    const char *p;
    const char *start;
    char *err;
    size_t errn;
    bool failed;
} parser;

static bool fail(parser *ps, const char *what) {
    if (!ps->failed) snprintf(ps->err, ps->errn, "%s at column %d", what, (int)(ps->p - ps->start) + 1);
    ps->failed = true;
    return false;
}

static void skip_space(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t utf8_put(char *out, uint32_t cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string at ps->p (the opening quote); the decoded text, malloc'd. */
static char *parse_string(parser *ps) {
    const char *p = ++ps->p;
    size_t cap = 0;
    while (p[cap] && p[cap] != '"') cap += p[cap] == '\\' && p[cap + 1] ? 2 : 1;
    char *out = malloc(cap + 1), *o = out;
    if (!out) {
        fail(ps, "out of memory");
        return NULL;
    }
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') break;
        if (c == '\0' || c < 0x20) {
            ps->p = p;
            fail(ps, c ? "a control character in a string" : "an unterminated string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            p++;
            continue;
        }
        char e = p[1];
        p += 2;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            int cp = hex4(p);
            if (cp < 0) goto bad;
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' && p[1] == 'u') {
                int lo = hex4(p + 2);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                }
            }
            /* \uXXXX is 6 bytes of input and at most 4 of output: it fits in `cap`. */
            o += utf8_put(o, (uint32_t)cp);
            break;
        }
        default:
        bad:
            ps->p = p;
            fail(ps, "a bad escape in a string");
            free(out);
            return NULL;
        }
    }
    *o = '\0';
    ps->p = p + 1;
    return out;
}

static bool parse_value(parser *ps, jsonl_value *v, int depth);

/* Appends a zeroed item (and key slot) to an array or object under construction. */
static jsonl_value *grow(parser *ps, jsonl_value *v, int *cap) {
    if (v->count == *cap) {
        int n = *cap ? *cap * 2 : 8;
        jsonl_value *items = realloc(v->items, sizeof *items * (size_t)n);
        if (items) v->items = items;
        if (items && v->kind == JSONL_OBJECT) {
            char **keys = realloc(v->keys, sizeof *keys * (size_t)n);
            if (!keys) items = NULL;
            else v->keys = keys;
        }
        if (!items) {
            fail(ps, "out of memory");
            return NULL;
        }
        *cap = n;
    }
    jsonl_value *item = &v->items[v->count];
    memset(item, 0, sizeof *item);
    if (v->kind == JSONL_OBJECT) v->keys[v->count] = NULL;
    v->count++;
    return item;
}

static bool parse_container(parser *ps, jsonl_value *v, int depth) {
    bool object = *ps->p == '{';
    char close = object ? '}' : ']';
    v->kind = object ? JSONL_OBJECT : JSONL_ARRAY;
    if (depth >= JSONL_DEPTH) return fail(ps, "nested too deep");
    ps->p++;
    skip_space(ps);
    int cap = 0;
    if (*ps->p == close) {
        ps->p++;
        return true;
    }
    for (;;) {
        skip_space(ps);
        char *key = NULL;
        if (object) {
            if (*ps->p != '"') return fail(ps, "a key was expected");
            key = parse_string(ps);
            if (!key) return false;
            skip_space(ps);
            if (*ps->p != ':') {
                free(key);
                return fail(ps, "':' was expected");
            }
            ps->p++;
        }
        jsonl_value *item = grow(ps, v, &cap);
        if (!item) {
            free(key);
            return false;
        }
        if (object) v->keys[v->count - 1] = key;
        if (!parse_value(ps, item, depth + 1)) return false;
        skip_space(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            return true;
        }
        return fail(ps, object ? "',' or '}' was expected" : "',' or ']' was expected");
    }
}

static bool parse_value(parser *ps, jsonl_value *v, int depth) {
    skip_space(ps);
    const char *p = ps->p;
    switch (*p) {
    case '{':
    case '[': return parse_container(ps, v, depth);
    case '"':
        v->kind = JSONL_STRING;
        v->string = parse_string(ps);
        return v->string != NULL;
    case 't':
    case 'f':
    case 'n': {
        static const struct { const char *word; jsonl_kind kind; bool value; } words[] = {
            {"true", JSONL_BOOL, true}, {"false", JSONL_BOOL, false}, {"null", JSONL_NULL, false}};
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(words[i].word);
            if (strncmp(p, words[i].word, n) == 0) {
                v->kind = words[i].kind;
                v->boolean = words[i].value;
                ps->p += n;
                return true;
            }
        }
        return fail(ps, "a value was expected");
    }
    default: {
        const char *q = p;
        if (*q == '-') q++;
        if (*q < '0' || *q > '9') return fail(ps, "a value was expected");
        char *end;
        v->kind = JSONL_NUMBER;
        v->number = strtod(p, &end);
        if (end == p || !isfinite(v->number)) return fail(ps, "a bad number");
        ps->p = end;
        return true;
    }
    }
}

static void free_inner(jsonl_value *v) {
    if (v->kind == JSONL_STRING) free(v->string);
    if (v->kind == JSONL_ARRAY || v->kind == JSONL_OBJECT) {
        for (int i = 0; i < v->count; i++) {
            free_inner(&v->items[i]);
            if (v->keys) free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
}

jsonl_value *jsonl_parse(const char *text, char *err, size_t errn) {
    jsonl_value *v = calloc(1, sizeof *v);
    parser ps = {text, text, err, errn, false};
    if (!v) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    if (parse_value(&ps, v, 0)) {
        skip_space(&ps);
        if (*ps.p) fail(&ps, "text after the value");
    }
    if (ps.failed) {
        jsonl_free(v);
        return NULL;
    }
    return v;
}

const jsonl_value *jsonl_get(const jsonl_value *obj, const char *key) {
    if (!obj || obj->kind != JSONL_OBJECT) return NULL;
    for (int i = 0; i < obj->count; i++)
        if (obj->keys[i] && strcmp(obj->keys[i], key) == 0) return &obj->items[i];
    return NULL;
}

bool jsonl_int(const jsonl_value *v, long long min, long long max, long long *out) {
    if (!v || v->kind != JSONL_NUMBER || v->number != floor(v->number)) return false;
    if (v->number < (double)min || v->number > (double)max) return false;
    *out = (long long)v->number;
    return true;
}

void jsonl_free(jsonl_value *v) {
    if (!v) return;
    free_inner(v);
    free(v);
}
