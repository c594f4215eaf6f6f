/* test_bean_states.c — what the bean core's hot path takes for granted of a state, held at the door: a
 * save's `start` bytes come from anyone, and the bean games' rules read them as they lie. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rules/games/beans.h"
#include <meeple/registry.h>
#include <meeple/session.h>

/* The save of a dealt game of `name` with its start bytes written out, after `poke` changed them. */
static char *save_with_start(const char *name, void (*poke)(bean_table *g)) {
    meeple_reason why;
    session *s = session_new(game_find(name), 4, NULL, 7, &why);
    CHECK(s, "%s: %s", name, why.text);
    bean_table *g = s->start; /* both bean games' states begin with the core's table */
    CHECK(g->deal.stage == BEAN_DEAL_NONE, "%s: a game is dealt with no deal open", name);
    if (poke) poke(g);
    s->from_table = true; /* the save carries the start bytes */
    char *text = session_save(s);
    CHECK(text, "%s: no save", name);
    session_free(s);
    return text;
}

static void stale_item(bean_table *g) { g->deal.give[0] = 1; }
static void stale_want(bean_table *g) { g->deal.want[2] = 3; }
static void stale_pick_order(bean_table *g) { g->deal.pick_from[1] = 2; }

/* A deal opens by setting its parties and counting its room, not by clearing it: a closed deal must be
 * all zero, or the next one would start with the last one's items, wanted beans or picks. A save whose
 * closed deal holds any of them is refused; the same save without it loads. */
static void a_closed_deal_holds_nothing(void) {
    static const char *const games[] = {"bohnanza", "rabohnzel"};
    static void (*const pokes[])(bean_table *) = {stale_item, stale_want, stale_pick_order};
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        meeple_reason why;
        char *clean = save_with_start(games[i], NULL);
        session *s = session_load(clean, &why);
        CHECK(s, "%s: the save of a dealt game loads: %s", games[i], why.text);
        session_free(s);
        free(clean);
        for (size_t p = 0; p < sizeof pokes / sizeof pokes[0]; p++) {
            char *stale = save_with_start(games[i], pokes[p]);
            s = session_load(stale, &why);
            CHECK(!s && strstr(why.text, "a closed deal holds items"),
                  "%s, stale deal %zu: refused as a closed deal holding items, got: %s", games[i], p,
                  s ? "(loaded)" : why.text);
            free(stale);
        }
    }
}

int main(void) {
    a_closed_deal_holds_nothing();
    printf("bean states: a save whose closed deal holds anything is refused\n");
    return 0;
}
