#!/usr/bin/env python3
"""ismcts_bot.py: an external meeple bot that thinks (docs/protocol.md: "My bot thinks").

    PYTHONPATH=build/python meeple match babel exec:'python3 examples/python/ismcts_bot.py' greedy_babel --games 50

(the `meeple` module must be importable by that python3: built for it, on PYTHONPATH or installed;
docs/python.md).

At each decision it asks meeple for samples — whole positions consistent with what its seat sees,
the hidden cards dealt anew — and runs an information-set Monte Carlo tree search over them with
the `meeple` Python module (docs/python.md): one tree of its own and its opponents' moves, each
iteration walking it in the next sample and playing the game out in C, where the imagined players
follow the game's playout policy. It answers the action tried most often. Any game; tuned on Babel.
Options: --think SHARE (of the time limit per decision, `ms`; default 0.25), --samples K (per decision, default 64).
"""
import argparse
import json
import math
import random
import sys
import time

import meeple

C = 0.7         # UCB1's exploration constant
MARGIN = 0.4    # a finished game's worth: 0.6 for the win, 0.4 for the score lead...
SCALE = 4.0     # ...a lead this big being worth about 0.76 of that part
SAFETY_MS = 150  # never think closer than this to the time limit (a loaded machine stalls)
PLAYOUT_CAP = 1000  # decisions a playout plays at most: greedy players can go round in circles


class Node:
    __slots__ = ("parent", "action", "player", "children", "visits", "wins", "avail")

    def __init__(self, parent, action, player):
        self.parent, self.action, self.player = parent, action, player
        self.children, self.visits, self.wins, self.avail = {}, 0, 0.0, 0


def rewards(state, players):
    """Each seat's worth of a game, from 0 to 1: mostly the win, partly the score lead (all of it
    where the playout stopped short of the end)."""
    scores, winners = state.scores(), state.winners()
    worth = []
    for p in range(players):
        lead = scores[p] - max(scores[q] for q in range(players) if q != p)
        w = 1 / (1 + math.exp(-lead / SCALE * 1.15))
        if winners:
            w = MARGIN * w + ((1 - MARGIN) / len(winners) if p + 1 in winners else 0)
        worth.append(w)
    return worth


def iterate(root, sample, players, rng):
    """One walk: down the tree in this sample, one new node, a playout to the end, the result back up."""
    s, node = sample.clone(), root
    legal = s.legal()
    while legal:
        children = node.children
        for a in legal:
            child = children.get(a)
            if child:
                child.avail += 1  # visits are compared with how often the action could be played
        if any(a not in children for a in legal):
            # Expand: the playout policy's favourite among the untried actions first.
            a = next(a for a in s.ranked(seed=rng.getrandbits(31)) if a not in children)
            node = children[a] = Node(node, a, s.to_move())
            node.avail = 1
            s.play(a)
            break
        best, best_ucb = None, -1.0
        for a in legal:
            child = children[a]
            ucb = child.wins / child.visits + C * math.sqrt(math.log(child.avail) / child.visits)
            if ucb > best_ucb:
                best, best_ucb = child, ucb
        node = best
        s.play(node.action)
        legal = s.legal()
    s.playout(PLAYOUT_CAP, seed=rng.getrandbits(31), greedy=1.0)
    r = rewards(s, players)
    while node is not root:
        node.visits += 1
        node.wins += r[node.player - 1]
        node = node.parent
    root.visits += 1


def search(samples, legal, deadline, rng):
    """The action of `legal` the search tried most often, and the iterations it ran."""
    root, n = Node(None, None, None), 0
    players = samples[0].num_players()
    while time.monotonic() < deadline:
        iterate(root, samples[n % len(samples)], players, rng)
        n += 1
    visits = [root.children[a].visits if a in root.children else -1 for a in legal]
    return legal[visits.index(max(visits))], n


def ask_samples(lines, k, rng):
    """The samples request of protocol 1: K positions consistent with this seat's view."""
    print(json.dumps({"type": "sample", "n": k, "seed": rng.getrandbits(31)}), flush=True)
    reply = json.loads(next(lines))
    if reply.get("type") != "samples":
        sys.exit(f"ismcts_bot: asked for samples, got {reply.get('type')!r}")
    return [meeple.load(text) for text in reply["saves"]]


def main():
    opts = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    opts.add_argument("--think", type=float, default=0.25, help="share of the time limit per decision to think")
    opts.add_argument("--samples", type=int, default=64, help="samples to ask for per decision")
    args = opts.parse_args()
    rng, lines = random.Random(), iter(sys.stdin)
    for line in lines:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if "sample_max" not in msg:  # a meeple from before samples: this bot cannot think there
                sys.exit("ismcts_bot: this meeple offers no samples (no sample_max in hello)")
            rng.seed(msg["seed"])  # the seat's own seed; searches stop by the clock, so games may vary
            k, think_ms = max(1, min(args.samples, msg["sample_max"])), msg["ms"] * args.think
        elif msg["type"] == "decide":
            start, legal = time.monotonic(), msg["legal"]
            if len(legal) == 1:
                print(1, flush=True)
                continue
            ms = min(think_ms, msg["ms_left"] - min(SAFETY_MS, msg["ms_left"] / 2))
            samples = ask_samples(lines, k, rng)
            action, n = search(samples, legal, start + ms / 1000, rng)
            print(f"{len(samples)} samples, {n} playouts, {1000 * (time.monotonic() - start):.0f} ms",
                  file=sys.stderr)
            print(legal.index(action) + 1, flush=True)
        elif msg["type"] == "game_over":
            print("ready", flush=True)


if __name__ == "__main__":
    main()
