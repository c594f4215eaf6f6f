"""Load on the loopback (soak): 100 games at once, each with one human seat driven through the API —
woken by its live stream, acting on its turn — and bot seats moving on the server. Prints the action
latency (p50, p99, of POST /api/games/ID/actions) and the server's peak memory (VmHWM): the README's
figures. Every game must end, no request may fail."""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serve_util import Client, Server, tmpdir, tokens_of  # noqa: E402

GAMES = int(os.environ.get("SERVE_LOAD_GAMES", "100"))
KINDS = [("babel", ["human", "greedy_babel"]), ("citadels", ["human", "greedy_citadels", "greedy_citadels", "random"])]


def events(port, gid, token):
    """The documents of a live stream, one by one."""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(("GET /api/games/%s/events?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (gid, token, port)).encode())
    f = s.makefile("rb")
    while f.readline() not in (b"\r\n", b""):
        pass
    try:
        while True:
            line = f.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                yield json.loads(line[6:])
    finally:
        s.close()


def drive(port, created, latencies, errors):
    gid, token = created["id"], tokens_of(created)[1]
    c = Client(port)
    acted = -1
    try:
        for doc in events(port, gid, token):
            if doc["over"]:
                return
            if doc["your_turn"] and doc["decisions"] > acted:
                acted = doc["decisions"]
                t0 = time.perf_counter()
                status, out = c.act(gid, token, doc["legal"][0])
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    errors.append(out)
                    return
    except Exception as e:  # noqa: BLE001 — reported below
        errors.append(repr(e))
    finally:
        c.close()


def peak_memory_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_hundred_games_at_once_with_bots():
    with tmpdir() as d:
        s = Server(os.path.join(d, "load.db"), "--max-games", str(GAMES + 10))
        c = s.client()
        made = [c.create(*KINDS[i % len(KINDS)], seed=i + 1) for i in range(GAMES)]
        latencies, errors = [], []
        t0 = time.time()
        threads = [threading.Thread(target=drive, args=(s.port, g, latencies, errors)) for g in made]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        elapsed = time.time() - t0
        over = sum(c.doc(g["id"])["over"] for g in made)
        decisions = sum(c.doc(g["id"])["decisions"] for g in made)
        c.close()
        hwm = peak_memory_kib(s.proc.pid)
        cpu = cpu_seconds(s.proc.pid)
        assert s.stop() == 0
        latencies.sort()
        p50 = latencies[len(latencies) // 2] * 1e3
        p99 = latencies[int(len(latencies) * 0.99)] * 1e3
        print("\nserve load: %d games (%d decisions, %d by the API) in %.1f s; action latency p50 %.1f ms, "
              "p99 %.1f ms; server peak memory (VmHWM) %.1f MiB, CPU %.1f s; load average %.1f" %
              (GAMES, decisions, len(latencies), elapsed, p50, p99, hwm / 1024, cpu, os.getloadavg()[0]))
        assert not errors, errors[:3]
        assert over == GAMES
