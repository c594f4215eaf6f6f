/* test_seating.c — the seating designs keep their promises, checked exhaustively for every player count:
 * each game's seating is a permutation of the bots; in a block of rotate, balanced and permute every bot
 * sits in every seat equally often; in balanced every ordered pair of bots is left neighbours (seat s and
 * s+1, the last seat next to the first) equally often, in a block of P(P-1) games; permute plays every
 * order once; random draws its order from the game's seed alone. */
#include <string.h>

#include "check.h"
#include "host/seating.h"

static void seats_of(seating_design d, int players, long long game, uint64_t seed, int *bots) {
    seating_of_game(d, players, game, seed, bots);
    int seen[MEEPLE_MAX_PLAYERS] = {0};
    for (int s = 0; s < players; s++) {
        CHECK(bots[s] >= 0 && bots[s] < players, "%s, %d players, game %lld: seat %d holds bot %d",
              seating_name(d), players, game, s, bots[s]);
        seen[bots[s]]++;
    }
    for (int b = 0; b < players; b++)
        CHECK(seen[b] == 1, "%s, %d players, game %lld: bot %d sits %d times", seating_name(d), players, game, b,
              seen[b]);
}

/* Every bot in every seat block/players times, in each of the first three blocks. */
static void every_bot_sits_in_every_seat_equally_often(seating_design d, int players) {
    long long block = seating_block(d, players);
    for (long long first = 0; first < 3 * block; first += block) {
        int count[MEEPLE_MAX_PLAYERS][MEEPLE_MAX_PLAYERS] = {{0}}, bots[MEEPLE_MAX_PLAYERS];
        for (long long g = first; g < first + block; g++) {
            seats_of(d, players, g, 99, bots);
            for (int s = 0; s < players; s++) count[s][bots[s]]++;
        }
        for (int s = 0; s < players; s++)
            for (int b = 0; b < players; b++)
                CHECK(count[s][b] * players == block, "%s, %d players: bot %d sits in seat %d %d times of %lld",
                      seating_name(d), players, b, s + 1, count[s][b], block);
    }
}

static void balanced_pairs_every_ordered_pair_as_left_neighbours_equally_often(int players) {
    long long block = seating_block(SEATING_BALANCED, players);
    CHECK(block == (long long)players * (players - 1), "%d players: a balanced block of %lld games", players, block);
    int count[MEEPLE_MAX_PLAYERS][MEEPLE_MAX_PLAYERS] = {{0}}, bots[MEEPLE_MAX_PLAYERS];
    for (long long g = 0; g < block; g++) {
        seats_of(SEATING_BALANCED, players, g, 5, bots);
        for (int s = 0; s < players; s++) count[bots[s]][bots[(s + 1) % players]]++;
    }
    for (int a = 0; a < players; a++)
        for (int b = 0; b < players; b++)
            if (a != b)
                CHECK(count[a][b] == players, "%d players: bot %d sits left of bot %d %d times, want %d", players,
                      a, b, count[a][b], players);
}

static void permute_plays_every_order_once(int players) {
    long long block = seating_block(SEATING_PERMUTE, players);
    int bots[MEEPLE_MAX_PLAYERS] = {0}, orders[120][MEEPLE_MAX_PLAYERS];
    CHECK(block <= 120, "%d players: %lld orders", players, block);
    for (long long g = 0; g < block; g++) {
        seats_of(SEATING_PERMUTE, players, g, 1, bots);
        memcpy(orders[g], bots, sizeof bots);
        for (long long h = 0; h < g; h++)
            CHECK(memcmp(orders[h], bots, sizeof bots) != 0, "%d players: games %lld and %lld seat alike", players,
                  h, g);
    }
}

static void permute_refuses_six_players_or_more(void) {
    for (int players = 6; players <= MEEPLE_MAX_PLAYERS; players++)
        CHECK(seating_block(SEATING_PERMUTE, players) == 0, "permute seats %d players", players);
}

static void random_order_follows_the_game_seed_alone(void) {
    int a[MEEPLE_MAX_PLAYERS] = {0}, b[MEEPLE_MAX_PLAYERS] = {0}, first[MEEPLE_MAX_PLAYERS] = {0};
    seats_of(SEATING_RANDOM, 5, 3, 1234, a);
    seats_of(SEATING_RANDOM, 5, 77, 1234, b);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s", "the same seed seats differently");
    for (uint64_t seed = 0; seed < 5000; seed++) {
        seats_of(SEATING_RANDOM, 5, 0, seed, a);
        first[a[0]]++;
    }
    for (int k = 0; k < 5; k++) CHECK(first[k] > 850 && first[k] < 1150, "bot %d in seat 1 %d times of 5000", k, first[k]);
}

static void names_parse_back(void) {
    for (int i = 0; i < 4; i++) {
        seating_design d;
        CHECK(seating_parse(seating_name((seating_design)i), &d) && d == (seating_design)i, "design %d", i);
    }
    seating_design d;
    CHECK(!seating_parse("balance", &d), "%s", "'balance' parsed");
}

int main(void) {
    for (int players = 2; players <= MEEPLE_MAX_PLAYERS; players++) {
        every_bot_sits_in_every_seat_equally_often(SEATING_ROTATE, players);
        every_bot_sits_in_every_seat_equally_often(SEATING_BALANCED, players);
        balanced_pairs_every_ordered_pair_as_left_neighbours_equally_often(players);
        if (players <= SEATING_PERMUTE_MAX) {
            every_bot_sits_in_every_seat_equally_often(SEATING_PERMUTE, players);
            permute_plays_every_order_once(players);
        }
    }
    permute_refuses_six_players_or_more();
    random_order_follows_the_game_seed_alone();
    names_parse_back();
    return 0;
}
