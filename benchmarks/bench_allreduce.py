"""All-reduce bandwidth of tensorfleet's ring against torch.distributed's gloo backend.

Both run the same job in the same invocation, alternating: ``n`` worker
processes on loopback all-reduce (sum) a float32 tensor of ``size`` MiB, each
call preceded by a barrier and timed on its own; a run reports rank 0's median
call time. The table shows the median over runs of

    bus bandwidth = size / time * 2 (n - 1) / n      (GB/s, 1 GB = 10^9 bytes)

which is the rate at which each rank's link carries data in a ring, so it is
comparable between group sizes; in parentheses the best run's figure, and the
process CPU time per call of rank 0.

The ``fusion`` case trains a model with many small variables on 2 processes with
``DistributedOptimizer`` and reports steps/s with tensor fusion (one buffer up to
the threshold) and without it (one reduction per gradient).

    python benchmarks/bench_allreduce.py                      # 4 and 64 MiB, 2 and 3 processes
    python benchmarks/bench_allreduce.py --sizes 64 --procs 2 --repeats 3
    python benchmarks/bench_allreduce.py --cases fusion
    python benchmarks/bench_allreduce.py --sides tensorfleet,gloo,tensorfleet-grpc

``torch`` must be importable for the gloo side (``pip install torch``); without
it the gloo columns are left empty.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

logger = logging.getLogger("bench_allreduce")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MIB = 1 << 20


def _free_ports(n: int) -> List[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


# ----------------------------------------------------------------------------- workers


def _cpu() -> float:
    """CPU seconds (user + system) this process has used, all threads."""
    import resource
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _ring_options() -> Dict[str, int]:
    """RingGroup tuning from the environment (for experiments; defaults otherwise)."""
    out = {}
    for env, key in (("BENCH_CHUNK_BYTES", "chunk_bytes"), ("BENCH_SOCKET_BUFFER", "buffer_bytes")):
        if os.environ.get(env):
            out[key] = int(os.environ[env])
    return out


def _tensorfleet_worker(rank: int, n: int, ports: List[int], size_mib: int, iters: int,
                        transport: str = "tcp") -> Dict:
    import numpy as np
    from tensorfleet.collectives import RingGroup
    group = RingGroup([f"127.0.0.1:{p}" for p in ports], rank, "bench", timeout=60,
                      transport=transport, **_ring_options())
    x = np.full(size_mib * MIB // 4, rank + 1, np.float32)
    out = np.empty_like(x)
    times = []
    for i in range(iters + 2):
        if i == 2:
            cpu0 = _cpu()
        group.barrier()
        t0 = time.perf_counter()
        group.all_reduce(x, out=out)
        dt = time.perf_counter() - t0
        if i >= 2:
            times.append(dt)
    cpu = (_cpu() - cpu0) / iters
    ok = bool(out[0] == n * (n + 1) / 2 and out[-1] == out[0])
    group.close()
    return {"times": times, "ok": ok, "cpu": cpu}


def _gloo_worker(rank: int, n: int, ports: List[int], size_mib: int, iters: int) -> Dict:
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{ports[0]}", rank=rank,
                            world_size=n)
    x = torch.full((size_mib * MIB // 4,), float(rank + 1), dtype=torch.float32)
    times = []
    for i in range(iters + 2):
        if i == 2:
            cpu0 = _cpu()
        y = x.clone()
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(y)
        dt = time.perf_counter() - t0
        if i >= 2:
            times.append(dt)
    cpu = (_cpu() - cpu0) / iters
    ok = bool(y[0].item() == n * (n + 1) / 2)
    dist.destroy_process_group()
    return {"times": times, "ok": ok, "cpu": cpu}


def _fusion_worker(rank: int, n: int, ports: List[int], fused: bool, steps: int) -> Dict:
    """Steps/s of a model of many small layers trained with DistributedOptimizer."""
    import numpy as np
    import tensorfleet as tf
    from tensorfleet import collectives as hvd
    hvd.init([f"127.0.0.1:{p}" for p in ports], rank, timeout=60)
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [32, 16])
    h = x
    for i in range(40):
        w = tf.Variable(rng.randn(16, 16).astype(np.float32) * 0.2, name=f"w{i}")
        b = tf.Variable(np.zeros(16, np.float32), name=f"b{i}")
        h = tf.tanh(tf.matmul(h, w) + b)
    loss = tf.reduce_mean(tf.square(h))
    opt = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.01),
                                   fusion_threshold_bytes=(64 * MIB if fused else 0))
    train = opt.minimize(loss)
    batch = rng.randn(32, 16).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            sess.run(train, {x: batch})
        hvd.get_group().barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            sess.run(train, {x: batch})
        dt = time.perf_counter() - t0
    hvd.shutdown()
    return {"steps_per_s": steps / dt}


def worker_main(argv: List[str]) -> None:
    spec = json.loads(argv[0])
    kind = spec.pop("kind")
    if kind == "tensorfleet-grpc":
        kind, spec["transport"] = "tensorfleet", "grpc"
    fn = {"tensorfleet": _tensorfleet_worker, "gloo": _gloo_worker,
          "fusion": _fusion_worker}[kind]
    result = fn(**spec)
    if spec["rank"] == 0:
        sys.stdout.write(json.dumps(result) + "\n")


# ----------------------------------------------------------------------------- driver


def _run(kind: str, n: int, timeout: float, **spec: Any) -> Optional[Dict]:
    ports = _free_ports(n)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = []
    for rank in range(n):
        arg = json.dumps(dict(spec, kind=kind, rank=rank, n=n, ports=ports))
        procs.append(subprocess.Popen([sys.executable, __file__, "worker", arg], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    out = None
    try:
        for rank, p in enumerate(procs):
            stdout, stderr = p.communicate(timeout=timeout)
            if p.returncode != 0:
                logger.error("%s rank %d failed:\n%s", kind, rank, stderr[-3000:])
                return None
            if rank == 0:
                out = json.loads(stdout.strip().splitlines()[-1])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


def _has_torch() -> bool:
    try:
        import torch.distributed as dist  # noqa: F401
        return dist.is_gloo_available()
    except ImportError:
        return False


def bench_bandwidth(sizes: List[int], procs: List[int], repeats: int,
                    sides: List[str]) -> List[Dict]:
    rows = []
    if "gloo" in sides and not _has_torch():
        logger.warning("torch with gloo is not importable: skipping the gloo side")
        sides = [s for s in sides if s != "gloo"]
    for n in procs:
        for size in sizes:
            iters = 20 if size <= 8 else 8
            per: Dict[str, List[float]] = {s: [] for s in sides}
            cpu: Dict[str, List[float]] = {s: [] for s in sides}
            for rep in range(repeats):
                order = sides if rep % 2 == 0 else sides[::-1]
                for side in order:
                    res = _run(side, n, 300, size_mib=size, iters=iters)
                    if res is None or not res["ok"]:
                        raise SystemExit(f"{side} n={n} size={size} MiB failed or was wrong")
                    per[side].append(statistics.median(res["times"]))
                    cpu[side].append(res["cpu"])
            row: Dict[str, Any] = {"procs": n, "size_mib": size}
            for side in sides:
                t = statistics.median(per[side])
                row[f"{side}_ms"] = t * 1e3
                row[f"{side}_busbw"] = size * MIB / t * 2 * (n - 1) / n / 1e9
                # The best run: what the side reaches when other jobs leave the cores alone.
                row[f"{side}_best_busbw"] = size * MIB / min(per[side]) * 2 * (n - 1) / n / 1e9
                row[f"{side}_cpu_ms"] = statistics.median(cpu[side]) * 1e3
                row[f"{side}_runs_ms"] = [round(x * 1e3, 2) for x in per[side]]
            rows.append(row)
            logger.info("%s", row)
    return rows


def bench_fusion(repeats: int, steps: int = 100) -> Dict:
    per: Dict[bool, List[float]] = {True: [], False: []}
    for rep in range(repeats):
        for fused in ((True, False) if rep % 2 == 0 else (False, True)):
            res = _run("fusion", 2, 600, fused=fused, steps=steps)
            if res is None:
                raise SystemExit("fusion case failed")
            per[fused].append(res["steps_per_s"])
    fused, unfused = statistics.median(per[True]), statistics.median(per[False])
    return {"fused_steps_per_s": fused, "unfused_steps_per_s": unfused,
            "speedup": fused / unfused}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4,64", help="MiB, comma-separated")
    ap.add_argument("--procs", default="2,3", help="process counts, comma-separated")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cases", default="bandwidth,fusion")
    ap.add_argument("--sides", default="tensorfleet,gloo",
                    help="bandwidth sides: tensorfleet (TCP link), gloo, tensorfleet-grpc")
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cases = args.cases.split(",")
    record: Dict[str, Any] = {"load": os.getloadavg()}
    if "bandwidth" in cases:
        record["bandwidth"] = bench_bandwidth([int(s) for s in args.sizes.split(",")],
                                              [int(p) for p in args.procs.split(",")],
                                              args.repeats, args.sides.split(","))
    if "fusion" in cases:
        record["fusion"] = bench_fusion(max(1, args.repeats // 2 + 1))
    lines = [f"load average {record['load'][0]:.2f}"]
    if "bandwidth" in record:
        sides = [k[:-6] for k in record["bandwidth"][0]
                 if k.endswith("_busbw") and not k.endswith("_best_busbw")]
        lines.append("| procs | size | " + " | ".join(
            f"{x} ms | {x} bus GB/s (best) | {x} cpu ms/op" for x in sides)
            + (" | tensorfleet/gloo |" if "gloo" in sides else " |"))
        lines.append("|---|---|" + "---|---|---|" * len(sides)
                     + ("---|" if "gloo" in sides else ""))
        for r in record["bandwidth"]:
            cells = [f"{r[x + '_ms']:.1f} | {r[x + '_busbw']:.2f} ({r[x + '_best_busbw']:.2f}) | "
                     f"{r[x + '_cpu_ms']:.0f}" for x in sides]
            ratio = (f" | {r['tensorfleet_busbw'] / r['gloo_busbw']:.2f}"
                     if "gloo" in sides and "tensorfleet" in sides else "")
            lines.append(f"| {r['procs']} | {r['size_mib']} MiB | " + " | ".join(cells)
                         + ratio + " |")
    if "fusion" in record:
        f = record["fusion"]
        lines.append(f"fusion: {f['fused_steps_per_s']:.1f} steps/s fused, "
                     f"{f['unfused_steps_per_s']:.1f} unfused, speedup {f['speedup']:.2f}x")
    text = "\n".join(lines)
    sys.stdout.write(text + "\n")
    if args.json_out:
        with open(args.json_out, "w") as fh:
            json.dump(record, fh, indent=1)


if __name__ == "__main__":
    main()
