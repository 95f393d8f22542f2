"""Transport benchmark: small-call latency, reply sizes over gRPC and the bulk side channel.

Starts server subprocesses on free loopback ports (each reports the port it
bound), measures from this process, then kills the servers by their pids:

* ``grpc``: ``TENSORFLEET_BULK=0`` in the server, so replies up to
  ``STREAM_THRESHOLD`` are unary and bigger ones come over ``_Fetch`` (gRPC only);
* ``unary``: the same, with unary replies up to what one gRPC message carries
  (4 MiB), to compare the side channel with a unary reply of the same size;
* ``bulk``: the bulk threshold forced to 0, so every reply is parked and fetched
  over the side channel (handle round trip + raw TCP);
* ``default``: the shipped configuration (``rpc.BULK_THRESHOLD``).

The reply-size table (median round trip of several runs, GB/s, CPU per call) is
where ``BULK_THRESHOLD`` comes from: the size from which ``bulk`` beats both
gRPC paths.

The RecvTensors table (``--recv-only``) compares, through ``RpcClient.call``, a
RecvTensors-like handler (a small request naming keys, a reply of one tensor)
called over gRPC (``grpc``: a server without side channel; ``grpc+fetch``: a
method the service does not declare for the side channel, so unary replies and
side-channel fetches above ``BULK_THRESHOLD``) and over the side channel
(``side``: the method declared in ``bulk_methods``, one raw-TCP round trip).

    python benchmarks/transport_bench.py [--runs 5] [--calls 2000] [--mb 64]
    python benchmarks/transport_bench.py --sizes-only --runs 7
    python benchmarks/transport_bench.py --recv-only --runs 5 --sizes 1,64,800,4096
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, Iterator, List, Sequence, Tuple

import numpy as np

logger = logging.getLogger(__name__)

SERVICE = "bench.Transport"
KIB = 1 << 10
SIZES = (64 * KIB, 256 * KIB, 512 * KIB, 800 * KIB, 1 << 20, 1536 * KIB, 2 << 20, 4 << 20,
         64 << 20)
# The biggest reply one unary gRPC message carries (rpc's message limit less framing).
UNARY_MAX = (4 << 20) + (32 << 10)


def _serve(mb: int, bulk_threshold: int, stream_threshold: int) -> None:
    """Server side: Echo returns its input, Big a fixed tensor, Sink drops its input,
    Sized ``header["n"]`` bytes (one buffer per size, made once)."""
    from tensorfleet.transport import RpcServer, ServiceHandlers, rpc

    if bulk_threshold >= 0:
        rpc.BULK_THRESHOLD = bulk_threshold
    if stream_threshold >= 0:
        rpc.STREAM_THRESHOLD = stream_threshold
    big = np.random.default_rng(0).random((mb << 20) // 4, dtype=np.float32)
    sized: Dict[int, np.ndarray] = {}

    def fetch_sized(header: Dict[str, Any], tensors: List[np.ndarray]
                    ) -> Tuple[Dict[str, Any], list]:
        n = int(header["n"])
        if n not in sized:
            sized[n] = np.random.default_rng(n).integers(0, 255, n, dtype=np.uint8)
        return {}, [sized[n]]

    def echo(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        return header, tensors

    def fetch_big(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        return {}, [big]

    def sink(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        return {"bytes": int(sum(t.nbytes for t in tensors))}, []

    def recv(header: Dict[str, Any], tensors: List[np.ndarray]) -> Tuple[Dict[str, Any], list]:
        # Shaped like RecvTensors: keys in, one float32 tensor per call out.
        if not isinstance(header.get("keys"), list):
            raise ValueError("keys missing")
        return {}, [fetch_sized(header, tensors)[1][0].view(np.float32)]

    handlers = ServiceHandlers({"Echo": echo, "Big": fetch_big, "Sink": sink,
                                "Sized": fetch_sized, "Recv": recv, "RecvGrpc": recv},
                               bulk_methods={"Recv"})
    server = RpcServer("127.0.0.1:0", SERVICE, handlers, token="bench-token").start()
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


def _size_label(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 and n % (1 << 19) == 0 \
        else f"{n >> 10} KiB"


def _sizes_table(clients: Dict[str, Any], pids: Dict[str, int], runs: int,
                 sizes: Sequence[int]) -> None:
    """Per reply size and path: median round trip, GB/s, CPU (client + server) per call.

    The paths take turns within each run, so that load from other processes on
    the machine (and its drift) falls on all of them alike.
    """
    from tensorfleet.transport import rpc

    print(f"\nreply sizes: round trip (median of {runs} runs, each the median of several "
          f"calls), GB/s, CPU ms per call (client + server); default parks replies above "
          f"{_size_label(rpc.BULK_THRESHOLD)}")
    names = list(clients)
    print(f"{'reply':>8} | " + " | ".join(f"{n + ' ms':>10} {'GB/s':>5} {'cpu':>5}"
                                          for n in names) + " | faster")
    for size in sizes:
        calls = max(3, min(50, (32 << 20) // size))
        per_run: Dict[str, List[float]] = {n: [] for n in names}
        cpu = {n: 0.0 for n in names}
        for name in names:
            for _ in range(2):  # warm-up: connections, the server's cached buffer
                clients[name].call("Sized", {"n": size}, timeout=120)
        for _ in range(runs):
            for name in names:
                times = []
                c0, s0 = time.process_time(), _cpu_seconds(pids[name])
                for _ in range(calls):
                    t0 = time.perf_counter()
                    _, (arr,) = clients[name].call("Sized", {"n": size}, timeout=120)
                    times.append(time.perf_counter() - t0)
                    if arr.nbytes != size:
                        raise RuntimeError(f"expected {size} bytes, got {arr.nbytes}")
                cpu[name] += time.process_time() - c0 + _cpu_seconds(pids[name]) - s0
                per_run[name].append(statistics.median(times))
        med = {n: statistics.median(v) for n, v in per_run.items()}
        row = " | ".join(f"{med[n] * 1e3:10.3f} {size / med[n] / 1e9:5.2f} "
                         f"{cpu[n] / (runs * calls) * 1e3:5.2f}" for n in names)
        best = min((n for n in names if n not in ("bulk", "default")), key=med.__getitem__)
        winner = "bulk" if med["bulk"] < med[best] else best
        print(f"{_size_label(size):>8} | {row} | {winner} "
              f"({max(med['bulk'], med[best]) / min(med['bulk'], med[best]):.2f}x)")


def _recv_table(clients: Dict[str, Any], pids: Dict[str, int], runs: int,
                sizes: Sequence[int]) -> None:
    """RecvTensors-like calls through ``RpcClient.call``: gRPC against the side channel."""
    paths = {"grpc": (clients["grpc"], "Recv", pids["grpc"]),
             "grpc+fetch": (clients["default"], "RecvGrpc", pids["default"]),
             "side": (clients["default"], "Recv", pids["default"])}
    if not clients["default"].side_channel():
        raise RuntimeError("the default server offers no side channel")
    keys = [f"/job:ps/task:0;0000000000000001;/job:worker/task:0;w{i}:0;0:0" for i in range(4)]
    print(f"\nRecvTensors-like calls (RpcClient.call): round trip (median of {runs} runs, "
          f"each the median of several calls), CPU ms per call (client + server)")
    print(f"{'reply':>8} | " + " | ".join(f"{n + ' ms':>13} {'cpu':>5}" for n in paths)
          + " | side vs grpc+fetch")
    for size in sizes:
        calls = max(5, min(300, (64 << 20) // size))
        per_run: Dict[str, List[float]] = {n: [] for n in paths}
        cpu = {n: 0.0 for n in paths}
        for client, method, _ in paths.values():
            for _ in range(3):  # warm-up: connections, the server's cached buffer
                client.call(method, {"keys": keys, "n": size}, timeout=120)
        for _ in range(runs):
            for name, (client, method, pid) in paths.items():
                times = []
                c0, s0 = time.process_time(), _cpu_seconds(pid)
                for _ in range(calls):
                    t0 = time.perf_counter()
                    _, (arr,) = client.call(method, {"keys": keys, "n": size}, timeout=120)
                    times.append(time.perf_counter() - t0)
                    if arr.nbytes != size:
                        raise RuntimeError(f"expected {size} bytes, got {arr.nbytes}")
                cpu[name] += time.process_time() - c0 + _cpu_seconds(pid) - s0
                per_run[name].append(statistics.median(times))
        med = {n: statistics.median(v) for n, v in per_run.items()}
        row = " | ".join(f"{med[n] * 1e3:13.3f} {cpu[n] / (runs * calls) * 1e3:5.2f}"
                         for n in paths)
        print(f"{_size_label(size):>8} | {row} | {med['grpc+fetch'] / med['side']:.2f}x")


def _client(ports: Dict[str, int], pids: Dict[str, int], runs: int, calls: int, mb: int,
            sizes: Sequence[int], sizes_only: bool, recv_only: bool = False) -> None:
    from tensorfleet.transport import RpcClient, wire

    clients = {name: RpcClient(f"127.0.0.1:{port}", SERVICE, token="bench-token")
               for name, port in ports.items()}
    for c in clients.values():
        c.wait_ready(30)
    if recv_only:
        _recv_table(clients, pids, runs, sizes)
        return
    _sizes_table(clients, pids, runs, sizes)
    if sizes_only:
        return
    client, server_pid = clients["default"], pids["default"]
    print()
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

    for label, fn in ((f"{mb} MB float32 response (default)", fetch),
                      (f"{mb} MB float32 request             ", send)):
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
    parser.add_argument("--sizes-only", action="store_true",
                        help="only the reply-size table")
    parser.add_argument("--recv-only", action="store_true",
                        help="only the RecvTensors table: gRPC against side channel calls")
    parser.add_argument("--sizes", default=",".join(str(n >> 10) for n in SIZES),
                        help="reply sizes in KiB, comma-separated")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bulk-threshold", type=int, default=-1, help=argparse.SUPPRESS)
    parser.add_argument("--stream-threshold", type=int, default=-1, help=argparse.SUPPRESS)
    args = parser.parse_args(list(argv) or None)
    if args.serve:
        _serve(args.mb, args.bulk_threshold, args.stream_threshold)
        return
    # name -> (server environment, bulk threshold, reply stream threshold); -1: as shipped.
    configs = {"grpc": ({"TENSORFLEET_BULK": "0"}, -1, -1),
               "unary": ({"TENSORFLEET_BULK": "0"}, -1, UNARY_MAX),
               "bulk": ({}, 0, -1),
               "default": ({}, -1, -1)}
    if args.recv_only:
        configs = {name: configs[name] for name in ("grpc", "default")}
    with contextlib.ExitStack() as stack:
        ports, pids = {}, {}
        for name, (env, bulk_at, stream_at) in configs.items():
            ports[name], pids[name] = stack.enter_context(
                _server(args.mb, env, bulk_at, stream_at))
        sizes = [int(k) << 10 for k in args.sizes.split(",") if k.strip()]
        _client(ports, pids, args.runs, args.calls, args.mb, sizes, args.sizes_only,
                args.recv_only)


@contextlib.contextmanager
def _server(mb: int, env: Dict[str, str], bulk_threshold: int,
            stream_threshold: int) -> Iterator[Tuple[int, int]]:
    """A server subprocess: yields (port, pid); killed by its pid on exit."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    environ.pop("TENSORFLEET_BULK", None)
    environ.update(env)
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve",
                             "--mb", str(mb), "--bulk-threshold", str(bulk_threshold),
                             "--stream-threshold", str(stream_threshold)],
                            stdout=subprocess.PIPE, text=True, env=environ)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.strip().isdigit():
            raise RuntimeError(f"the server did not report a port (got {line!r})")
        yield int(line), proc.pid
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main(sys.argv[1:])
