/* test_bean_states.c — what the bean core's hot path takes for granted of a state, held at the door: a
 * save's `start` bytes come from anyone, and the bean games' rules read them as they lie. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rules/games/beans.h"
#include <meeple/registry.h>
#include <meeple/rng.h>
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

/* The first hand card given in an open deal, as an index into the card array; -1 when none. */
static int given_hand_card(const bean_table *g) {
    const bean_deal *d = &g->deal;
    for (int i = 0; d->stage != BEAN_DEAL_NONE && i < d->n_give; i++)
        if (!BEAN_ITEM_IS_UP(d->give[i])) return bean_zone_start(g, BEAN_ZONE_HAND(d->from)) + d->give[i];
    return -1;
}

/* An offered hand card is shown to all (ruling 11), and a sample keeps shown cards where they lie: a
 * state whose deal gives a hand card nobody was shown is refused (a sample would deal another card
 * there, changing what the addressee sees). Random games are played until a deal gives a hand card. */
static void an_offered_hand_card_is_shown(void) {
    static const char *const games[] = {"bohnanza", "rabohnzel"};
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        const game_def *def = game_find(games[i]);
        meeple_reason why;
        session *s = session_new(def, 4, NULL, 11, &why);
        CHECK(s, "%s: %s", games[i], why.text);
        unsigned char *st = malloc(def->state_size);
        memcpy(st, s->now, def->state_size);
        rng r;
        rng_seed(&r, 5, 1);
        action_t acts[MEEPLE_MAX_ACTIONS];
        int at = -1;
        for (int step = 0; step < 20000 && at < 0 && !def->is_over(st); step++) {
            int n = def->legal(st, acts);
            def->apply(st, acts[rng_below(&r, (uint32_t)n)]);
            at = given_hand_card((const bean_table *)st);
        }
        CHECK(at >= 0, "%s: a random game gives a hand card in a deal", games[i]);
        CHECK(def->validate(st, &why), "%s: the deal as played is valid: %s", games[i], why.text);
        ((bean_table *)st)->shown[at] = 0;
        CHECK(!def->validate(st, &why) && strstr(why.text, "not shown"),
              "%s: a given hand card not shown is refused, got: %s", games[i], why.text);
        free(st);
        session_free(s);
    }
}

/* A legal action other than a harvest or buying, at random, where there is one: fields fill up, and
 * coins stay to buy with. */
static action_t keeping_fields(const action_t *acts, int n, rng *r) {
    action_t kept[MEEPLE_MAX_ACTIONS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (bean_act_kind(acts[i]) != BEAN_ACT_HARVEST && bean_act_kind(acts[i]) != BEAN_ACT_BUY) kept[k++] = acts[i];
    return k ? kept[rng_below(r, (uint32_t)k)] : acts[rng_below(r, (uint32_t)n)];
}

/* A dealt game whose rules make the builder's lists and free actions varied: meters a field of two or
 * three fills next to longer ones (full and growing fields side by side: Rabohnzel's own are seldom
 * filled), a third field for sale, and 2 to 6 face-up cards. */
static void varied_rules(bean_table *g, uint64_t seed) {
    static const uint8_t short_meter[4] = {1, 3, 0, 0}, long_meter[4] = {2, 3, 4, 5};
    for (int t = 0; t < BEAN_MAX_TYPES; t++) memcpy(g->rules.meter[t], t % 2 ? short_meter : long_meter, 4);
    g->rules.third_field_cost = 3;
    g->rules.reveal = (uint8_t)(2 + seed % 5);
}

/* A playout's decision while a deal is built is named with no list (playout_choose): at every such
 * position of games that harvest only when they must, on varied rules, the choice and the draws must
 * be playout_pick's on legal()'s list. Greedy games harvest a full field at once and random ones
 * harvest at random: these fill fields, so that a full field's harvest (or buying) sometimes beats
 * the deal, and the free actions after the builder's are weighed too. */
static void a_deal_is_built_as_picked(void) {
    static const char *const games[] = {"bohnanza", "rabohnzel"};
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        const game_def *def = game_find(games[i]);
        unsigned char *st = malloc(def->state_size);
        long positions = 0, free_picks = 0, buys = 0;
        for (uint64_t seed = 1; seed <= 60; seed++) {
            meeple_reason why;
            session *s = session_new(def, 4, NULL, seed, &why);
            CHECK(s, "%s: %s", games[i], why.text);
            memcpy(st, s->now, def->state_size);
            session_free(s);
            varied_rules((bean_table *)st, seed);
            rng r;
            rng_seed(&r, seed, 3);
            action_t acts[MEEPLE_MAX_ACTIONS];
            for (int n; !def->is_over(st) && (n = def->legal(st, acts)) > 0;) {
                const bean_table *g = (const bean_table *)st;
                if (n > 1 && g->phase == BEAN_TRADE && g->deal.stage == BEAN_DEAL_BUILD) {
                    rng pick_draws = r, choose_draws = r;
                    action_t picked = acts[def->playout_pick(st, acts, n, &pick_draws)], named = 0;
                    CHECK(def->playout_choose(st, &choose_draws, &named), "%s: a deal's building is chosen with no list",
                          games[i]);
                    CHECK(named == picked && memcmp(&pick_draws, &choose_draws, sizeof r) == 0,
                          "%s, seed %llu: playout_choose names %#x, playout_pick takes %#x (or drew otherwise)",
                          games[i], (unsigned long long)seed, (unsigned)named, (unsigned)picked);
                    positions++;
                    int kind = bean_act_kind(picked);
                    free_picks += kind == BEAN_ACT_HARVEST || kind == BEAN_ACT_BUY;
                    buys += kind == BEAN_ACT_BUY;
                }
                def->apply(st, keeping_fields(acts, n, &r));
            }
        }
        CHECK(free_picks > 0, "%s: no game reached a deal's building where a free action is the pick", games[i]);
        CHECK(buys > 0 || strcmp(games[i], "rabohnzel") == 0, /* Rabohnzel sells no field */
              "%s: no game reached a deal's building where buying a field is the pick", games[i]);
        printf("bean states: %s, %ld deal-building positions chosen with no list as from one (%ld a free action, %ld buying)\n",
               games[i], positions, free_picks, buys);
        free(st);
    }
}

int main(void) {
    a_closed_deal_holds_nothing();
    printf("bean states: a save whose closed deal holds anything is refused\n");
    an_offered_hand_card_is_shown();
    printf("bean states: a deal's given hand card nobody was shown is refused\n");
    a_deal_is_built_as_picked();
    return 0;
}
