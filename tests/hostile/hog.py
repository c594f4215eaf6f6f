#!/usr/bin/env python3
"""Plays the first legal action, but at its first decision asks for 512 MiB (calloc'd: not touched, so no
real memory is used when it is granted). Under an address-space cap below that, Python's MemoryError
ends it."""
import sys

for line in sys.stdin:
    if '"type":"decide"' in line:
        hoard = bytearray(512 << 20)
        print(1, flush=True)
    elif '"type":"game_over"' in line:
        print("ready", flush=True)
