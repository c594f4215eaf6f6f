/* serve_bots.c — bot seats move by themselves: a game whose bot seat is to decide waits in one queue,
 * and a few worker threads take games from it, one decision at a time, so a slow bot holds up its own
 * game alone. A bot's lua_State is used by one thread at a time: its seat decides only when the
 * worker that took the game asks it. */
#include <stdlib.h>

#include "serve.h"

/* Games of bots alone get one pick in this many while games with a person wait: a few all-bot games
 * (which always have a decision ready) cannot starve the games people play, and still move on. */
#define BOTS_ONLY_SHARE 4

/* The next game to decide for: one decision a pick, then the game goes to the back of its queue
 * (round-robin between games). qlock held. */
static serve_game *next_game(serve_server *sv) {
    bool bots_turn = sv->bhead && (!sv->qhead || sv->picks >= BOTS_ONLY_SHARE - 1);
    serve_game **head = bots_turn ? &sv->bhead : &sv->qhead, **tail = bots_turn ? &sv->btail : &sv->qtail;
    sv->picks = bots_turn ? 0 : sv->picks + 1;
    serve_game *g = *head;
    *head = g->next_queued;
    if (!*head) *tail = NULL;
    g->next_queued = NULL;
    return g;
}

static void *worker(void *arg) {
    serve_server *sv = arg;
    for (;;) {
        pthread_mutex_lock(&sv->qlock);
        while (!sv->stopping && !sv->qhead && !sv->bhead) pthread_cond_wait(&sv->qcond, &sv->qlock);
        if (sv->stopping) {
            pthread_mutex_unlock(&sv->qlock);
            return NULL;
        }
        serve_game *g = next_game(sv);
        pthread_mutex_unlock(&sv->qlock);
        serve_bot_move(sv, g);
    }
}

bool bots_start(serve_server *sv) {
    sv->workers = calloc((size_t)sv->cfg.bot_workers, sizeof *sv->workers);
    if (!sv->workers) return false;
    for (int i = 0; i < sv->cfg.bot_workers; i++) {
        if (pthread_create(&sv->workers[i], NULL, worker, sv) != 0) break;
        sv->nworkers++;
    }
    return sv->nworkers > 0;
}

void bots_stop(serve_server *sv) {
    pthread_mutex_lock(&sv->qlock);
    sv->stopping = true;
    pthread_cond_broadcast(&sv->qcond);
    pthread_mutex_unlock(&sv->qlock);
    bot_interrupt(true); /* a bot deciding now stops at once */
    for (int i = 0; i < sv->nworkers; i++) pthread_join(sv->workers[i], NULL);
    free(sv->workers);
    sv->workers = NULL;
    sv->nworkers = 0;
}

void bots_wake(serve_server *sv, serve_game *g) {
    if (!g->L || g->bot_queued || g->broken || sv->resuming) return;
    /* the seat to move, from the document's own source */
    lua_getfield(g->L, 1, "to_move");
    int seat = lua_pcall(g->L, 0, 1, 0) == LUA_OK && lua_isinteger(g->L, -1) ? (int)lua_tointeger(g->L, -1) : 0;
    lua_settop(g->L, 1);
    if (seat <= 0 || !g->seats[seat - 1].b) return;
    g->bot_queued = true;
    bool person = false;
    for (int p = 0; p < g->players; p++) person |= g->seats[p].human;
    serve_game **head = person ? &sv->qhead : &sv->bhead, **tail = person ? &sv->qtail : &sv->btail;
    pthread_mutex_lock(&sv->qlock);
    if (*tail) (*tail)->next_queued = g;
    else *head = g;
    *tail = g;
    pthread_cond_signal(&sv->qcond);
    pthread_mutex_unlock(&sv->qlock);
}
