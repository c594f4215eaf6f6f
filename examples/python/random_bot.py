#!/usr/bin/env python3
"""random_bot.py: an external meeple bot (docs/protocol.md) that picks a legal action at random.

    meeple match babel exec:examples/python/random_bot.py random

meeple sends one JSON object a line on stdin; to each "decide" the bot answers one line on stdout:
a legal action, or its number in "legal" (from 1). Python's standard library only.
"""
import json
import random
import sys


def main():
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            rng.seed(msg["seed"])  # the seat's own seed: the same match plays the same again
        elif msg["type"] == "decide":
            print(rng.choice(msg["legal"]), flush=True)
        elif msg["type"] == "game_over":
            print("ready", flush=True)  # another game, in this process; or `break` to exit


if __name__ == "__main__":
    main()
