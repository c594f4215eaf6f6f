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

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from serve_util import Server, tmpdir  # noqa: E402

CONNECTIONS = 10000
MAX_CONNECTIONS = 256
REQUEST_START = b"GET /api/catalog HTTP/1.1\r\n"  # a request line, no headers yet: the server waits


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
    """How many of socks the server closed (EOF or reset): `enough`, or fewer after `seconds`.

    Each socket sends the start of a request once it is connected, as a real client would. A silent
    client can wait forever on a handshake the kernel completed with a SYN cookie while the listen queue
    was full: the server never heard of it (seen with net.core.somaxconn = 128). Data makes the kernel
    deliver it, and the server then sees it and decides."""
    closed = 0
    poll = select.epoll()
    by_fd = {s.fileno(): s for s in socks}
    hear = select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLHUP
    for fd in by_fd:
        poll.register(fd, hear | select.EPOLLOUT)
    end = time.time() + seconds
    while by_fd and closed < enough and time.time() < end:
        for fd, events in poll.poll(0.1):
            if events == select.EPOLLOUT:  # connected, and nothing heard yet
                try:
                    by_fd[fd].send(REQUEST_START)
                except OSError:
                    pass
                poll.modify(fd, hear)
                continue
            try:
                gone = by_fd[fd].recv(1) == b""
            except BlockingIOError:
                gone = False
            except OSError:  # reset
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
    n = min(CONNECTIONS, room)  # 10,000 unless the hard limit on open files is lower
    if n < MAX_CONNECTIONS + 300:
        pytest.skip("too few file descriptors for the test (%d)" % room)
    if n < CONNECTIONS:
        print("serve_connection_flood: %d connections (the limit on open files allows no more)" % n)
    with tmpdir() as d:
        with Server(os.path.join(d, "flood.db"), "--max-connections", str(MAX_CONNECTIONS)) as s:
            flood(s, n)


def flood(s, n):
    """n connections at once; then the server must answer as before and stop cleanly."""
    socks = open_many(s.port, n)
    try:
        assert s.proc.poll() is None
        # everything past the cap is closed at once (a few more may slip in while threads race)
        enough = n - MAX_CONNECTIONS - 128
        refused = closed_by_server(socks, enough, 20)  # under the server's 30 s idle timeout, which would close the held ones too
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
