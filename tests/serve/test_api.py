"""The JSON API of `meeple serve` (docs/serve.md): status codes, what a refused request leaves (nothing
changed), tokens, live updates, the headers every answer carries, a clean stop."""
import json
import os
import signal
import socket
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from serve_util import Server, tmpdir, tokens_of, wait_for  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with tmpdir() as d:
        s = Server(os.path.join(d, "api.db"))
        yield s
        assert s.stop() == 0
        # nothing is logged per request: no token, no URL
        assert s.stderr.strip() == "meeple serve: stopping (SIGTERM)", s.stderr


@pytest.fixture
def client(server):
    c = server.client()
    yield c
    c.close()


def test_created_game_has_a_secret_token_per_human_seat_and_urls(client):
    out = client.create("babel", ["human", "human"])
    assert len(out["id"]) == 16
    a, b = out["seats"]
    assert a["kind"] == "human" and len(a["token"]) == 64 and a["token"] != b["token"]
    assert a["url"] == "/play/%s#token=%s" % (out["id"], a["token"])
    assert out["watch_url"] == "/play/%s" % out["id"]


def test_document_of_the_seat_to_move_has_legal_actions_and_the_others_not(client):
    out = client.create("babel", ["human", "human"], seed=3)
    t = tokens_of(out)
    d1, d2 = client.doc(out["id"], t[1]), client.doc(out["id"], t[2])
    assert d1["seat"] == 1 and d1["your_turn"] and d1["legal"] and d1["to_move"] == 1
    assert d2["seat"] == 2 and not d2["your_turn"] and "legal" not in d2
    spectator = client.doc(out["id"])
    assert "seat" not in spectator and "legal" not in spectator and not spectator["your_turn"]
    assert [s["kind"] for s in d1["seats"]] == ["human", "human"] and d1["decisions"] == 0


def test_a_legal_action_answers_the_new_document_and_counts_one_decision(client):
    out = client.create("babel", ["human", "human"], seed=4)
    t = tokens_of(out)
    legal = client.doc(out["id"], t[1])["legal"]
    status, d = client.act(out["id"], t[1], legal[0])
    assert status == 200 and d["decisions"] == 1 and d["seat"] == 1
    assert d["history"] == [{"n": 1, "seat": 1, "text": legal[0]}]


def test_illegal_action_is_409_with_the_rules_reason_and_changes_nothing(client):
    out = client.create("babel", ["human", "human"], seed=5)
    t = tokens_of(out)
    before = client.doc(out["id"], t[1])
    status, err = client.act(out["id"], t[1], "fly away")
    assert status == 409 and "unknown action" in err["error"]
    assert client.doc(out["id"], t[1]) == before


def test_not_your_turn_is_409_and_changes_nothing(client):
    out = client.create("babel", ["human", "human"], seed=6)
    t = tokens_of(out)
    before = client.doc(out["id"])
    legal = client.doc(out["id"], t[1])["legal"]
    status, err = client.act(out["id"], t[2], legal[0])
    assert status == 409 and "not your turn" in err["error"]
    assert client.doc(out["id"]) == before


def test_missing_or_wrong_token_is_403(client):
    out = client.create("babel", ["human", "human"], seed=7)
    legal = client.doc(out["id"], tokens_of(out)[1])["legal"]
    assert client.post("/api/games/%s/actions" % out["id"], {"action": legal[0]})[0] == 403
    assert client.act(out["id"], "0" * 64, legal[0])[0] == 403
    assert client.act(out["id"], tokens_of(out)[1][:-1], legal[0])[0] == 403
    assert client.get("/api/games/%s?token=%s" % (out["id"], "f" * 64))[0] == 403
    assert client.doc(out["id"])["decisions"] == 0


def test_one_games_token_is_refused_on_another_game(client):
    one = client.create("babel", ["human", "human"], seed=8)
    other = client.create("babel", ["human", "human"], seed=8)
    legal = client.doc(other["id"], tokens_of(other)[1])["legal"]
    status, err = client.act(other["id"], tokens_of(one)[1], legal[0])
    assert status == 403 and err["error"]
    assert client.get("/api/games/%s?token=%s" % (other["id"], tokens_of(one)[1]))[0] == 403
    assert client.doc(other["id"])["decisions"] == 0


def test_unknown_game_is_404(client):
    assert client.get("/api/games/0123456789abcdef")[0] == 404
    assert client.get("/api/games/nope")[0] == 404
    assert client.act("0123456789abcdef", "0" * 64, "x")[0] == 404


def test_malformed_json_is_400_and_changes_nothing(client):
    out = client.create("babel", ["human", "human"], seed=9)
    before = client.doc(out["id"])
    assert client.post("/api/games/%s/actions" % out["id"], b'{"token": ')[0] == 400
    assert client.post("/api/games/%s/actions" % out["id"], b'[1, 2]')[0] == 400
    status, err = client.post("/api/games", b'{"game": "babel", ')
    assert status == 400 and err["error"].startswith("malformed JSON")
    assert client.doc(out["id"]) == before


@pytest.mark.parametrize("body, words", [
    ({"game": "chess", "players": 2, "seats": ["human", "human"]}, "unknown game"),
    ({"game": "babel", "players": 3, "seats": ["human"] * 3}, "2 to 2 players"),
    ({"game": "babel", "players": 2, "seats": ["human"]}, "need 2 seats"),
    ({"game": "babel", "players": 2, "seats": ["human", "nobody"]}, "unknown bot"),
    ({"game": "babel", "players": 2, "seats": ["human", "../bots/random"]}, "unknown bot"),
    ({"game": "babel", "players": 2, "seats": ["human", "/etc/passwd"]}, "unknown bot"),
    ({"game": "babel", "players": 2, "seats": ["human", "exec:/bin/true"]}, "--allow-exec"),
    ({"game": "babel", "players": 2, "seats": ["human", "human"], "variant": "../../x"}, "variant"),
    ({"game": "babel", "players": 2, "seats": ["human", "human"], "variant": "nosuch"}, "nosuch"),
    ({"game": "babel", "players": 2, "seats": ["human", "human"], "params": {"colour": 1}}, "colour"),
    ({"game": "babel", "players": 2, "seats": ["human", "human"], "seed": -1}, "seed"),
])
def test_a_bad_game_request_is_400_with_a_reason(client, body, words):
    status, err = client.post("/api/games", body)
    assert status == 400 and words in err["error"], err


def test_a_variant_and_params_are_played(client):
    out = client.create("babel", ["human", "human"], variant="short")
    d = client.doc(out["id"])
    assert d["variant"] == "short"
    status, _ = client.post("/api/games", {"game": "babel", "players": 2, "seats": ["human", "human"],
                                           "params": {"end_total": 12}})
    assert status == 201


def test_the_document_carries_the_catalogue_as_the_params_play_it(client):
    plain = client.doc(client.create("bohnanza", ["human"] * 3)["id"])["cards"]
    changed = client.doc(client.create("bohnanza", ["human"] * 3,
                                       params={"beanometer": {"garden": [1, 2, 3, 0]}})["id"])["cards"]
    assert plain["garden"]["meter"] != [1, 2, 3, 0]
    assert changed["garden"]["meter"] == [1, 2, 3, 0]
    assert {k: v for k, v in plain.items() if k != "garden"} == {k: v for k, v in changed.items() if k != "garden"}


def test_the_document_carries_the_terminals_colours_and_each_fields_harvest(client):
    d = client.doc(client.create("rabohnzel", ["human"] * 3)["id"])
    # the colours render.lua paints with, for this game's cards only
    assert d["colours"]["cape"] == "red" and d["colours"]["sword"] == "grey"
    assert "chili" not in d["colours"]
    # what a harvest of each field pays now: the rules' own figure, in the view
    for p in d["view"]["players"]:
        assert len(p["harvest"]) == len(p["fields"])
        assert all(h["pays"] == 0 for h in p["harvest"])


def test_body_over_the_cap_is_413(client):
    big = b'{"token": "' + b"a" * (70 * 1024) + b'"}'
    status, _, body = client.raw("POST", "/api/games", big, {"Content-Type": "application/json"})
    assert status == 413 and json.loads(body)["error"]


def test_every_answer_carries_the_content_security_policy(client):
    for method, path in [("GET", "/api/catalog"), ("GET", "/api/games"), ("GET", "/api/games/nope"),
                         ("GET", "/"), ("GET", "/static/nothing.js")]:
        status, headers, _ = client.raw(method, path)
        assert headers.get("Content-Security-Policy") == "default-src 'self'", (path, headers)


def test_catalog_lists_games_variants_and_the_bots_that_suit_each(client):
    status, cat = client.get("/api/catalog")
    assert status == 200
    games = {g["name"]: g for g in cat["games"]}
    assert set(games) == {"babel", "citadels", "bohnanza", "rabohnzel"}
    assert "greedy_bohnanza" in games["bohnanza"]["bots"] and "greedy_babel" not in games["bohnanza"]["bots"]
    assert "random" in games["babel"]["bots"] and "short" in games["babel"]["variants"]
    assert games["citadels"]["min_players"] == 2 and "random" in cat["bots"]


def test_games_list_is_newest_first_without_tokens(client):
    first = client.create("babel", ["human", "human"])
    second = client.create("babel", ["human", "greedy_babel"])
    status, listing = client.get("/api/games")
    ids = [g["id"] for g in listing["games"]]
    assert ids.index(second["id"]) < ids.index(first["id"])
    assert "token" not in json.dumps(listing)
    g = next(g for g in listing["games"] if g["id"] == second["id"])
    assert g["seats"][1] == {"seat": 2, "kind": "bot", "name": "greedy_babel"} and g["game"] == "babel"


def test_a_bot_seat_moves_by_itself(client):
    out = client.create("babel", ["greedy_babel", "human"], seed=11)
    d = wait_for(lambda: (lambda d: d if d["to_move"] == 2 else None)(client.doc(out["id"])))
    assert d["decisions"] >= 1 and d["history"][0]["seat"] == 1


def test_a_citadels_secret_pick_shows_as_its_public_text_to_others(client):
    out = client.create("citadels", ["human", "human", "human", "human"], seed=2)
    t = tokens_of(out)
    for _ in range(4):  # the draft: each seat chooses a character in secret
        d = client.doc(out["id"])
        mover = d["to_move"]
        pick = client.doc(out["id"], t[mover])["legal"][0]
        assert client.act(out["id"], t[mover], pick)[0] == 200
        for seat in t:
            entry = client.doc(out["id"], t[seat])["history"][-1]
            assert entry["text"] == (pick if seat == mover else "(chooses a character)"), (seat, mover, entry)
        assert client.doc(out["id"])["history"][-1]["text"] == "(chooses a character)"


def read_event(sock_file):
    """One SSE message: (event, data) — comments (pings) skipped."""
    event = data = None
    while True:
        line = sock_file.readline().decode()
        assert line, "the stream ended"
        line = line.rstrip("\r\n")
        if line == "" and data is not None:
            return event, data
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])


def test_live_updates_send_the_document_on_connect_and_after_each_change(server, client):
    out = client.create("babel", ["human", "human"], seed=12)
    t = tokens_of(out)
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.sendall(("GET /api/games/%s/events?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (out["id"], t[2], server.port)).encode())
    f = s.makefile("rb")
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += f.readline()
    assert b"200" in head.split(b"\r\n")[0] and b"text/event-stream" in head
    event, doc = read_event(f)
    assert event == "state" and doc["seat"] == 2 and doc["decisions"] == 0
    legal = client.doc(out["id"], t[1])["legal"]
    assert client.act(out["id"], t[1], legal[0])[0] == 200
    event, doc = read_event(f)
    assert event == "state" and doc["decisions"] == 1 and doc["seat"] == 2
    s.close()


def test_sigint_and_sigterm_stop_the_server_cleanly():
    with tmpdir() as d:
        for sig in (signal.SIGINT, signal.SIGTERM):
            s = Server(os.path.join(d, "stop.db"))
            c = s.client()
            c.create("babel", ["human", "greedy_babel"])
            c.close()
            assert s.stop(sig) == 0 and "stopping" in s.stderr


def test_a_chunked_body_over_the_cap_is_413(server):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    chunks = (b"x" * 8192 for _ in range(10))
    conn.request("POST", "/api/games", body=chunks, encode_chunked=True,
                 headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    r = conn.getresponse()
    assert r.status == 413 and json.loads(r.read())["error"]
    conn.close()


def test_games_past_the_cap_are_refused_with_503():
    with tmpdir() as d:
        s = Server(os.path.join(d, "cap.db"), "--max-games", "2")
        c = s.client()
        c.create("babel", ["human", "human"])
        c.create("babel", ["human", "human"])
        status, err = c.post("/api/games", {"game": "babel", "players": 2, "seats": ["human", "human"]})
        assert status == 503 and "--max-games" in err["error"]
        status, listing = c.get("/api/games")
        assert len(listing["games"]) == 2
        c.close()
        assert s.stop() == 0


def test_durable_mode_and_bad_options(server):
    import subprocess
    from serve_util import EXE
    p = subprocess.run([EXE, "serve", "--port", "99999"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--port must be" in p.stderr
    p = subprocess.run([EXE, "serve", "--bind", "example.org", "--port", "0", "--db", ":memory:"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "--bind must be an IPv4 or IPv6 address" in p.stderr
    with tmpdir() as d:
        s = Server(os.path.join(d, "durable.db"), "--durable")
        c = s.client()
        out = c.create("babel", ["human", "human"])
        assert c.doc(out["id"])["decisions"] == 0
        c.close()
        assert s.stop() == 0


WEB = os.path.join(os.path.dirname(__file__), "..", "..", "serve", "web")
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
         ".png": "image/png"}


def test_every_page_file_is_served_from_the_binary_with_its_type(client):
    names = sorted(os.listdir(WEB)) if os.path.isdir(WEB) else []
    for name in names:
        with open(os.path.join(WEB, name), "rb") as f:
            want = f.read()
        status, headers, body = client.raw("GET", "/static/" + name)
        assert status == 200 and body == want, name
        kind = TYPES.get(os.path.splitext(name)[1])
        if kind:
            assert headers["Content-Type"].startswith(kind), (name, headers["Content-Type"])
    for path, name in [("/", "index.html"), ("/play/0123456789abcdef", "play.html")]:
        status, _, body = client.raw("GET", path)
        if name in names:
            with open(os.path.join(WEB, name), "rb") as f:
                assert status == 200 and body == f.read()
        else:
            assert status == 404
    assert client.raw("GET", "/static/../serve.h")[0] == 404
    assert client.raw("GET", "/static/nothing-here.js")[0] == 404


def test_a_post_not_declared_json_is_refused_with_415_and_creates_nothing(client):
    before = len(client.get("/api/games")[1]["games"])
    body = json.dumps({"game": "babel", "players": 2, "seats": ["human", "human"]})
    for headers in ({"Content-Type": "text/plain"}, {}, {"Content-Type": "application/x-www-form-urlencoded"},
                    {"Content-Type": "application/jsonp"}):
        status, _, out = client.raw("POST", "/api/games", body, headers)
        assert status == 415 and "application/json" in json.loads(out)["error"], (headers, status)
    assert len(client.get("/api/games")[1]["games"]) == before
    status, _, _ = client.raw("POST", "/api/games", body, {"Content-Type": "application/json; charset=utf-8"})
    assert status == 201


def test_another_sites_origin_is_refused_with_403_and_our_own_is_answered(client):
    body = json.dumps({"game": "babel", "players": 2, "seats": ["human", "human"]})
    ours = "127.0.0.1:%d" % client.port
    for origin in ("http://evil.example", "null", "https://127.0.0.1:%d" % client.port, "http://" + ours + ".evil"):
        status, _, out = client.raw("POST", "/api/games", body,
                                    {"Content-Type": "application/json", "Origin": origin})
        assert status == 403 and "Origin" in json.loads(out)["error"], origin
        assert client.raw("GET", "/api/games", None, {"Origin": origin})[0] == 403
    status, _, _ = client.raw("POST", "/api/games", body, {"Content-Type": "application/json", "Origin": "http://" + ours})
    assert status == 201


def test_a_host_not_ours_is_refused_so_dns_rebinding_cannot_reach_the_api(client):
    for host in ("evil.example", "evil.example:%d" % client.port, "127.0.0.1:1"):
        status, _, out = client.raw("GET", "/api/games", None, {"Host": host})
        assert status == 403 and "Host" in json.loads(out)["error"], host
    assert client.raw("GET", "/api/games", None, {"Host": "localhost:%d" % client.port})[0] == 200


def test_a_server_bound_to_every_address_answers_any_host_but_no_foreign_origin():
    with tmpdir() as d:
        s = Server(os.path.join(d, "any.db"), "--bind", "0.0.0.0")
        c = s.client()
        assert c.raw("GET", "/api/games", None, {"Host": "table.lan:%d" % s.port})[0] == 200
        body = json.dumps({"game": "babel", "players": 2, "seats": ["human", "human"]})
        status, _, _ = c.raw("POST", "/api/games", body, {"Host": "table.lan:%d" % s.port, "Content-Type":
                                                          "application/json", "Origin": "http://evil.example"})
        assert status == 403
        status, _, _ = c.raw("POST", "/api/games", body, {"Host": "table.lan:%d" % s.port, "Content-Type":
                                                          "application/json", "Origin": "http://table.lan:%d" % s.port})
        assert status == 201
        c.close()
        assert s.stop() == 0


def finished_bot_game(c, seed):
    gid = c.create("babel", ["greedy_babel", "random"], seed=seed)["id"]
    return wait_for(lambda: c.doc(gid)["over"] and c.doc(gid))


def test_finished_games_do_not_count_towards_max_games_and_a_bigger_db_still_starts():
    with tmpdir() as d:
        db = os.path.join(d, "cap.db")
        s = Server(db, "--max-games", "1")
        c = s.client()
        done = finished_bot_game(c, 1)
        finished_bot_game(c, 2)  # the first one finished: its slot is free again
        human = c.create("babel", ["human", "human"])
        status, err = c.post("/api/games", {"game": "babel", "players": 2, "seats": ["human", "human"]})
        assert status == 503 and "--max-games" in err["error"]
        # a finished game is still served in full, and takes no action
        t = tokens_of(human)
        assert c.doc(done["id"]) == done
        assert c.act(done["id"], t[1], "anything")[0] in (403, 409)
        c.close()
        assert s.stop() == 0
        # three games in the database, a cap of one: it starts (the cap is never applied to resuming)
        s = Server(db, "--max-games", "1")
        c = s.client()
        assert len(c.get("/api/games")[1]["games"]) == 3 and c.doc(done["id"]) == done
        assert c.post("/api/games", {"game": "babel", "players": 2, "seats": ["human", "human"]})[0] == 503
        c.close()
        assert s.stop() == 0


def test_creations_at_once_never_store_more_games_than_the_cap():
    import threading
    with tmpdir() as d:
        db = os.path.join(d, "race.db")
        s = Server(db, "--max-games", "2", "--threads", "8")
        statuses = []
        ready = threading.Barrier(24)

        def create():
            c = s.client()
            c.get("/api/games")  # connected: the creations then arrive together
            ready.wait()
            statuses.append(c.post("/api/games", {"game": "citadels", "players": 4,
                                                  "seats": ["human", "human", "human", "human"]})[0])
            c.close()
        threads = [threading.Thread(target=create) for _ in range(24)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(statuses).count(201) == 2 and statuses.count(503) == 22, statuses
        assert s.stop() == 0
        s = Server(db)
        c = s.client()
        assert len(c.get("/api/games")[1]["games"]) == 2
        c.close()
        assert s.stop() == 0


def test_a_token_that_is_not_text_is_400_and_duplicate_keys_are_refused(client):
    out = client.create("babel", ["human", "human"])
    assert client.post("/api/games/%s/actions" % out["id"], {"token": 5, "action": "x"})[0] == 400
    status, err = client.post("/api/games", b'{"game": "babel", "game": "citadels", "seats": ["human", "human"]}')
    assert status == 400 and "duplicate" in err["error"]
    t = tokens_of(out)[1]
    body = '{"token": "%s", "token": "%s", "action": "x"}' % ("0" * 64, t)
    assert client.post("/api/games/%s/actions" % out["id"], body.encode())[0] == 400


def test_error_answers_name_no_server_path_and_no_chunk_prefix(client):
    status, err = client.post("/api/games", {"game": "babel", "players": 2, "seats": ["human", "human"],
                                             "params": {"no_such_param": 1}})
    assert status == 400
    for bad in ({"game": "babel", "players": 2, "seats": ["human", "human"], "variant": "nope"},
                {"game": "babel", "players": 2, "seats": ["human", "human"], "params": {"no_such_param": 1}},
                {"game": "babel", "players": 2, "seats": ["human", "human"], "params": {"end_total": "x"}}):
        status, err = client.post("/api/games", bad)
        # The checkout's folder, as a path or a path's part (its bare name may be any word: a clone in
        # "nu" must not fail on "number").
        root_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        root = os.path.basename(root_dir)
        assert status == 400 and " /" not in err["error"] and root_dir not in err["error"], err
        assert root + "/" not in err["error"] and "/" + root not in err["error"], err
        assert "serve:" not in err["error"] and "'/" not in err["error"], err


def test_a_reason_cut_short_is_still_utf8(client):
    for pad in range(2):
        name = "x" * pad + "é" * 40  # quoted in the reason, cut at some byte count
        body = json.dumps({"game": "babel", "players": 2, "seats": ["human", name]})
        status, _, out = client.raw("POST", "/api/games", body, {"Content-Type": "application/json"})
        assert status == 400
        out.decode("utf-8")  # strict: a split character fails here
        body = json.dumps({"game": "x" * pad + "é" * 50, "players": 2, "seats": ["human", "human"]})
        status, _, out = client.raw("POST", "/api/games", body, {"Content-Type": "application/json"})
        assert status == 400
        out.decode("utf-8")


def test_a_finished_games_live_stream_ends_after_its_last_document(client, server):
    gid = client.create("babel", ["greedy_babel", "random"], seed=9)["id"]
    done = wait_for(lambda: client.doc(gid)["over"] and client.doc(gid))
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.sendall(("GET /api/games/%s/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (gid, server.port)).encode())
    got = b""
    while True:
        chunk = s.recv(65536)  # the server ends the stream: no wait for the 10 s timeout
        if not chunk:
            break
        got += chunk
        if got.endswith(b"0\r\n\r\n"):
            break
    s.close()
    assert got.count(b"event: state") == 1 and json.dumps(done["decisions"]).encode() in got
