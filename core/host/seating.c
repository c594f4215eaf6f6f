/* seating.c — the seating designs. The balanced one: a block of P(P-1) seatings in which every bot sits
 * in every seat P-1 times and every ordered pair of bots is left neighbours (seat s, seat s+1, seat P
 * next to seat 1) P times; it is the smallest block that can do both, since seats need a multiple of P
 * seatings and the P(P-1) ordered pairs need a multiple of P-1. For a prime P, seating (d, r) puts bot
 * r + s*d (mod P) in seat s: neighbours differ by d, so the P-1 steps d each give every pair its turn.
 * For 4, 6 and 8 players no such formula exists (the complete directed graph on 4 or 6 vertices has no
 * decomposition into directed Hamiltonian cycles, Tillson 1980); the tables below were found by a search
 * and are checked seat by seat and pair by pair in tests/test_seating.c. */
#include "host/seating.h"

#include <string.h>

#include <meeple/rng.h>

/* Seat s holds bot row[s] - '0'; the bots are numbered so that a block's first game seats them in the
 * command line's order, as every design but random does. 4: found by annealing. 6: two base cycles over Z5 plus a fixed point,
 * developed mod 5 (every arc twice), each cycle at three rotations of one parity. 8: seven arc-disjoint
 * directed Hamiltonian cycles, each at its eight rotations. */
static const char *const balanced4[] = {
    "0123", "0312", "0213", "1032", "1023", "1320", "3102", "3201", "3210", "2031", "2130", "2301",
};
static const char *const balanced6[] = {
    "012345", "234501", "450123", "134205", "420513", "051342", "320415", "041532",
    "153204", "241035", "103524", "352410", "403125", "312540", "254031", "502431",
    "243150", "315024", "514023", "402351", "235140", "530142", "014253", "425301",
    "521304", "130452", "045213", "543210", "321054", "105432",
};
static const char *const balanced8[] = {
    "01234567", "12345670", "23456701", "34567012", "45670123", "56701234", "67012345", "70123456",
    "03157246", "31572460", "15724603", "57246031", "72460315", "24603157", "46031572", "60315724",
    "07321654", "73216540", "32165407", "21654073", "16540732", "65407321", "54073216", "40732165",
    "05264713", "52647130", "26471305", "64713052", "47130526", "71305264", "13052647", "30526471",
    "04175362", "41753620", "17536204", "75362041", "53620417", "36204175", "62041753", "20417536",
    "06374251", "63742510", "37425106", "74251063", "42510637", "25106374", "51063742", "10637425",
    "02761435", "27614350", "76143502", "61435027", "14350276", "43502761", "35027614", "50276143",
};

static const char *const names[] = {"rotate", "balanced", "permute", "random"};

const char *seating_name(seating_design d) { return names[d]; }

bool seating_parse(const char *name, seating_design *d) {
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0) return *d = (seating_design)i, true;
    return false;
}

static long long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

long long seating_block(seating_design d, int players) {
    if (players < 1 || players > MEEPLE_MAX_PLAYERS) return 0;
    switch (d) {
    case SEATING_ROTATE: return players;
    case SEATING_BALANCED: return players == 1 ? 1 : (long long)players * (players - 1);
    case SEATING_PERMUTE: return players <= SEATING_PERMUTE_MAX ? factorial(players) : 0;
    case SEATING_RANDOM: return 1;
    }
    return 0;
}

static void from_row(const char *row, int players, int *bots) {
    for (int s = 0; s < players; s++) bots[s] = row[s] - '0';
}

static void balanced(int players, long long k, int *bots) {
    if (players == 4) return from_row(balanced4[k], players, bots);
    if (players == 6) return from_row(balanced6[k], players, bots);
    if (players == 8) return from_row(balanced8[k], players, bots);
    long long step = 1 + k / players, first = k % players; /* players is prime: 1, 2, 3, 5, 7 */
    for (int s = 0; s < players; s++) bots[s] = (int)((first + s * step) % players);
}

/* The k-th permutation in lexicographic order (k < players!). */
static void permutation(int players, long long k, int *bots) {
    int left[MEEPLE_MAX_PLAYERS];
    for (int i = 0; i < players; i++) left[i] = i;
    for (int s = 0, n = players; s < players; s++, n--) {
        long long f = factorial(n - 1);
        int pick = (int)(k / f);
        k %= f;
        bots[s] = left[pick];
        memmove(&left[pick], &left[pick + 1], sizeof *left * (size_t)(n - 1 - pick));
    }
}

/* A purpose for rng_derive that no other seed of a game uses. */
#define SEATING_RANDOM_PURPOSE 0x5ea7ab1eULL

void seating_of_game(seating_design d, int players, long long game, uint64_t game_seed, int bots[MEEPLE_MAX_PLAYERS]) {
    long long k = game % seating_block(d, players);
    if (d == SEATING_ROTATE) {
        for (int s = 0; s < players; s++) bots[s] = (int)((s + k) % players);
    } else if (d == SEATING_BALANCED) {
        balanced(players, k, bots);
    } else if (d == SEATING_PERMUTE) {
        permutation(players, k, bots);
    } else {
        uint8_t order[MEEPLE_MAX_PLAYERS];
        rng r;
        rng_seed(&r, rng_derive(game_seed, SEATING_RANDOM_PURPOSE), 0);
        for (int s = 0; s < players; s++) order[s] = (uint8_t)s;
        rng_shuffle_bytes(&r, order, players);
        for (int s = 0; s < players; s++) bots[s] = order[s];
    }
}
