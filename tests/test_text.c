/* test_text.c — text made safe (core/host/text.h): text_utf8_valid keeps whole UTF-8 characters and
 * turns every other byte into U+FFFD, cutting on a character's boundary; text_escape shows control
 * characters as escapes. */
#include <string.h>

#include "host/text.h"
#include "check.h"

#define FFFD "\xef\xbf\xbd"

static void valid_is(const char *in, size_t n, const char *want) {
    char out[64];
    text_utf8_valid(out, n, in);
    CHECK(strcmp(out, want) == 0, "'%s' in %zu bytes gave '%s', not '%s'", in, n, out, want);
}

int main(void) {
    valid_is("plain", 64, "plain");
    valid_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x82\xa1", 64, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x82\xa1");
    valid_is("a\xff" "b", 64, "a" FFFD "b");                   /* not UTF-8 */
    valid_is("cut \xc3", 64, "cut " FFFD);                     /* a character cut short at the end */
    valid_is("\xe2\x82", 64, FFFD FFFD);
    valid_is("\xc0\xaf", 64, FFFD FFFD);                       /* an overlong '/' */
    valid_is("\xed\xa0\x80", 64, FFFD FFFD FFFD);              /* a surrogate */
    valid_is("\xf4\x90\x80\x80", 64, FFFD FFFD FFFD FFFD);     /* past U+10FFFF */
    valid_is("ab\xc3\xa9", 4, "ab");                           /* no room for the whole character */
    valid_is("ab\xc3\xa9", 5, "ab\xc3\xa9");
    valid_is("a\xff", 4, "a");                                 /* nor for the replacement */
    char out[64];
    text_escape(out, sizeof out, "bell\a \x1b[2J \xc2\x9b", false);
    CHECK(strcmp(out, "bell\\x07 \\x1b[2J \\u009b") == 0, "escaped: '%s'", out);
    puts("text: ok");
    return 0;
}
