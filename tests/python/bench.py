"""bench.py [GAME] [--games N] [--rounds R] [--meeple EXE] [--json] — what a random decision costs through
the Python module, against the C core's own figure (`meeple bench GAME --json`) and Python's own cost for
the same calls, in the manner of `meeple bench`: the same games timed in rounds, the median and spread.

    PYTHONPATH=build/python /usr/bin/python3 tests/python/bench.py babel

A decision is `legal = s.legal(); s.play(legal[k % len(legal)])`. Python's own cost is the same loop over
C functions that do nothing but return a fresh list of as many strings and take one argument; the host's
overhead is what the module adds beyond that and beyond the core's own decision (legal actions generated,
one checked and applied)."""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

import meeple


def decide(states, picks, rounds):
    """ns per decision of random play through the module, per round (the states are played anew)."""
    per_round = []
    for _ in range(rounds):
        games = [s.clone() for s in states]
        decisions, elapsed = 0, 0
        for s in games:
            i, limit = 0, len(picks)
            start = time.perf_counter_ns()
            while not s.is_over() and i < limit:
                legal = s.legal()
                s.play(legal[picks[i] % len(legal)])
                i += 1
            elapsed += time.perf_counter_ns() - start
            decisions += i
        per_round.append(elapsed / decisions)
    return per_round, decisions


class Stand:
    """The same calls without meeple, each a C function doing next to nothing: is_over() returns None,
    legal() a fresh list of as many strings, play() takes one."""

    def __init__(self, width):
        self.is_over = {}.clear
        self.legal = ["action %d" % i for i in range(width)].copy
        self.play = id


def python_cost(width, picks, rounds, count):
    """ns per decision for Python's own calls: the loop of decide() over a stand-in state."""
    per_round = []
    stand = Stand(width)
    for _ in range(rounds):
        start = time.perf_counter_ns()
        s = stand
        i = 0
        while not s.is_over() and i < count:
            legal = s.legal()
            s.play(legal[picks[i] % len(legal)])
            i += 1
        per_round.append((time.perf_counter_ns() - start) / count)
    return per_round


def core_cost(exe, game, players):
    args = [exe, "bench", game, "--json"] + (["--players", str(players)] if players else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="babel")
    parser.add_argument("--players", type=int)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--meeple", default=os.environ.get("MEEPLE_EXE", os.path.join(here, "..", "..", "build", "meeple")))
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args()
    try:
        states = [meeple.new(a.game, players=a.players, seed=seed) for seed in range(1, a.games + 1)]
    except (TypeError, ValueError, meeple.Error) as err:
        sys.exit("bench.py: %s" % err)
    rng = random.Random(1)
    picks = [rng.getrandbits(30) for _ in range(1000000)]
    module, decisions = decide(states, picks, a.rounds)
    widths = [len(s.legal()) for s in states]
    own = python_cost(round(statistics.mean(widths)), picks, a.rounds, decisions // a.games * 4)
    core = core_cost(a.meeple, a.game, a.players)
    med, own_med = statistics.median(module), statistics.median(own)
    figures = {
        "game": a.game, "players": states[0].num_players(), "games": a.games, "decisions": decisions,
        "rounds": a.rounds,
        "python_ns_per_decision": round(med, 1), "python_ns_per_decision_min": round(min(module), 1),
        "python_ns_per_decision_max": round(max(module), 1),
        "python_call_ns": round(own_med, 1), "core_ns_per_decision": core["ns_per_decision"],
        "host_overhead_ns": round(med - own_med - core["ns_per_decision"], 1),
    }
    if a.json:
        print(json.dumps(figures))
        return
    rows = [("ns per decision through Python", "%.1f (%.1f..%.1f)" % (med, min(module), max(module))),
            ("  Python's own calls (legal list, play)", "%.1f" % own_med),
            ("  the C core's decision (meeple bench)", "%.1f" % core["ns_per_decision"]),
            ("  the module's overhead beyond both", "%.1f" % figures["host_overhead_ns"])]
    print("%s, %d players, %d games, %d decisions, %d rounds" % (a.game, figures["players"], a.games, decisions,
                                                                   a.rounds))
    for name, value in rows:
        print("%-42s %s" % (name, value))


if __name__ == "__main__":
    main()
