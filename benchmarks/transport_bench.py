"""Transport benchmark: small-call latency and 64 MB tensor throughput between two processes.

Starts a server subprocess on a free loopback port (it reports the port it
bound), measures from this process, then kills the server by its pid.

    python benchmarks/transport_bench.py [--runs 5] [--calls 2000] [--mb 64]
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

logger = logging.getLogger(__name__)

SERVICE = "bench.Transport"


def _serve(mb: int) -> None:
    """Server side: Echo returns its input, Big a fixed tensor, Sink drops its input."""
    from tensorfleet.transport import RpcServer

    big = np.random.default_rng(0).random((mb << 20) // 4, dtype=np.float32)

    def echo(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        return header, tensors

    def fetch_big(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        return {}, [big]

    def sink(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        return {"bytes": int(sum(t.nbytes for t in tensors))}, []

    server = RpcServer("127.0.0.1:0", SERVICE, {"Echo": echo, "Big": fetch_big, "Sink": sink},
                       token="bench-token").start()
    # The parent reads the bound port from this line; stdout is the only channel back.
    sys.stdout.write(f"{server.port}\n")
    sys.stdout.flush()
    server.wait_for_termination()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), or NaN elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _report(label: str, wall: Sequence[float], cpu_client: Sequence[float],
            cpu_server: Sequence[float], nbytes: int) -> None:
    med = statistics.median(wall)
    # CPU time shows the cost of a transfer even when other jobs share the cores.
    print(f"{label}: median {nbytes / med / 1e9:.2f} GB/s ({med * 1e3:.1f} ms, best "
          f"{nbytes / min(wall) / 1e9:.2f} GB/s); CPU per transfer: client "
          f"{statistics.median(cpu_client) * 1e3:.0f} ms, server "
          f"{statistics.median(cpu_server) * 1e3:.0f} ms")


def _latency(label: str, fn: Any, runs: int, calls: int) -> None:
    for _ in range(200):
        fn()
    medians = []
    for _ in range(runs):
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        medians.append(statistics.median(times))
    print(f"{label}: median {statistics.median(medians) * 1e6:.0f} us "
          f"(per-run medians: {', '.join(f'{m * 1e6:.0f}' for m in medians)} us)")


def _client(port: int, server_pid: int, runs: int, calls: int, mb: int) -> None:
    from tensorfleet.transport import RpcClient, wire

    client = RpcClient(f"127.0.0.1:{port}", SERVICE, token="bench-token")
    client.wait_ready(30)
    small = [np.arange(4, dtype=np.float32)]
    _latency("small call round trip (RpcClient.call)",
             lambda: client.call("Echo", {"step": 1}, small), runs, calls)
    # The same call through the bare gRPC stub, for the cost of the layer itself.
    raw = client._channel.unary_unary(f"/{SERVICE}/Echo")  # noqa: SLF001 - benchmark only
    frame = wire.encode({"step": 1}, small)
    metadata = (("x-tensorfleet-token", "bench-token"),)
    _latency("same call, bare grpcio stub   ", lambda: raw(frame, timeout=10, metadata=metadata),
             runs, calls)

    nbytes = (mb << 20) // 4 * 4
    payload = np.ones(nbytes // 4, dtype=np.float32)
    client.call("Big")

    def fetch() -> None:
        _, (arr,) = client.call("Big")
        if arr.nbytes != nbytes:
            raise RuntimeError(f"expected {nbytes} bytes, got {arr.nbytes}")

    def send() -> None:
        header, _ = client.call("Sink", {}, [payload])
        if header["bytes"] != nbytes:
            raise RuntimeError(f"server received {header['bytes']} bytes")

    for label, fn in ((f"{mb} MB float32 response", fetch), (f"{mb} MB float32 request ", send)):
        wall, cpu_c, cpu_s = [], [], []
        for _ in range(runs):
            c0, s0, t0 = time.process_time(), _cpu_seconds(server_pid), time.perf_counter()
            fn()
            wall.append(time.perf_counter() - t0)
            cpu_c.append(time.process_time() - c0)
            cpu_s.append(_cpu_seconds(server_pid) - s0)
        _report(label, wall, cpu_c, cpu_s, nbytes)


def main(argv: Sequence[str] = ()) -> None:
    """Runs the benchmark (or, with --serve, the server half of it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(list(argv) or None)
    if args.serve:
        _serve(args.mb)
        return
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve",
                             "--mb", str(args.mb)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.strip().isdigit():
            raise RuntimeError(f"the server did not report a port (got {line!r})")
        _client(int(line), proc.pid, args.runs, args.calls, args.mb)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main(sys.argv[1:])
