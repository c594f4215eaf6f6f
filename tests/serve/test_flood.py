"""10,000 connections opened at once to `meeple serve` (loopback only, a bounded loop that ends by
itself): past --max-connections the server closes new ones at once — never a crash, never a hang — and
once they are gone it answers as before."""
import errno
import os
import resource
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from serve_util import Server, tmpdir  # noqa: E402

CONNECTIONS = 10000
MAX_CONNECTIONS = 256


def open_many(port, n):
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex(("127.0.0.1", port))
        if err not in (0, errno.EINPROGRESS, errno.EAGAIN):
            s.close()
            continue
        socks.append(s)
    return socks


def closed_by_server(socks, enough, seconds):
    """How many of socks the server closed (EOF or reset): `enough`, or fewer after `seconds`."""
    closed = 0
    poll = select.epoll()
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        poll.register(fd, select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLHUP)
    end = time.time() + seconds
    while by_fd and closed < enough and time.time() < end:
        for fd, _ in poll.poll(0.1):
            try:
                gone = by_fd[fd].recv(1) == b""
            except (ConnectionResetError, OSError):
                gone = True
            if gone:
                closed += 1
                poll.unregister(fd)
                del by_fd[fd]
    poll.close()
    return closed


def test_ten_thousand_connections_are_refused_gracefully():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = CONNECTIONS + 200
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    room = resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 100
    n = min(CONNECTIONS, room)
    assert n >= 1000, "too few file descriptors for the test (%d)" % room
    with tmpdir() as d:
        s = Server(os.path.join(d, "flood.db"), "--max-connections", str(MAX_CONNECTIONS))
        socks = open_many(s.port, n)
        try:
            assert s.proc.poll() is None
            # everything past the cap is closed at once (a few more may slip in while threads race)
            enough = n - MAX_CONNECTIONS - 128
            refused = closed_by_server(socks, enough, 30)
            assert refused >= enough, "only %d of %d connections closed" % (refused, n)
            assert s.proc.poll() is None, "the server died"
        finally:
            for sock in socks:
                sock.close()
        c = s.client()
        deadline = time.time() + 30
        while True:  # the server frees the connections it held as it sees them closed
            try:
                status, _, _ = c.raw("GET", "/api/catalog")
                break
            except OSError:
                assert time.time() < deadline, "the server does not answer after the flood"
                time.sleep(0.2)
        assert status == 200
        c.close()
        assert s.stop() == 0
