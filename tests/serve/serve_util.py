"""serve_util.py — `meeple serve` under test: a server on a free port of 127.0.0.1 with its database in a
temporary folder, and a small HTTP client (urllib's http.client: no traffic leaves the loopback)."""
import atexit
import http.client
import json
import os
import signal
import subprocess
import tempfile
import time

EXE = os.environ.get("MEEPLE_EXE", "meeple")

# Every server started here, so that one a failed test left running is killed when pytest exits: an
# orphan would hold its port and make the suite's no-process check fail as well, hiding the real failure.
STARTED = []


@atexit.register
def kill_leftovers():
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Server:
    """A running `meeple serve --port 0 --db DB`; stop() ends it (SIGTERM) and returns its status."""

    def __init__(self, db, *extra):
        self.db = db
        env = dict(os.environ)
        # Under the sanitizers Python runs without leak checks (it is not instrumented); the server is,
        # and a leak makes its exit status non-zero, which stop() returns.
        if "ASAN_OPTIONS" in env:
            env["ASAN_OPTIONS"] = env["ASAN_OPTIONS"].replace("detect_leaks=0", "detect_leaks=1")
        self.proc = subprocess.Popen([EXE, "serve", "--port", "0", "--db", db, *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        STARTED.append(self.proc)
        line = self.proc.stdout.readline()
        if "http://" not in line:
            err = self.proc.stderr.read()
            self.proc.wait()
            raise RuntimeError("meeple serve did not start: %r %r" % (line, err))
        self.address = line
        self.port = int(line.split("http://")[1].split("/")[0].rsplit(":", 1)[1])

    def client(self):
        return Client(self.port)

    # `with Server(...) as s:` stops it even when the test fails inside (no server outlives its test).
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.returncode is None:
            self.stop()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode

    def kill9(self):
        self.proc.kill()  # SIGKILL
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


class Client:
    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def raw(self, method, path, body=None, headers=None):
        """(status, headers, body bytes); a new connection when the server closed the last one."""
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                return r.status, dict(r.getheaders()), r.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    raise

    def get(self, path):
        status, _, body = self.raw("GET", path)
        return status, json.loads(body)

    def post(self, path, obj):
        body = obj if isinstance(obj, (bytes, str)) else json.dumps(obj)
        status, _, out = self.raw("POST", path, body, {"Content-Type": "application/json"})
        return status, json.loads(out)

    def create(self, game, seats, seed=1, **more):
        status, out = self.post("/api/games", dict(game=game, players=len(seats), seed=seed, seats=seats, **more))
        assert status == 201, out
        return out

    def doc(self, gid, token=None):
        status, out = self.get("/api/games/%s%s" % (gid, "?token=" + token if token else ""))
        assert status == 200, out
        return out

    def act(self, gid, token, action):
        return self.post("/api/games/%s/actions" % gid, {"token": token, "action": action})

    def close(self):
        self.conn.close()


def tokens_of(created):
    return {s["seat"]: s.get("token") for s in created["seats"]}


def wait_for(fn, seconds=20):
    """fn() until it answers something true, or fails after `seconds`."""
    end = time.time() + seconds
    while True:
        out = fn()
        if out:
            return out
        if time.time() > end:
            raise AssertionError("still waiting after %s s" % seconds)
        time.sleep(0.01)


def play_first_legal(client, gid, tokens, limit=None):
    """Plays each human seat's first legal action (bots move by themselves) until the end or `limit`
    decisions; the last document a spectator got."""
    while True:
        d = client.doc(gid)
        if d["over"] or (limit is not None and d["decisions"] >= limit):
            return d
        seat = d["to_move"]
        if not tokens.get(seat):
            time.sleep(0.005)
            continue
        mine = client.doc(gid, tokens[seat])
        status, out = client.act(gid, tokens[seat], mine["legal"][0])
        assert status == 200, out


def tmpdir():
    return tempfile.TemporaryDirectory(prefix="serve-test-")
