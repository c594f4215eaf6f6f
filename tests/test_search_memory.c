/* test_search_memory.c — the search's memory accounting holds whichever allocation is refused: every
 * byte the tree was given is handed back with the size it was given at, so a bot's memory cap (which
 * counts by those sizes) never drifts. Each run refuses its k-th allocation, for every k a search makes. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host/playout.h"
#include "host/search.h"
#include <meeple/registry.h>
#include <meeple/session.h>

typedef struct ledger {
    const session *s;
    long long held;   /* bytes given minus bytes handed back, by the sizes the tree says */
    int calls, refuse; /* refuse the refuse-th growth (0: none) */
    uint64_t deals;
    jmp_buf out;
} ledger;

static void *counted(void *ud, void *ptr, size_t osize, size_t nsize) {
    ledger *l = ud;
    if (nsize == 0) {
        l->held -= (long long)osize;
        free(ptr);
        return NULL;
    }
    if (++l->calls == l->refuse) return NULL;
    void *p = realloc(ptr, nsize);
    if (p) l->held += (long long)nsize - (long long)(ptr ? osize : 0);
    return p;
}

static void refused(void *ud) { longjmp(((ledger *)ud)->out, 1); }

static void deal(void *ud, void *st) {
    ledger *l = ud;
    memcpy(st, l->s->now, l->s->def->state_size);
    state_sample(l->s->def, st, 0, ++l->deals);
}

static bool never(void *ud, long long done, double now) { return (void)ud, (void)done, (void)now, false; }

/* One search of `iterations` refusing its refuse-th allocation: the allocations it made. */
static int search_refusing(const session *s, int refuse, long long iterations) {
    static ledger l; /* (static: longjmp leaves it as it was) */
    memset(&l, 0, sizeof l);
    l.s = s;
    l.refuse = refuse;
    search_config cfg = {.c = 0.7, .playout_depth = 4, .greedy = 1, .scale = 4, .playouts = 2,
                         .iterations = iterations};
    search_hooks hooks = {.ud = &l, .deal = deal, .stop = never, .alloc = counted, .out_of_memory = refused};
    rng draws;
    rng_seed(&draws, 7, 1);
    static search_tree t;
    search_init(&t, s->def, s->players, &cfg, &hooks, &draws);
    if (setjmp(l.out) == 0) {
        search_run(&t);
        CHECK(refuse == 0 || refuse > l.calls, "allocation %d was refused, yet the search went on", refuse);
    }
    search_free(&t);
    CHECK(l.held == 0, "refusing allocation %d: %lld bytes handed back at other sizes than given", refuse, l.held);
    return l.calls;
}

int main(void) {
    const char *games[] = {"babel", "citadels", "bohnanza", "rabohnzel"};
    for (size_t g = 0; g < sizeof games / sizeof *games; g++) {
        meeple_reason why;
        session *s = session_new(game_find(games[g]), 0, NULL, 3, &why);
        CHECK(s, "%s: no session", games[g]);
        int calls = search_refusing(s, 0, 300);
        CHECK(calls > 3, "%s: only %d allocations", games[g], calls);
        for (int k = 1; k <= calls; k++) search_refusing(s, k, 300);
        session_free(s);
    }
    return 0;
}
