/* text.c — escaping for the terminal, and plain bot names (text.h). */
#include "host/text.h"

#include <string.h>

#define TEXT_NAME_MAX 40

/* The length of the UTF-8 character at s (at most `left` bytes), or 0 when it is not one. */
static size_t utf8_length(const unsigned char *s, size_t left) {
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (s[0] >= 0xf5 || n == 0 || n > left) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) return 0; /* overlong */
    if (n == 3 && s[0] == 0xed && s[1] >= 0xa0) return 0; /* a surrogate */
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return n;
}

void text_utf8_valid(char *out, size_t n, const char *s) {
    static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
    size_t used = 0, left = strlen(s);
    while (left > 0 && n > 0) {
        size_t len = (unsigned char)*s < 0x80 ? 1 : utf8_length((const unsigned char *)s, left);
        const char *piece = len ? s : replacement;
        size_t size = len ? len : sizeof replacement - 1;
        if (used + size >= n) break;
        memcpy(out + used, piece, size);
        used += size;
        s += len ? len : 1;
        left -= len ? len : 1;
    }
    if (n > 0) out[used] = '\0';
}

/* The next piece of `s` as it is shown: either `*raw` bytes taken as they are, or an escape in esc[].
 * Returns how many bytes of `s` it covers. */
static size_t next_piece(const unsigned char *s, size_t left, bool keep_newlines, char esc[8], size_t *raw) {
    unsigned char c = s[0];
    *raw = 0;
    if ((c >= 0x20 && c < 0x7f) || c == '\t' || (c == '\n' && keep_newlines)) {
        *raw = 1;
        return 1;
    }
    if (c < 0x80) {
        snprintf(esc, 8, "\\x%02x", c);
        return 1;
    }
    size_t n = utf8_length(s, left);
    if (n == 0) {
        snprintf(esc, 8, "\\x%02x", c);
        return 1;
    }
    if (n == 2 && c == 0xc2 && s[1] < 0xa0) { /* U+0080..U+009F: the C1 controls, CSI among them */
        snprintf(esc, 8, "\\u%04x", (unsigned)s[1]);
        return 2;
    }
    *raw = n;
    return n;
}

void text_write(FILE *f, const char *s, size_t len, bool keep_newlines) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        char esc[8];
        size_t raw, used = next_piece(u + i, len - i, keep_newlines, esc, &raw);
        if (raw) fwrite(s + i, 1, raw, f);
        else fputs(esc, f);
        i += used;
    }
}

void text_escape(char *out, size_t n, const char *s, bool keep_newlines) {
    if (n == 0) return;
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s), at = 0;
    for (size_t i = 0; i < len;) {
        char esc[8];
        size_t raw, used = next_piece(u + i, len - i, keep_newlines, esc, &raw);
        const char *piece = raw ? s + i : esc;
        size_t size = raw ? raw : strlen(esc);
        if (at + size >= n) break;
        memcpy(out + at, piece, size);
        at += size;
        i += used;
    }
    out[at] = '\0';
}

void text_bot_name(char *out, size_t n, const char *name) {
    size_t at = 0, limit = n - 1 < TEXT_NAME_MAX ? n - 1 : TEXT_NAME_MAX;
    for (const char *c = name; *c && at < limit; c++) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                     *c == '_' || *c == '-' || *c == '.';
        out[at++] = plain ? *c : '_';
    }
    out[at] = '\0';
    if (at == 0) snprintf(out, n, "bot");
}
