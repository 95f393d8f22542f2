"""Side-channel throughput: one big reply between two processes, plaintext and TLS.

Three ways of moving the same ``--mb`` MiB buffer from a server process to this
one, alternated run by run so that load from other processes hits all of them:

* ``raw``: a plain loopback socket (``sendmsg`` / ``recv_into`` with
  ``MSG_WAITALL``), the ceiling of anything built on TCP here;
* ``bulk``: a side-channel call (``bulk.BulkListener`` / ``bulk_client.BulkPool``)
  whose reply is the buffer, over a pooled authenticated connection;
* ``bulk-tls``: the same over TLS, with contexts from ``auth.server_credentials``
  and ``auth.channel_credentials`` (a fresh self-signed certificate, made with
  the ``openssl`` command line tool).

    python benchmarks/side_channel_bench.py [--mb 64] [--calls 12] [--runs 5]

Prints one line per run and per way (median GB/s of the run's calls, after two
warm-up calls), then the median over the runs; 1 GB = 10^9 bytes.
"""

from __future__ import annotations

import argparse
import logging
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from tensorfleet.transport import auth, bulk, bulk_client

logger = logging.getLogger(__name__)

TOKEN = "side-channel-bench-token"
WAYS = ("raw", "bulk", "bulk-tls")
WARMUP = 2


def _certificate(directory: str) -> Tuple[str, str]:
    """(certificate, key) of a fresh self-signed certificate for localhost."""
    cert, key = f"{directory}/cert.pem", f"{directory}/key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    return cert, key


def _serve(mb: int, cert: str, key: str) -> None:
    """Server side: prints ``raw bulk bulk-tls`` ports, serves until stdin closes."""
    payload = np.ones(mb << 20, np.uint8)

    def call(name: str, frame: memoryview) -> Tuple[int, List[np.ndarray], int]:
        return bulk.STATUS_OK, [payload], payload.nbytes

    tls = auth.side_channel_tls(auth.server_credentials(cert, key))
    plain = bulk.BulkListener("localhost", TOKEN, lambda k: None, call=call).start()
    secure = bulk.BulkListener("localhost", TOKEN, lambda k: None, call=call, tls=tls).start()
    raw = socket.create_server(("127.0.0.1", 0))

    def raw_loop() -> None:
        conn, _ = raw.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        view = memoryview(payload)
        while conn.recv(1):
            conn.sendall(view)
        conn.close()

    threading.Thread(target=raw_loop, daemon=True).start()
    print(raw.getsockname()[1], plain.port, secure.port, flush=True)
    sys.stdin.read()
    plain.stop()
    secure.stop()
    raw.close()


def _time_raw(port: int, nbytes: int, calls: int) -> List[float]:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out = np.empty(nbytes, np.uint8)
    view = memoryview(out)
    times = []
    try:
        for _ in range(calls):
            start = time.perf_counter()
            sock.sendall(b"x")
            got = 0
            while got < nbytes:
                k = sock.recv_into(view[got:], nbytes - got, socket.MSG_WAITALL)
                if not k:
                    raise EOFError("the raw server closed the connection")
                got += k
            times.append(time.perf_counter() - start)
    finally:
        sock.close()
    return times


def _time_bulk(port: int, nbytes: int, calls: int, tls: Optional[object]) -> List[float]:
    pool = bulk_client.BulkPool()
    times = []
    try:
        for _ in range(calls):
            start = time.perf_counter()
            status, buf = pool.call("localhost:1", port, TOKEN, "bench.Side/Big", [b"x"], 1,
                                    time.monotonic() + 120, nbytes, tls)
            times.append(time.perf_counter() - start)
            if status != 0 or buf.nbytes != nbytes:
                raise RuntimeError(f"bad reply: status {status}, {buf.nbytes} bytes")
            del buf
    finally:
        pool.close_all()
    return times


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the benchmark; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--serve", nargs=2, metavar=("CERT", "KEY"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.mb, *args.serve)
        return 0
    nbytes = args.mb << 20
    results: Dict[str, List[float]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory() as tmp:
        cert, key = _certificate(tmp)
        tls = auth.side_channel_tls(auth.channel_credentials(ca_file=cert))
        for run in range(args.runs):
            server = subprocess.Popen(
                [sys.executable, __file__, "--mb", str(args.mb), "--serve", cert, key],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                raw_port, plain_port, tls_port = map(int, server.stdout.readline().split())
                order = WAYS if run % 2 == 0 else tuple(reversed(WAYS))
                for way in order:
                    if way == "raw":
                        times = _time_raw(raw_port, nbytes, args.calls + WARMUP)
                    else:
                        times = _time_bulk(plain_port if way == "bulk" else tls_port, nbytes,
                                           args.calls + WARMUP, tls if way == "bulk-tls" else None)
                    gbps = nbytes / 1e9 / statistics.median(times[WARMUP:])
                    results[way].append(gbps)
                    print(f"run {run}: {way:9s} {gbps:5.2f} GB/s", flush=True)
            finally:
                server.stdin.close()
                server.wait(30)
    print(f"median of {args.runs} runs, {args.mb} MiB:")
    for way in WAYS:
        print(f"  {way:9s} {statistics.median(results[way]):5.2f} GB/s  "
              f"(runs: {', '.join(f'{x:.2f}' for x in results[way])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
