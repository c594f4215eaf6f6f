/* search.h — information-set Monte Carlo tree search in C ("single-observer" ISMCTS, Cowling, Powley &
 * Whitehouse 2012), the engine under Lua's meeple.search. bots/lib/ismcts.lua is the same algorithm
 * written in Lua, the readable reference: for the same deals and draws both choose alike.
 *
 * One iteration: a deal (hooks.deal: a determinization consistent with what the searching seat sees),
 * a walk down the tree by UCB1 among the actions this deal offers (each child counting how often it
 * was on offer, its "availability"), one new node, playouts in C (state_playout) and the rewards
 * backed up, each node crediting the seat that chose its action. Nodes are keyed by the action's text
 * (game.h text_key): what a player sees of an action is the same in every deal.
 *
 * The order of random draws, from `draws` (a bot's ctx.rng), is the reference's: per iteration, the
 * deal (the hook's own generator), then at the new node one draw (1..0x7fffffff: s:ranked's seed, for
 * `expand_policy` or `widen`; else 1..untried: which untried action, in the legal order), then one
 * draw (1..0x7fffffff) per playout, its seed. Ties go to the first in the legal order (selection) and
 * to the first child made (the choice).
 *
 * The engine allocates only through hooks.alloc, into the tree it is given, and a hook may longjmp
 * (a Lua error): everything stays reachable from the tree, which search_free releases. */
#ifndef MEEPLE_SEARCH_H
#define MEEPLE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meeple/game.h>

/* A playout still running after this many decisions is judged by the score lead (the reference's
 * PLAYOUT_CAP: ten times the longest game seen). */
#define SEARCH_PLAYOUT_CAP 20000
#define SEARCH_MAX_PLAYOUTS 64

typedef struct search_config {
    double c;              /* UCB1 exploration constant */
    int playout_depth;     /* decisions played after the tree; negative: SEARCH_PLAYOUT_CAP */
    double greedy;         /* share of playout decisions by the game's playout policy */
    double margin;         /* share of a finished game's reward that is the score lead's */
    double scale;          /* a score lead this big is worth about 0.76 of a win */
    int playouts;          /* 1..SEARCH_MAX_PLAYOUTS, their rewards averaged */
    bool expand_policy;    /* a new node tries the playout policy's favourite first */
    double widen;          /* progressive widening: at most ceil(widen * sqrt(visits)) children; 0: off */
    long long iterations;  /* iterations to run; 0: until hooks.stop says */
    /* On timing.h's clock: a playout still running then is abandoned (read every
     * SEARCH_CLOCK_DECISIONS of its decisions) and the search ends, its iteration not counted
     * (search_tree.abandoned); 0: never. A bot's clock runs on while C plays, and one playout of a
     * game nobody can end is 20,000 decisions. */
    double abandon_at;
} search_config;

#define SEARCH_CLOCK_DECISIONS 256

typedef struct search_hooks {
    void *ud;
    /* A determinization into `st` (def->state_size bytes). */
    void (*deal)(void *ud, void *st);
    /* After iteration `done`, at `now_ms` (timing.h's clock, read as the playouts ended): true to stop
     * (time is up). Called after every iteration, also when the iterations are counted (a caller
     * checks its limits there; it may longjmp). */
    bool (*stop)(void *ud, long long done, double now_ms);
    /* Optional: rewards for every seat (0-based, `players` of them) of a position a playout left
     * unfinished; false leaves them to the score lead. */
    bool (*evaluate)(void *ud, const void *st, double *rewards);
    /* Optional: a weight for each of acts[0..n) (the higher, the sooner a new node tries it), in
     * place of s:ranked's order. */
    void (*prior)(void *ud, const void *st, const action_t *acts, int n, double *weights);
    /* lua_Alloc's contract; NULL when refused. */
    void *(*alloc)(void *ud, void *ptr, size_t osize, size_t nsize);
    /* Called when alloc refuses: does not return (it longjmps). */
    void (*out_of_memory)(void *ud);
} search_hooks;

typedef struct search_node {
    double wins;            /* rewards of `player` summed over the visits */
    uint32_t key;           /* the text key of the action that led here */
    uint32_t visits, avail; /* times walked through; times on offer where its parent was walked */
    int32_t parent, first_child, last_child, next_sibling, children;
    int32_t player;         /* 0-based seat that chose the action; -1 at the root */
} search_node;

typedef struct search_tree {
    const game_def *def;
    int players;
    search_config cfg;
    search_hooks hooks;
    rng *draws;

    search_node *nodes;
    int32_t count, cap;
    /* The children of the node being walked, by key: stamped slots, so no clearing between steps. */
    uint32_t *slot_key, *slot_stamp;
    int32_t *slot_node;
    uint32_t slots, stamp;
    /* The root's children's texts, in the order they were made. */
    char (*root_text)[MEEPLE_ACTION_TEXT];
    int32_t root_text_cap;
    unsigned char *st, *spare; /* the deal walked; a copy played out when playouts > 1 */

    /* What the last search_run did. */
    long long iterations, decisions; /* decisions: played in playouts */
    double playout_ms, total_ms; /* playout_ms: their decisions only (not the scoring of their ends) */
    double now; /* the clock as the last playouts ended */
    bool abandoned; /* the last run ended at cfg.abandon_at, in a playout */
} search_tree;

/* Sets the tree up (no allocation); `draws` must outlive the search. */
void search_init(search_tree *t, const game_def *def, int players, const search_config *cfg,
                 const search_hooks *hooks, rng *draws);
/* Runs the iterations. Returns the root child to play (the most visited; ties to the first made), or
 * -1 when the root offered no action. */
int32_t search_run(search_tree *t);
/* Frees what the tree holds (safe after a longjmp out of search_run, and twice). */
void search_free(search_tree *t);

/* The rewards of the finished or cut-short position `st` for its `players` seats, as the search scores
 * an iteration's end (the reference's ismcts.rewards). */
void search_rewards(const game_def *def, const void *st, int players, double margin, double scale, double *r);

#endif
