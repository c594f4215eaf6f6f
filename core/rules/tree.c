/* tree.c — the shorthands and the canonical text writer. */
#include <meeple/tree.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tw_key(tree_writer *w, const char *key) {
    if (w->wants && !w->wants(w, key)) return false;
    w->key(w, key);
    return true;
}

void tw_key_str(tree_writer *w, const char *key, const char *value) {
    if (tw_key(w, key)) w->str(w, value);
}

void tw_key_num(tree_writer *w, const char *key, int64_t value) {
    if (tw_key(w, key)) w->num(w, value);
}

void tw_key_bool(tree_writer *w, const char *key, bool value) {
    if (tw_key(w, key)) w->boolean(w, value);
}

static void text_append(text_writer *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (t->len + n + 1 > cap) cap *= 2;
        char *grown = realloc(t->buf, cap);
        if (!grown) abort(); /* out of memory at the boundary: nothing sensible is left to do */
        t->buf = grown;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void text_put(text_writer *t, const char *s) { text_append(t, s, strlen(s)); }

/* A value in a list is preceded by a comma unless it is the first; in a map the key did that. */
static void text_value_start(text_writer *t) {
    if (t->need_comma) text_put(t, ",");
    t->need_comma = false;
}

static void text_open_map(tree_writer *w) {
    text_writer *t = (text_writer *)w;
    text_value_start(t);
    text_put(t, "{");
}

static void text_close(tree_writer *w) {
    text_writer *t = (text_writer *)w;
    text_put(t, "}");
    t->need_comma = true;
}

static void text_key(tree_writer *w, const char *key) {
    text_writer *t = (text_writer *)w;
    text_value_start(t);
    text_put(t, key);
    text_put(t, "=");
}

static void text_str(tree_writer *w, const char *value) {
    text_writer *t = (text_writer *)w;
    text_value_start(t);
    text_put(t, "\"");
    text_put(t, value);
    text_put(t, "\"");
    t->need_comma = true;
}

static void text_num(tree_writer *w, int64_t value) {
    text_writer *t = (text_writer *)w;
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRId64, value);
    text_value_start(t);
    text_put(t, digits);
    t->need_comma = true;
}

static void text_boolean(tree_writer *w, bool value) {
    text_writer *t = (text_writer *)w;
    text_value_start(t);
    text_put(t, value ? "true" : "false");
    t->need_comma = true;
}

void text_writer_init(text_writer *t) {
    memset(t, 0, sizeof *t);
    t->base.open_map = text_open_map;
    t->base.open_list = text_open_map; /* lists and maps print alike: {..} */
    t->base.close = text_close;
    t->base.key = text_key;
    t->base.str = text_str;
    t->base.num = text_num;
    t->base.boolean = text_boolean;
    text_put(t, "");
}

void text_writer_free(text_writer *t) {
    free(t->buf);
    memset(t, 0, sizeof *t);
}

/* =================================================================================== reader paths */

void tree_path_enter(tree_path *p, const char *key, int index) {
    if (p->depth >= 0 && p->depth < TREE_PATH_DEPTH) { /* deeper steps still count, so leaves pair up */
        snprintf(p->steps[p->depth].key, sizeof p->steps[0].key, "%s", key ? key : "");
        p->steps[p->depth].index = index;
    }
    p->depth++;
}

void tree_path_leave(tree_path *p) {
    if (p->depth > 0) p->depth--;
}

const char *tree_path_text(tree_path *p, const char *root) {
    size_t len = 0;
    int n = p->depth < TREE_PATH_DEPTH ? p->depth : TREE_PATH_DEPTH;
    p->text[0] = '\0';
    for (int i = 0; i < n && len < sizeof p->text - 1; i++) {
        size_t room = sizeof p->text - len;
        int w;
        if (p->steps[i].index) w = snprintf(p->text + len, room, "[%d]", p->steps[i].index);
        else w = snprintf(p->text + len, room, "%s%s", i ? "." : "", p->steps[i].key);
        if (w < 0) break;
        len += (size_t)w < room ? (size_t)w : room - 1;
    }
    return n ? p->text : root;
}

bool tree_key_known(const char *key, const char *const *known) {
    for (; *known; known++)
        if (strcmp(key, *known) == 0) return true;
    return false;
}
