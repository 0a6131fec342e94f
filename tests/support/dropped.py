"""Connections a browser drops: raw sockets that reset (RST) or close at every stage of a request."""

from __future__ import annotations

import socket
import struct
import time


def _reset(sock: socket.socket) -> None:
    """Close ``sock`` with a reset (RST) rather than an orderly FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def drop_connections(port: int, path: str) -> int:
    """Open connections to 127.0.0.1:``port`` and drop each at another stage of a GET of ``path`` (a large
    file, so that the server is still writing when the reset arrives); the number dropped."""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n".encode()
    stages = [
        lambda s: None,  # connected, nothing sent
        lambda s: s.sendall(request[:10]),  # half a request line
        lambda s: s.sendall(request),  # the request, no answer read
        lambda s: (s.sendall(request), s.recv(100)),  # the first bytes of the answer
        lambda s: (s.sendall(request), s.recv(100_000)),  # some of the body
        lambda s: (s.sendall(request * 3), s.recv(10)),  # pipelined requests
    ]
    for stage in stages * 2:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        stage(sock)
        time.sleep(0.05)  # the server is writing into a full buffer when the reset arrives
        _reset(sock)
    for stage in stages[2:]:  # and a plain close (FIN) while the server still writes
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        stage(sock)
        sock.close()
    time.sleep(0.5)  # the server threads meet the closed connections
    return len(stages) * 2 + len(stages) - 2
