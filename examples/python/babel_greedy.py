#!/usr/bin/env python3
"""babel_greedy.py: a one-look Babel bot over meeple's line protocol (docs/protocol.md).

    meeple match babel exec:examples/python/babel_greedy.py greedy_babel --games 50

It scores each legal action by what it does at once: build and leap first (temple points), then
steal and collapse (the opponent's points), then settling where the row still lacks cards for the
next level, and travelling where the hand can fill that row; ending the turn last. Ties go to the
first listed, so its games replay. Python's standard library only.
"""
import json
import sys


def height(site):
    return site[-1] if site else 0


def worth(action, me):
    word, *rest = action.split()
    pawn = me["pawn"]
    if word in ("build", "leap"):
        return 100
    if word in ("steal", "collapse"):
        return 80
    if word == "settle" and pawn in me["rows"]:
        short = height(me["temples"][pawn]) + 1 - len(me["rows"][pawn])
        return 50 if short > 0 else 5
    if word == "travel":
        short = height(me["temples"][rest[0]]) + 1 - len(me["rows"][rest[0]])
        return 40 - short if 0 < short < len(me["hand"]) else 2
    if word in ("halve", "expel", "switch"):
        return 30
    return 0 if word == "end" else 1


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        seat = msg["seat"]
    elif msg["type"] == "decide":
        me = msg["view"]["players"][seat - 1]
        scores = [worth(a, me) for a in msg["legal"]]
        print(scores.index(max(scores)) + 1, flush=True)  # answers by number: the first best
    elif msg["type"] == "game_over":
        print("ready", flush=True)
