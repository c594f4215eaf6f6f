/* lsearch.c — meeple.search(state, opts): the C search (host/search.h) for Lua scripts and bots, its
 * options read once, its hooks called only when given, and the calling bot's limits kept inside the loop:
 * the tree's memory comes from the lua_State's allocator (a bot's is capped), the clock is read after every
 * iteration, and a hook's error or a broken limit ends the search as an error the bot forfeits with. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

#include "host/playout.h"
#include "host/search.h"
#include "host/timing.h"
#include "lua/action_texts.h"
#include "lua/lmeeple.h"
#include "sandbox/limits.h"

#define FN "meeple.search"

static _Thread_local meeple_search_totals totals;
/* Hooks running on this thread: a search inside one is timed within the outer's hook_ms, so it is not
 * added to the totals again. */
static _Thread_local int in_hooks;
static _Thread_local bool not_counting;

void meeple_search_totals_count(bool counting) { not_counting = !counting; }

void meeple_search_totals_take(meeple_search_totals *out) {
    *out = totals;
    memset(&totals, 0, sizeof totals);
}

static const char host_key = 'h';

void meeple_set_search_host(lua_State *L, const meeple_search_host *host) {
    lua_pushlightuserdata(L, (void *)host);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &host_key);
}

static const meeple_search_host *search_host(lua_State *L) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &host_key);
    const meeple_search_host *host = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return host;
}

/* ==================================================================== the search's userdata */

/* Everything a search holds, in one userdata: a Lua error (a hook's, a limit's) leaves it to the
 * collector, whose __gc frees the tree. The position searched (a plain state's) follows it. */
typedef struct search_box {
    search_tree tree;
    bool live;
    lua_State *L;
    lua_Alloc alloc;
    void *alloc_ud;
    limits *lim;
    const meeple_search_host *host; /* deals from a bot's ctx, or NULL: from `root` */
    const game_def *def;
    int seat, players;
    rng draws, sample_rng, *draw_from;
    bool by_time;
    double stop_at;
    long long charged; /* playout decisions charged to the bot's instructions */
    int steps_per_decision; /* what each is charged: the bot's, with ctx or without */
    bool collected;         /* a refused allocation ran the full collection once */
    double hook_ms;         /* time in the hooks */
    int evaluate, prior, hook_state; /* stack indices; 0: none */
    session *hooked;
    alignas(max_align_t) unsigned char root[];
} search_box;

static const char box_mt_key = 'b';

static int box_gc(lua_State *L) {
    search_box *b = lua_touserdata(L, 1);
    if (b->live) search_free(&b->tree);
    b->live = false;
    return 0;
}

/* The tree's memory, from the Lua state's allocator (and under a bot's cap). A refusal runs Lua's full
 * collection once, as Lua's own emergency collection would, and asks again. */
static void *box_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    search_box *b = ud;
    void *p = b->alloc(b->alloc_ud, ptr, osize, nsize);
    if (!p && nsize > 0 && !b->collected) {
        b->collected = true;
        lua_gc(b->L, LUA_GCCOLLECT);
        p = b->alloc(b->alloc_ud, ptr, osize, nsize);
    }
    return p;
}

/* A broken limit's reason (the bot forfeits with it), else `fmt`. */
static int box_fail(search_box *b, const char *what) {
    if (b->lim && b->lim->in_call) {
        limits_check(b->lim);
        if (b->lim->fault) limits_raise(b->L, b->lim);
    }
    return luaL_error(b->L, FN ": %s", what);
}

static void box_out_of_memory(void *ud) { box_fail(ud, "out of memory"); }

static void box_deal(void *ud, void *st) {
    search_box *b = ud;
    if (b->host) {
        if (!b->host->deal(b->host->ud, st)) luaL_error(b->L, FN ": a bot searches only during init or choose");
        return;
    }
    memcpy(st, b->root, b->def->state_size);
    uint64_t seed = ((uint64_t)rng_next(&b->sample_rng) << 31) ^ rng_next(&b->sample_rng);
    state_sample(b->def, st, b->seat, seed);
}

/* The bot's limits, every iteration: its instructions charged for the playouts' decisions as s:playout
 * is, and its clock. */
static bool box_stop(void *ud, long long done, double now) {
    search_box *b = ud;
    (void)done;
    if (b->lim && b->lim->in_call) {
        long long decisions = b->tree.decisions - b->charged;
        b->charged = b->tree.decisions;
        b->lim->steps += decisions * b->steps_per_decision;
        if (b->lim->fault || b->lim->steps > b->lim->instructions || now > b->lim->deadline) box_fail(b, "");
    }
    return b->by_time && now >= b->stop_at;
}

/* The hooks' view of the search: the deal where it stands, in a state of the search's own. */
static void show_position(search_box *b, const void *st) {
    session *s = b->hooked;
    memcpy(s->now, st, b->def->state_size);
    memcpy(s->start, st, b->def->state_size);
    s->history_len = 0;
}

/* Calls the hook with `nargs` arguments pushed over it: one result on the stack. */
static void call_hook(search_box *b, int nargs, const char *name) {
    lua_State *L = b->L;
    in_hooks++;
    double before = timing_now_ms();
    int status = lua_pcall(L, nargs, 1, 0);
    b->hook_ms += timing_now_ms() - before;
    in_hooks--;
    if (status == LUA_OK) return;
    /* A limit the hook broke (its memory cap among them) is the reason, not the hook's error. */
    if (b->lim && b->lim->in_call) limits_check(b->lim);
    if (b->lim && b->lim->fault) limits_raise(L, b->lim);
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
    luaL_error(L, FN ": the %s hook failed: %s", name, msg);
}

static double hook_number(search_box *b, int idx, const char *name, const char *what) {
    lua_State *L = b->L;
    int isnum = 0;
    double v = lua_tonumberx(L, idx, &isnum);
    if (!isnum || lua_type(L, idx) != LUA_TNUMBER || !isfinite(v))
        luaL_error(L, FN ": the %s hook must return %s, got %s", name, what, meeple_describe(L, idx));
    return v;
}

/* A reward the evaluate hook returned: a number from 0 to 1 (a tree's means are rewards' means). */
static double hook_reward(search_box *b, int idx, const char *what) {
    double v = hook_number(b, idx, "evaluate", what);
    if (v < 0 || v > 1) luaL_error(b->L, FN ": the evaluate hook must return %s, got %s", what, lua_tostring(b->L, idx));
    return v;
}

static bool box_evaluate(void *ud, const void *st, double *r) {
    search_box *b = ud;
    lua_State *L = b->L;
    show_position(b, st);
    lua_pushvalue(L, b->evaluate);
    lua_pushvalue(L, b->hook_state);
    call_hook(b, 1, "evaluate");
    static const char what[] = "a number from 0 to 1 (the searching seat's reward), a list of one per seat (each from 0 to 1), "
                               "or nil";
    bool given = true;
    if (lua_isnil(L, -1)) {
        given = false;
    } else if (lua_type(L, -1) == LUA_TTABLE) {
        for (int p = 0; p < b->players; p++) {
            lua_rawgeti(L, -1, p + 1);
            r[p] = hook_reward(b, -1, what);
            lua_pop(L, 1);
        }
    } else {
        double v = hook_reward(b, -1, what);
        for (int p = 0; p < b->players; p++) r[p] = p == b->seat ? v : 1 - v;
    }
    lua_pop(L, 1);
    return given;
}

static void box_prior(void *ud, const void *st, const action_t *acts, int n, double *weights) {
    search_box *b = ud;
    lua_State *L = b->L;
    show_position(b, st);
    lua_pushvalue(L, b->prior);
    lua_pushvalue(L, b->hook_state);
    action_texts_push(L, b->def, st, acts, n, NULL);
    call_hook(b, 2, "prior");
    static const char what[] = "a list of numbers, one per legal action";
    if (lua_type(L, -1) != LUA_TTABLE)
        luaL_error(L, FN ": the prior hook must return %s, got %s", what, meeple_describe(L, -1));
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -1, i + 1);
        weights[i] = hook_number(b, -1, "prior", what);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* ==================================================================== options */

static const char *const OPTIONS[] = {"c", "ctx", "evaluate", "expand", "greedy", "iterations", "margin", "ms",
                                      "playout_depth", "playouts", "prior", "score_scale", "seat", "seed",
                                      "stats", "widen", NULL};

static void check_option_names(lua_State *L, int opts) {
    lua_pushnil(L);
    while (lua_next(L, opts)) {
        lua_pop(L, 1);
        bool known = false;
        for (int i = 0; OPTIONS[i] && !known; i++)
            known = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), OPTIONS[i]) == 0;
        if (!known) {
            luaL_Buffer list;
            luaL_buffinit(L, &list);
            for (int i = 0; OPTIONS[i]; i++) {
                if (i) luaL_addstring(&list, ", ");
                luaL_addstring(&list, OPTIONS[i]);
            }
            luaL_pushresult(&list);
            luaL_error(L, FN ": no option %s (options: %s)", meeple_describe(L, -2), lua_tostring(L, -1));
        }
    }
}

/* opts[name] on top of the stack; true when it is given (not nil). */
static bool option(lua_State *L, int opts, const char *name) {
    lua_getfield(L, opts, name);
    if (!lua_isnil(L, -1)) return true;
    lua_pop(L, 1);
    return false;
}

static int option_error(lua_State *L, const char *name, const char *what) {
    return luaL_error(L, FN ": option '%s' must be %s, got %s", name, what, meeple_describe(L, -1));
}

static double number_option(lua_State *L, int opts, const char *name, double fallback, double lo, double hi,
                            bool lo_open, const char *what) {
    if (!option(L, opts, name)) return fallback;
    double v = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(lo_open ? v > lo : v >= lo) || !(v <= hi)) option_error(L, name, what);
    lua_pop(L, 1);
    return v;
}

/* A whole number in [lo, hi], or `off` for false. */
static long long count_option(lua_State *L, int opts, const char *name, long long fallback, long long lo,
                              long long hi, long long off, const char *what) {
    if (!option(L, opts, name)) return fallback;
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1) && off != LLONG_MIN) {
        lua_pop(L, 1);
        return off;
    }
    int isint = 0;
    lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
    if (!isint || v < lo || v > hi) option_error(L, name, what);
    lua_pop(L, 1);
    return v;
}

/* A function option's stack index (it stays on the stack), or 0. */
static int hook_option(lua_State *L, int opts, const char *name) {
    if (!option(L, opts, name)) return 0;
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TFUNCTION) option_error(L, name, "a function");
    return lua_gettop(L);
}

static void read_config(lua_State *L, int opts, search_config *cfg, bool evaluates) {
    cfg->c = number_option(L, opts, "c", 0.7, 0, DBL_MAX, false, "a number from 0");
    cfg->playout_depth = (int)count_option(L, opts, "playout_depth", evaluates ? 0 : -1, 0, SEARCH_PLAYOUT_CAP, -1,
                                           "false or a count of decisions from 0 to 20000");
    cfg->greedy = number_option(L, opts, "greedy", 0.2, 0, 1, false, "a share from 0 to 1");
    cfg->margin = number_option(L, opts, "margin", 0, 0, 1, false, "a share from 0 to 1");
    cfg->scale = number_option(L, opts, "score_scale", 4, 0, DBL_MAX, true, "a number above 0");
    cfg->playouts = (int)count_option(L, opts, "playouts", 1, 1, SEARCH_MAX_PLAYOUTS, LLONG_MIN,
                                      "a whole number from 1 to 64");
    cfg->widen = 0;
    if (option(L, opts, "widen")) {
        bool off = lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1);
        double v = lua_tonumber(L, -1);
        if (!off && (lua_type(L, -1) != LUA_TNUMBER || !(v > 0) || !(v <= DBL_MAX)))
            option_error(L, "widen", "false or a number above 0");
        cfg->widen = off ? 0 : v;
        lua_pop(L, 1);
    }
    cfg->expand_policy = false;
    if (option(L, opts, "expand")) {
        const char *e = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(e, "random") != 0 && strcmp(e, "policy") != 0) option_error(L, "expand", "\"random\" or \"policy\"");
        cfg->expand_policy = strcmp(e, "policy") == 0;
        lua_pop(L, 1);
    }
    cfg->iterations = count_option(L, opts, "iterations", 0, 1, LLONG_MAX, 0, "false or a whole number from 1");
}

/* The ctx's own generator (ctx.rng), or an error naming what is wrong with the ctx. */
static rng *ctx_draws(lua_State *L, int opts) {
    lua_getfield(L, opts, "ctx");
    if (lua_type(L, -1) != LUA_TTABLE) option_error(L, "ctx", "the ctx a bot's choose or init was given");
    lua_getfield(L, -1, "rng");
    rng *r = luaL_testudata(L, -1, "meeple.bot_rng");
    if (!r) luaL_error(L, FN ": ctx.rng is not the bot's generator (ctx must be the one choose was given)");
    lua_pop(L, 2);
    return r;
}

/* ==================================================================== the call */

static void push_stats(lua_State *L, const search_box *b, int chosen_nth) {
    const search_tree *t = &b->tree;
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, t->iterations);
    lua_setfield(L, -2, "iterations");
    lua_pushnumber(L, t->total_ms);
    lua_setfield(L, -2, "ms");
    lua_pushnumber(L, t->playout_ms);
    lua_setfield(L, -2, "playout_ms");
    lua_pushstring(L, t->root_text[chosen_nth]);
    lua_setfield(L, -2, "chosen");
    int nth, rows = t->nodes[0].children;
    /* The root's actions, the most visited first (ties: the first tried). */
    lua_createtable(L, rows, 0);
    uint32_t last = UINT32_MAX;
    int row = 0;
    while (row < rows) {
        uint32_t most = 0;
        for (int32_t c = t->nodes[0].first_child; c >= 0; c = t->nodes[c].next_sibling)
            if (t->nodes[c].visits < last && t->nodes[c].visits >= most) most = t->nodes[c].visits;
        nth = 0;
        for (int32_t c = t->nodes[0].first_child; c >= 0; c = t->nodes[c].next_sibling, nth++) {
            if (t->nodes[c].visits != most) continue;
            const search_node *n = &t->nodes[c];
            lua_createtable(L, 0, 3);
            lua_pushstring(L, t->root_text[nth]);
            lua_setfield(L, -2, "action");
            lua_pushinteger(L, n->visits);
            lua_setfield(L, -2, "visits");
            lua_pushnumber(L, n->visits ? n->wins / n->visits : 0);
            lua_setfield(L, -2, "mean");
            lua_rawseti(L, -2, ++row);
        }
        if (most == 0) break;
        last = most;
    }
    lua_setfield(L, -2, "actions");
}

/* The state searched, from the first argument and `ctx`: with ctx, the bot's game (its deals come from
 * the host, the view unread); without, the plain state given. */
static const session *search_subject(lua_State *L, int opts, const meeple_search_host **host, rng **ctx_rng) {
    bool with_ctx = lua_getfield(L, opts, "ctx") != LUA_TNIL;
    lua_pop(L, 1);
    if (with_ctx) {
        *host = search_host(L);
        if (!*host) luaL_error(L, FN ": option 'ctx' is a bot's ctx; a script searches a state without one");
        if (meeple_to_session(L, 1))
            luaL_error(L, FN ": with ctx, pass the view choose was given (the search deals from ctx as "
                          "ctx.sample() does); without ctx, a state");
        /* The view is not read (the deals come from ctx), but anything else there is a mistake. */
        if (!lua_istable(L, 1))
            luaL_error(L, FN ": with ctx, pass the view choose was given (a table), got %s", meeple_describe(L, 1));
        if (option(L, opts, "seat")) option_error(L, "seat", "left out with ctx (the bot's seat)");
        *ctx_rng = ctx_draws(L, opts);
        return (*host)->like;
    }
    const session *s = meeple_to_plain_session(L, 1);
    if (!s && meeple_to_session(L, 1))
        luaL_error(L, FN ": this state plays under a variant, whose Lua hooks a search in C cannot run "
                      "(search it with bots/lib/ismcts.lua)");
    if (!s) luaL_error(L, FN ": expected a state (or, from a bot, its view with ctx = ctx), got %s", meeple_describe(L, 1));
    return s;
}

/* Pushes the search's userdata, its tree freed by __gc whatever ends the call. */
static search_box *push_box(lua_State *L, size_t root_bytes) {
    search_box *b = lua_newuserdatauv(L, sizeof *b + root_bytes, 0);
    memset(b, 0, sizeof *b);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &box_mt_key) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &box_mt_key);
    }
    lua_setmetatable(L, -2);
    b->L = L;
    b->alloc = lua_getallocf(L, &b->alloc_ud);
    b->lim = limits_of(L);
    return b;
}

/* When the search stops: at `ms` (in a bot counted from the call's start, as ctx.clock() is, and never
 * past half its time); and in a bot, inside a playout before the clock runs out: a timed search short
 * of it, with what it has, one of counted iterations at the limit, which it then forfeits at. */
static void set_clock(search_box *b, search_config *cfg, double ms) {
    double start = timing_now_ms();
    bool bot = b->lim && b->lim->in_call;
    if (bot) {
        start = b->lim->start;
        if (ms > b->lim->ms / 2) ms = b->lim->ms / 2;
    }
    b->by_time = cfg->iterations == 0;
    b->stop_at = start + ms;
    cfg->abandon_at = !bot ? 0 : b->by_time ? b->lim->start + 0.75 * b->lim->ms : b->lim->deadline;
}

/* Runs the search; pushes the action (and the statistics). */
static int run(lua_State *L, search_box *b, const search_config *cfg, bool stats) {
    search_hooks hooks = {
        .ud = b, .deal = box_deal, .stop = box_stop, .evaluate = b->evaluate ? box_evaluate : NULL,
        .prior = b->prior ? box_prior : NULL, .alloc = box_alloc, .out_of_memory = box_out_of_memory,
    };
    search_init(&b->tree, b->def, b->players, cfg, &hooks, b->draw_from);
    b->live = true;
    double cpu = timing_thread_cpu_ms();
    int32_t chosen = search_run(&b->tree);
    if (!in_hooks && !not_counting) {
        cpu = timing_thread_cpu_ms() - cpu;
        totals.cpu_ms += cpu;
        if (totals.rates < MEEPLE_SEARCH_RATES && cpu > 0)
            totals.rate[totals.rates++] = (float)(b->tree.iterations / cpu * 100);
        totals.searches++;
        totals.iterations += b->tree.iterations;
        totals.ms += b->tree.total_ms;
        totals.playout_ms += b->tree.playout_ms;
        totals.hook_ms += b->hook_ms;
    }
    if (b->tree.abandoned && !b->by_time) box_fail(b, "the time ran out in a playout");
    if (chosen < 0) luaL_error(L, FN ": the game is over: there is nothing to choose");
    int nth = 0;
    for (int32_t c = b->tree.nodes[0].first_child; c != chosen; c = b->tree.nodes[c].next_sibling) nth++;
    lua_pushstring(L, b->tree.root_text[nth]);
    if (stats) push_stats(L, b, nth);
    search_free(&b->tree);
    b->live = false;
    return stats ? 2 : 1;
}

int meeple_search(lua_State *L) {
    const int opts = 2;
    if (lua_isnoneornil(L, opts)) {
        lua_settop(L, 1);
        lua_newtable(L);
    }
    if (!lua_istable(L, opts)) luaL_error(L, FN ": options must be a table, got %s", meeple_describe(L, opts));
    lua_settop(L, 2);
    check_option_names(L, opts);
    const meeple_search_host *host = NULL;
    rng *ctx_rng = NULL;
    const session *s = search_subject(L, opts, &host, &ctx_rng);
    const game_def *def = s->def;
    int evaluate = hook_option(L, opts, "evaluate"), prior = hook_option(L, opts, "prior");
    search_config cfg;
    read_config(L, opts, &cfg, evaluate != 0);
    double ms = number_option(L, opts, "ms", 100, 0, 1e9, true, "a number of milliseconds above 0");
    lua_Integer seed = count_option(L, opts, "seed", 1, LLONG_MIN + 1, LLONG_MAX, LLONG_MIN, "a whole number");
    bool stats = false;
    if (option(L, opts, "stats")) {
        stats = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    /* s->players, not num_players(s->now): with ctx, s is a template whose `now` ctx.sample() wipes. */
    int players = s->players, seat;
    if (host) {
        seat = host->seat;
    } else {
        int mover = def->to_move(s->now);
        if (mover < 0) luaL_error(L, FN ": the game is over: there is nothing to choose");
        seat = (int)count_option(L, opts, "seat", mover + 1, 1, players, LLONG_MIN, "a seat of the game") - 1;
    }
    search_box *b = push_box(L, host ? 0 : def->state_size);
    b->host = host;
    b->def = def;
    b->seat = seat;
    b->players = players;
    /* Playouts are charged in a bot whether or not it passes ctx (a ctx.sample() searched alone). */
    const meeple_search_host *bot = host ? host : search_host(L);
    b->steps_per_decision = bot ? bot->steps_per_decision : 0;
    if (!host) memcpy(b->root, s->now, def->state_size);
    rng_seed(&b->draws, (uint64_t)seed, 0x5eac4);
    rng_seed(&b->sample_rng, (uint64_t)seed, SESSION_SAMPLE_STREAM);
    b->draw_from = ctx_rng ? ctx_rng : &b->draws;
    set_clock(b, &cfg, ms);
    b->evaluate = evaluate;
    b->prior = prior;
    if (evaluate || prior) {
        b->hooked = meeple_push_position(L, s);
        b->hook_state = lua_gettop(L);
    }
    return run(L, b, &cfg, stats);
}
