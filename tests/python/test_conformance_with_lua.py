"""Random play in every game, through Python and through Lua on the same seeds, move by move: the same
legal lists, actions, seats, scores, tables, views, samples, playouts, histories and saves."""
import json
import os
import subprocess

import pytest

import meeple

HERE = os.path.dirname(os.path.abspath(__file__))
# Every game at its smallest and largest player count, and one seat count between.
SPECS = [("babel", 2, 1), ("babel", 2, 2), ("citadels", 2, 3), ("citadels", 4, 4), ("citadels", 7, 5),
         ("bohnanza", 3, 6), ("bohnanza", 5, 7), ("rabohnzel", 3, 8), ("rabohnzel", 5, 9)]


def chooser(seed):
    """The chooser tests/python/random_play.lua uses: a 31-bit LCG picking an index into legal()."""
    x = seed % 2147483648

    def pick(n):
        nonlocal x
        x = (x * 1103515245 + 12345) % 2147483648
        return x % n
    return pick


def plain(tree):
    """Lua's JSON writes an empty table as []: empty dicts read the same."""
    if isinstance(tree, dict):
        return {k: plain(v) for k, v in tree.items()} if tree else []
    if isinstance(tree, list):
        return [plain(v) for v in tree]
    return tree


def play(game, players, seed):
    s = meeple.new(game, players=players, seed=seed)
    pick = chooser(seed)
    steps, marks, mid = [], [], None
    while not s.is_over():
        legal = s.legal()
        action = legal[pick(len(legal))]
        steps.append({"to_move": s.to_move(), "legal": legal, "action": action, "scores": s.scores()})
        if len(steps) % 25 == 1:
            p = s.to_move()
            marks.append({"step": len(steps), "table": s.table(), "view": s.view(p), "ranked": s.ranked(seed),
                          "sample": s.sample(p, seed + len(steps)).table(),
                          "public": s.public_text(action, p % s.num_players() + 1)})
        if len(steps) == 40:
            mid = s.clone()
        s.play(action)
    out = {"game": game, "players": players, "seed": seed, "steps": steps, "marks": marks,
           "winners": s.winners(), "scores": s.scores(), "save": s.save(), "history": s.history(),
           "history_seen": s.history(1), "final": s.table()}
    if mid is not None:
        played = mid.playout(30, seed=seed, greedy=0.5)
        out["playout"] = {"played": played, "table": mid.table(), "save": mid.save()}
    return out


@pytest.fixture(scope="module")
def lua_games(meeple_exe):
    specs = ["%s:%d:%d" % spec for spec in SPECS]
    done = subprocess.run([meeple_exe, "run", os.path.join(HERE, "random_play.lua")] + specs,
                          capture_output=True, text=True, timeout=120, check=True)
    return {(g["game"], g["players"], g["seed"]): g for g in json.loads(done.stdout)}


@pytest.mark.parametrize("game,players,seed", SPECS)
def test_random_play_matches_lua_move_by_move(lua_games, game, players, seed):
    lua = lua_games[(game, players, seed)]
    py = play(game, players, seed)
    assert len(py["steps"]) == len(lua["steps"]), "the games differ in length"
    for i, (a, b) in enumerate(zip(py["steps"], lua["steps"])):
        assert a == b, "decision %d differs" % (i + 1)
    assert len(py["marks"]) == len(lua["marks"])
    for a, b in zip(py["marks"], lua["marks"]):
        assert plain(a) == plain(b), "tables, views, samples or ranked lists differ at decision %d" % a["step"]
    for key in ("winners", "scores", "save", "history", "history_seen", "final", "playout"):
        assert plain(py.get(key)) == plain(lua.get(key)), key + " differs"
