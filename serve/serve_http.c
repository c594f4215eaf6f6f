/* serve_http.c — `meeple serve`'s HTTP side over libmicrohttpd (docs/serve.md says why that library):
 * the JSON API, the pages embedded from serve/web/, and the live updates as Server-Sent Events.
 *
 * The daemon polls with epoll in a small pool of threads, so open connections cost memory, not
 * threads; past --max-connections a new connection is closed at once. A live stream waits suspended
 * (no thread, no polling) until its game changes, then sends the document for its reader. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <stdatomic.h>

#include <jansson.h>
#include <microhttpd.h>

#include "host/text.h"
#include "serve.h"

/* serve/web/, embedded at build time (cmake/embed.cmake). */
typedef struct web_file {
    const char *name;
    const unsigned char *data;
    size_t size;
} web_file;
extern const web_file serve_web_files[];
extern const int serve_web_count;

#define SSE_PING_SECONDS 15

struct sse_stream {
    serve_server *sv;
    serve_game *g;
    int seat;
    long long sent;          /* the game's version last sent; -1: none yet */
    bool suspended, ping;
    struct MHD_Connection *conn;
    char *buf;
    size_t len, off;
    sse_stream *next;
};

typedef struct request {
    char *body;
    size_t len, cap;
    bool too_big, begun;
} request;

/* Open connections, counted here: past --max-connections a new one is closed as soon as it is
 * accepted (the daemon's own limit, a little higher, would stop accepting and leave clients waiting). */
static atomic_long open_connections;

static pthread_t pinger;
static bool pinger_running;
static pthread_mutex_t ping_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ping_cond = PTHREAD_COND_INITIALIZER;

/* ==================================================================================== answers */

static void common_headers(struct MHD_Response *r) {
    MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
}

/* Answers `text` (taken: freed by the daemon) with `status`. */
static enum MHD_Result answer(struct MHD_Connection *c, int status, char *text, const char *type) {
    if (!text) {
        status = 500;
        text = strdup("{\"error\":\"out of memory\"}");
        if (!text) return MHD_NO;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (!r) return free(text), MHD_NO;
    common_headers(r);
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result json_answer(struct MHD_Connection *c, int status, char *text) {
    return answer(c, status, text, "application/json; charset=utf-8");
}

/* The reason a client reads tells nothing of the server's files: a path becomes its file's name (a
 * folder: "the server's folder"), and an error's chunk prefix ("serve:12: ") goes. Our routes stay. */
static void scrub(const char *in, char *out, size_t n) {
    size_t used = 0;
    for (const char *s = in; *s && used + 1 < n;) {
        bool starts = s == in || strchr(" '\"(", s[-1]);
        if (starts && *s == '/' && strncmp(s, "/api/", 5) != 0 && strncmp(s, "/play/", 6) != 0) {
            size_t len = strcspn(s, " '\",);)");
            const char *last = s;
            for (size_t i = 0; i < len; i++)
                if (s[i] == '/') last = s + i + 1;
            size_t name = (size_t)(s + len - last);
            if (!memchr(last, '.', name)) last = "the server's folder", name = strlen(last);
            used += (size_t)snprintf(out + used, n - used, "%.*s", (int)name, last);
            if (used >= n) used = n - 1;
            s += len;
            continue;
        }
        if (starts && strncmp(s, "serve:", 6) == 0) {
            size_t digits = strspn(s + 6, "0123456789");
            if (digits && s[6 + digits] == ':') {
                s += 7 + digits;
                s += *s == ' ';
                continue;
            }
        }
        out[used++] = *s++;
    }
    out[used] = '\0';
}

/* {"error": why}: one line, no server path in it, valid UTF-8 (each byte of a character the line's cut
 * or a bot split becomes U+FFFD). */
static enum MHD_Result error_answer(struct MHD_Connection *c, int status, const char *why) {
    char line[SERVE_REASON_LEN], shown[SERVE_REASON_LEN], valid[3 * SERVE_REASON_LEN];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(why, "\n"), why);
    scrub(line, shown, sizeof shown);
    text_utf8_valid(valid, sizeof valid, shown);
    json_t *o = json_pack("{s:s}", "error", valid);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return json_answer(c, status, text);
}

static enum MHD_Result failed(struct MHD_Connection *c, const serve_error *e) {
    return error_answer(c, e->status ? e->status : 500, e->why[0] ? e->why : "the request failed");
}

/* ==================================================================================== pages */

static const char *content_type(const char *name) {
    const char *dot = strrchr(name, '.');
    static const char *const types[][2] = {{".html", "text/html; charset=utf-8"},
                                           {".js", "text/javascript; charset=utf-8"},
                                           {".css", "text/css; charset=utf-8"},
                                           {".svg", "image/svg+xml"},
                                           {".png", "image/png"},
                                           {".json", "application/json; charset=utf-8"},
                                           {".ico", "image/x-icon"}};
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i][0]) == 0) return types[i][1];
    return "application/octet-stream";
}

static enum MHD_Result web_file_answer(struct MHD_Connection *c, const char *name) {
    for (int i = 0; i < serve_web_count; i++) {
        if (strcmp(serve_web_files[i].name, name) != 0) continue;
        struct MHD_Response *r = MHD_create_response_from_buffer(serve_web_files[i].size,
                                                                 (void *)serve_web_files[i].data, MHD_RESPMEM_PERSISTENT);
        if (!r) return MHD_NO;
        common_headers(r);
        MHD_add_response_header(r, "Content-Type", content_type(name));
        enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    return answer(c, 404, strdup("not found\n"), "text/plain; charset=utf-8");
}

/* ==================================================================================== live streams */

static bool send_document(sse_stream *s) {
    char *doc = serve_document(s->g, s->seat);
    if (!doc) return false;
    size_t n = strlen(doc);
    free(s->buf);
    s->buf = malloc(n + 32);
    if (!s->buf) return free(doc), false;
    s->len = (size_t)sprintf(s->buf, "event: state\ndata: %s\n\n", doc);
    s->off = 0;
    free(doc);
    s->sent = s->g->version;
    return true;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *out, size_t max) {
    (void)pos;
    sse_stream *s = cls;
    if (s->off == s->len) {
        serve_game *g = s->g;
        pthread_mutex_lock(&g->lock);
        bool ok = true;
        if (s->sv->stopping || (s->sent == g->version && !g->L)) {
            ok = false; /* stopping, or a finished game's last document sent: nothing more will come */
        } else if (s->sent != g->version) {
            ok = send_document(s);
        } else if (s->ping) {
            free(s->buf);
            s->buf = strdup(": ping\n\n");
            ok = s->buf != NULL;
            s->len = ok ? strlen(s->buf) : 0, s->off = 0;
        } else {
            /* nothing new: wait, suspended, until http_changed or the pinger resumes us */
            s->suspended = true;
            MHD_suspend_connection(s->conn);
            pthread_mutex_unlock(&g->lock);
            return 0;
        }
        s->ping = false;
        pthread_mutex_unlock(&g->lock);
        if (!ok) return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = s->len - s->off < max ? s->len - s->off : max;
    memcpy(out, s->buf + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

static void sse_free(void *cls) {
    sse_stream *s = cls;
    pthread_mutex_lock(&s->g->lock);
    for (sse_stream **p = &s->g->streams; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    pthread_mutex_unlock(&s->g->lock);
    free(s->buf);
    free(s);
}

static enum MHD_Result sse_answer(serve_server *sv, struct MHD_Connection *c, serve_game *g, int seat) {
    sse_stream *s = calloc(1, sizeof *s);
    if (!s) return json_answer(c, 500, NULL);
    *s = (sse_stream){.sv = sv, .g = g, .seat = seat, .sent = -1, .conn = c};
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, s, sse_free);
    if (!r) return free(s), MHD_NO;
    pthread_mutex_lock(&g->lock);
    s->next = g->streams;
    g->streams = s;
    pthread_mutex_unlock(&g->lock);
    common_headers(r);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

void http_changed(serve_game *g) {
    for (sse_stream *s = g->streams; s; s = s->next)
        if (s->suspended) {
            s->suspended = false;
            MHD_resume_connection(s->conn);
        }
}

/* Every stream, a ping (or its end when stopping): a reader that went away is found and freed. */
static void wake_all(serve_server *sv, bool ping) {
    pthread_mutex_lock(&sv->lock);
    long long n = sv->ngames;
    serve_game **games = malloc(sizeof *games * (size_t)(n ? n : 1));
    if (games) memcpy(games, sv->games, sizeof *games * (size_t)n);
    pthread_mutex_unlock(&sv->lock);
    for (long long i = 0; games && i < n; i++) {
        pthread_mutex_lock(&games[i]->lock);
        for (sse_stream *s = games[i]->streams; s; s = s->next) s->ping = ping;
        http_changed(games[i]);
        pthread_mutex_unlock(&games[i]->lock);
    }
    free(games);
}

static void *ping_loop(void *arg) {
    serve_server *sv = arg;
    pthread_mutex_lock(&ping_lock);
    while (!sv->stopping) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += SSE_PING_SECONDS;
        pthread_cond_timedwait(&ping_cond, &ping_lock, &t);
        if (sv->stopping) break;
        pthread_mutex_unlock(&ping_lock);
        wake_all(sv, true);
        pthread_mutex_lock(&ping_lock);
    }
    pthread_mutex_unlock(&ping_lock);
    return NULL;
}

void http_end_streams(serve_server *sv) {
    pthread_mutex_lock(&ping_lock);
    pthread_cond_broadcast(&ping_cond);
    pthread_mutex_unlock(&ping_lock);
    if (pinger_running) pthread_join(pinger, NULL);
    pinger_running = false;
    wake_all(sv, false);
}

/* ==================================================================================== routes */

/* "/api/games/ID" + rest: the game, or NULL (404 answered by the caller). */
static serve_game *game_of(serve_server *sv, const char *url, const char **rest) {
    const char *id = url + strlen("/api/games/");
    size_t len = strcspn(id, "/");
    *rest = id + len;
    if (len != SERVE_ID_LEN) return NULL;
    char key[SERVE_ID_LEN + 1];
    memcpy(key, id, SERVE_ID_LEN);
    key[SERVE_ID_LEN] = '\0';
    return serve_find(sv, key);
}

static enum MHD_Result game_route(serve_server *sv, struct MHD_Connection *c, const char *url, bool get,
                                  const request *rq) {
    const char *rest;
    serve_game *g = game_of(sv, url, &rest);
    if (!g) return error_answer(c, 404, "no such game");
    serve_error e = {0};
    if (!get && strcmp(rest, "/actions") == 0) {
        char *doc = serve_act(sv, g, rq->body ? rq->body : "", rq->len, &e);
        return doc ? json_answer(c, 200, doc) : failed(c, &e);
    }
    if (!get || (rest[0] && strcmp(rest, "/events") != 0))
        return error_answer(c, rest[0] && strcmp(rest, "/events") != 0 && strcmp(rest, "/actions") != 0 ? 404 : 405,
                            "use GET /api/games/ID, GET /api/games/ID/events or POST /api/games/ID/actions");
    const char *token = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    if (token && !token[0]) token = NULL;
    pthread_mutex_lock(&g->lock);
    int seat = serve_token_seat(g, token);
    char *doc = seat >= 0 && !rest[0] ? serve_document(g, seat) : NULL;
    pthread_mutex_unlock(&g->lock);
    if (seat < 0) return error_answer(c, 403, "wrong token for this game");
    if (rest[0]) return sse_answer(sv, c, g, seat);
    return json_answer(c, 200, doc);
}

/* ==================================================================================== who may ask */

static int listening_port;

static bool wildcard_bind(const serve_server *sv) {
    return strcmp(sv->cfg.bind, "0.0.0.0") == 0 || strcmp(sv->cfg.bind, "::") == 0;
}

/* The Host header names this server: its bound address (or "localhost" when that is a loopback address)
 * and its port. A page of another site that made a name of its own point at 127.0.0.1 (DNS rebinding)
 * reaches us with its name as Host, and is refused. A server bound to every address answers any Host:
 * it is reachable by names we cannot know; the Origin check still holds for it. */
static bool host_is_ours(const serve_server *sv, const char *host) {
    if (wildcard_bind(sv)) return true;
    if (!host) return false;
    char want[96];
    bool v6 = strchr(sv->cfg.bind, ':') != NULL;
    snprintf(want, sizeof want, v6 ? "[%s]:%d" : "%s:%d", sv->cfg.bind, listening_port);
    if (strcasecmp(host, want) == 0) return true;
    if (listening_port == 80 && strncasecmp(host, want, strlen(want) - 3) == 0 && !host[strlen(want) - 3])
        return true; /* the default port may go unsaid */
    bool loopback = strncmp(sv->cfg.bind, "127.", 4) == 0 || strcmp(sv->cfg.bind, "::1") == 0;
    snprintf(want, sizeof want, "localhost:%d", listening_port);
    return loopback && strcasecmp(host, want) == 0;
}

/* A request a browser sends on behalf of a page carries that page's Origin: only our own pages
 * (Origin http://HOST, HOST the one this request was sent to) may ask. No Origin: not a browser's
 * cross-site request (curl, a test, a same-origin GET). */
static bool origin_is_ours(const char *origin, const char *host) {
    if (!origin) return true;
    if (!host || strncmp(origin, "http://", 7) != 0) return false;
    return strcasecmp(origin + 7, host) == 0;
}

/* A POST's body must be declared JSON: a form or a text/plain fetch of another site (sent with no
 * preflight) is refused before it is read as a request. */
static bool declared_json(struct MHD_Connection *c) {
    const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    if (!type || strncasecmp(type, "application/json", 16) != 0) return false;
    char next = type[16];
    return next == '\0' || next == ';' || next == ' ';
}

static enum MHD_Result route(serve_server *sv, struct MHD_Connection *c, const char *url, const char *method,
                             const request *rq) {
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0, post = strcmp(method, "POST") == 0;
    if (!get && !post) return error_answer(c, 405, "only GET and POST are answered");
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!host_is_ours(sv, host))
        return error_answer(c, 403, "this server answers only requests sent to its own address (Host header)");
    if (!origin_is_ours(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"), host))
        return error_answer(c, 403, "requests from another site's pages are refused (Origin header)");
    if (post && !declared_json(c)) return error_answer(c, 415, "send the body as Content-Type: application/json");
    if (strncmp(url, "/api/", 5) == 0) {
        if (strcmp(url, "/api/catalog") == 0 && get) return json_answer(c, 200, serve_catalog(sv));
        if (strcmp(url, "/api/games") == 0) {
            if (get) return json_answer(c, 200, serve_list(sv));
            serve_error e = {0};
            char *created = serve_create(sv, rq->body ? rq->body : "", rq->len, &e);
            return created ? json_answer(c, 201, created) : failed(c, &e);
        }
        if (strncmp(url, "/api/games/", 11) == 0) return game_route(sv, c, url, get, rq);
        return error_answer(c, 404, "no such API route (docs/serve.md lists them)");
    }
    if (!get) return error_answer(c, 405, "pages are read with GET");
    if (strcmp(url, "/") == 0) return web_file_answer(c, "index.html");
    if (strncmp(url, "/play/", 6) == 0 && !strchr(url + 6, '/')) return web_file_answer(c, "play.html");
    if (strncmp(url, "/static/", 8) == 0 && !strchr(url + 8, '/')) return web_file_answer(c, url + 8);
    return answer(c, 404, strdup("not found\n"), "text/plain; charset=utf-8");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **ctx) {
    (void)version;
    serve_server *sv = cls;
    request *rq = *ctx;
    if (!rq) {
        rq = *ctx = calloc(1, sizeof *rq);
        if (!rq) return MHD_NO;
        const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (length && strtoull(length, NULL, 10) > (unsigned long long)sv->cfg.max_body) {
            rq->too_big = true;
            return error_answer(c, 413, "the body is too big");
        }
        return MHD_YES;
    }
    if (*upload_size) {
        if (rq->len + *upload_size > (size_t)sv->cfg.max_body) rq->too_big = true;
        if (!rq->too_big) {
            if (rq->len + *upload_size + 1 > rq->cap) {
                size_t cap = (rq->len + *upload_size + 1) * 2;
                char *grown = realloc(rq->body, cap);
                if (!grown) return MHD_NO;
                rq->body = grown, rq->cap = cap;
            }
            memcpy(rq->body + rq->len, upload, *upload_size);
            rq->len += *upload_size;
            rq->body[rq->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->too_big) return error_answer(c, 413, "the body is too big");
    return route(sv, c, url, method, rq);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode why) {
    (void)cls, (void)c, (void)why;
    request *rq = *ctx;
    if (rq) free(rq->body);
    free(rq);
    *ctx = NULL;
}

/* ==================================================================================== the daemon */

static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len) {
    (void)addr, (void)len;
    const serve_server *sv = cls;
    return atomic_load(&open_connections) < sv->cfg.max_connections ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx, enum MHD_ConnectionNotificationCode what) {
    (void)cls, (void)c, (void)socket_ctx;
    atomic_fetch_add(&open_connections, what == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
}

bool http_start(serve_server *sv, char *err, size_t n) {
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sv->cfg.port)};
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)sv->cfg.port)};
    struct sockaddr *addr;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    if (inet_pton(AF_INET, sv->cfg.bind, &a4.sin_addr) == 1) {
        addr = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, sv->cfg.bind, &a6.sin6_addr) == 1) {
        addr = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, n, "--bind must be an IPv4 or IPv6 address, got '%s'", sv->cfg.bind);
        return false;
    }
    sv->daemon = MHD_start_daemon(flags, (uint16_t)sv->cfg.port, on_accept, sv, on_request, sv,
                                  MHD_OPTION_SOCK_ADDR, addr,
                                  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)sv->cfg.threads,
                                  MHD_OPTION_CONNECTION_LIMIT, (unsigned)(sv->cfg.max_connections + 64 * sv->cfg.threads),
                                  MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv,
                                  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                                  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32 * 1024,
                                  MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
                                  MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
                                  MHD_OPTION_END);
    if (!sv->daemon) {
        snprintf(err, n, "cannot listen on %s port %d (in use, or not an address of this machine)", sv->cfg.bind,
                 sv->cfg.port);
        return false;
    }
    listening_port = http_port(sv);
    pinger_running = pthread_create(&pinger, NULL, ping_loop, sv) == 0;
    return true;
}

int http_port(serve_server *sv) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : sv->cfg.port;
}

void http_stop(serve_server *sv) {
    if (sv->daemon) MHD_stop_daemon(sv->daemon);
    sv->daemon = NULL;
}
