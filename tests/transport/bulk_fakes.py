"""A stand-in for a side-channel listener: authenticates like the real one, reads one
request, answers it with canned bytes (or not at all), then waits to be closed."""

import os
import socket
import threading
from typing import Callable, Optional

from tensorfleet.transport import bulk, handshake


class FakeListener:
    """Accepts one connection on a loopback port (``port``); ``reply=None`` never answers."""

    def __init__(self, token: str = "", reply: Optional[bytes] = None,
                 request_bytes: Optional[int] = None) -> None:
        self._key, self._reply = token.encode(), reply
        # A parked-reply request has a fixed size; a call request is read as it comes.
        self._request_bytes = request_bytes
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(10)
            _, _, _, cn = bulk._HELLO.unpack(conn.recv(bulk._HELLO.size, socket.MSG_WAITALL))
            sn = os.urandom(16)
            mac = handshake.mac(self._key, handshake.ROLE_ACCEPTOR, bulk.transcript(cn, sn))
            conn.sendall(bulk._CHALLENGE.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, sn, mac))
            conn.recv(bulk._PROOF.size, socket.MSG_WAITALL)
            conn.sendall(bulk._VERDICT.pack(bulk.MAGIC, bulk.BULK_VERSION, 0))
            if self._request_bytes is None:
                conn.recv(1 << 16)
            else:
                conn.recv(self._request_bytes, socket.MSG_WAITALL)
            if self._reply is not None:
                conn.sendall(self._reply)
            self.release.wait(10)

    def close(self) -> None:
        self.release.set()
        self.thread.join(10)
        self.sock.close()


def read_until_closed(sock: socket.socket, limit: float = 5.0) -> bytes:
    """Everything the peer sends until it closes the connection (or ``limit`` seconds)."""
    sock.settimeout(limit)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except ConnectionResetError:
        return data


def run_in_threads(worker: Callable[[int], None], count: int, timeout: float = 60) -> None:
    """Runs ``worker(0) .. worker(count - 1)`` on their own threads and waits for them."""
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
