/* first_bot.c — the smallest external bot (docs/protocol.md): it answers every `decide` with 1, the
 * first legal action, and needs no JSON library: it only looks at each line's "type" (always the first
 * key). It answers game_over with "ready", so one process plays all the games meeple gives it.
 *
 *   cc -O2 -o first_bot examples/c/first_bot.c
 *   meeple match babel exec:./first_bot random
 *
 * Each message from meeple is one line; a line holds at most a view, so 1 MiB is plenty; a longer one
 * is read in pieces and only its start is looked at. */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char line[1 << 20];
    int at_start = 1;
    while (fgets(line, sizeof line, stdin)) {
        int starts = at_start;
        at_start = strchr(line, '\n') != NULL;
        if (!starts) continue; /* the rest of a long line */
        if (strncmp(line, "{\"type\":\"decide\"", 16) == 0) {
            puts("1");
            fflush(stdout);
        } else if (strncmp(line, "{\"type\":\"game_over\"", 19) == 0) {
            puts("ready"); /* the next game in this process; meeple closes stdin when there is none */
            fflush(stdout);
        }
    }
    return 0;
}
