"""No seat's document holds another seat's hidden cards, in every game: each seat's `view` is exactly
the module's s:view(seat) of the same game (seed and actions), its history is s:history(seat), and a
spectator sees of each seat no more than another seat's view shows of it. Ground truth is the Python
module (build/python), played beside the server with the same actions."""
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from serve_util import Server, tmpdir, tokens_of  # noqa: E402

meeple = pytest.importorskip("meeple", reason="the Python module was not built (python3-dev)")

GAMES = [("babel", 2), ("citadels", 4), ("bohnanza", 3), ("rabohnzel", 4)]
STEPS = 80


@pytest.fixture(scope="module")
def client():
    with tmpdir() as d:
        s = Server(os.path.join(d, "hidden.db"))
        c = s.client()
        yield c
        c.close()
        assert s.stop() == 0


def plain(value):
    return json.loads(json.dumps(value))


def within(seen, view):
    """Whether everything `seen` shows, `view` shows too (a count where the view has the list: a hand)."""
    if seen == view:
        return True
    if isinstance(seen, dict) and isinstance(view, dict):
        return all(k in view and within(v, view[k]) for k, v in seen.items())
    if isinstance(seen, list) and isinstance(view, list):
        return len(seen) == len(view) and all(within(a, b) for a, b in zip(seen, view))
    return isinstance(seen, int) and isinstance(view, list) and seen == len(view)


def check_spectator(spectator, views):
    for p, view in enumerate(views):
        assert within(spectator, view), "a spectator sees something seat %d does not" % (p + 1)
    assert spectator["players"] and all("hand" not in q or isinstance(q["hand"], int) for q in spectator["players"])


@pytest.mark.parametrize("game, players", GAMES)
def test_each_seat_sees_its_view_and_spectators_no_hand(client, game, players):
    out = client.create(game, ["human"] * players, seed=21)
    t = tokens_of(out)
    truth = meeple.new(game, seed=21, players=players)
    rng = random.Random(5)
    for step in range(STEPS):
        views = [plain(truth.view(p)) for p in range(1, players + 1)]
        for p in range(1, players + 1):
            d = client.doc(out["id"], t[p])
            assert d["view"] == views[p - 1], "seat %d's view differs from s:view(%d) at decision %d" % (p, p, step)
            history = [{"n": i + 1, "seat": e["player"], "text": e["action"]} for i, e in enumerate(truth.history(p))]
            assert d["history"] == history
        spectator = client.doc(out["id"])["view"]
        check_spectator(spectator, views)
        full = plain(truth.table())
        for q in range(players):  # a hand is a list of cards only in its owner's view
            hand = full["players"][q].get("hand")
            if isinstance(hand, list) and hand:
                assert spectator["players"][q].get("hand") != hand
        if truth.is_over():
            break
        mover = truth.to_move()
        action = rng.choice(truth.legal())
        status, _ = client.act(out["id"], t[mover], action)
        assert status == 200
        truth.play(action)
