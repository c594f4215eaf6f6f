/* beans.c — the bean core both bean games play (Bohnanza, and Rabohnzel on top of it), by
 * shared/rules/bohnanza.md.
 *
 * The file follows a turn: zones and card moves; the rules' end; setup; fields and planting;
 * harvesting and buying a third field; the deck's passes; the trading protocol; phase 3 and the end;
 * then the boundary (action text, state tables, invariants, sampling, variants' primitives) and the
 * search playout's policy. A game's own turn, setup and game_def live in its file (bohnanza.c,
 * rabohnzel.c). Rules layer: no Lua, no I/O. */
#include "rules/games/beans.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/hotpath.h"
#include "rules/invariant.h"
#include "rules/table.h"
#include "rules/worth_pick.h"

/* ==================================================================== zones */

/* zone_ones[k]: 1 in each of the zone bounds' bytes below k. Row k less row j is 1 in bytes j..k-1
 * (j <= k), and no byte of it borrows from another, so a run of bounds moves by one word at a time
 * whatever the machine's byte order. */
#define ZONE_ONE(k, b) ((b) < (k))
#define ZONE_ONES_10(k, b)                                                                                  \
    ZONE_ONE(k, b), ZONE_ONE(k, b + 1), ZONE_ONE(k, b + 2), ZONE_ONE(k, b + 3), ZONE_ONE(k, b + 4),         \
        ZONE_ONE(k, b + 5), ZONE_ONE(k, b + 6), ZONE_ONE(k, b + 7), ZONE_ONE(k, b + 8), ZONE_ONE(k, b + 9)
#define ZONE_ONES_ROW(k) {ZONE_ONES_10(k, 0), ZONE_ONES_10(k, 10), ZONE_ONES_10(k, 20), ZONE_ONES_10(k, 30)}
#define ZONE_ONES_ROWS_10(k)                                                                                \
    ZONE_ONES_ROW(k), ZONE_ONES_ROW(k + 1), ZONE_ONES_ROW(k + 2), ZONE_ONES_ROW(k + 3), ZONE_ONES_ROW(k + 4), \
        ZONE_ONES_ROW(k + 5), ZONE_ONES_ROW(k + 6), ZONE_ONES_ROW(k + 7), ZONE_ONES_ROW(k + 8), ZONE_ONES_ROW(k + 9)
#define BOUND_WORDS ((BEAN_ZONES + 1) / 8)
_Static_assert(BEAN_ZONES + 1 == 40, "zone_ones is written for 40 zone bounds: 5 words");
static const uint8_t zone_ones[BEAN_ZONES + 2][BEAN_ZONES + 1] = {
    ZONE_ONES_ROWS_10(0), ZONE_ONES_ROWS_10(10), ZONE_ONES_ROWS_10(20), ZONE_ONES_ROWS_10(30), ZONE_ONES_ROW(40)};

/* Bounds lo..hi-1 go down by one (or up): every word of them at once, with no loop over the zones.
 * A bound that goes down is past a card, one that goes up before the last card: none leaves 0..160. */
static inline void shift_bounds(uint8_t *bound, int lo, int hi, bool up) {
    for (int w = 0; w < BOUND_WORDS; w++) {
        uint64_t x, below_hi, below_lo;
        memcpy(&x, bound + 8 * w, 8);
        memcpy(&below_hi, zone_ones[hi] + 8 * w, 8);
        memcpy(&below_lo, zone_ones[lo] + 8 * w, 8);
        x = up ? x + (below_hi - below_lo) : x - (below_hi - below_lo);
        memcpy(bound + 8 * w, &x, 8);
    }
}

/* A card that everyone has seen keeps the mark only from hand to hand; anywhere else it lies face
 * up or face down for all, and the mark would mean nothing. The card and its mark go from place src
 * to just before place dst (as the array is now), the cards between shifting by one. */
void bean_move(bean_table *g, int from, int i, int to, int j) {
    /* A card that is not there, or a place outside its zone, would shift other zones' cards: one
     * lost or doubled in effect, and the game corrupt without a word. */
    if (NEVER((unsigned)from >= BEAN_ZONES || (unsigned)to >= BEAN_ZONES)) return;
    int src = bean_zone_start(g, from) + i;
    int dst = bean_zone_start(g, to) + j; /* the place before which the card goes, as things are now */
    if (NEVER(i < 0 || src >= bean_zone_end(g, from) || j < 0 || dst > bean_zone_end(g, to))) return;
    uint8_t card = g->card[src], seen = bean_is_hand_zone(to) ? g->shown[src] : 0;
    if (from == BEAN_ZONE_DECK) g->deck_count[card]--;
    if (to == BEAN_ZONE_DECK) g->deck_count[card]++;
    if (src < dst) {
        size_t n = (size_t)(dst - 1 - src);
        memmove(&g->card[src], &g->card[src + 1], n);
        memmove(&g->shown[src], &g->shown[src + 1], n);
        dst--;
    } else {
        size_t n = (size_t)(src - dst);
        memmove(&g->card[dst + 1], &g->card[dst], n);
        memmove(&g->shown[dst + 1], &g->shown[dst], n);
    }
    g->card[dst] = card;
    g->shown[dst] = seen;
    if (from < to) shift_bounds(g->zone_bound, from + 1, to + 1, false);
    else if (from > to) shift_bounds(g->zone_bound, to + 1, from + 1, true);
}

static void bean_move_top(bean_table *g, int from, int to) {
    bean_move(g, from, bean_zone_len(g, from) - 1, to, bean_zone_len(g, to));
}

int bean_count_in(const bean_table *g, int zone, int type) {
    const uint8_t *c = bean_zone(g, zone);
    int n = 0;
    for (int i = bean_zone_len(g, zone) - 1; i >= 0; i--) n += c[i] == type;
    return n;
}

/* ==================================================================== parameters and setup */

const char *const bean_tie_break_names[] = {"seat", "hand", "none", NULL};

/* A one-number parameter as the game reads it: by player count, left to the game (an edition's
 * default), or the value the parameter's definition already filled in. */
static int32_t rule_value(const param_def *d, const param_value *v, int players, int32_t fallback) {
    if (d->kind == PARAM_BY_PLAYERS) return param_for_players(v, players, fallback);
    return d->game_default ? param_int_or(v, fallback) : v->v[0];
}

/* The rule a one-number parameter sets, by its name; NULL for none of the core's. */
static uint8_t *rule_slot(bean_rules *r, const char *name) {
    static const struct { const char *name; size_t at; } slots[] = {
        {"fields", offsetof(bean_rules, fields)},         {"third_field_cost", offsetof(bean_rules, third_field_cost)},
        {"passes", offsetof(bean_rules, passes)},         {"tie_break", offsetof(bean_rules, tie_break)},
        {"hand_start", offsetof(bean_rules, hand_start)}, {"reveal", offsetof(bean_rules, reveal)},
        {"draw", offsetof(bean_rules, draw)},             {"trade_limit", offsetof(bean_rules, trade_limit)},
    };
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (strcmp(name, slots[i].name) == 0) return (uint8_t *)r + slots[i].at;
    return NULL;
}

void bean_rules_from(const bean_game *bg, const param_value *params, int players, bean_rules *r) {
    memset(r, 0, sizeof *r);
    bg->rules_defaults(params, players, r);
    for (int i = 0; i < bg->num_params; i++) {
        const param_def *d = &bg->params[i];
        const param_value *v = &params[i];
        uint8_t *slot = rule_slot(r, d->name);
        if (slot) *slot = (uint8_t)rule_value(d, v, players, *slot);
        else if (strcmp(d->name, "duplicate_fields") == 0)
            r->duplicate_fields = rule_value(d, v, players, r->duplicate_fields) != 0;
        else if (strcmp(d->name, "deck") == 0)
            for (int t = 0; t < r->types; t++) r->count[t] = (uint8_t)param_by_name(v, t, 0, 1, r->count[t]);
        else if (strcmp(d->name, "beanometer") == 0)
            for (int t = 0; t < r->types; t++)
                for (int k = 0; k < 4; k++) r->meter[t][k] = (uint8_t)param_by_name(v, t, k, 4, r->meter[t][k]);
    }
}

/* Every game ends: the deck runs out only if each turn takes cards from it. With nothing turned up in
 * phase 2 and nothing drawn in phase 4, a turn may take none, and the game would never end. */
static bool bean_rules_end(const bean_rules *r, reason *why) {
    return r->reveal > 0 || r->draw > 0 ||
           deny(why, "reveal = 0 with draw = 0 takes no card from the deck, and the game would never end");
}

bool bean_rules_check(const bean_rules *r, int players, reason *why) {
    int cards = 0;
    for (int t = 0; t < r->types; t++) cards += r->count[t];
    if (!bean_rules_end(r, why)) return false;
    if (cards > BEAN_MAX_CARDS) return deny(why, "the deck holds %d cards; at most %d fit", cards, BEAN_MAX_CARDS);
    if (cards < players * r->hand_start + 1)
        return deny(why, "the deck holds %d cards: too few to deal %d to each of %d players", cards, r->hand_start,
                    players);
    return true;
}

void bean_setup(const bean_game *bg, bean_table *g, int players, const bean_rules *rules, uint64_t seed) {
    memset(g, 0, sizeof *g);
    rng_seed(&g->rng, seed, bg->rng_stream);
    g->rules = *rules;
    g->players = (uint8_t)players;
    int n = 0;
    for (int t = 0; t < rules->types; t++)
        for (int c = 0; c < rules->count[t]; c++) g->card[n++] = (uint8_t)t;
    rng_shuffle_bytes(&g->rng, g->card, n);
    for (int z = 0; z < BEAN_ZONES; z++) g->zone_bound[z + 1] = (uint8_t)n; /* all in the deck */
    memcpy(g->deck_count, rules->count, sizeof g->deck_count);
    for (int round = 0; round < rules->hand_start; round++) /* one at a time; later cards to the back */
        for (int p = 0; p < players; p++) bean_draw(g, BEAN_ZONE_HAND(p));
    for (int p = 0; p < players; p++) g->fields[p] = rules->fields;
    g->phase = BEAN_PLANT;
    g->pass = 1;
    g->turn = 1;
    g->invited = BEAN_NOBODY;
}

/* ==================================================================== fields and planting */

static int bean_lowest_empty(const bean_table *g, int seat) {
    for (int f = 0; f < g->fields[seat]; f++)
        if (bean_field_size(g, seat, f) == 0) return f;
    return -1;
}

static int field_growing(const bean_table *g, int seat, int type) {
    for (int f = 0; f < g->fields[seat]; f++)
        if (bean_field_type(g, seat, f) == type) return f;
    return -1;
}

/* Empty fields are interchangeable: only the lowest-numbered one is named (design choice 4). */
bool bean_fits(const bean_table *g, int seat, int type, int field) {
    if (field < 0 || field >= g->fields[seat]) return false;
    if (bean_field_size(g, seat, field) > 0) return bean_field_type(g, seat, field) == type;
    if (field != bean_lowest_empty(g, seat)) return false;
    return g->rules.duplicate_fields || field_growing(g, seat, type) < 0;
}

/* bean_fits for every field at once, a bit per field: the fields of the type, and the lowest empty
 * one unless the type grows elsewhere and duplicate fields are off. */
unsigned bean_fitting_fields(const bean_table *g, int seat, int type) {
    unsigned fits = 0;
    int empty = -1;
    for (int f = 0; f < g->fields[seat]; f++) {
        if (bean_field_size(g, seat, f) == 0) {
            if (empty < 0) empty = f;
        } else if (bean_field_type(g, seat, f) == type) {
            fits |= 1u << f;
        }
    }
    if (empty >= 0 && (g->rules.duplicate_fields || !fits)) fits |= 1u << empty;
    return fits;
}

int bean_first_fit(const bean_table *g, int seat, int type) {
    for (int f = 0; f < g->fields[seat]; f++)
        if (bean_fits(g, seat, type, f)) return f;
    return -1;
}

/* Why a bean of `type` cannot go onto `field`: the field is another bean's, or not the first empty one. */
bool bean_plant_check(const bean_game *bg, const bean_table *g, int seat, int type, int field, reason *why) {
    if (bean_fits(g, seat, type, field)) return true;
    if (!why) return false;
    const char *name = bg->kinds[type].name;
    if (field < 0 || field >= g->fields[seat]) return deny(why, "you have %d fields, not %d", g->fields[seat], field + 1);
    int fit = bean_first_fit(g, seat, type), growing = field_growing(g, seat, type);
    if (bean_field_size(g, seat, field) > 0) {
        int other = bean_field_type(g, seat, field);
        if (fit < 0)
            return deny(why, "your %s fits on no field (field %d holds %s): harvest a field first", name, field + 1,
                        bg->kinds[other].name);
        return deny(why, "field %d holds %s; your %s fits on field %d", field + 1, bg->kinds[other].name, name,
                    fit + 1);
    }
    if (!g->rules.duplicate_fields && growing >= 0)
        return deny(why, "%s already grows on field %d: plant it there (one field per bean type)", name, growing + 1);
    return deny(why, "empty fields are taken in order: plant the %s on field %d", name, bean_lowest_empty(g, seat) + 1);
}

void bean_plant(bean_table *g, int seat, int from_zone, int index, int field) {
    if (NEVER(seat >= g->players || field < 0 || field >= g->fields[seat])) return; /* another seat's zone */
    int z = BEAN_ZONE_FIELD(seat, field);
    bean_move(g, from_zone, index, z, bean_zone_len(g, z));
}

/* ==================================================================== harvesting */

/* The largest k whose meter entry (cards needed for k coins) is at most the cards harvested. */
int bean_payout(const bean_table *g, int type, int cards) {
    int coins = 0;
    for (int k = 0; k < 4; k++)
        if (g->rules.meter[type][k] && g->rules.meter[type][k] <= cards) coins = k + 1;
    return coins;
}

int bean_harvest_coins(const bean_table *g, int seat, int field) {
    int n = bean_field_size(g, seat, field), real = n - g->enchanted[seat][field];
    int coins = n ? bean_payout(g, bean_field_type(g, seat, field), n) : 0;
    return coins < real ? coins : real;
}

static bool protected_field(const bean_table *g, int seat, int field) {
    if (bean_field_size(g, seat, field) != 1) return false;
    for (int f = 0; f < g->fields[seat]; f++)
        if (bean_field_size(g, seat, f) >= 2) return true;
    return false;
}

/* Bean protection (Amigo): a lone bean is safe while another of one's fields holds two or more. */
bool bean_harvest_check(const bean_game *bg, const bean_table *g, int seat, int field, reason *why) {
    if (field < 0 || field >= g->fields[seat]) return deny(why, "you have %d fields, not %d", g->fields[seat], field + 1);
    if (bean_field_size(g, seat, field) == 0) return deny(why, "field %d is empty", field + 1);
    if (!protected_field(g, seat, field)) return true;
    if (!why) return false;
    int big = 0;
    while (bean_field_size(g, seat, big) < 2) big++;
    return deny(why, "your %s on field %d is a lone bean: harvest field %d first (bean protection)",
                bg->kinds[bean_field_type(g, seat, field)].name, field + 1, big + 1);
}

/* Zone z's cards, bottom card first, onto the discard pile (a zone behind it): what bean_move card by
 * card does, in one shift of the cards between. */
static void discard_zone(bean_table *g, int z) {
    int start = bean_zone_start(g, z), n = bean_zone_end(g, z) - start, dst = bean_zone_end(g, BEAN_ZONE_DISCARD);
    uint8_t moved[BEAN_MAX_CARDS];
    if (NEVER(z <= BEAN_ZONE_DISCARD)) return;
    memcpy(moved, g->card + start, (size_t)n);
    memmove(g->card + dst + n, g->card + dst, (size_t)(start - dst));
    memcpy(g->card + dst, moved, (size_t)n);
    memmove(g->shown + dst + n, g->shown + dst, (size_t)(start - dst));
    memset(g->shown + dst, 0, (size_t)n); /* face up on the pile: nobody's mark */
    for (int zone = BEAN_ZONE_DISCARD; zone < z; zone++) g->zone_bound[zone + 1] = (uint8_t)(g->zone_bound[zone + 1] + n);
}

/* Coins come from the meter, at most one per real card of the type (an enchanted card never pays);
 * they leave the field from the top. The rest go onto the discard pile bottom card first, so the
 * field's top card ends on top (ruling). */
int bean_harvest(bean_table *g, int seat, int field) {
    if (NEVER(seat >= g->players || field < 0 || field >= BEAN_MAX_FIELDS)) return 0; /* another seat's zone */
    int z = BEAN_ZONE_FIELD(seat, field), coins = bean_harvest_coins(g, seat, field);
    for (int i = 0; i < coins; i++) bean_move_top(g, z, BEAN_ZONE_COINS(seat));
    discard_zone(g, z);
    g->enchanted[seat][field] = 0;
    return coins;
}

void bean_compact_fields(bean_table *g, int seat, int *order) {
    int size[BEAN_MAX_FIELDS], n = 0;
    uint8_t enchanted[BEAN_MAX_FIELDS];
    for (int f = 0; f < BEAN_MAX_FIELDS; f++)
        if (bean_field_size(g, seat, f)) order[n++] = f;
    for (int f = 0; f < BEAN_MAX_FIELDS; f++)
        if (!bean_field_size(g, seat, f)) order[n++] = f;
    for (int f = 0; f < BEAN_MAX_FIELDS; f++) size[f] = bean_field_size(g, seat, order[f]), enchanted[f] = g->enchanted[seat][order[f]];
    int at = bean_zone_start(g, BEAN_ZONE_FIELD(seat, 0));
    for (int f = 0; f < BEAN_MAX_FIELDS; f++) {
        at += size[f];
        g->zone_bound[BEAN_ZONE_FIELD(seat, f) + 1] = (uint8_t)at;
        g->enchanted[seat][f] = enchanted[f];
    }
}

/* ---- buying a third field (Rio Grande with 4-5 players, Amigo 1997) ---- */

bool bean_buy_check(const bean_table *g, int seat, reason *why) {
    int cost = g->rules.third_field_cost;
    if (!cost) return deny(why, "a third field cannot be bought in this game");
    if (g->third_field[seat]) return deny(why, "you have 3 fields already: the third is bought once");
    if (g->fields[seat] != 2) return deny(why, "a third field is bought by a player with 2 fields; you have %d", g->fields[seat]);
    if (bean_coins(g, seat) < cost)
        return deny(why, "a third field costs %d coins; you have %d", cost, bean_coins(g, seat));
    return true;
}

/* The top coins go one at a time onto the discard pile, bean side up: cards in circulation again. */
void bean_buy(bean_table *g, int seat) {
    if (NEVER(bean_coins(g, seat) < g->rules.third_field_cost || g->fields[seat] >= BEAN_MAX_FIELDS)) return;
    for (int i = 0; i < g->rules.third_field_cost; i++) bean_move_top(g, BEAN_ZONE_COINS(seat), BEAN_ZONE_DISCARD);
    g->third_field[seat] = true;
    g->fields[seat]++;
}

/* ==================================================================== the deck's passes */

bool bean_draw(bean_table *g, int to) {
    if (bean_zone_len(g, BEAN_ZONE_DECK) == 0) return false;
    bean_move_top(g, BEAN_ZONE_DECK, to);
    if (bean_zone_len(g, BEAN_ZONE_DECK) > 0) return true;
    int discards = bean_zone_len(g, BEAN_ZONE_DISCARD);
    if (g->pass >= g->rules.passes || discards == 0) { /* an empty discard pile ends it too (ruling) */
        g->last_pass_over = true;
        return true;
    }
    /* The discard pile is the deck's neighbour: its cards become the deck where they lie. */
    g->zone_bound[BEAN_ZONE_DECK + 1] = g->zone_bound[BEAN_ZONE_DISCARD + 1];
    for (int i = 0; i < discards; i++) g->deck_count[g->card[i]]++; /* it was empty */
    rng_shuffle_bytes(&g->rng, g->card, discards);
    g->pass++;
    return true;
}

/* ==================================================================== the trading protocol
 *
 * Phase 2 as single decisions (design choice 1). The active player A's main decision offers
 * `propose N`, `ask` and `done`. A proposal is built one item at a time (`give up B`, `give K`,
 * `want B`), sent, and answered by its addressee, who then picks the wanted cards (only when the
 * choice changes the result). `ask` opens an invitation round: each other player, clockwise from
 * A's left, may build one offer to A, which A answers at once. Proposals, invitations and offers
 * each cost a trade step; when the steps run out, only `done` and the free actions remain. */

static int face_up_len(const bean_table *g) { return bean_zone_len(g, BEAN_ZONE_FACE_UP); }

/* Cards `seat` may give in a deal: the hand, and the active player's face-up cards too. */
static int tradeable(const bean_table *g, int seat) {
    return bean_hand_len(g, seat) + (seat == g->active ? face_up_len(g) : 0);
}

static bool item_used(const uint8_t *items, int n, int item) {
    for (int i = 0; i < n; i++)
        if (items[i] == item) return true;
    return false;
}

/* Hand position k stands for its run of identical cards among those not yet in the deal: only the
 * frontmost of a run is named, since taking any other leaves the same hand. Cards are identical when
 * they are of one bean and everyone knows them alike (ruling 11: a shown copy and its hidden twin
 * leave the others knowing different things). */
static bool distinct_position(const bean_table *g, int seat, int k, const uint8_t *used, int n_used) {
    if (k >= bean_hand_len(g, seat) || item_used(used, n_used, k)) return false;
    int start = bean_zone_start(g, BEAN_ZONE_HAND(seat));
    const uint8_t *hand = g->card + start, *shown = g->shown + start;
    for (int j = k - 1; j >= 0; j--)
        if (!item_used(used, n_used, j)) return hand[j] != hand[k] || shown[j] != shown[k];
    return true;
}

/* The frontmost face-up card of `type` not yet in the deal, or -1. Cards a game adds to the face-up
 * cards go after the revealed ones, so a revealed card goes first. */
static int free_face_up(const bean_table *g, int type, const uint8_t *used, int n_used) {
    const uint8_t *up = bean_zone(g, BEAN_ZONE_FACE_UP);
    for (int i = 0; i < face_up_len(g); i++)
        if (up[i] == type && !item_used(used, n_used, BEAN_ITEM_UP(i))) return i;
    return -1;
}

static int count_type(const uint8_t *types, int n, int type) {
    int c = 0;
    for (int i = 0; i < n; i++) c += types[i] == type;
    return c;
}

/* Adds `delta` to counts[type] for every card in zones first..last. */
static void count_zones(const bean_table *g, int first, int last, int delta, int *counts) {
    for (int i = bean_zone_start(g, first); i < bean_zone_end(g, last); i++) counts[g->card[i]] += delta;
}

#ifndef NDEBUG
/* Cards of each type in sight of `from` (fields, coin piles, discard pile, set-aside areas, the
 * face-up cards unless `to` owns them, cards shown in third players' hands, `from`'s own hand),
 * taken from the type's total: could_hold's count from the other side, checked in the Debug build. */
static void total_less_visible(const bean_table *g, int from, int to, int *out) {
    for (int t = 0; t < g->rules.types; t++) out[t] = g->rules.count[t];
    count_zones(g, BEAN_ZONE_DISCARD, BEAN_ZONE_PENDING, -1, out); /* discard, face-up and pending cards */
    if (to == g->active) count_zones(g, BEAN_ZONE_FACE_UP, BEAN_ZONE_FACE_UP, +1, out);
    for (int p = 0; p < g->players; p++) {
        count_zones(g, BEAN_ZONE_COINS(p), BEAN_ZONE_FIELD(p, BEAN_MAX_FIELDS - 1), -1, out);
        if (p == from || p == to) continue;
        for (int i = bean_zone_start(g, BEAN_ZONE_HAND(p)); i < bean_zone_end(g, BEAN_ZONE_HAND(p)); i++)
            out[g->card[i]] -= g->shown[i]; /* shown cards (ruling 11, Rabohnzel's Pluck) */
    }
    count_zones(g, BEAN_ZONE_HAND(from), BEAN_ZONE_HAND(from), -1, out);
}
#endif

/* The same count from the other side: the cards hidden from `from` (the deck, `to`'s hand, third
 * players' unshown cards, and the face-up cards when `to` owns them). */
static void hidden_from(const bean_table *g, int from, int to, int *out) {
    for (int t = 0; t < g->rules.types; t++) out[t] = g->deck_count[t];
    if (to == g->active) count_zones(g, BEAN_ZONE_FACE_UP, BEAN_ZONE_FACE_UP, +1, out);
    count_zones(g, BEAN_ZONE_HAND(to), BEAN_ZONE_HAND(to), +1, out);
    for (int p = 0; p < g->players; p++) {
        if (p == from || p == to) continue;
        int start = bean_zone_start(g, BEAN_ZONE_HAND(p));
        for (int i = start; i < bean_zone_end(g, BEAN_ZONE_HAND(p)); i++) out[g->card[i]] += !g->shown[i];
    }
}

/* How many cards of each type the addressee `to` could hold, as the proposer `from` sees it: the
 * type's total less the copies visibly elsewhere and in the proposer's own hand. Every card lies in
 * exactly one zone (bean_validate), so that is the count of the cards hidden from `from` too, which
 * reads only hands (the deck is counted already): every deal's opening asks it. */
static void could_hold(const bean_table *g, int from, int to, int *out) {
    hidden_from(g, from, to, out);
#ifndef NDEBUG /* the Debug build (the sanitizer suite) holds the two counts together in every position */
    int other[BEAN_MAX_TYPES];
    total_less_visible(g, from, to, other);
    for (int t = 0; t < g->rules.types; t++) assert(other[t] == out[t]);
#endif
}

/* bean_deal.room counted afresh: what the addressee could hold less what the deal wants already. */
static uint16_t count_room(const bean_table *g, uint8_t *room) {
    const bean_deal *d = &g->deal;
    int most[BEAN_MAX_TYPES];
    uint16_t beans = 0;
    memset(room, 0, BEAN_MAX_TYPES);
    if (d->stage != BEAN_DEAL_BUILD) return 0;
    could_hold(g, d->from, d->to, most);
    for (int i = 0; i < d->n_want; i++) most[d->want[i]]--; /* bean_validate: a wanted bean is a type */
    for (int t = 0; t < g->rules.types; t++) {
        bool some = most[t] > 0;
        room[t] = (uint8_t)(some ? most[t] : 0);
        beans |= (uint16_t)(some << t);
    }
    return beans;
}

/* bean_deal.give_fronts counted afresh: front to back, each hand card not in the deal that differs
 * from the last one before it not in the deal (distinct_position's rule: the frontmost of each run). */
static void count_give_fronts(const bean_table *g, uint64_t *fronts) {
    const bean_deal *d = &g->deal;
    memset(fronts, 0, sizeof d->give_fronts);
    if (d->stage != BEAN_DEAL_BUILD) return;
    uint64_t given[(BEAN_MAX_CARDS + 63) / 64] = {0}; /* hand positions in the deal */
    for (int i = 0; i < d->n_give; i++) { /* a table's items were checked against the hand before this */
        int item = d->give[i];
        if (!BEAN_ITEM_IS_UP(item) && item < BEAN_MAX_CARDS) given[item >> 6] |= 1ull << (item & 63);
    }
    int start = bean_zone_start(g, BEAN_ZONE_HAND(d->from)), len = bean_hand_len(g, d->from);
    const uint8_t *hand = g->card + start, *shown = g->shown + start;
    unsigned last = ~0u; /* the last card not in the deal: its bean, and whether it is shown */
    for (int k = 0; k < len; k++) {
        if (given[k >> 6] >> (k & 63) & 1) continue;
        unsigned card = hand[k] | (unsigned)shown[k] << 8;
        if (card != last) fronts[k >> 6] |= 1ull << (k & 63);
        last = card;
    }
}

/* Hand card k joins the deal: it leaves give_fronts, and the next card not in the deal behind it is
 * a front when it differs from the last one before k not in the deal (no other card's run changes). */
static void give_fronts_without(bean_table *g, int k) {
    bean_deal *d = &g->deal;
    int start = bean_zone_start(g, BEAN_ZONE_HAND(d->from)), len = bean_hand_len(g, d->from);
    int prev = k - 1, next = k + 1;
    const uint8_t *hand = g->card + start, *shown = g->shown + start;
    d->give_fronts[k >> 6] &= ~(1ull << (k & 63));
    while (prev >= 0 && item_used(d->give, d->n_give, prev)) prev--;
    while (next < len && item_used(d->give, d->n_give, next)) next++;
    if (next == len) return;
    uint64_t bit = 1ull << (next & 63);
    if (prev < 0 || hand[prev] != hand[next] || shown[prev] != shown[next]) d->give_fronts[next >> 6] |= bit;
    else d->give_fronts[next >> 6] &= ~bit;
}

/* The deck's beans counted afresh (bean_table.deck_count). */
static void count_deck(const bean_table *g, uint8_t *counts) {
    memset(counts, 0, BEAN_MAX_TYPES);
    for (int i = 0, n = bean_zone_end(g, BEAN_ZONE_DECK); i < n; i++)
        if (g->card[i] < BEAN_MAX_TYPES) counts[g->card[i]]++; /* bean_validate refuses another card */
}

/* bean_deal.up_given counted afresh from the give list. */
static uint16_t count_up_given(const bean_deal *d) {
    unsigned given = 0;
    for (int i = 0; i < d->n_give; i++)
        if (BEAN_ITEM_IS_UP(d->give[i])) given |= 1u << BEAN_ITEM_UP_INDEX(d->give[i]);
    return (uint16_t)given;
}

static void count_deal(bean_table *g) {
    g->deal.up_given = count_up_given(&g->deal);
    g->deal.room_beans = count_room(g, g->deal.room);
    count_give_fronts(g, g->deal.give_fronts);
}

void bean_deal_refresh(bean_table *g) {
    count_deck(g, g->deck_count);
    count_deal(g);
}

/* Cards of `type` `seat` can supply now: in the hand, and among the face-up cards for A. */
static int supply_of(const bean_table *g, int seat, int type) {
    return bean_count_in(g, BEAN_ZONE_HAND(seat), type) + (seat == g->active ? bean_count_in(g, BEAN_ZONE_FACE_UP, type) : 0);
}

static bool can_want_something(const bean_table *g, int from, int to) {
    int most[BEAN_MAX_TYPES];
    if (tradeable(g, to) == 0) return false;
    could_hold(g, from, to, most);
    for (int t = 0; t < g->rules.types; t++)
        if (most[t] > 0) return true;
    return false;
}

/* Whether `from` could put anything at all into a deal with `to`. */
static bool deal_possible(const bean_table *g, int from, int to) {
    return tradeable(g, from) > 0 || can_want_something(g, from, to);
}

static bool steps_left(const bean_table *g) { return g->trade_steps < g->rules.trade_limit; }

/* ---- the main decision and the invitation round ---- */

/* count_deal for a deal that opens, empty: all the addressee could hold is room (could_hold, each
 * hidden hand card read once, straight into the counts), and the front of every run in the builder's
 * hand may be given. Every deal's opening counts them, a tenth of a random game's decisions. */
static void count_opening(bean_table *g) {
    bean_deal *d = &g->deal;
    uint8_t *room = d->room;
    const uint8_t *card = g->card, *shown = g->shown;
    memcpy(room, g->deck_count, sizeof d->room);
    if (d->to == g->active)
        for (int i = bean_zone_start(g, BEAN_ZONE_FACE_UP); i < bean_zone_end(g, BEAN_ZONE_FACE_UP); i++) room[card[i]]++;
    for (int i = bean_zone_start(g, BEAN_ZONE_HAND(d->to)); i < bean_zone_end(g, BEAN_ZONE_HAND(d->to)); i++) room[card[i]]++;
    for (int p = 0; p < g->players; p++) {
        if (p == d->from || p == d->to) continue;
        for (int i = bean_zone_start(g, BEAN_ZONE_HAND(p)); i < bean_zone_end(g, BEAN_ZONE_HAND(p)); i++)
            room[card[i]] += !shown[i];
    }
    _Static_assert(BEAN_MAX_TYPES == 11, "room is read as 8 bytes and 3");
    uint64_t rest = (uint64_t)room[8] | (uint64_t)room[9] << 8 | (uint64_t)room[10] << 16;
    d->room_beans = (uint16_t)(bytes_nonzero64(load_le_upto8(room, 8)) | bytes_nonzero64(rest) << 8); /* 0 past the types */
    /* A front differs from the card before it (its bean, or whether it is shown): eight hand places
     * a step, each compared with the place before it in the same word moved up a byte. */
    int start = bean_zone_start(g, BEAN_ZONE_HAND(d->from)), len = bean_hand_len(g, d->from);
    for (int k = 0; k < len; k += 8) {
        int at = start + k;
        uint64_t here = load_le_upto8(card + at, BEAN_MAX_CARDS - at), seen = load_le_upto8(shown + at, BEAN_MAX_CARDS - at);
        uint64_t before = here << 8 | (k ? card[at - 1] : 0), seen_before = seen << 8 | (k ? shown[at - 1] : 0);
        unsigned fronts = bytes_nonzero64((here ^ before) | (seen ^ seen_before)) | (k == 0); /* the first is one */
        if (len - k < 8) fronts &= (1u << (len - k)) - 1;
        d->give_fronts[k >> 6] |= (uint64_t)fronts << (k & 63);
    }
#ifndef NDEBUG /* the Debug build (the sanitizer suite) holds them to count_deal's at every opening */
    uint8_t fresh[BEAN_MAX_TYPES];
    uint64_t fronts[sizeof d->give_fronts / sizeof d->give_fronts[0]];
    assert(count_room(g, fresh) == d->room_beans && memcmp(fresh, d->room, sizeof fresh) == 0);
    count_give_fronts(g, fronts);
    assert(memcmp(fronts, d->give_fronts, sizeof fronts) == 0 && !d->up_given);
#endif
}

/* A closed deal is all zero (close_deal, bean_validate): nothing to clear. */
static void open_deal(bean_table *g, int from, int to) {
    g->deal.stage = BEAN_DEAL_BUILD;
    g->deal.from = (uint8_t)from;
    g->deal.to = (uint8_t)to;
    count_opening(g);
    g->trade_steps++;
}

static void next_invited(bean_table *g) {
    int next = bean_next_seat(g, g->invited);
    g->invited = next == g->active ? BEAN_NOBODY : (uint8_t)next;
}

/* A deal ends (executed, rejected or cancelled): the decision goes back to A, or on to the next
 * invited player. */
static void close_deal(bean_table *g) {
    bool offer = g->deal.from != g->active;
    memset(&g->deal, 0, sizeof g->deal);
    if (offer) next_invited(g);
}

/* The items of a deal leave their zones in the items' order, into the end of zone `to`. */
static void move_items(bean_table *g, int seat, const uint8_t *items, int n, int to) {
    for (int i = 0; i < n; i++) {
        bool up = BEAN_ITEM_IS_UP(items[i]);
        int index = up ? BEAN_ITEM_UP_INDEX(items[i]) : items[i];
        for (int j = 0; j < i; j++) { /* earlier items from the same zone, in front of this one, are gone */
            int other = BEAN_ITEM_IS_UP(items[j]) ? BEAN_ITEM_UP_INDEX(items[j]) : items[j];
            if (BEAN_ITEM_IS_UP(items[j]) == up && other < (up ? BEAN_ITEM_UP_INDEX(items[i]) : items[i])) index--;
        }
        bean_move(g, up ? BEAN_ZONE_FACE_UP : BEAN_ZONE_HAND(seat), index, to, bean_zone_len(g, to));
    }
}

/* After the last pick the deal completes: the proposer's cards go to the addressee's set-aside. */
static void execute_deal(bean_table *g) {
    const bean_deal *d = &g->deal;
    move_items(g, d->from, d->give, d->n_give, BEAN_ZONE_SET_ASIDE(d->to));
    close_deal(g);
}

/* ---- picks: after an accept, the addressee hands over the wanted cards one by one ---- */

/* The distinct cards `to` could supply for the next wanted bean: hand positions (the frontmost of
 * each run), then `pick up`. */
static int still_wanted(const bean_table *g, int type) {
    const bean_deal *d = &g->deal;
    return count_type(d->want + d->n_picks, d->n_want - d->n_picks, type);
}

static int face_up_supply(const bean_table *g, int type) {
    return g->deal.to == g->active ? bean_count_in(g, BEAN_ZONE_FACE_UP, type) : 0;
}

/* Cards of `type` from hand position k on. */
static int hand_supply_from(const bean_table *g, int type, int k) {
    const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(g->deal.to));
    int n = 0;
    for (int len = bean_hand_len(g, g->deal.to); k < len; k++) n += hand[k] == type;
    return n;
}

/* Whether hand position k may supply the next wanted `type`: in order (pick_from), the frontmost of
 * its run from there, with enough of the type behind it (and face up) for the rest of the deal. */
static bool pick_position_ok(const bean_table *g, int type, int k) {
    const bean_deal *d = &g->deal;
    int from = d->pick_from[type], seat = d->to;
    if (from == BEAN_DEAL_UP_ONLY || k < from || k >= bean_hand_len(g, seat) || bean_zone(g, BEAN_ZONE_HAND(seat))[k] != type)
        return false;
    if (k > from && bean_same_card(g, seat, k - 1, k)) return false;
    return hand_supply_from(g, type, k + 1) + face_up_supply(g, type) >= still_wanted(g, type) - 1;
}

/* `pick up` comes after the hand cards of its bean: the rest of the deal's cards of it are face up too. */
static bool pick_up_ok(const bean_table *g, int type) {
    return g->deal.to == g->active && face_up_supply(g, type) >= still_wanted(g, type);
}

/* pick_position_ok at each place front to back, in one pass: the cards of the bean behind a place are
 * counted down from the stretch's, and as they only fall, the first place with too few ends the list
 * (asked afresh at each place, they made a deal's picks cost the square of the hand). */
static int pick_options(const bean_table *g, action_t *out) {
    const bean_deal *d = &g->deal;
    int type = d->want[d->n_picks], n = 0, from = d->pick_from[type], len = bean_hand_len(g, d->to);
    const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(d->to));
    if (from != BEAN_DEAL_UP_ONLY) {
        int behind = hand_supply_from(g, type, from), needed = still_wanted(g, type) - 1 - face_up_supply(g, type);
        for (int k = from; k < len; k++) {
            if (hand[k] != type) continue;
            if (--behind < needed) break;
            if (k == from || !bean_same_card(g, d->to, k - 1, k)) out[n++] = bean_action(BEAN_ACT_PICK, k, 0, 0);
        }
    }
    if (pick_up_ok(g, type)) out[n++] = bean_action(BEAN_ACT_PICK_UP, 0, 0, 0);
    return n;
}

/* Every card of `type` the giver could supply goes in this deal's remaining picks. */
static bool all_going(const bean_table *g, int type) {
    int from = g->deal.pick_from[type];
    int eligible = (from == BEAN_DEAL_UP_ONLY ? 0 : hand_supply_from(g, type, from)) + face_up_supply(g, type);
    return still_wanted(g, type) >= eligible;
}

/* The cards of `type` that may still go (in order) are at least those still wanted. */
static bool all_going_or_more(const bean_table *g, int type) {
    int from = g->deal.pick_from[type];
    int eligible = (from == BEAN_DEAL_UP_ONLY ? 0 : hand_supply_from(g, type, from)) + face_up_supply(g, type);
    return eligible >= still_wanted(g, type);
}

/* Hand card k goes in this deal whatever is chosen: every card of its bean that may still go does. */
static bool surely_goes(const bean_table *g, int k) {
    int type = bean_zone(g, BEAN_ZONE_HAND(g->deal.to))[k], from = g->deal.pick_from[type];
    return from != BEAN_DEAL_UP_ONLY && k >= from && all_going(g, type);
}

/* A pick is a decision only when it changes the result (the digest's step 3): not when every card of
 * the type goes anyway, and not when the hand cards offered lie in one stretch of the hand where every
 * card of another type goes too; the hand left over is then the same whichever card is taken. */
static bool pick_is_choice(const bean_table *g, const action_t *options, int n) {
    const bean_deal *d = &g->deal;
    int type = d->want[d->n_picks];
    if (n < 2 || all_going(g, type)) return false;
    if (bean_act_kind(options[n - 1]) == BEAN_ACT_PICK_UP) return true; /* a face-up card or a hand card: they differ */
    const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(d->to));
    int first = bean_act_x(options[0]);
    for (int k = first; k <= bean_act_x(options[n - 1]); k++) {
        if (hand[k] != type && !surely_goes(g, k)) return true;
        if (hand[k] == type && !bean_same_card(g, d->to, first, k)) return true; /* a shown copy, a hidden one */
    }
    return false;
}

/* The picked card goes straight to the proposer's set-aside area: the deal is accepted, and a card
 * handed over leaves nothing hidden behind (its place in the hand is gone). */
static void hand_over(bean_table *g, int zone, int index) {
    bean_deal *d = &g->deal;
    if (NEVER(d->n_picks >= d->n_want || index < 0)) return; /* nothing (more) wanted, or no card named */
    int type = d->want[d->n_picks];
    if (zone == BEAN_ZONE_FACE_UP) {
        d->pick_from[type] = BEAN_DEAL_UP_ONLY;
    } else {
        for (int t = 0; t < g->rules.types; t++) /* the cards behind it move up one place */
            if (d->pick_from[t] != BEAN_DEAL_UP_ONLY && d->pick_from[t] > index) d->pick_from[t]--;
        d->pick_from[type] = (uint8_t)index;
    }
    bean_move(g, zone, index, BEAN_ZONE_SET_ASIDE(d->from), bean_zone_len(g, BEAN_ZONE_SET_ASIDE(d->from)));
    d->n_picks++;
}

/* A pick after an accept: the deal completes after the last, and one that is no choice is played.
 * False when the pick is a choice. */
static NOT_INLINED bool settle_pick(bean_table *g) {
    if (g->deal.n_picks == g->deal.n_want) {
        execute_deal(g);
        return true;
    }
    action_t options[BEAN_MAX_CARDS + 1];
    int n = pick_options(g, options);
    if (pick_is_choice(g, options, n)) return false;
    bean_trade_apply(g, options[0]);
    return true;
}

void bean_trade_settle_picks(bean_table *g) {
    for (;;) {
        if (g->deal.stage == BEAN_DEAL_PICK) {
            if (settle_pick(g)) continue;
            return;
        }
        if (g->deal.stage == BEAN_DEAL_NONE && g->invited != BEAN_NOBODY && !steps_left(g)) {
            g->invited = BEAN_NOBODY; /* the steps ran out: the rest of the round is skipped */
            continue;
        }
        return;
    }
}

/* ---- legal actions ----
 *
 * Each list is generated directly from the table, one pass over the cards it concerns, in the order
 * the candidates have always been listed (by bean, or by hand position front to back), so that seeded
 * games, goldens and bots that pick by index see the same lists. The checks below say the same rules
 * with their reasons (test_conformance holds the two together). */

int bean_trade_openings(const bean_table *g, action_t *out, int n) {
    int a = g->active;
    if (!steps_left(g)) return n;
    bool can_give = tradeable(g, a) > 0; /* deal_possible's first half, the same for every partner */
    for (int seat = bean_next_seat(g, a); seat != a; seat = bean_next_seat(g, seat))
        if (can_give || can_want_something(g, a, seat)) out[n++] = bean_action(BEAN_ACT_PROPOSE, seat, 0, 0);
    for (int seat = bean_next_seat(g, a); seat != a; seat = bean_next_seat(g, seat))
        if (deal_possible(g, seat, a)) {
            out[n++] = bean_action(BEAN_ACT_ASK, 0, 0, 0);
            break;
        }
    return n;
}

/* The builder's lists are most of a random game's actions, some eleven a decision: they are copied
 * four bits of a mask at a time. nibble_x[m]: bit b's x (b << 6) for each bit b of m, lowest first;
 * nibble_n[m]: how many. */
#define NIBBLE_X(b) ((action_t)(b) << 6)
static const action_t nibble_x[16][4] = {
    {0},
    {NIBBLE_X(0)},
    {NIBBLE_X(1)},
    {NIBBLE_X(0), NIBBLE_X(1)},
    {NIBBLE_X(2)},
    {NIBBLE_X(0), NIBBLE_X(2)},
    {NIBBLE_X(1), NIBBLE_X(2)},
    {NIBBLE_X(0), NIBBLE_X(1), NIBBLE_X(2)},
    {NIBBLE_X(3)},
    {NIBBLE_X(0), NIBBLE_X(3)},
    {NIBBLE_X(1), NIBBLE_X(3)},
    {NIBBLE_X(0), NIBBLE_X(1), NIBBLE_X(3)},
    {NIBBLE_X(2), NIBBLE_X(3)},
    {NIBBLE_X(0), NIBBLE_X(2), NIBBLE_X(3)},
    {NIBBLE_X(1), NIBBLE_X(2), NIBBLE_X(3)},
    {NIBBLE_X(0), NIBBLE_X(1), NIBBLE_X(2), NIBBLE_X(3)},
};
static const uint8_t nibble_n[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* bean_action(kind, first + b, 0, 0) for each set bit b of `bits`, lowest first, at out[n]: a whole
 * table row a nibble (the compiler's vector copy where it has one), the count moving by its bits. The
 * slots up to three past the count are written as scratch, which game_def.legal allows. */
static inline int emit_bits(action_t *out, int n, uint64_t bits, int kind, int first) {
    for (action_t base = bean_action(kind, first, 0, 0); bits; bits >>= 4, base += NIBBLE_X(4)) {
        const action_t *row = nibble_x[bits & 15];
        for (int i = 0; i < 4; i++) out[n + i] = row[i] + base;
        n += nibble_n[bits & 15];
    }
    return n;
}

/* The builder's actions as bits, in the grammar's order: give up a bean (each bean among the face-up
 * cards not yet in the deal, free_face_up's rule; the active player's deals only), give a hand place
 * (front to back, the deal's give_fronts: no bit past the hand, bean_validate), want a bean (while the
 * deal asks for fewer than the partner could hold, want_check's rule), send (once the deal holds
 * something), cancel. builder_legal writes them out; a playout's pick weighs them as they are. */
typedef struct builder_bits {
    unsigned give_up, want;
    const uint64_t *give; /* three words: a hand of 65 cards or more reaches the second */
    bool send;
} builder_bits;

static builder_bits builder_bits_of(const bean_table *g) {
    const bean_deal *d = &g->deal;
    unsigned left = 0; /* beans left among the face-up cards, a bit each */
    if (d->from == g->active) {
        const uint8_t *up = bean_zone(g, BEAN_ZONE_FACE_UP);
        for (int i = 0, len = face_up_len(g); i < len; i++)
            if (!(d->up_given >> i & 1)) left |= 1u << up[i];
    }
    _Static_assert(sizeof d->give_fronts == 3 * sizeof d->give_fronts[0], "give_fronts is three words");
    return (builder_bits){.give_up = left,
                          .want = d->n_want < tradeable(g, d->to) ? d->room_beans : 0,
                          .give = d->give_fronts,
                          .send = d->n_give + d->n_want > 0};
}

/* The builder's whole list (give up and want a bean each, give a hand place each, send, cancel) and
 * emit_bits' scratch fit legal()'s buffer, wherever in it the list starts. */
_Static_assert(2 * BEAN_MAX_TYPES + BEAN_MAX_CARDS + 2 + 3 <= MEEPLE_MAX_ACTIONS / 2, "the builder's list fits");

static int builder_legal(const bean_table *g, action_t *out, int n) {
    builder_bits b = builder_bits_of(g);
    n = emit_bits(out, n, b.give_up, BEAN_ACT_GIVE_UP, 0);
    n = emit_bits(out, n, b.give[0], BEAN_ACT_GIVE, 0);
    if (b.give[1] | b.give[2]) {
        n = emit_bits(out, n, b.give[1], BEAN_ACT_GIVE, 64);
        n = emit_bits(out, n, b.give[2], BEAN_ACT_GIVE, 128);
    }
    n = emit_bits(out, n, b.want, BEAN_ACT_WANT, 0);
    if (b.send) out[n++] = bean_action(BEAN_ACT_SEND, 0, 0, 0);
    out[n++] = bean_action(BEAN_ACT_CANCEL, 0, 0, 0);
    return n;
}

/* The addressee holds every wanted card (the accept check's rule), counted in one pass each. Not
 * inlined: its counts would cost the builder's lists, far more often asked, a larger frame. */
static NOT_INLINED bool can_supply(const bean_table *g) {
    const bean_deal *d = &g->deal;
    int have[BEAN_MAX_TYPES] = {0};
    count_zones(g, BEAN_ZONE_HAND(d->to), BEAN_ZONE_HAND(d->to), +1, have);
    if (d->to == g->active) count_zones(g, BEAN_ZONE_FACE_UP, BEAN_ZONE_FACE_UP, +1, have);
    for (int i = 0; i < d->n_want; i++)
        if (--have[d->want[i]] < 0) return false;
    return true;
}

int bean_trade_legal(const bean_table *g, action_t *out, int n) {
    switch (g->deal.stage) {
    case BEAN_DEAL_BUILD: return builder_legal(g, out, n);
    case BEAN_DEAL_ANSWER:
        if (can_supply(g)) out[n++] = bean_action(BEAN_ACT_ACCEPT, 0, 0, 0);
        out[n++] = bean_action(BEAN_ACT_REJECT, 0, 0, 0);
        return n;
    case BEAN_DEAL_PICK: return n + pick_options(g, out + n);
    }
    if (g->invited != BEAN_NOBODY) {
        if (deal_possible(g, g->invited, g->active)) out[n++] = bean_action(BEAN_ACT_OFFER, 0, 0, 0);
        out[n++] = bean_action(BEAN_ACT_PASS, 0, 0, 0);
        return n;
    }
    n = bean_trade_openings(g, out, n);
    out[n++] = bean_action(BEAN_ACT_DONE, 0, 0, 0);
    return n;
}

/* ---- checks: the same rules as the lists above, with the reasons ---- */

static const char *deal_word(const bean_table *g) { return g->deal.from == g->active ? "proposal" : "offer"; }

/* Whether the decision open now is one `kind` belongs to. */
static bool trade_stage_allows(const bean_game *bg, const bean_table *g, int kind, reason *why) {
    const bean_deal *d = &g->deal;
    bool main = kind == BEAN_ACT_PROPOSE || kind == BEAN_ACT_ASK || kind == BEAN_ACT_DONE;
    bool invited = kind == BEAN_ACT_OFFER || kind == BEAN_ACT_PASS;
    bool build = kind >= BEAN_ACT_GIVE_UP && kind <= BEAN_ACT_CANCEL;
    bool answer = kind == BEAN_ACT_ACCEPT || kind == BEAN_ACT_REJECT;
    bool pick = kind == BEAN_ACT_PICK || kind == BEAN_ACT_PICK_UP;
    switch (d->stage) {
    case BEAN_DEAL_BUILD:
        return build || deny(why, "finish the %s to player %d first: give, want, send or cancel", deal_word(g), d->to + 1);
    case BEAN_DEAL_ANSWER:
        return answer || deny(why, "player %d's %s waits for an answer: accept or reject", d->from + 1, deal_word(g));
    case BEAN_DEAL_PICK:
        return pick || deny(why, "say which card gives player %d the %s: pick K%s", d->from + 1,
                            bg->kinds[d->want[d->n_picks]].name, d->to == g->active ? " or pick up" : "");
    }
    if (g->invited != BEAN_NOBODY)
        return invited || deny(why, "player %d invited offers: offer or pass", g->active + 1);
    if (main) return true;
    if (invited) return deny(why, "nobody is invited to offer now");
    if (build) return deny(why, "no proposal is being built: propose N (or ask) first");
    if (answer) return deny(why, "there is no proposal to answer");
    return deny(why, "no accepted deal waits for its cards");
}

bool bean_trade_deny_open(const bean_game *bg, const bean_table *g, reason *why) {
    return trade_stage_allows(bg, g, -1, why); /* no action of the grammar is kind -1: it says what is asked */
}

static bool main_check(const bean_table *g, int kind, int seat, reason *why) {
    if (kind == BEAN_ACT_DONE) return true;
    if (!steps_left(g)) return deny(why, "the %d trade steps of this turn are used: say done", g->rules.trade_limit);
    if (kind == BEAN_ACT_ASK) {
        for (int i = 1; i < g->players; i++)
            if (deal_possible(g, (g->active + i) % g->players, g->active)) return true;
        return deny(why, "nobody could offer you anything: no one has a card to give and you have none");
    }
    if (seat >= g->players) return deny(why, "there is no player %d", seat + 1);
    if (seat == g->active) return deny(why, "you cannot trade with yourself");
    return deal_possible(g, g->active, seat) ||
           deny(why, "you have no card to give and player %d has none to ask for", seat + 1);
}

/* `k` is a card of `seat`'s hand not yet in the deal, and the frontmost of its run. */
static bool position_check(const bean_game *bg, const bean_table *g, int seat, int k, const uint8_t *used, int n_used,
                           const char *verb, reason *why) {
    if (k >= bean_hand_len(g, seat)) return deny(why, "the hand has %d cards, not %d", bean_hand_len(g, seat), k + 1);
    if (item_used(used, n_used, k)) return deny(why, "card %d is in the deal already", k + 1);
    if (distinct_position(g, seat, k, used, n_used)) return true;
    if (!why) return false;
    const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(seat));
    int front = k;
    while (front > 0 && (item_used(used, n_used, front - 1) || bean_same_card(g, seat, front - 1, k))) front--;
    while (item_used(used, n_used, front)) front++;
    return deny(why, "card %d is a %s%s like the ones before it: %s %d (the same cards stay)", k + 1,
                bean_is_shown(g, seat, k) ? "shown " : "", bg->kinds[hand[k]].name, verb, front + 1);
}

static bool want_check(const bean_game *bg, const bean_table *g, int type, reason *why) {
    const bean_deal *d = &g->deal;
    if (type >= g->rules.types || !g->rules.count[type]) return deny(why, "that bean is not in this game");
    const char *name = bg->kinds[type].name;
    if (d->n_want >= tradeable(g, d->to))
        return deny(why, "player %d has only %d cards to give", d->to + 1, tradeable(g, d->to));
    if (d->room[type]) return true;
    if (!why) return false;
    int holds[BEAN_MAX_TYPES];
    could_hold(g, d->from, d->to, holds);
    int asked = count_type(d->want, d->n_want, type) + 1, most = holds[type];
    if (most <= 0) return deny(why, "player %d cannot have a %s: all of them are in sight elsewhere", d->to + 1, name);
    return deny(why, "player %d cannot give a %s: you asked for %d and at most %d can be in their hand", d->to + 1,
                name, asked, most);
}

static bool builder_check(const bean_game *bg, const bean_table *g, int kind, int x, reason *why) {
    const bean_deal *d = &g->deal;
    switch (kind) {
    case BEAN_ACT_GIVE_UP:
        if (d->from != g->active) return deny(why, "only the active player has face-up cards to give");
        if (x >= g->rules.types) return deny(why, "that bean is not in this game");
        return free_face_up(g, x, d->give, d->n_give) >= 0 ||
               deny(why, "no face-up %s is left to give", bg->kinds[x].name);
    case BEAN_ACT_GIVE: return position_check(bg, g, d->from, x, d->give, d->n_give, "give", why);
    case BEAN_ACT_WANT: return want_check(bg, g, x, why);
    case BEAN_ACT_SEND:
        return d->n_give + d->n_want > 0 || deny(why, "the %s is empty: give or want a card first", deal_word(g));
    }
    return true; /* cancel */
}

static bool pick_check(const bean_game *bg, const bean_table *g, int kind, int x, reason *why) {
    const bean_deal *d = &g->deal;
    int type = d->want[d->n_picks], from = d->pick_from[type];
    const char *name = bg->kinds[type].name;
    if (kind == BEAN_ACT_PICK_UP) {
        if (d->to != g->active) return deny(why, "only the active player has face-up cards");
        if (free_face_up(g, type, NULL, 0) < 0) return deny(why, "you have no face-up %s", name);
        return pick_up_ok(g, type) ||
               deny(why, "face-up cards go after the hand's: pick the %s from your hand first (the same cards go)", name);
    }
    if (x < bean_hand_len(g, d->to) && bean_zone(g, BEAN_ZONE_HAND(d->to))[x] != type)
        return deny(why, "card %d is a %s; the %s is wanted", x + 1, bg->kinds[bean_zone(g, BEAN_ZONE_HAND(d->to))[x]].name,
                    name);
    if (pick_position_ok(g, type, x)) return true;
    if (from == BEAN_DEAL_UP_ONLY) return deny(why, "after a face-up %s, the rest of them come from the face-up cards", name);
    if (x < from)
        return deny(why, "cards of one bean are picked front to back: the next %s comes from card %d on (the same "
                    "cards go either way)", name, from + 1);
    if (x >= bean_hand_len(g, d->to)) return deny(why, "the hand has %d cards, not %d", bean_hand_len(g, d->to), x + 1);
    if (x > from && bean_same_card(g, d->to, x - 1, x)) {
        int front = x;
        while (front > from && bean_same_card(g, d->to, front - 1, x)) front--;
        return deny(why, "card %d is a %s like the ones before it: pick %d (the same cards stay)", x + 1, name, front + 1);
    }
    return deny(why, "cards of one bean are picked front to back: after card %d too few %s are left behind it for "
                "the rest of the deal", x + 1, name);
}

bool bean_trade_check(const bean_game *bg, const bean_table *g, action_t a, reason *why) {
    int kind = bean_act_kind(a), x = bean_act_x(a);
    if (!trade_stage_allows(bg, g, kind, why)) return false;
    switch (kind) {
    case BEAN_ACT_PROPOSE: case BEAN_ACT_ASK: case BEAN_ACT_DONE: return main_check(g, kind, x, why);
    case BEAN_ACT_OFFER:
        return deal_possible(g, g->invited, g->active) ||
               deny(why, "you have no card to give and nothing can be asked of player %d", g->active + 1);
    case BEAN_ACT_ACCEPT:
        for (int t = 0; t < g->rules.types; t++) {
            int wanted = count_type(g->deal.want, g->deal.n_want, t), have = supply_of(g, g->deal.to, t);
            if (wanted > have) return deny(why, "you cannot give %d %s: you have %d", wanted, bg->kinds[t].name, have);
        }
        return true;
    case BEAN_ACT_PICK: case BEAN_ACT_PICK_UP: return pick_check(bg, g, kind, x, why);
    case BEAN_ACT_PASS: case BEAN_ACT_REJECT: return true;
    }
    return builder_check(bg, g, kind, x, why);
}

void bean_trade_apply(bean_table *g, action_t a) {
    bean_deal *d = &g->deal;
    int x = bean_act_x(a);
    switch (bean_act_kind(a)) {
    case BEAN_ACT_PROPOSE: open_deal(g, g->active, x); break;
    case BEAN_ACT_ASK:
        g->trade_steps++;
        g->invited = (uint8_t)bean_next_seat(g, g->active);
        break;
    case BEAN_ACT_DONE: g->phase = BEAN_PLANT_TRADED; break;
    case BEAN_ACT_OFFER: open_deal(g, g->invited, g->active); break;
    case BEAN_ACT_PASS: next_invited(g); break;
    case BEAN_ACT_GIVE_UP: /* check() refuses a card not there, and a deal fuller than the cards */
        x = free_face_up(g, x, d->give, d->n_give);
        if (NEVER(x < 0 || d->n_give >= BEAN_MAX_CARDS)) return;
        d->give[d->n_give++] = (uint8_t)BEAN_ITEM_UP(x);
        d->up_given |= (uint16_t)(1u << x);
        break;
    case BEAN_ACT_GIVE: /* the offered card is shown to all, and stays known while it stays in the hand (ruling 11) */
        if (NEVER(x >= bean_hand_len(g, d->from) || d->n_give >= BEAN_MAX_CARDS)) return; /* check() refuses */
        d->give[d->n_give++] = (uint8_t)x;
        g->shown[bean_zone_start(g, BEAN_ZONE_HAND(d->from)) + x] = 1;
        give_fronts_without(g, x);
        break;
    case BEAN_ACT_WANT:
        if (NEVER(x >= g->rules.types || d->n_want >= BEAN_MAX_CARDS)) return; /* check() refuses */
        d->want[d->n_want++] = (uint8_t)x;
        if (d->room[x] && !--d->room[x]) d->room_beans &= (uint16_t)~(1u << x); /* check() refuses one without */
        break;
    case BEAN_ACT_SEND:
        d->stage = BEAN_DEAL_ANSWER;
        memset(d->room, 0, sizeof d->room);
        d->room_beans = 0;
        memset(d->give_fronts, 0, sizeof d->give_fronts);
        break;
    case BEAN_ACT_CANCEL: case BEAN_ACT_REJECT: close_deal(g); break;
    case BEAN_ACT_ACCEPT:
        d->stage = BEAN_DEAL_PICK;
        g->traded = true;
        break;
    case BEAN_ACT_PICK: hand_over(g, BEAN_ZONE_HAND(d->to), x); break;
    case BEAN_ACT_PICK_UP: hand_over(g, BEAN_ZONE_FACE_UP, free_face_up(g, d->want[d->n_picks], NULL, 0)); break;
    }
    bean_trade_settle(g);
}

/* ==================================================================== phase 3: planting traded cards */

int bean_to_plant(const bean_table *g, int seat) {
    return bean_zone_len(g, BEAN_ZONE_SET_ASIDE(seat)) + (seat == g->active ? face_up_len(g) : 0);
}

static int plant_supply(const bean_table *g, int seat, int type) {
    return bean_count_in(g, BEAN_ZONE_SET_ASIDE(seat), type) + (seat == g->active ? bean_count_in(g, BEAN_ZONE_FACE_UP, type) : 0);
}

/* The beans in zone z, a bit each. */
static unsigned zone_beans(const bean_table *g, int z) {
    unsigned beans = 0;
    for (int i = bean_zone_start(g, z); i < bean_zone_end(g, z); i++) beans |= 1u << g->card[i];
    return beans;
}

/* Each type once (by bean, as plant_type_check's supply: set-aside cards, and A's face-up ones), on
 * each field it may go to (field order). */
int bean_plant_type_legal(const bean_table *g, action_t *out, int n) {
    int seat = g->to_move;
    unsigned supply = zone_beans(g, BEAN_ZONE_SET_ASIDE(seat)) | (seat == g->active ? zone_beans(g, BEAN_ZONE_FACE_UP) : 0);
    for (; supply; supply &= supply - 1) {
        int t = lowest_bit(supply);
        unsigned fits = bean_fitting_fields(g, seat, t);
        for (int f = 0; fits >> f; f++)
            if (fits >> f & 1) out[n++] = bean_action(BEAN_ACT_PLANT_TYPE, t, f, 0);
    }
    return n;
}

bool bean_plant_type_check(const bean_game *bg, const bean_table *g, int type, int field, reason *why) {
    int seat = g->to_move;
    if (type >= g->rules.types || !plant_supply(g, seat, type))
        return deny(why, "you have no %s to plant", type < bg->types ? bg->kinds[type].name : "such bean");
    return bean_plant_check(bg, g, seat, type, field, why);
}

/* Set-aside cards first: a face-up card a game lets its owner discard instead stays for last. */
void bean_plant_type(bean_table *g, int type, int field) {
    int seat = g->to_move;
    int zone = bean_count_in(g, BEAN_ZONE_SET_ASIDE(seat), type) ? BEAN_ZONE_SET_ASIDE(seat) : BEAN_ZONE_FACE_UP;
    const uint8_t *c = bean_zone(g, zone);
    int i = 0, n = bean_zone_len(g, zone);
    while (i < n && c[i] != type) i++;
    if (NEVER(i == n)) return; /* no such card to plant */
    bean_plant(g, seat, zone, i, field);
}

/* Phase 3 goes A first, then clockwise (ruling 6): the first seat in that order from `from` on with
 * cards left to plant. */
int bean_next_planter(const bean_table *g, int from) {
    int players = g->players, seat = from;
    do { /* no division: settle asks at every decision of phase 3 */
        if (bean_to_plant(g, seat)) return seat;
        seat = seat + 1 < players ? seat + 1 : 0;
    } while (seat != g->active);
    return -1;
}

/* ==================================================================== the end */

void bean_final_harvest(bean_table *g, int first) {
    for (int i = 0; i < g->players; i++) {
        int seat = (first + i) % g->players;
        for (int f = 0; f < g->fields[seat]; f++) bean_harvest(g, seat, f);
    }
}

/* The highest score wins; ties by the tie_break rule. */
int bean_winners(const bean_game *bg, const void *st, int *out) {
    const bean_table *g = st;
    int scores[BEAN_MAX_SEATS];
    if (g->phase != BEAN_OVER) return 0;
    bg->scores(st, scores);
    int best = scores[0], n = 0;
    for (int p = 1; p < g->players; p++)
        if (scores[p] > best) best = scores[p];
    long key_best = -1;
    long key[BEAN_MAX_SEATS];
    for (int p = 0; p < g->players; p++) {
        key[p] = -1;
        if (scores[p] != best) continue;
        if (g->rules.tie_break == BEAN_TIE_SEAT) key[p] = (p - g->start + g->players) % g->players;
        else if (g->rules.tie_break == BEAN_TIE_HAND) key[p] = bean_hand_len(g, p);
        else key[p] = 0;
        if (key[p] > key_best) key_best = key[p];
    }
    for (int p = 0; p < g->players; p++)
        if (key[p] == key_best) out[n++] = p;
    return n;
}

int bean_num_players(const void *st) { return ((const bean_table *)st)->players; }
int bean_turn(const void *st) { return ((const bean_table *)st)->turn; }
bool bean_is_over(const void *st) { return ((const bean_table *)st)->phase == BEAN_OVER; }

int bean_to_move(const void *st) {
    const bean_table *g = st;
    return g->phase == BEAN_OVER ? -1 : g->to_move;
}

uint32_t bean_turn_key(const void *st, int *owner) {
    const bean_table *g = st;
    *owner = g->phase == BEAN_OVER ? -1 : g->active;
    return g->turn;
}

/* ==================================================================== action text */

static const char *const kind_word[BEAN_ACTS] = {
    [BEAN_ACT_PLANT] = "plant", [BEAN_ACT_DONE] = "done", [BEAN_ACT_PLANT_TYPE] = "plant", [BEAN_ACT_HARVEST] = "harvest",
    [BEAN_ACT_BUY] = "buy", [BEAN_ACT_PROPOSE] = "propose", [BEAN_ACT_ASK] = "ask", [BEAN_ACT_OFFER] = "offer", [BEAN_ACT_PASS] = "pass",
    [BEAN_ACT_GIVE_UP] = "give up", [BEAN_ACT_GIVE] = "give", [BEAN_ACT_WANT] = "want", [BEAN_ACT_SEND] = "send",
    [BEAN_ACT_CANCEL] = "cancel", [BEAN_ACT_ACCEPT] = "accept", [BEAN_ACT_REJECT] = "reject", [BEAN_ACT_PICK] = "pick",
    [BEAN_ACT_PICK_UP] = "pick up"};

static const char *type_name(const bean_game *bg, int type) { return type < bg->types ? bg->kinds[type].name : "?"; }

void bean_action_text(const bean_game *bg, action_t a, char *out) {
    int kind = bean_act_kind(a), x = bean_act_x(a), y = bean_act_y(a);
    const char *word = kind < BEAN_ACTS ? kind_word[kind] : "?";
    switch (kind) {
    case BEAN_ACT_PLANT: case BEAN_ACT_HARVEST: case BEAN_ACT_PROPOSE: case BEAN_ACT_GIVE: case BEAN_ACT_PICK:
        snprintf(out, MEEPLE_ACTION_TEXT, "%s %d", word, x + 1);
        break;
    case BEAN_ACT_PLANT_TYPE: snprintf(out, MEEPLE_ACTION_TEXT, "plant %s %d", type_name(bg, x), y + 1); break;
    case BEAN_ACT_GIVE_UP: case BEAN_ACT_WANT: snprintf(out, MEEPLE_ACTION_TEXT, "%s %s", word, type_name(bg, x)); break;
    default: snprintf(out, MEEPLE_ACTION_TEXT, "%s", word); break;
    }
}

int bean_type_index(const bean_game *bg, const char *name) {
    for (int t = 0; t < bg->types; t++)
        if (strcmp(bg->kinds[t].name, name) == 0) return t;
    return -1;
}

/* Field and seat numbers parse up to what an action's argument holds, so that `plant 9` with two
 * fields is refused by the rule ("you have 2 fields") rather than by the grammar. */
#define BEAN_MAX_NUMBER 255

/* A number word from 1 to `max`, 0-based into *out. */
static bool parse_number(const char *word, int max, int *out) {
    char *end;
    long n = strtol(word, &end, 10);
    if (end == word || *end || n < 1 || n > max) return false;
    *out = (int)n - 1;
    return true;
}

static bool parse_bean(const bean_game *bg, const char *word, int *out, reason *why) {
    *out = bean_type_index(bg, word);
    if (*out >= 0) return true;
    char names[200] = "";
    for (int t = 0; t < bg->types; t++) {
        strncat(names, t ? ", " : "", sizeof names - strlen(names) - 1);
        strncat(names, bg->kinds[t].name, sizeof names - strlen(names) - 1);
    }
    return deny(why, "'%.30s' is no bean; beans: %s", word, names);
}

/* The core's grammar: plant F, plant B F, harvest F, propose N, give K, give up B, want B, pick K,
 * pick up, and the single words. */
bool bean_parse_action(const bean_game *bg, const bean_table *g, const char *text, action_t *out, reason *why) {
    char buf[MEEPLE_ACTION_TEXT], *word[4];
    if (strlen(text) >= sizeof buf) return deny(why, "that action is too long to be one");
    strcpy(buf, text);
    int n = split_words(buf, word, 4);
    if (n < 0) return deny(why, "too many words in '%s'", text);
    if (n == 0) return deny(why, "no action given");
    static const int single_words[] = {BEAN_ACT_DONE, BEAN_ACT_BUY, BEAN_ACT_ASK, BEAN_ACT_OFFER, BEAN_ACT_PASS,
                                       BEAN_ACT_SEND, BEAN_ACT_CANCEL, BEAN_ACT_ACCEPT, BEAN_ACT_REJECT};
    for (size_t i = 0; n == 1 && i < sizeof single_words / sizeof single_words[0]; i++)
        if (strcmp(word[0], kind_word[single_words[i]]) == 0) return *out = bean_action(single_words[i], 0, 0, 0), true;
    int x = 0, y = 0;
    if (n == 2 && strcmp(word[0], "pick") == 0 && strcmp(word[1], "up") == 0) return *out = bean_action(BEAN_ACT_PICK_UP, 0, 0, 0), true;
    if (n == 3 && strcmp(word[0], "give") == 0 && strcmp(word[1], "up") == 0) {
        if (!parse_bean(bg, word[2], &x, why)) return false;
        return *out = bean_action(BEAN_ACT_GIVE_UP, x, 0, 0), true;
    }
    if (n == 2 && strcmp(word[0], "want") == 0) {
        if (!parse_bean(bg, word[1], &x, why)) return false;
        return *out = bean_action(BEAN_ACT_WANT, x, 0, 0), true;
    }
    if (n == 3 && strcmp(word[0], "plant") == 0) {
        if (!parse_bean(bg, word[1], &x, why)) return false;
        if (!parse_number(word[2], BEAN_MAX_NUMBER, &y)) return deny(why, "plant B F: F is a field's number");
        return *out = bean_action(BEAN_ACT_PLANT_TYPE, x, y, 0), true;
    }
    static const struct { const char *word; int kind, max; const char *what; } numbered[] = {
        {"plant", BEAN_ACT_PLANT, BEAN_MAX_NUMBER, "plant F: F is a field's number"},
        {"harvest", BEAN_ACT_HARVEST, BEAN_MAX_NUMBER, "harvest F: F is a field's number"},
        {"propose", BEAN_ACT_PROPOSE, BEAN_MAX_NUMBER, "propose N: N is a player's number"},
        {"give", BEAN_ACT_GIVE, BEAN_MAX_CARDS, "give K: K is a position in the hand (1 = front), or give up B"},
        {"pick", BEAN_ACT_PICK, BEAN_MAX_CARDS, "pick K: K is a position in the hand (1 = front), or pick up"},
    };
    for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
        if (strcmp(word[0], numbered[i].word) != 0) continue;
        if (n != 2 || !parse_number(word[1], numbered[i].max, &x)) return deny(why, "%s", numbered[i].what);
        return *out = bean_action(numbered[i].kind, x, 0, 0), true;
    }
    (void)g;
    if (strcmp(word[0], "want") == 0) return deny(why, "want B: B is a bean");
    for (size_t i = 0; i < sizeof single_words / sizeof single_words[0]; i++)
        if (strcmp(word[0], kind_word[single_words[i]]) == 0) return deny(why, "'%s' takes nothing after it", word[0]);
    return deny(why, "unknown action '%.40s'; actions: %s", word[0], bg->words);
}

/* Every action of the grammar that could be meant now, legal or not. */
int bean_action_space(const bean_table *g, action_t *out, int n) {
    static const int plain[] = {BEAN_ACT_DONE, BEAN_ACT_BUY, BEAN_ACT_ASK, BEAN_ACT_OFFER, BEAN_ACT_PASS, BEAN_ACT_SEND,
                                BEAN_ACT_CANCEL, BEAN_ACT_ACCEPT, BEAN_ACT_REJECT, BEAN_ACT_PICK_UP};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) out[n++] = bean_action(plain[i], 0, 0, 0);
    for (int f = 0; f < BEAN_MAX_FIELDS; f++) {
        out[n++] = bean_action(BEAN_ACT_PLANT, f, 0, 0);
        out[n++] = bean_action(BEAN_ACT_HARVEST, f, 0, 0);
        for (int t = 0; t < g->rules.types; t++) out[n++] = bean_action(BEAN_ACT_PLANT_TYPE, t, f, 0);
    }
    for (int seat = 0; seat < g->players; seat++) out[n++] = bean_action(BEAN_ACT_PROPOSE, seat, 0, 0);
    for (int t = 0; t < g->rules.types; t++) {
        out[n++] = bean_action(BEAN_ACT_GIVE_UP, t, 0, 0);
        out[n++] = bean_action(BEAN_ACT_WANT, t, 0, 0);
    }
    int longest = 0;
    for (int seat = 0; seat < g->players; seat++)
        if (bean_hand_len(g, seat) > longest) longest = bean_hand_len(g, seat);
    for (int k = 0; k <= longest && k < BEAN_MAX_CARDS; k++) {
        out[n++] = bean_action(BEAN_ACT_GIVE, k, 0, 0);
        out[n++] = bean_action(BEAN_ACT_PICK, k, 0, 0);
    }
    return n;
}

/* ==================================================================== state tables */

void bean_write_names(const bean_game *bg, tree_writer *w, const uint8_t *cards, int n) {
    w->open_list(w);
    for (int i = 0; i < n; i++) w->str(w, type_name(bg, cards[i]));
    w->close(w);
}

static void write_zone(const bean_game *bg, const bean_table *g, tree_writer *w, const char *key, int zone) {
    if (tw_key(w, key)) bean_write_names(bg, w, bean_zone(g, zone), bean_zone_len(g, zone));
}

/* Deal items as the table writes them: "hand 2 garden" (an offered card is shown, ruling 11), "up blue". */
static void write_items(const bean_game *bg, const bean_table *g, tree_writer *w, const uint8_t *items, int n) {
    w->key(w, "give");
    w->open_list(w);
    for (int i = 0; i < n; i++) {
        if (BEAN_ITEM_IS_UP(items[i])) w->str(w, bg->up_names[bean_zone(g, BEAN_ZONE_FACE_UP)[BEAN_ITEM_UP_INDEX(items[i])]]);
        else w->str(w, bg->hand_names[bean_zone(g, BEAN_ZONE_HAND(g->deal.from))[items[i]]][items[i]]);
    }
    w->close(w);
}

static const char *const stage_names[] = {"none", "build", "answer", "pick"};

/* pick_from = {soy = 3}: the next soy comes from hand card 3 on (0: from the face-up cards); written
 * only while picks are made, for the beans picked already. */
static void write_pick_from(const bean_game *bg, const bean_table *g, tree_writer *w) {
    const bean_deal *d = &g->deal;
    bool any = false;
    for (int t = 0; t < g->rules.types; t++) any |= d->pick_from[t] != 0;
    if (!any || !tw_key(w, "pick_from")) return;
    w->open_map(w);
    for (int t = 0; t < g->rules.types; t++)
        if (d->pick_from[t]) tw_key_num(w, bg->kinds[t].name, d->pick_from[t] == BEAN_DEAL_UP_ONLY ? 0 : d->pick_from[t] + 1);
    w->close(w);
}

static void write_deal(const bean_game *bg, const bean_table *g, tree_writer *w) {
    const bean_deal *d = &g->deal;
    if (!tw_key(w, "proposal")) return;
    w->open_map(w);
    tw_key_num(w, "from", d->from + 1);
    tw_key_num(w, "to", d->to + 1);
    write_items(bg, g, w, d->give, d->n_give);
    w->key(w, "want");
    bean_write_names(bg, w, d->want, d->n_want);
    tw_key_str(w, "stage", stage_names[d->stage]);
    tw_key_num(w, "picked", d->n_picks);
    write_pick_from(bg, g, w);
    w->close(w);
}

static void write_fields(const bean_game *bg, const bean_table *g, int seat, tree_writer *w) {
    w->key(w, "fields");
    w->open_list(w);
    for (int f = 0; f < g->fields[seat]; f++) {
        if (bg->write_field) bg->write_field(g, seat, f, w);
        else bean_write_names(bg, w, bean_zone(g, BEAN_ZONE_FIELD(seat, f)), bean_field_size(g, seat, f));
    }
    w->close(w);
}

/* What a harvest of each field would bring now, one entry a field (public: the fields are):
 * {pays = coins, protected = true while bean protection forbids it, and the game's extras}. The one
 * place the payout is worked out for people: the shell, the pages and the replays read it here. */
static void write_harvests(const bean_game *bg, const bean_table *g, int seat, tree_writer *w) {
    w->key(w, "harvest");
    w->open_list(w);
    for (int f = 0; f < g->fields[seat]; f++) {
        w->open_map(w);
        tw_key_num(w, "pays", bean_harvest_coins(g, seat, f));
        if (protected_field(g, seat, f)) tw_key_bool(w, "protected", true);
        if (bg->write_harvest_extra) bg->write_harvest_extra(g, seat, f, w);
        w->close(w);
    }
    w->close(w);
}

/* Hand cards everyone has seen, by position: {{at = 3, bean = "pluck"}}. */
static void write_shown(const bean_game *bg, const bean_table *g, int seat, tree_writer *w) {
    w->key(w, "shown");
    w->open_list(w);
    for (int k = 0; k < bean_hand_len(g, seat); k++) {
        if (!bean_is_shown(g, seat, k)) continue;
        w->open_map(w);
        tw_key_num(w, "at", k + 1);
        tw_key_str(w, "bean", type_name(bg, bean_zone(g, BEAN_ZONE_HAND(seat))[k]));
        w->close(w);
    }
    w->close(w);
}

static void write_player(const bean_game *bg, const bean_table *g, int seat, int viewer, tree_writer *w) {
    w->open_map(w);
    if (viewer < 0 || viewer == seat) write_zone(bg, g, w, "hand", BEAN_ZONE_HAND(seat));
    else tw_key_num(w, "hand", bean_hand_len(g, seat));
    write_fields(bg, g, seat, w);
    write_harvests(bg, g, seat, w);
    write_zone(bg, g, w, "coins", BEAN_ZONE_COINS(seat));
    write_zone(bg, g, w, "set_aside", BEAN_ZONE_SET_ASIDE(seat));
    tw_key_bool(w, "third_field", g->third_field[seat]);
    if (bg->hand_knowledge) write_shown(bg, g, seat, w);
    if (bg->write_player_extra) bg->write_player_extra(g, seat, viewer, w);
    w->close(w);
}

/* The state table (docs/games/bohnanza.md). A view (viewer >= 0) shows other hands and the deck as
 * their sizes; everything else in Bohnanza is public. */
void bean_write_table(const bean_game *bg, const void *st, int viewer, tree_writer *w) {
    const bean_table *g = st;
    w->open_map(w);
    tw_key_str(w, "game", bg->name);
    tw_key_str(w, "phase", bg->phase_names[g->phase]);
    tw_key_num(w, "turn", g->turn);
    tw_key_num(w, "active", g->active + 1);
    tw_key_num(w, "start", g->start + 1);
    if (g->to_move != BEAN_NOBODY) tw_key_num(w, "to_move", g->to_move + 1);
    tw_key_num(w, "pass", g->pass);
    tw_key_num(w, "planted", g->planted);
    tw_key_num(w, "trade_steps", g->trade_steps);
    tw_key_bool(w, "last_pass_over", g->last_pass_over);
    write_zone(bg, g, w, "face_up", BEAN_ZONE_FACE_UP);
    if (g->invited != BEAN_NOBODY) tw_key_num(w, "invited", g->invited + 1);
    if (g->deal.stage != BEAN_DEAL_NONE) write_deal(bg, g, w);
    if (bg->write_extra) bg->write_extra(g, viewer, w);
    if (tw_key(w, "players")) {
        w->open_list(w);
        for (int seat = 0; seat < g->players; seat++) write_player(bg, g, seat, viewer, w);
        w->close(w);
    }
    if (viewer < 0) write_zone(bg, g, w, "deck", BEAN_ZONE_DECK);
    else tw_key_num(w, "deck", bean_zone_len(g, BEAN_ZONE_DECK));
    write_zone(bg, g, w, "discard", BEAN_ZONE_DISCARD);
    w->close(w);
}

/* ---- reading a table: named cards go where they are named, numbers are dealt from what is left ---- */

static void bean_reading_init(bean_reading *rd, const bean_table *g) {
    void *extra = rd->extra;
    memset(rd, 0, sizeof *rd);
    rd->extra = extra;
    for (int t = 0; t < g->rules.types; t++) rd->left[t] = rd->count[t] = g->rules.count[t];
    for (int z = 0; z < BEAN_ZONES; z++) rd->dealt[z] = -1;
    memset(rd->fixed, BEAN_NONE, sizeof rd->fixed);
}

/* One card named in the table, at the reader's current place, taken from what is left. */
bool bean_take_card(const bean_game *bg, bean_reading *rd, tree_reader *r, int *type, reason *why) {
    const char *name = r->get_str(r);
    *type = name ? bean_type_index(bg, name) : -1;
    char what[120];
    if (*type < 0) {
        snprintf(what, sizeof what, "'%.40s' is not a bean of %s", name ? name : "(not a name)", bg->name);
        return table_refuse(r, why, what);
    }
    if (rd->left[*type] == 0) {
        snprintf(what, sizeof what, "one %s too many: this game has %d", name, bg->kinds[*type].cards);
        if (rd->count[*type] != bg->kinds[*type].cards)
            snprintf(what, sizeof what, "one %s too many: this deck has %d", name, rd->count[*type]);
        return table_refuse(r, why, what);
    }
    rd->left[*type]--;
    return true;
}

/* The list the reader is at, into zone z. */
bool bean_read_cards(const bean_game *bg, bean_reading *rd, tree_reader *r, int zone, reason *why) {
    int n = r->length(r);
    if (n > BEAN_MAX_CARDS) return table_refuse(r, why, "more cards than the game has");
    for (int i = 1; i <= n; i++) {
        int type;
        r->enter_index(r, i);
        bool ok = bean_take_card(bg, rd, r, &type, why);
        r->leave(r);
        if (!ok) return false;
        rd->cards[zone][rd->len[zone]++] = (uint8_t)type;
    }
    rd->named[zone] = true;
    return true;
}

/* A zone under `key`: a list of beans, or (where `number` allows) how many to deal into it. */
static bool read_zone(const bean_game *bg, bean_reading *rd, tree_reader *r, const char *key, int zone, bool number,
                      reason *why) {
    tree_kind kind = r->enter_key(r, key);
    int64_t n;
    bool ok = true;
    if (kind == TREE_TABLE) ok = bean_read_cards(bg, rd, r, zone, why);
    else if (number && kind == TREE_NUM && r->get_int(r, &n) && n >= 0 && n <= BEAN_MAX_CARDS) rd->dealt[zone] = (int)n, rd->named[zone] = true;
    else if (kind != TREE_ABSENT) ok = table_refuse(r, why, number ? "a list of beans, or a number of cards" : "a list of beans");
    r->leave(r);
    return ok;
}

/* "harvest" is accepted and not read: it is worked out from the fields (write_harvests). */
static const char *const player_keys[] = {"hand", "fields", "harvest", "coins", "set_aside", "third_field", "shown", NULL};
static const char *const shown_keys[] = {"at", "bean", NULL};

/* {{at = 3, bean = "pluck"}}: hand cards everyone has seen. In a listed hand they must be there; a
 * hand given as a number gets them at those places. */
static bool read_shown(const bean_game *bg, bean_reading *rd, tree_reader *r, int seat, reason *why) {
    tree_kind kind = r->enter_key(r, "shown");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "a list of {at = K, bean = B}");
    int n = kind == TREE_TABLE ? r->length(r) : 0, zone = BEAN_ZONE_HAND(seat);
    int size = rd->dealt[zone] >= 0 ? rd->dealt[zone] : rd->len[zone];
    for (int i = 0; ok && i < n; i++) {
        int at = 0, type;
        r->enter_index(r, i + 1);
        ok = r->kind(r) == TREE_TABLE || table_refuse(r, why, "{at = K, bean = B}");
        ok = ok && table_check_keys(r, shown_keys, why) && table_read_int(r, "at", 1, size > 0 ? size : 1, &at, why);
        if (ok && (at == 0 || size == 0)) ok = table_refuse(r, why, "a shown card's place in the hand (at) is missing");
        if (ok && rd->shown[seat][at - 1]) ok = table_refuse(r, why, "two shown cards at one place");
        if (ok) {
            r->enter_key(r, "bean");
            ok = rd->dealt[zone] >= 0 ? bean_take_card(bg, rd, r, &type, why)
                                      : (type = r->get_str(r) ? bean_type_index(bg, r->get_str(r)) : -1) >= 0 &&
                                            type == rd->cards[zone][at - 1];
            if (!ok && rd->dealt[zone] < 0) table_refuse(r, why, "the hand does not hold this bean there");
            r->leave(r);
        }
        if (ok && rd->dealt[zone] >= 0) {
            if (rd->fixed[seat][at - 1] != BEAN_NONE) ok = table_refuse(r, why, "two shown cards at one place");
            rd->fixed[seat][at - 1] = (uint8_t)type;
        }
        if (ok) rd->shown[seat][at - 1] = 1;
        r->leave(r);
    }
    r->leave(r);
    return ok;
}

static bool read_fields(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_table *g, int seat, reason *why) {
    tree_kind kind = r->enter_key(r, "fields");
    bool ok = true;
    if (kind == TREE_TABLE) {
        int n = r->length(r);
        if (n > g->fields[seat]) {
            char what[120];
            snprintf(what, sizeof what, "%d fields listed; this player has %d%s", n, g->fields[seat],
                     g->rules.third_field_cost && !g->third_field[seat] ? " (third_field = true for a bought one)" : "");
            ok = table_refuse(r, why, what);
        }
        for (int f = 0; ok && f < n; f++) {
            r->enter_index(r, f + 1);
            if (bg->read_field) ok = bg->read_field(bg, rd, r, g, seat, f, why);
            else if (r->kind(r) == TREE_TABLE) ok = bean_read_cards(bg, rd, r, BEAN_ZONE_FIELD(seat, f), why);
            else ok = table_refuse(r, why, "a field is a list of beans");
            r->leave(r);
        }
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a list of fields, each a list of beans");
    }
    r->leave(r);
    return ok;
}

static bool read_player(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_table *g, int seat, reason *why) {
    if (r->kind(r) != TREE_TABLE) return table_refuse(r, why, "each player is a table");
    const char *const *keys = bg->player_keys ? bg->player_keys : player_keys;
    bool bought = false;
    if (!table_check_keys(r, keys, why) || !table_read_bool(r, "third_field", &bought, why)) return false;
    if (bought) {
        if (!g->rules.third_field_cost && !bg->temporary_third_field)
            return table_refuse(r, why, "third_field: a third field cannot be bought in this game");
        if (g->fields[seat] >= BEAN_MAX_FIELDS) {
            char what[80];
            snprintf(what, sizeof what, "third_field: this player has %d fields already, the most there can be",
                     g->fields[seat]);
            return table_refuse(r, why, what);
        }
        g->third_field[seat] = true;
        g->fields[seat]++;
    }
    return read_zone(bg, rd, r, "hand", BEAN_ZONE_HAND(seat), true, why) &&
           (!bg->hand_knowledge || read_shown(bg, rd, r, seat, why)) && read_fields(bg, rd, r, g, seat, why) &&
           read_zone(bg, rd, r, "coins", BEAN_ZONE_COINS(seat), false, why) &&
           read_zone(bg, rd, r, "set_aside", BEAN_ZONE_SET_ASIDE(seat), false, why) &&
           (!bg->read_player_extra || bg->read_player_extra(bg, rd, r, g, seat, why));
}

/* How many players a table has (its `players` list), for the rules that depend on it. */
static int bean_table_players(tree_reader *r) {
    int n = r->enter_key(r, "players") == TREE_TABLE ? r->length(r) : 0;
    r->leave(r);
    return n;
}

bool bean_read_begin(const bean_game *bg, tree_reader *r, const param_value *params, uint64_t seed, bean_table *g,
                     reason *why) {
    int players = bean_table_players(r);
    if (players < BEAN_MIN_SEATS || players > BEAN_MAX_SEATS) {
        r->enter_key(r, "players");
        bool ok = table_refuse(r, why, "a list of the 3 to 5 players");
        r->leave(r);
        return ok;
    }
    bean_rules_from(bg, params, players, &g->rules);
    if (!bean_rules_check(&g->rules, players, why)) return false;
    g->players = (uint8_t)players;
    for (int p = 0; p < players; p++) g->fields[p] = g->rules.fields;
    rng_seed(&g->rng, seed, bg->rng_stream);
    return true;
}

static bool read_players(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_table *g, reason *why) {
    r->enter_key(r, "players");
    bool ok = true;
    for (int seat = 0; ok && seat < g->players; seat++) {
        r->enter_index(r, seat + 1);
        ok = read_player(bg, rd, r, g, seat, why);
        r->leave(r);
    }
    r->leave(r);
    return ok;
}

/* "hand 3 garden": the offered card's bean, as the hand lists it, or (a hand given as a number) put
 * there from what is left. */
static bool read_offered(const bean_game *bg, bean_reading *rd, tree_reader *r, int seat, int k, const char *name,
                         reason *why) {
    int type = bean_type_index(bg, name), zone = BEAN_ZONE_HAND(seat);
    if (type < 0) return table_refuse(r, why, "a hand item is 'hand K B': B is no bean of this game");
    if (rd->dealt[zone] < 0)
        return rd->cards[zone][k] == type || table_refuse(r, why, "the hand does not hold this bean there");
    if (rd->fixed[seat][k] != BEAN_NONE)
        return rd->fixed[seat][k] == type || table_refuse(r, why, "the hand's shown card there is another bean");
    if (rd->left[type] == 0) return table_refuse(r, why, "no card of this bean is left to be there");
    rd->left[type]--;
    rd->fixed[seat][k] = (uint8_t)type;
    return true;
}

/* "hand 3 garden" (or "hand 3") or "up blue": an item of a deal, checked against the hand or face-up cards read so far
 * (a hand given as a number holds that many cards). */
static bool read_item(const bean_game *bg, bean_reading *rd, tree_reader *r, int seat, const uint8_t *used, int n_used,
                      uint8_t *out, reason *why) {
    const char *text = r->get_str(r);
    int k, type, hand = rd->len[BEAN_ZONE_HAND(seat)] + (rd->dealt[BEAN_ZONE_HAND(seat)] > 0 ? rd->dealt[BEAN_ZONE_HAND(seat)] : 0);
    char name[32], extra;
    int words = text ? sscanf(text, "hand %d %31s%c", &k, name, &extra) : 0;
    if (words == 1 || words == 2) {
        if (k < 1 || k > hand || item_used(used, n_used, k - 1))
            return table_refuse(r, why, "the hand has no such card, or it is in the deal twice");
        *out = (uint8_t)(k - 1);
        rd->shown[seat][k - 1] = 1; /* an offered card is shown (ruling 11) */
        return words == 1 || read_offered(bg, rd, r, seat, k - 1, name, why);
    }
    if (text && sscanf(text, "up %31s%c", name, &extra) == 1 && (type = bean_type_index(bg, name)) >= 0) {
        for (int i = 0; i < rd->len[BEAN_ZONE_FACE_UP]; i++)
            if (rd->cards[BEAN_ZONE_FACE_UP][i] == type && !item_used(used, n_used, BEAN_ITEM_UP(i)))
                return *out = (uint8_t)BEAN_ITEM_UP(i), true;
        return table_refuse(r, why, "no such face-up card is left for this item");
    }
    return table_refuse(r, why, "an item is 'hand K B' (a card of the hand) or 'up B' (a face-up card)");
}

static bool read_give(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_deal *d, reason *why) {
    tree_kind kind = r->enter_key(r, "give");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "a list of items");
    int n = kind == TREE_TABLE ? r->length(r) : 0;
    if (ok && n > BEAN_MAX_CARDS) ok = table_refuse(r, why, "more items than cards");
    for (int i = 0; ok && i < n; i++) {
        r->enter_index(r, i + 1);
        ok = read_item(bg, rd, r, d->from, d->give, i, &d->give[i], why);
        r->leave(r);
    }
    d->n_give = ok ? (uint8_t)n : 0;
    r->leave(r);
    return ok;
}

static bool read_want(const bean_game *bg, tree_reader *r, bean_deal *d, reason *why) {
    tree_kind kind = r->enter_key(r, "want");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "a list of beans");
    int n = kind == TREE_TABLE ? r->length(r) : 0;
    if (ok && n > BEAN_MAX_CARDS) ok = table_refuse(r, why, "more wanted than there are cards");
    for (int i = 0; ok && i < n; i++) {
        r->enter_index(r, i + 1);
        const char *name = r->get_str(r);
        int type = name ? bean_type_index(bg, name) : -1;
        ok = type >= 0 || table_refuse(r, why, "not a bean of this game");
        d->want[i] = (uint8_t)type;
        r->leave(r);
    }
    d->n_want = ok ? (uint8_t)n : 0;
    r->leave(r);
    return ok;
}

static const char *const deal_keys[] = {"from", "to", "give", "want", "stage", "picked", "pick_from", NULL};

/* pick_from = {soy = 3} (write_pick_from), checked against the hand once it is dealt (validate). */
static bool read_pick_from(const bean_game *bg, tree_reader *r, bean_deal *d, reason *why) {
    tree_kind kind = r->enter_key(r, "pick_from");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "a table {bean = hand position}");
    const char *names[BEAN_MAX_TYPES + 1] = {NULL};
    for (int t = 0; t < bg->types; t++) names[t] = bg->kinds[t].name;
    if (ok && kind == TREE_TABLE) ok = table_check_keys(r, names, why);
    for (int t = 0; ok && kind == TREE_TABLE && t < bg->types; t++) {
        int at = -1;
        ok = table_read_int(r, bg->kinds[t].name, 0, BEAN_MAX_CARDS, &at, why);
        if (ok && at >= 0) d->pick_from[t] = at == 0 ? BEAN_DEAL_UP_ONLY : (uint8_t)(at - 1);
    }
    r->leave(r);
    return ok;
}

/* The open proposal or offer, its items checked against the hands and face-up cards. */
static bool read_deal(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_table *g, reason *why) {
    bean_deal *d = &g->deal;
    tree_kind kind = r->enter_key(r, "proposal");
    bool ok = true;
    if (kind == TREE_TABLE) {
        int from = 0, to = 0, stage = BEAN_DEAL_BUILD, picked = 0;
        ok = table_check_keys(r, deal_keys, why) && table_read_int(r, "from", 1, g->players, &from, why) &&
             table_read_int(r, "to", 1, g->players, &to, why) &&
             table_read_name(r, "stage", stage_names, 4, &stage, "the stage is build, answer or pick", why) &&
             table_read_int(r, "picked", 0, BEAN_MAX_CARDS, &picked, why);
        if (ok && (from == 0 || to == 0)) ok = table_refuse(r, why, "a proposal names from and to");
        if (ok && from == to) ok = table_refuse(r, why, "a proposal to oneself");
        if (ok && stage == BEAN_DEAL_NONE) ok = table_refuse(r, why, "the stage is build, answer or pick");
        d->stage = (uint8_t)stage;
        d->from = (uint8_t)(from - 1);
        d->to = (uint8_t)(to - 1);
        d->n_picks = (uint8_t)picked;
        ok = ok && read_want(bg, r, d, why) && read_give(bg, rd, r, d, why) && read_pick_from(bg, r, d, why);
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a proposal is a table {from, to, give, want, stage, picked}");
    }
    r->leave(r);
    return ok;
}

static const char *const table_keys[] = {
    "game", "phase", "turn", "active", "start", "to_move", "pass", "planted", "trade_steps", "last_pass_over",
    "face_up", "invited", "proposal", "players", "deck", "discard", NULL};

static bool read_scalars(const bean_game *bg, tree_reader *r, bean_table *g, int *to_move, reason *why) {
    int phase = BEAN_PLANT, turn = 1, active = 1, start = 1, pass = 1, planted = 0, steps = 0, invited = 0;
    bool over = false;
    bool ok = table_read_name(r, "phase", bg->phase_names, bg->num_phases, &phase, bg->phase_expect, why) &&
              table_read_int(r, "turn", 1, 60000, &turn, why) && table_read_int(r, "active", 1, g->players, &active, why) &&
              table_read_int(r, "start", 1, g->players, &start, why) &&
              table_read_int(r, "pass", 1, g->rules.passes, &pass, why) && table_read_int(r, "planted", 0, 2, &planted, why) &&
              table_read_int(r, "trade_steps", 0, g->rules.trade_limit, &steps, why) &&
              table_read_bool(r, "last_pass_over", &over, why) && table_read_int(r, "invited", 1, g->players, &invited, why) &&
              table_read_int(r, "to_move", 1, g->players, to_move, why);
    g->phase = (uint8_t)phase;
    g->turn = (uint16_t)turn;
    g->active = (uint8_t)(active - 1);
    g->start = (uint8_t)(start - 1);
    g->pass = (uint8_t)pass;
    g->planted = (uint8_t)planted;
    g->trade_steps = (uint8_t)steps;
    g->last_pass_over = over;
    g->invited = invited ? (uint8_t)(invited - 1) : BEAN_NOBODY;
    return ok;
}

/* Numbers become cards dealt (with the table's seed) from what no zone named; the deck takes the
 * rest unless it is named, and then the discard pile does, unless that is named too. */
static bool deal_rest(bean_reading *rd, bean_table *g, reason *why) {
    uint8_t pool[BEAN_MAX_CARDS];
    int n = 0;
    for (int t = 0; t < g->rules.types; t++)
        for (int c = 0; c < rd->left[t]; c++) pool[n++] = (uint8_t)t;
    rng_shuffle_bytes(&g->rng, pool, n);
    int wanted = 0;
    for (int z = 0; z < BEAN_ZONES; z++) wanted += rd->dealt[z] > 0 ? rd->dealt[z] : 0;
    for (int seat = 0; seat < g->players; seat++)
        for (int k = 0; k < BEAN_MAX_CARDS; k++) wanted -= rd->fixed[seat][k] != BEAN_NONE; /* named already */
    if (wanted > n) return deny(why, "the table asks for %d cards to be dealt, but only %d are left", wanted, n);
    for (int z = 0; z < BEAN_ZONES; z++)
        for (int c = 0; c < rd->dealt[z]; c++) {
            int seat = bean_is_hand_zone(z) ? (z - BEAN_ZONE_FIRST_SEAT) / BEAN_SEAT_ZONES : -1;
            bool fixed = seat >= 0 && rd->fixed[seat][c] != BEAN_NONE;
            rd->cards[z][rd->len[z]++] = fixed ? rd->fixed[seat][c] : pool[--n];
        }
    int rest = !rd->named[BEAN_ZONE_DECK] ? BEAN_ZONE_DECK : !rd->named[BEAN_ZONE_DISCARD] ? BEAN_ZONE_DISCARD : -1;
    if (n && rest < 0)
        return deny(why, "%d cards are placed nowhere (leave out the deck or the discard pile to have them put there)", n);
    while (n) rd->cards[rest][rd->len[rest]++] = pool[--n];
    return true;
}

/* The zones read, one after another, into the state's single array. */
static void assemble(const bean_reading *rd, bean_table *g) {
    int at = 0;
    for (int z = 0; z < BEAN_ZONES; z++) {
        memcpy(&g->card[at], rd->cards[z], (size_t)rd->len[z]);
        if (bean_is_hand_zone(z)) memcpy(&g->shown[at], rd->shown[(z - BEAN_ZONE_FIRST_SEAT) / BEAN_SEAT_ZONES], (size_t)rd->len[z]);
        at += rd->len[z];
        g->zone_bound[z + 1] = (uint8_t)at;
    }
}

/* Reads everything but the game's own extras; `g` holds the rules and the player count already. The
 * game settles the position and compares the table's to_move. */
bool bean_read_table(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_table *g, int *to_move, reason *why) {
    const char *const *keys = bg->table_keys ? bg->table_keys : table_keys;
    g->to_move = BEAN_NOBODY;
    bean_reading_init(rd, g);
    *to_move = 0;
    bool ok = table_check_keys(r, keys, why) && read_scalars(bg, r, g, to_move, why) && read_players(bg, rd, r, g, why) &&
              read_zone(bg, rd, r, "face_up", BEAN_ZONE_FACE_UP, false, why) && read_zone(bg, rd, r, "deck", BEAN_ZONE_DECK, true, why) &&
              read_zone(bg, rd, r, "discard", BEAN_ZONE_DISCARD, false, why) && read_deal(bg, rd, r, g, why) &&
              (!bg->read_extra || bg->read_extra(bg, rd, r, g, why)) && deal_rest(rd, g, why);
    if (!ok) return false;
    assemble(rd, g);
    bean_deal_refresh(g);
    return bean_redeal_unnamed(g, rd) ||
           deny(why, "the hands given as numbers cannot hold the cards the accepted proposal wants");
}

bool bean_read_end(const bean_game *bg, void *st, int to_move, bool (*validate)(const void *st, reason *why),
                   reason *why) {
    const bean_table *g = st;
    bg->settle(st);
    if (to_move && to_move - 1 != g->to_move)
        return deny(why, "to_move: player %d decides here, not player %d", g->to_move + 1, to_move);
    return validate(st, why);
}

static bool bean_redeal(bean_table *g, unsigned hands, int rest, rng *r); /* below, with sampling */

/* Hands dealt from numbers hold what everyone knows of them (cards an accepted deal wants): they are
 * dealt again with the other cards no zone named. */
bool bean_redeal_unnamed(bean_table *g, const bean_reading *rd) {
    unsigned dealt = 0;
    for (int seat = 0; seat < g->players; seat++)
        if (rd->dealt[BEAN_ZONE_HAND(seat)] > 0) dealt |= 1u << seat;
    bool random_deck = rd->dealt[BEAN_ZONE_DECK] >= 0 || !rd->named[BEAN_ZONE_DECK];
    int rest = random_deck ? BEAN_ZONE_DECK : !rd->named[BEAN_ZONE_DISCARD] ? BEAN_ZONE_DISCARD : -1;
    return !dealt || bean_redeal(g, dealt, rest, &g->rng);
}

/* ==================================================================== invariants */

static bool validate_rules(const bean_rules *r, int players, reason *why) {
    int cards = 0;
    if (r->types == 0 || r->types > BEAN_MAX_TYPES) return deny(why, "the bean types are damaged");
    for (int t = 0; t < r->types; t++) {
        cards += r->count[t];
        for (int k = 0; k < 4; k++)
            if (r->meter[t][k] > BEAN_MAX_CARDS) return deny(why, "a beanometer is damaged");
    }
    if (cards > BEAN_MAX_CARDS || cards < players) return deny(why, "the deck's size is damaged");
    if (r->fields < 1 || r->fields > BEAN_MAX_FIELDS || r->passes < 1 || r->tie_break > BEAN_TIE_NONE ||
        r->reveal > BEAN_MAX_FACE_UP / 2 || r->hand_start > 20 || r->draw > 20)
        return deny(why, "the rule parameters are out of range");
    if (!bean_rules_end(r, why)) return false;
    return true;
}

/* Every card once, in zones that fit, of the deck's composition. */
static bool validate_cards(const bean_table *g, reason *why) {
    int count[BEAN_MAX_TYPES] = {0}, prev = 0, total = 0;
    for (int t = 0; t < g->rules.types; t++) total += g->rules.count[t];
    if (g->zone_bound[0]) return deny(why, "the zones are damaged");
    for (int z = 0; z < BEAN_ZONES; z++) {
        if (bean_zone_end(g, z) < prev) return deny(why, "the zones are damaged");
        prev = bean_zone_end(g, z);
    }
    if (prev != total) return deny(why, "the game has %d cards; its zones hold %d", total, prev);
    for (int i = 0; i < total; i++) {
        if (g->card[i] >= g->rules.types) return deny(why, "a card is no bean of this game");
        count[g->card[i]]++;
    }
    for (int z = 0, i = 0; z < BEAN_ZONES; z++)
        for (; i < bean_zone_end(g, z); i++)
            if (g->shown[i] > 1 || (g->shown[i] && !bean_is_hand_zone(z))) return deny(why, "a shown card lies outside a hand");
    for (int i = total; i < BEAN_MAX_CARDS; i++)
        if (g->card[i] || g->shown[i]) return deny(why, "cards lie past the game's last card");
    for (int t = 0; t < g->rules.types; t++)
        if (count[t] != g->rules.count[t])
            return deny(why, "there are %d cards of bean type %d; the deck has %d", count[t], t + 1, g->rules.count[t]);
    for (int p = g->players; p < BEAN_MAX_SEATS; p++)
        for (int z = BEAN_ZONE_HAND(p); z <= BEAN_ZONE_FIELD(p, BEAN_MAX_FIELDS - 1); z++)
            if (bean_zone_len(g, z)) return deny(why, "cards lie at an empty seat");
    if (bean_zone_len(g, BEAN_ZONE_FACE_UP) > BEAN_MAX_FACE_UP) return deny(why, "too many face-up cards");
    uint8_t deck[BEAN_MAX_TYPES];
    count_deck(g, deck);
    if (memcmp(deck, g->deck_count, sizeof deck) != 0) return deny(why, "the count of the deck's beans is stale");
    return true;
}

/* A field holds one type, below which lie its enchanted cards (Rabohnzel); fields past a player's
 * count are empty. */
static bool validate_fields(const bean_table *g, int seat, reason *why) {
    if (g->fields[seat] < 1 || g->fields[seat] > BEAN_MAX_FIELDS) return deny(why, "player %d's field count is damaged", seat + 1);
    if (g->third_field[seat] && g->fields[seat] != g->rules.fields + 1) return deny(why, "player %d's third field is damaged", seat + 1);
    for (int f = 0; f < BEAN_MAX_FIELDS; f++) {
        int n = bean_field_size(g, seat, f), e = g->enchanted[seat][f];
        if (f >= g->fields[seat] && (n || e)) return deny(why, "player %d has cards on a field they do not have", seat + 1);
        if (e && e >= n) return deny(why, "player %d's field %d has no real bean above its enchanted one", seat + 1, f + 1);
        const uint8_t *c = bean_zone(g, BEAN_ZONE_FIELD(seat, f));
        for (int i = e + 1; i < n; i++)
            if (c[i] != c[e]) return deny(why, "player %d's field %d holds two types of bean", seat + 1, f + 1);
    }
    return true;
}

/* validate_deal compares a closed deal byte for byte: padding, which no assignment need keep zero,
 * would make a legal state fail it. */
_Static_assert(sizeof(bean_deal) == offsetof(bean_deal, up_given) + sizeof(uint16_t), "bean_deal has no padding");

/* The open deal: its parties, stage and items fit the hands and face-up cards. */
static bool validate_deal(const bean_table *g, reason *why) {
    const bean_deal *d = &g->deal;
    static const bean_deal closed; /* all zero, as close_deal leaves it: open_deal clears nothing */
    if (d->stage == BEAN_DEAL_NONE)
        return memcmp(d, &closed, sizeof closed) == 0 || deny(why, "a closed deal holds items");
    if (d->stage > BEAN_DEAL_PICK || d->from >= g->players || d->to >= g->players || d->from == d->to)
        return deny(why, "the proposal's players are damaged (a proposal to oneself?)");
    if (d->from != g->active && d->to != g->active) return deny(why, "every trade involves the active player");
    bool offer = d->from != g->active;
    if (offer != (g->invited == d->from)) return deny(why, "an offer comes from the invited player, a proposal from the active one");
    if (g->phase != BEAN_TRADE) return deny(why, "a proposal is open outside the trading phase");
    if (d->stage != BEAN_DEAL_BUILD && d->n_give + d->n_want == 0) return deny(why, "an empty proposal was sent");
    if (d->n_give > BEAN_MAX_CARDS || d->n_want > BEAN_MAX_CARDS) return deny(why, "the proposal lists more cards than the game has");
    if (d->n_picks > d->n_want || (d->n_picks && d->stage != BEAN_DEAL_PICK)) return deny(why, "the proposal's picks are damaged");
    for (int i = 0; i < d->n_want; i++)
        if (d->want[i] >= g->rules.types) return deny(why, "a wanted bean is damaged");
    for (int i = 0; i < d->n_give; i++) {
        int item = d->give[i];
        bool fits = BEAN_ITEM_IS_UP(item) ? !offer && BEAN_ITEM_UP_INDEX(item) < face_up_len(g) : item < bean_hand_len(g, d->from);
        if (!fits || item_used(d->give, i, item)) return deny(why, "a given card of the proposal is not there");
        /* an offered hand card is shown to all (ruling 11): a sample keeps it where it is */
        if (!BEAN_ITEM_IS_UP(item) && !g->shown[bean_zone_start(g, BEAN_ZONE_HAND(d->from)) + item])
            return deny(why, "a hand card given in the proposal is not shown (an offered card is shown to all)");
    }
    for (int t = 0; t < BEAN_MAX_TYPES; t++) {
        int from = d->pick_from[t];
        if (from && (d->stage != BEAN_DEAL_PICK || t >= g->rules.types || (from != BEAN_DEAL_UP_ONLY && from > bean_hand_len(g, d->to))))
            return deny(why, "the proposal's order of picks is damaged");
    }
    if (d->stage == BEAN_DEAL_PICK) {
        for (int t = 0; t < g->rules.types; t++)
            if (still_wanted(g, t) && !all_going_or_more(g, t))
                return deny(why, "player %d cannot supply what the accepted proposal wants", d->to + 1);
    }
    uint8_t room[BEAN_MAX_TYPES];
    uint64_t fronts[sizeof d->give_fronts / sizeof d->give_fronts[0]];
    count_give_fronts(g, fronts);
    if (count_up_given(d) != d->up_given) return deny(why, "the proposal's list of face-up cards given is stale");
    if (count_room(g, room) != d->room_beans || memcmp(room, d->room, sizeof room) != 0 ||
        memcmp(fronts, d->give_fronts, sizeof fronts) != 0)
        return deny(why, "the proposal's count of what may still be given or wanted is stale");
    return true;
}

/* Where the turn stands: counters in range, and who decides follows from the rest. */
static bool validate_flow(const bean_table *g, reason *why) {
    if (g->active >= g->players || g->start >= g->players) return deny(why, "the active or start player is damaged");
    if (g->pass < 1 || g->pass > g->rules.passes || g->planted > 2 || g->trade_steps > g->rules.trade_limit || g->turn < 1)
        return deny(why, "a counter of the turn is out of range");
    if (g->invited != BEAN_NOBODY && (g->invited >= g->players || g->invited == g->active || g->phase != BEAN_TRADE))
        return deny(why, "the invited player is damaged");
    if (g->last_pass_over && bean_zone_len(g, BEAN_ZONE_DECK)) return deny(why, "the last pass is over but the deck holds cards");
    bool plant = g->phase == BEAN_PLANT;
    if ((plant || g->phase == BEAN_OVER) && bean_zone_len(g, BEAN_ZONE_FACE_UP)) return deny(why, "face-up cards lie outside phases 2 and 3");
    for (int p = 0; p < g->players; p++)
        if ((plant || g->phase == BEAN_OVER) && bean_zone_len(g, BEAN_ZONE_SET_ASIDE(p)))
            return deny(why, "player %d has set-aside cards outside phases 2 and 3", p + 1);
    return true;
}

bool bean_validate(const bean_table *g, reason *why) {
    if (!bytes_are_bools(&g->rules.duplicate_fields, 1) || !bytes_are_bools(&g->last_pass_over, 1) ||
        !bytes_are_bools(&g->traded, 1) || !bytes_are_bools(g->third_field, sizeof g->third_field))
        return deny(why, "a yes-or-no field of the state is damaged");
    if (g->players < 1 || g->players > BEAN_MAX_SEATS) return deny(why, "the player count is damaged");
    if (!validate_rules(&g->rules, g->players, why) || !validate_cards(g, why)) return false;
    for (int p = 0; p < g->players; p++)
        if (!validate_fields(g, p, why)) return false;
    return validate_flow(g, why) && validate_deal(g, why);
}

/* The state settled again, in a copy of the game's size (state_size fits MEEPLE_MAX_STATE). */
static void settle_copy(const bean_game *bg, const void *st, void *copy) {
    memcpy(copy, st, bg->state_size);
    bg->settle(copy);
}

bool bean_settled_already(const bean_game *bg, const void *st) {
    _Alignas(max_align_t) unsigned char settled[MEEPLE_MAX_STATE];
    settle_copy(bg, st, settled);
    return memcmp(settled, st, bg->state_size) == 0;
}

bool bean_at_decision(const bean_game *bg, const void *st, reason *why) {
    _Alignas(max_align_t) unsigned char copy[MEEPLE_MAX_STATE];
    settle_copy(bg, st, copy);
    if (memcmp(copy, st, bg->state_size) == 0) return true;
    const bean_table *g = st;
    bean_table settled; /* the copy's own bean_table, read as one */
    memcpy(&settled, copy, sizeof settled);
    if (settled.to_move != g->to_move && settled.phase == g->phase && settled.turn == g->turn)
        return deny(why, "player %d decides here, not player %d", settled.to_move + 1, g->to_move + 1);
    return deny(why, "nobody has a decision to make in this position");
}

/* ==================================================================== sampling */



/* Cards everyone knows a hand holds, when it is being asked for a pick: the wanted cards not yet
 * handed over (less those the face-up cards can supply), one more of the type being picked (the
 * pick is a choice: not every card of it goes), and a card of another type to part two runs of it
 * when no face-up card makes the second choice. */
static void known_in_hand(const bean_table *g, int seat, int *need, int *other_than) {
    const bean_deal *d = &g->deal;
    memset(need, 0, sizeof(int) * BEAN_MAX_TYPES);
    *other_than = -1;
    if (d->stage != BEAN_DEAL_PICK || d->to != seat) return;
    for (int i = d->n_picks; i < d->n_want; i++) need[d->want[i]]++;
    int type = d->want[d->n_picks], up_choice = seat == g->active && free_face_up(g, type, NULL, 0) >= 0;
    need[type]++;
    if (seat == g->active)
        for (int t = 0; t < g->rules.types; t++) need[t] -= bean_count_in(g, BEAN_ZONE_FACE_UP, t);
    for (int t = 0; t < g->rules.types; t++)
        if (need[t] < 0) need[t] = 0;
    if (up_choice && need[type] < 1) need[type] = 1;
    int others = 0;
    for (int t = 0; t < g->rules.types; t++) others += t != type ? need[t] : 0;
    if (!up_choice && !others) *other_than = type; /* else another wanted card parts the runs */
}

/* The bean a pick is asked for now (or BEAN_NONE). */
static int picking_bean(const bean_table *g) { return g->deal.stage == BEAN_DEAL_PICK ? g->deal.want[g->deal.n_picks] : BEAN_NONE; }

static bool take_from_pool(uint8_t *pool, int *n, int type) {
    for (int i = 0; i < *n; i++)
        if (pool[i] == type) {
            pool[i] = pool[--*n];
            return true;
        }
    return false;
}

static bool asked_to_pick(const bean_table *g, int seat) { return g->deal.stage == BEAN_DEAL_PICK && g->deal.to == seat; }

/* Whether a card of `seat`'s hand lies where everyone has seen it (a sample's slow paths keep it). */
static bool any_shown(const bean_table *g, int seat) {
    int start = bean_zone_start(g, BEAN_ZONE_HAND(seat)), len = bean_hand_len(g, seat);
    for (int k = 0; k < len; k += 8) { /* eight flags a load, those past the hand (in the array) masked */
        uint64_t flags = load_le_upto8(g->shown + start + k, BEAN_MAX_CARDS - start - k);
        if (len - k < 8) flags &= (1ull << 8 * (len - k)) - 1;
        if (flags) return true;
    }
    return false;
}

/* The cards a hidden hand is known to hold, taken out of the pool before anything is dealt; false
 * when the pool lacks them. */
static bool reserve_known(const bean_table *g, int seat, uint8_t *pool, int *n, uint8_t *cards, int *m) {
    if (!asked_to_pick(g, seat)) { /* nothing is known of a hand not asked for a pick: its shown cards stay */
        *m = 0;
        return true;
    }
    int need[BEAN_MAX_TYPES], other_than, slots = 0;
    known_in_hand(g, seat, need, &other_than);
    const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(seat));
    int len = bean_hand_len(g, seat), type = picking_bean(g), behind = 0, shown_runs = 0; /* behind: hidden slots
                                                                                      * from the pick's place */
    int start = type != BEAN_NONE && g->deal.to == seat ? g->deal.pick_from[type] : 0;
    for (int k = 0; k < len; k++) {
        if (!bean_is_shown(g, seat, k)) {
            slots++;
            behind += k >= start;
            continue;
        }
        int from = g->deal.stage == BEAN_DEAL_PICK && g->deal.to == seat ? g->deal.pick_from[hand[k]] : 0;
        if (from != BEAN_DEAL_UP_ONLY && k >= from) /* a shown card stays where it is and counts, if it may still go */
            need[hand[k]] -= need[hand[k]] > 0;
        /* it makes a second choice itself (a shown copy of the bean picked), or may part two runs */
        if (start != BEAN_DEAL_UP_ONLY && k >= start && (hand[k] == type || (behind > 0 && k < len - 1))) other_than = -1;
        if (start != BEAN_DEAL_UP_ONLY && k >= start && hand[k] == type &&
            (k == start || !bean_is_shown(g, seat, k - 1) || hand[k - 1] != type))
            shown_runs++;
    }
    /* one run of shown copies is one choice: the pick asked shows a hidden copy makes the other */
    if (type != BEAN_NONE && g->deal.to == seat && shown_runs == 1 && !(seat == g->active && pick_up_ok(g, type)) &&
        need[type] < 1)
        need[type] = 1;
    *m = 0;
    for (int t = 0; t < g->rules.types; t++)
        for (int c = 0; c < need[t]; c++) {
            if (*m == slots || !take_from_pool(pool, n, t)) return false;
            cards[(*m)++] = (uint8_t)t;
        }
    if (other_than < 0) return true;
    for (int i = 0; i < *n && *m < slots; i++)
        if (pool[i] != other_than) {
            cards[(*m)++] = pool[i];
            pool[i] = pool[--*n];
            return true;
        }
    return false;
}

/* Picks go front to back (pick_from): a re-dealt hand must hold, behind each bean's place, the cards
 * of it still wanted (one more of the bean being picked, for a choice). Hidden cards of it in front
 * of that place trade places with other hidden cards behind it until it does, when it can. */
static void keep_pick_order(bean_table *g, int seat, rng *r) {
    const bean_deal *d = &g->deal;
    uint8_t *hand = g->card + bean_zone_start(g, BEAN_ZONE_HAND(seat));
    int len = bean_hand_len(g, seat);
    for (int t = 0; t < g->rules.types; t++) {
        int from = d->pick_from[t], need = still_wanted(g, t) + (t == d->want[d->n_picks]);
        if (!from || from == BEAN_DEAL_UP_ONLY || !still_wanted(g, t)) continue;
        for (int i = 0; i < from && hand_supply_from(g, t, from) + face_up_supply(g, t) < need; i++) {
            if (hand[i] != t || bean_is_shown(g, seat, i)) continue;
            int start = from + (int)rng_below(r, (uint32_t)(len - from));
            for (int j = 0; j < len - from; j++) {
                int k = from + (start - from + j) % (len - from);
                if (hand[k] == t || bean_is_shown(g, seat, k)) continue;
                hand[i] = hand[k];
                hand[k] = (uint8_t)t;
                break;
            }
        }
    }
}

/* A pick that is a choice only by hidden cards (a hidden copy behind shown ones, or a card parting two
 * runs): when shuffling the hand's cards keeps failing to make one, a dealt card that no known fact
 * reserved is traded with a pool card of the bean being picked (`copy`), or with one no deal wants. */
static void swap_in_wanted(const bean_table *g, uint8_t *cards, int reserved, int m, uint8_t *pool, int n, rng *r,
                           bool copy) {
    if (g->deal.stage != BEAN_DEAL_PICK || m <= reserved) return;
    int type = g->deal.want[g->deal.n_picks];
    for (int i = 0; i < n; i++)
        if (copy ? pool[i] == type : pool[i] != type && !still_wanted(g, pool[i])) {
            int k = reserved + (int)rng_below(r, (uint32_t)(m - reserved));
            uint8_t card = pool[i];
            pool[i] = cards[k];
            cards[k] = card;
            return;
        }
}

/* deal_hidden_hand for a hand not asked for a pick: its hidden places take the pool's last cards,
 * shuffled (in place when every place is hidden). */
static void deal_unasked_hand(bean_table *g, int seat, uint8_t *pool, int *n, rng *r) {
    uint8_t *hand = g->card + bean_zone_start(g, BEAN_ZONE_HAND(seat));
    const uint8_t *shown = g->shown + bean_zone_start(g, BEAN_ZONE_HAND(seat));
    int len = bean_hand_len(g, seat), slots = 0;
    if (!any_shown(g, seat)) {
        for (int k = 0; k < len; k++) hand[k] = pool[--*n];
        rng_shuffle_bytes(r, hand, len);
        return;
    }
    uint8_t order[BEAN_MAX_CARDS];
    for (int k = 0; k < len; k++)
        if (!shown[k]) order[slots++] = pool[--*n];
    rng_shuffle_bytes(r, order, slots);
    for (int k = 0, c = 0; k < len; k++)
        if (!shown[k]) hand[k] = order[c++];
}

/* Deals one hidden hand: its known cards and the rest from the pool, all in random places; positions
 * everyone knows stay. A pick asked of this hand must stay a choice: the cards are re-placed until
 * they give one (a few tries at most; the cards known to be there always can). */
static void deal_hidden_hand(bean_table *g, int seat, uint8_t *cards, int m, uint8_t *pool, int *n, rng *r) {
    if (!asked_to_pick(g, seat)) { /* nothing known (m is 0): the draws of the loop below, which stops at once */
        deal_unasked_hand(g, seat, pool, n, r);
        return;
    }
    int slots = 0, reserved = m;
    for (int k = 0; k < bean_hand_len(g, seat); k++) slots += !bean_is_shown(g, seat, k);
    while (m < slots) cards[m++] = pool[--*n];
    uint8_t *hand = g->card + bean_zone_start(g, BEAN_ZONE_HAND(seat));
    for (int attempt = 0; attempt < 200; attempt++) {
        if (attempt % 20 == 19) swap_in_wanted(g, cards, reserved, m, pool, *n, r, attempt % 40 == 19);
        uint8_t order[BEAN_MAX_CARDS];
        memcpy(order, cards, (size_t)m);
        rng_shuffle_bytes(r, order, m);
        for (int k = 0, c = 0; k < bean_hand_len(g, seat); k++)
            if (!bean_is_shown(g, seat, k)) hand[k] = order[c++];
        if (g->deal.stage == BEAN_DEAL_PICK && g->deal.to == seat) keep_pick_order(g, seat, r);
        if (g->deal.stage != BEAN_DEAL_PICK || g->deal.to != seat) break;
        action_t options[BEAN_MAX_CARDS + 1];
        if (pick_is_choice(g, options, pick_options(g, options))) break;
    }
}

/* The unknown cards of the hands in `hands` (a bit per seat), then those of zone `rest` and zone
 * `extra` (each, or -1): the pool a re-deal shuffles; its size. */
static int hidden_pool(const bean_table *g, unsigned hands, int rest, int extra, uint8_t *pool) {
    int n = 0;
    for (int seat = 0; seat < g->players; seat++) {
        const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(seat));
        if (!(hands >> seat & 1)) continue;
        if (!any_shown(g, seat)) {
            memcpy(pool + n, hand, (size_t)bean_hand_len(g, seat));
            n += bean_hand_len(g, seat);
            continue;
        }
        const uint8_t *shown = g->shown + bean_zone_start(g, BEAN_ZONE_HAND(seat));
        for (int k = 0, len = bean_hand_len(g, seat); k < len; k++)
            if (!shown[k]) pool[n++] = hand[k];
    }
    for (int z = 0; z < 2; z++) {
        int zone = z ? extra : rest;
        if (zone < 0) continue;
        memcpy(pool + n, bean_zone(g, zone), (size_t)bean_zone_len(g, zone));
        n += bean_zone_len(g, zone);
    }
    return n;
}

/* Deals the shuffled `pool` (hidden_pool's) back: the hands keep what everyone knows of them, `extra`
 * takes its cards next, `rest` what is left; false (nothing changed) when those cards cannot hold it. */
static bool deal_pool(bean_table *g, unsigned hands, int rest, int extra, uint8_t *pool, int n, rng *r) {
    uint8_t reserved[BEAN_MAX_SEATS][BEAN_MAX_CARDS];
    int m[BEAN_MAX_SEATS] = {0};
    for (int seat = 0; seat < g->players; seat++)
        if ((hands >> seat & 1) && !reserve_known(g, seat, pool, &n, reserved[seat], &m[seat])) return false;
    for (int seat = 0; seat < g->players; seat++)
        if (hands >> seat & 1) deal_hidden_hand(g, seat, reserved[seat], m[seat], pool, &n, r);
    if (extra >= 0) {
        n -= bean_zone_len(g, extra);
        memcpy(g->card + bean_zone_start(g, extra), pool + n, (size_t)bean_zone_len(g, extra));
    }
    if (rest >= 0) memcpy(g->card + bean_zone_start(g, rest), pool, (size_t)n); /* exactly the zone's size left */
    bean_deal_refresh(g);
    return true;
}

/* Deals again the unknown cards of the hands in `hands` (a bit per seat) and of zone `rest` (or -1),
 * keeping what everyone knows of the hands; false (nothing changed) when those cards cannot hold it. */
static bool bean_redeal(bean_table *g, unsigned hands, int rest, rng *r) {
    uint8_t pool[BEAN_MAX_CARDS];
    int n = hidden_pool(g, hands, rest, -1, pool);
    rng_shuffle_bytes(r, pool, n);
    return deal_pool(g, hands, rest, -1, pool, n, r);
}

/* count[v] cards of each value v, ascending, n (at most BEAN_MAX_CARDS) in all: written a value's run
 * eight bytes at a time. */
static void write_runs(uint8_t *cards, int n, const uint8_t *count) {
    uint8_t sorted[BEAN_MAX_CARDS + 8];
    for (int v = 0, i = 0; i < n && v < 256; v++) {
        uint64_t run = (uint64_t)v * 0x0101010101010101ull;
        int len = count[v] < n - i ? count[v] : n - i; /* counts that overstate n stop at it */
        for (int c = 0; c < len; c += 8) memcpy(sorted + i + c, &run, sizeof run);
        i += len;
    }
    memcpy(cards, sorted, (size_t)n);
}

/* hidden_pool's cards for a sample (the hands in `hands`, the deck, zone `extra` or -1), sorted: the
 * deck's counts are kept (deck_count, which bean_validate checks), the rest counted; their number, or
 * -1 when the deck's counts disagree with the deck. */
static int sorted_hidden_pool(const bean_table *g, unsigned hands, int extra, uint8_t *pool) {
    _Static_assert(BEAN_MAX_CARDS < 256, "a count fits a byte");
    uint8_t count[256] = {0};
    int n = 0;
    for (int t = 0; t < BEAN_MAX_TYPES; t++) count[t] = g->deck_count[t], n += g->deck_count[t];
    if (NEVER(n != bean_zone_len(g, BEAN_ZONE_DECK))) return -1;
    for (int seat = 0; seat < g->players; seat++) {
        if (!(hands >> seat & 1)) continue;
        const uint8_t *hand = bean_zone(g, BEAN_ZONE_HAND(seat)), *shown = g->shown + bean_zone_start(g, BEAN_ZONE_HAND(seat));
        for (int k = 0, len = bean_hand_len(g, seat); k < len; k++) count[hand[k]] += !shown[k], n += !shown[k];
    }
    for (int i = 0; extra >= 0 && i < bean_zone_len(g, extra); i++) count[bean_zone(g, extra)[i]]++, n++;
    if (NEVER(n > BEAN_MAX_CARDS)) return -1;
    write_runs(pool, n, count);
    return n;
}

/* What `viewer` cannot see — other hands (but what everyone knows of them: shown cards stay), the deck
 * and, when `pending_hidden`, the pending card — is dealt again. The pool is shuffled from its cards
 * sorted: from their true order, whoever knows the seed could undo the shuffle and read them. */
void bean_sample(bean_table *g, int viewer, bool pending_hidden, rng *r) {
    unsigned others = ((1u << g->players) - 1) & ~(1u << viewer);
    uint8_t pool[BEAN_MAX_CARDS];
    int extra = pending_hidden ? BEAN_ZONE_PENDING : -1;
    int n = sorted_hidden_pool(g, others, extra, pool);
    if (n >= 0) {
        rng_shuffle_bytes(r, pool, n);
    } else { /* a stale deck_count, which bean_validate refuses: the cards gathered where they lie */
        n = hidden_pool(g, others, BEAN_ZONE_DECK, extra, pool);
        rng_shuffle_multiset(r, pool, n);
    }
    deal_pool(g, others, BEAN_ZONE_DECK, extra, pool, n, r); /* the true deal shows the cards are there */
    uint64_t seed = (uint64_t)rng_next(r) << 32 | rng_next(r);
    rng_seed(&g->rng, seed, g->rng.inc >> 1); /* the sample's future is its own, on the game's stream */
}

/* ==================================================================== variants' primitives */

/* Zones by their path in the state table: deck, discard, face_up, players[N].hand (top = back),
 * players[N].coins, players[N].set_aside, players[N].fields[F]. */
static int bean_zone_of(const bean_table *g, const char *text, reason *why) {
    table_path path;
    int f;
    char close, extra;
    if (!table_path_parse(text, g->players, &path, why)) return -1;
    if (path.sub[0]) path.player = -2;
    if (path.player == -1) {
        if (strcmp(path.key, "deck") == 0) return BEAN_ZONE_DECK;
        if (strcmp(path.key, "discard") == 0) return BEAN_ZONE_DISCARD;
        if (strcmp(path.key, "face_up") == 0) return BEAN_ZONE_FACE_UP;
    } else if (path.player >= 0) {
        if (strcmp(path.key, "hand") == 0) return BEAN_ZONE_HAND(path.player);
        if (strcmp(path.key, "coins") == 0) return BEAN_ZONE_COINS(path.player);
        if (strcmp(path.key, "set_aside") == 0) return BEAN_ZONE_SET_ASIDE(path.player);
        if (sscanf(path.key, "fields[%d%c%c", &f, &close, &extra) == 2 && close == ']') {
            if (f >= 1 && f <= g->fields[path.player]) return BEAN_ZONE_FIELD(path.player, f - 1);
            deny(why, "'%.60s' is no zone: player %d has fields 1 to %d", text, path.player + 1, g->fields[path.player]);
            return -1;
        }
    }
    deny(why, "'%.60s' is no zone; zones: deck, discard, face_up, players[N].hand, players[N].coins, "
              "players[N].set_aside, players[N].fields[F]", text);
    return -1;
}

/* Moves cards one at a time (the named type's topmost card, or the top card) and keeps the result
 * only if it is a state the game can be in. */
bool bean_move_cards(const bean_game *bg, bean_table *g, const char *from, const char *to, const card_move *m,
                     bool (*validate)(const void *st, reason *why), reason *why) {
    bean_table before = *g;
    int src = bean_zone_of(g, from, why), dst = src < 0 ? -1 : bean_zone_of(g, to, why);
    int type = m->card ? bean_type_index(bg, m->card) : -1;
    bool ok = src >= 0 && dst >= 0;
    if (ok && m->card && type < 0) ok = deny(why, "'%.40s' is no bean of %s", m->card, bg->name);
    for (int i = 0; ok && i < (m->count > 0 ? m->count : 1); i++) {
        int at = bean_zone_len(g, src) - 1;
        while (at >= 0 && type >= 0 && bean_zone(g, src)[at] != type) at--;
        if (at < 0) ok = deny(why, type >= 0 ? "there is no %s there" : "the zone %s is empty", type >= 0 ? m->card : from);
        else bean_move(g, src, at, dst, m->to_bottom ? 0 : bean_zone_len(g, dst));
    }
    bean_deal_refresh(g);
    if (ok) ok = validate(g, why);
    if (!ok) *g = before;
    return ok;
}

/* ---- the catalogue ---- */

/* name -> {count, meter = {n1, n2, n3, n4}, german}: the deck and beanometers this game plays with
 * (0 in a meter: no such payout). Types not in the deck are listed with count 0. */
void bean_write_cards(const bean_game *bg, const void *st, tree_writer *w) {
    const bean_table *g = st;
    w->open_map(w);
    for (int t = 0; t < bg->types; t++) {
        w->key(w, bg->kinds[t].name);
        w->open_map(w);
        tw_key_str(w, "kind", "bean"); /* as Rabohnzel's beans: one shape for a bot reading either game */
        tw_key_num(w, "count", g->rules.count[t]);
        w->key(w, "meter");
        w->open_list(w);
        for (int k = 0; k < 4; k++) w->num(w, g->rules.meter[t][k]);
        w->close(w);
        tw_key_str(w, "german", bg->kinds[t].german);
        w->close(w);
    }
    w->close(w);
}

/* ==================================================================== playout policy (the bean core) */

/* A search playout's choice, as greedy_bohnanza plays (bots/lib/beans.lua): plant on the field the bean
 * joins (an empty one next), a second card only when it joins its kind, harvest a field that can pay no
 * more or, when a bean fits nowhere, the field paying most; buy a third field with 5 coins; and trade as
 * it does (below). Imagined players who trade at random give beans away for nothing, and ones who never
 * trade score half what the greedy bots do (200 games against three of them: Bohnanza 2.7 coins against
 * 5.7): either way a search judged its moves in a world unlike the one it plays in. Both bean games use
 * it; a kind of action a game adds is worth -1: left to chance among the others it ties with. */

/* The bean types among a zone's cards, a bit each. */
static unsigned beans_in(const bean_table *g, int zone) {
    const uint8_t *c = bean_zone(g, zone);
    unsigned beans = 0;
    for (int i = bean_zone_len(g, zone) - 1; i >= 0; i--) beans |= 1u << c[i];
    return beans;
}

/* Whether the card to plant now fits no field: then a field must be harvested first. In phase 3,
 * none of the beans to plant (set aside, and the active player's face-up ones) fits. A bean fits a
 * field of its kind or, wanting none, the lowest empty one (bean_fits). */
static bool planting_stuck(bean_policy *p) {
    const bean_table *g = p->g;
    int seat = g->to_move;
    if (g->phase != BEAN_PLANT && g->phase != BEAN_PLANT_TRADED) return false;
    if (p->seat != seat) bean_policy_fields(p, seat);
    if (g->phase == BEAN_PLANT) {
        if (!bean_hand_len(g, seat)) return false;
        unsigned front = bean_zone(g, BEAN_ZONE_HAND(seat))[0];
        return !p->empty && !(front < BEAN_MAX_TYPES && p->grows >> front & 1);
    }
    unsigned supply = beans_in(g, BEAN_ZONE_SET_ASIDE(seat)) | (seat == g->active ? beans_in(g, BEAN_ZONE_FACE_UP) : 0);
    supply &= (1u << g->rules.types) - 1;
    return !(supply & (p->empty ? ~0u : p->grows));
}

bool bean_policy_stuck_now(bean_policy *p) {
    p->stuck = planting_stuck(p);
    return p->stuck;
}

bool bean_pays_most(const bean_table *g, int type, int coins) {
    return coins > 0 && coins == bean_payout(g, type, 255);
}

int bean_worth_quarters(const bean_table *g, int seat, int type) {
    bool empty = false;
    for (int f = 0; f < g->fields[seat]; f++) {
        if (!bean_field_size(g, seat, f)) empty = true;
        else if (bean_field_type(g, seat, f) == type) return 8 + bean_field_size(g, seat, f);
    }
    return empty ? 2 : -6;
}

/* What bean_worth_quarters reads of a seat's fields, in one walk: the first field of a type counts,
 * as there. */
void bean_policy_fields(bean_policy *p, int seat) {
    const bean_table *g = p->g;
    p->seat = seat;
    p->empty = false;
    p->grows = 0;
    /* a seat's fields are consecutive zones: each one's start is the last one's end */
    const uint8_t *end = &g->zone_bound[BEAN_ZONE_FIELD(seat, 0) + 1]; /* each field's end */
    int start = end[-1];
    for (int f = 0; f < g->fields[seat]; f++) {
        int size = end[f] - start, enchanted = g->enchanted[seat][f];
        unsigned type = size > enchanted ? g->card[start + enchanted] : BEAN_NONE; /* bean_field_type */
        start = end[f];
        if (!size) p->empty = true;
        else if (type < BEAN_MAX_TYPES && !(p->grows >> type & 1)) {
            p->grows |= 1u << type;
            p->size[type] = (uint8_t)size;
        }
    }
}

/* ---- trading, as beans.lua's trading rules: worths from 1 to 400, each rule's above the next's ---- */

/* Building a deal: give away the face-up cards that hurt (the first type first), then up to two of
 * the first three hand cards that hurt (the frontmost first), want the one bean that grows a field
 * most, then send (else cancel). */
static int build_worth(bean_policy *p, action_t a) {
    const bean_deal *d = &p->g->deal;
    int seat = d->from, x = bean_act_x(a);
    switch (bean_act_kind(a)) {
    case BEAN_ACT_GIVE_UP: return bean_policy_hurts(p, seat, x) ? 400 - x : -1;
    case BEAN_ACT_GIVE:
        if (d->n_give >= 2 || x >= 3) return -1;
        return bean_policy_hurts(p, seat, bean_zone(p->g, BEAN_ZONE_HAND(seat))[x]) ? 300 - x : -1;
    case BEAN_ACT_WANT:
        return !d->n_want && bean_policy_grows(p, seat, x) ? 200 + BEAN_GROWS + p->size[x] : -1;
    case BEAN_ACT_SEND: return 100;
    case BEAN_ACT_CANCEL: return 50;
    default: return -1;
    }
}

/* What a deal's building actions are worth, worked out once a decision: what the builder's fields
 * want and dread as bits, one look each. */
typedef struct build_view {
    bean_policy *p;
    uint32_t hurts, wants;
    const uint8_t *hand;
    unsigned gives; /* hand positions a give may still be worth it from */
    int (*other)(void *ctx, action_t a);
    void *ctx;
} build_view;

ALWAYS_INLINED static inline build_view build_open(bean_policy *p, int (*other)(void *ctx, action_t a), void *ctx) {
    const bean_table *g = p->g;
    const bean_deal *d = &g->deal;
    int seat = d->from;
    if (p->seat != seat) bean_policy_fields(p, seat);
    return (build_view){.p = p, .hurts = p->empty ? 0 : ~p->grows, .wants = d->n_want ? 0 : p->grows,
                        .hand = bean_zone(g, BEAN_ZONE_HAND(seat)), .gives = d->n_give < 2 ? 3 : 0,
                        .other = other, .ctx = ctx};
}

ALWAYS_INLINED static inline int give_up_worth(const build_view *v, action_t a) {
    unsigned x = (unsigned)bean_act_x(a);
    return x < BEAN_MAX_TYPES ? (v->hurts >> x & 1 ? 400 - (int)x : -1) : build_worth(v->p, a);
}
ALWAYS_INLINED static inline int give_worth(const build_view *v, action_t a) {
    unsigned x = (unsigned)bean_act_x(a);
    return x >= v->gives                ? -1
           : v->hand[x] < BEAN_MAX_TYPES ? (v->hurts >> v->hand[x] & 1 ? 300 - (int)x : -1)
                                         : build_worth(v->p, a);
}
ALWAYS_INLINED static inline int want_worth(const build_view *v, action_t a) {
    unsigned x = (unsigned)bean_act_x(a);
    return x < BEAN_MAX_TYPES && v->wants >> x & 1 ? 200 + BEAN_GROWS + v->p->size[x] : -1;
}
ALWAYS_INLINED static inline int any_build_worth(const build_view *v, action_t a) {
    switch (bean_act_kind(a)) {
    case BEAN_ACT_GIVE_UP: return give_up_worth(v, a);
    case BEAN_ACT_GIVE: return give_worth(v, a);
    case BEAN_ACT_WANT: return want_worth(v, a);
    case BEAN_ACT_SEND: return 100;
    case BEAN_ACT_CANCEL: return 50;
    default: return v->other(v->ctx, a);
    }
}

/* One action's worth in a scan of a decision: into out[i] when a list is asked for, else weighed
 * against the best so far (a NULL `out` is a constant where this is inlined: no test is left). */
ALWAYS_INLINED static inline void build_visit(int *out, worth_pick *pick, rng *r, int i, int worth) {
    if (out) out[i] = worth;
    else worth_pick_next(pick, r, i, worth);
}

/* The builder's list comes in runs of a kind (give up, give, want: builder_legal's order), each run
 * weighed in a loop of its own that tests the kind once an action and switches on nothing; whatever
 * follows (send, cancel, a game's other actions), or a list in any other order, goes through the
 * switch. Every worth into `out`, or with `out` NULL the pick, with r's tie draws. */
ALWAYS_INLINED static inline int build_scan(bean_policy *p, const action_t *acts, int n, int *out, rng *r,
                                            int (*other)(void *ctx, action_t a), void *ctx) {
    build_view v = build_open(p, other, ctx);
    worth_pick pick = worth_pick_none();
    int i = 0;
    for (; i < n && bean_act_kind(acts[i]) == BEAN_ACT_GIVE_UP; i++) build_visit(out, &pick, r, i, give_up_worth(&v, acts[i]));
    for (; i < n && bean_act_kind(acts[i]) == BEAN_ACT_GIVE; i++) build_visit(out, &pick, r, i, give_worth(&v, acts[i]));
    for (; i < n && bean_act_kind(acts[i]) == BEAN_ACT_WANT; i++) build_visit(out, &pick, r, i, want_worth(&v, acts[i]));
    for (; i < n; i++) build_visit(out, &pick, r, i, any_build_worth(&v, acts[i]));
    return pick.best;
}

/* build_worth for a whole decision. */
void bean_build_worths(bean_policy *p, const action_t *acts, int n, int *out, int (*other)(void *ctx, action_t a),
                       void *ctx) {
    build_scan(p, acts, n, out, NULL, other, ctx);
}

/* bean_build_worths' choice, as playout_pick makes it: each action weighed against the best so far as
 * it is weighed (no list of worths written and read again). */
int bean_build_pick(bean_policy *p, const action_t *acts, int n, rng *r, int (*other)(void *ctx, action_t a),
                    void *ctx) {
    return build_scan(p, acts, n, NULL, r, other, ctx);
}

/* One action of bean_build_choose's walk; `i` counts the actions it visits. */
ALWAYS_INLINED static inline void choose_visit(worth_pick *pick, rng *r, int *i, action_t a, int worth, action_t *chosen) {
    worth_pick_next(pick, r, *i, worth);
    if (pick->best == *i) *chosen = a;
    (*i)++;
}

/* The number of set bits of `bits`: a loop, as the builder's masks hold few (a SWAR count cost more). */
static inline int few_bits(uint64_t bits) {
    int n = 0;
    for (; bits; bits &= bits - 1) n++;
    return n;
}

/* Where the builder's actions stand in bean_build_choose: the bits of those worth something (the
 * others are worth -1), and how many worth -1 come before the first worth something. */
typedef struct build_worthy {
    unsigned give_up, want;
    uint64_t give; /* of the first three hand places: only they can be worth giving */
    int leading;
} build_worthy;

/* build_worthy from the builder's bits, or false where one of them is not a bean (bean_validate
 * allows none in a deal; build_worth's slower rule would weigh it). */
ALWAYS_INLINED static inline bool build_worthy_of(const build_view *v, const builder_bits *b, build_worthy *w) {
    if (b->give_up >> BEAN_MAX_TYPES) return false;
    unsigned gives = 0;
    for (unsigned k = 0; k < v->gives; k++) {
        if (!(b->give[0] >> k & 1)) continue;
        if (v->hand[k] >= BEAN_MAX_TYPES) return false;
        gives |= (v->hurts >> v->hand[k] & 1u) << k;
    }
    *w = (build_worthy){.give_up = b->give_up & v->hurts, .give = gives, .want = b->want & v->wants};
    /* the -1s before the first worthy action: cancel (50) is worth something, always */
    if (w->give_up) w->leading = few_bits(b->give_up & ((w->give_up & -w->give_up) - 1));
    else {
        w->leading = few_bits(b->give_up);
        if (w->give) w->leading += few_bits(b->give[0] & ((w->give & -w->give) - 1));
        else {
            w->leading += few_bits(b->give[0]) + few_bits(b->give[1]) + few_bits(b->give[2]);
            w->leading += few_bits(b->want & ((w->want & -w->want) - 1)); /* all of them when none is worthy */
        }
    }
    return true;
}

/* bean_build_pick's choice with no list: the builder's actions weighed from their bits, in
 * builder_legal's order, then `tail` (what the game lists after them: its free actions), drawing
 * exactly as the host does on the whole list, a list of one action included (rng_below(1)). The -1s
 * before the first action worth something are all alike: as the host meets them, each ties the best
 * so far and draws, and which of them wins its draws does not matter, as the first action worth
 * something beats them; after it, a -1 draws nothing. So those draws are made without weighing
 * anything, and then only the actions worth something are weighed. A deal is built one card a
 * decision, some twenty actions each: writing them out and weighing them all was a third of a bean
 * playout. */
ALWAYS_INLINED static inline action_t build_choose(bean_policy *p, const action_t *tail, int n_tail, rng *r,
                                                   int (*other)(void *ctx, action_t a), void *ctx) {
    builder_bits b = builder_bits_of(p->g);
    action_t cancel = bean_action(BEAN_ACT_CANCEL, 0, 0, 0), chosen = cancel;
    /* A list of cancel alone, and a deal holding a card that is no bean (below), are for states legal
     * play does not reach (a deal opens only when something can go into it; bean_validate refuses
     * other cards): there the host's own way is taken, so that the function is whole. */
    if (!(b.give_up | b.want | b.give[0] | b.give[1] | b.give[2]) && !b.send && !n_tail) {
        rng_step_below(r, 1);
        return cancel;
    }
    build_view v = build_open(p, other, ctx);
    build_worthy w;
    if (!build_worthy_of(&v, &b, &w)) {
        action_t acts[MEEPLE_MAX_ACTIONS];
        int n = builder_legal(p->g, acts, 0);
        for (int t = 0; t < n_tail; t++) acts[n++] = tail[t];
        return acts[n > 1 ? bean_build_pick(p, acts, n, r, other, ctx) : (int)rng_step_below(r, 1)];
    }
    for (int ties = 2; ties <= w.leading; ties++) rng_step_below(r, (uint32_t)ties);
    worth_pick pick = w.leading ? (worth_pick){.best = 0, .best_worth = -1, .ties = (uint32_t)w.leading}
                                : worth_pick_none();
    int i = 1; /* index 0 stands for the leading -1s, if any */
    for (unsigned bits = w.give_up; bits; bits &= bits - 1) {
        action_t a = bean_action(BEAN_ACT_GIVE_UP, lowest_bit(bits), 0, 0);
        choose_visit(&pick, r, &i, a, give_up_worth(&v, a), &chosen);
    }
    for (uint64_t bits = w.give; bits; bits &= bits - 1) {
        action_t a = bean_action(BEAN_ACT_GIVE, lowest_bit64(bits), 0, 0);
        choose_visit(&pick, r, &i, a, give_worth(&v, a), &chosen);
    }
    for (unsigned bits = w.want; bits; bits &= bits - 1) {
        action_t a = bean_action(BEAN_ACT_WANT, lowest_bit(bits), 0, 0);
        choose_visit(&pick, r, &i, a, want_worth(&v, a), &chosen);
    }
    if (b.send) choose_visit(&pick, r, &i, bean_action(BEAN_ACT_SEND, 0, 0, 0), 100, &chosen);
    choose_visit(&pick, r, &i, cancel, 50, &chosen);
    for (int t = 0; t < n_tail; t++) choose_visit(&pick, r, &i, tail[t], any_build_worth(&v, tail[t]), &chosen);
    return chosen;
}

action_t bean_build_choose(bean_policy *p, const action_t *tail, int n_tail, rng *r,
                           int (*other)(void *ctx, action_t a), void *ctx) {
    return build_choose(p, tail, n_tail, r, other, ctx);
}

/* A deal's worth to its addressee, in quarters: each face-up card it gets by what it does to its
 * fields, a hand card (unseen) half a bean less; each wanted bean its worth to the fields, and one
 * bean more for every copy of its type wanted before it. */
static int deal_value4(bean_policy *p) {
    const bean_table *g = p->g;
    const bean_deal *d = &g->deal;
    int seat = d->to, value = 0, given[BEAN_MAX_TYPES] = {0};
    const uint8_t *up = bean_zone(g, BEAN_ZONE_FACE_UP);
    for (int i = 0; i < d->n_give; i++)
        value += BEAN_ITEM_IS_UP(d->give[i]) ? bean_policy_quarters(p, seat, up[BEAN_ITEM_UP_INDEX(d->give[i])]) : -2;
    for (int i = 0; i < d->n_want; i++) {
        int t = d->want[i], w = bean_policy_quarters(p, seat, t);
        value -= (w > 0 ? w : 0) + 4 * given[t]++;
    }
    return value;
}

/* Whether a face-up card hurts the mover's fields. */
static bool face_up_hurts(bean_policy *p, int seat) {
    if (p->hurts < 0) {
        const bean_table *g = p->g;
        const uint8_t *up = bean_zone(g, BEAN_ZONE_FACE_UP);
        bool hurts = false;
        for (int i = 0; i < face_up_len(g) && !hurts; i++) hurts = bean_policy_hurts(p, seat, up[i]);
        p->hurts = hurts;
    }
    return p->hurts;
}

/* The active player's main decision: while a face-up card hurts, one proposal to each other player in
 * turn (the next one clockwise for each step taken), then done; an invited player offers when the
 * front hand card hurts. */
static int trade_main_worth(bean_policy *p, action_t a) {
    const bean_table *g = p->g;
    int seat = g->to_move;
    switch (bean_act_kind(a)) {
    case BEAN_ACT_PROPOSE: return bean_policy_proposes_to(g, bean_act_x(a)) && face_up_hurts(p, seat) ? 100 : -1;
    case BEAN_ACT_OFFER:
        return bean_hand_len(g, seat) && bean_policy_hurts(p, seat, bean_zone(g, BEAN_ZONE_HAND(seat))[0]) ? 100 : -1;
    case BEAN_ACT_DONE: case BEAN_ACT_PASS: return 50;
    default: return -1;
    }
}

/* Out of line: trading other than a deal's building lists few actions a decision. */
NOT_INLINED static int trade_worth(bean_policy *p, action_t a) {
    switch (p->g->deal.stage) {
    case BEAN_DEAL_BUILD: return build_worth(p, a);
    case BEAN_DEAL_ANSWER:
        if (bean_act_kind(a) == BEAN_ACT_ACCEPT) return deal_value4(p) > 0 ? 100 : -1;
        return bean_act_kind(a) == BEAN_ACT_REJECT ? 50 : -1;
    case BEAN_DEAL_PICK: /* the frontmost card first, a face-up one last */
        return bean_act_kind(a) == BEAN_ACT_PICK ? 200 - bean_act_x(a) : bean_act_kind(a) == BEAN_ACT_PICK_UP ? 1 : -1;
    }
    return trade_main_worth(p, a);
}

int bean_policy_trade_worth(bean_policy *p, action_t a) { return trade_worth(p, a); }

/* A harvest's worth as a call, for policy_worth_as' out-of-line uses (Rabohnzel's). */
NOT_INLINED static int harvest_worth_apart(bean_policy *p, int seat, int field) {
    return bean_policy_harvest_worth_inline(p, seat, field);
}

/* Inline into the loops over a decision's actions: plantings and harvests are most of the rest. */
ALWAYS_INLINED static inline int policy_worth_as(bean_policy *p, action_t a, bool harvest_inline) {
    const bean_table *g = p->g;
    int seat = g->to_move, kind = bean_act_kind(a);
    switch (kind) {
    case BEAN_ACT_HARVEST:
        return harvest_inline ? bean_policy_harvest_worth_inline(p, seat, bean_act_x(a))
                              : harvest_worth_apart(p, seat, bean_act_x(a));
    case BEAN_ACT_BUY: return bean_coins(g, seat) >= 5 ? 650 : -1;
    case BEAN_ACT_PLANT: return bean_policy_plant_worth(g, seat, bean_act_x(a));
    case BEAN_ACT_PLANT_TYPE: return bean_policy_plant_worth(g, seat, bean_act_y(a));
    }
    if (g->phase == BEAN_TRADE && kind < BEAN_ACTS) return trade_worth(p, a);
    return kind == BEAN_ACT_DONE ? 450 : -1;
}

ALWAYS_INLINED static inline int policy_worth(bean_policy *p, action_t a) { return policy_worth_as(p, a, true); }

/* Rabohnzel's call: a harvest out of line here (Rabohnzel weighs its own) leaves the rest the small
 * frame they need. */
int bean_policy_worth(bean_policy *p, action_t a) { return policy_worth_as(p, a, false); }

int bean_playout_worth(const void *st, action_t a, rng *r) {
    (void)r; /* no draw of its own: the host breaks ties at random */
    bean_policy p;
    bean_policy_open(&p, st);
    return policy_worth(&p, a);
}

static int other_worth(void *p, action_t a) { return policy_worth(p, a); }

void bean_playout_worths(const void *st, const action_t *acts, int n, int *out) {
    bean_policy p;
    bean_policy_open(&p, st);
    if (p.building) bean_build_worths(&p, acts, n, out, other_worth, &p);
    else
        for (int i = 0; i < n; i++) out[i] = policy_worth(&p, acts[i]);
}

action_t bean_playout_build(const bean_table *g, const action_t *tail, int n_tail, rng *r) {
    bean_policy p;
    bean_policy_open(&p, g);
    return build_choose(&p, tail, n_tail, r, other_worth, &p); /* the bean policy's worths inline */
}

int bean_playout_pick(const void *st, const action_t *acts, int n, rng *r) {
    bean_policy p;
    bean_policy_open(&p, st);
    if (p.building) return bean_build_pick(&p, acts, n, r, other_worth, &p);
    worth_pick pick = worth_pick_first(policy_worth(&p, acts[0]));
    for (int i = 1; i < n; i++) worth_pick_next(&pick, r, i, policy_worth(&p, acts[i]));
    return pick.best;
}

