"""The seed trainer and ring all-reduce on separate network hosts with capped links.

Every task or rank runs on a host of its own: a network namespace of this machine
whose one link to a shared switch is capped in both directions by ``tc ... tbf``
(``tensorfleet.testing.hosts``; needs root and iproute2). Traffic between tasks then
crosses a real network stack at a fixed rate, as between machines, instead of
loopback. The figures of both systems are taken on the same kind of hosts in the
same invocation.

``run`` (what ``harness.py multihost`` calls) is ``bench_trainer.py``'s trainer
case (``--case async`` or ``sync``, 1 ps + 2 workers, steady global steps/s) on
``--hosts`` hosts with ``--rate`` links, for ``--framework tensorfleet`` or
``tensorflow``. Its record adds ``link_bytes_per_global_step``: the bytes all hosts
sent over their links during the steady window (interface counters), per global step.

``allreduce`` runs tensorfleet's ring (``RingGroup``, TCP) and torch.distributed's
gloo backend alternately, ``--repeats`` times, one rank per host: each run times
``--iters`` all-reduces (sum) of ``--size`` MiB of float32, each after a barrier,
and reports rank 0's median. Bus bandwidth = size / time * 2 (n - 1) / n, the rate
each rank's link carries in a ring; the table gives it against the link rate, and
the bytes each rank sent per all-reduce. The gloo side runs in ``--torch-python``.

    python benchmarks/harness.py multihost --repeats 3 --tf-python /work/venvs/tf221/bin/python
    python benchmarks/bench_multihost.py allreduce --rate 1gbit --hosts 3 --size 64 \\
        --torch-python /work/venvs/torch213/bin/python
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MIB = 1 << 20
PORT = 2222


def load_hosts() -> Any:
    """``tensorfleet.testing.hosts`` by path: it needs only the standard library, so the
    TensorFlow side's driver loads it without importing tensorfleet."""
    spec = importlib.util.spec_from_file_location(
        "tensorfleet_testing_hosts", os.path.join(ROOT, "tensorfleet", "testing", "hosts.py"))
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------- trainer

def run_trainer(argv: List[str]) -> int:
    p = argparse.ArgumentParser(prog="bench_multihost.py run")
    p.add_argument("--rate", default="1gbit", help="each host's link rate, e.g. 1gbit")
    p.add_argument("--hosts", type=int, default=None,
                   help="hosts to make (default: one per task)")
    own, rest = p.parse_known_args(argv)
    sys.path.insert(0, HERE)
    import bench_trainer
    args = bench_trainer.parse_args(["run", *rest])
    hosts_mod = load_hosts()
    why = hosts_mod.unavailable()
    if why:
        raise SystemExit(f"bench_multihost: cannot make network hosts here: {why}")
    n = own.hosts or args.ps + args.workers
    if n < args.ps + args.workers:
        raise SystemExit(f"--hosts {n}: fewer hosts than the {args.ps + args.workers} tasks")
    hosts_mod.sweep()
    with hosts_mod.NetworkHosts(n, rate=own.rate) as hosts:
        record = bench_trainer.drive(args, hosts)
    record.update(rate=own.rate, hosts=n)
    print(json.dumps(record), flush=True)
    return 0


# ----------------------------------------------------------------------------- all-reduce

def _tensorfleet_rank(rank: int, addresses: List[str], size_mib: int, iters: int) -> Dict:
    import numpy as np
    from tensorfleet.collectives import RingGroup
    n = len(addresses)
    # BENCH_CHUNK_BYTES: the ring's largest frame, for experiments (default otherwise).
    options = ({"chunk_bytes": int(os.environ["BENCH_CHUNK_BYTES"])}
               if os.environ.get("BENCH_CHUNK_BYTES") else {})
    group = RingGroup([f"{a}:{PORT}" for a in addresses], rank, "bench", timeout=120,
                      connect_timeout=120, **options)
    x = np.full(size_mib * MIB // 4, rank + 1, np.float32)
    out = np.empty_like(x)
    times = []
    for i in range(iters + 1):
        group.barrier()
        t0 = time.perf_counter()
        group.all_reduce(x, out=out)
        if i:
            times.append(time.perf_counter() - t0)
    ok = bool(out[0] == n * (n + 1) / 2 and out[-1] == out[0])
    shm = group.shm.capacity > 0
    group.close()
    return {"times": times, "ok": ok, "shared_memory": shm}


def _gloo_rank(rank: int, addresses: List[str], size_mib: int, iters: int) -> Dict:
    import torch
    import torch.distributed as dist
    n = len(addresses)
    dist.init_process_group("gloo", init_method=f"tcp://{addresses[0]}:{PORT}", rank=rank,
                            world_size=n)
    x = torch.full((size_mib * MIB // 4,), float(rank + 1), dtype=torch.float32)
    times = []
    for i in range(iters + 1):
        y = x.clone()
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(y)
        if i:
            times.append(time.perf_counter() - t0)
    ok = bool(y[0].item() == n * (n + 1) / 2)
    dist.destroy_process_group()
    return {"times": times, "ok": ok}


def rank_main(argv: List[str]) -> None:
    spec = json.loads(argv[0])
    fn = {"tensorfleet": _tensorfleet_rank, "gloo": _gloo_rank}[spec.pop("kind")]
    result = fn(**spec)
    if spec["rank"] == 0:
        sys.stdout.write(json.dumps(result) + "\n")


def _one_allreduce(hosts: Any, kind: str, python: str, size_mib: int, iters: int,
                   timeout: float) -> Optional[Dict]:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TENSORFLEET_TOKEN=os.environ.get("TENSORFLEET_TOKEN") or os.urandom(16).hex(),
               GLOO_SOCKET_IFNAME=load_hosts().HOST_IF)
    sent0 = [hosts.counters(i)["tx_bytes"] for i in range(hosts.n)]
    procs = []
    for rank in range(hosts.n):
        arg = json.dumps({"kind": kind, "rank": rank, "addresses": hosts.addresses,
                          "size_mib": size_mib, "iters": iters})
        procs.append(hosts.run(rank, [python, __file__, "rank", arg], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    out = None
    try:
        for rank, p in enumerate(procs):
            stdout, stderr = p.communicate(timeout=timeout)
            if p.returncode != 0:
                sys.stderr.write(f"{kind} rank {rank} failed:\n{stderr[-3000:]}\n")
                return None
            if rank == 0:
                out = json.loads(stdout.strip().splitlines()[-1])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    sent = [hosts.counters(i)["tx_bytes"] - s for i, s in enumerate(sent0)]
    # Set-up and barriers included: a small share against size-MiB reductions.
    out["bytes_per_rank_per_allreduce"] = statistics.mean(sent) / (iters + 1)
    return out


def run_allreduce(argv: List[str]) -> int:
    p = argparse.ArgumentParser(prog="bench_multihost.py allreduce")
    p.add_argument("--rate", default="1gbit")
    p.add_argument("--hosts", type=int, default=3)
    p.add_argument("--size", type=int, default=64, help="MiB per all-reduce")
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--torch-python", default=None,
                   help="an interpreter with torch for the gloo side (default: none)")
    p.add_argument("--json-out", default=None)
    a = p.parse_args(argv)
    hosts_mod = load_hosts()
    why = hosts_mod.unavailable()
    if why:
        raise SystemExit(f"bench_multihost: cannot make network hosts here: {why}")
    hosts_mod.sweep()
    sides = {"tensorfleet": sys.executable}
    if a.torch_python:
        sides["gloo"] = a.torch_python
    runs: Dict[str, List[Dict]] = {k: [] for k in sides}
    with hosts_mod.NetworkHosts(a.hosts, rate=a.rate) as hosts:
        link_bits = hosts.rate_bits
        for _ in range(a.repeats):
            for kind, python in sides.items():
                r = _one_allreduce(hosts, kind, python, a.size, a.iters, a.timeout)
                if r is not None:
                    runs[kind].append(r)
    n = a.hosts
    factor = 2 * (n - 1) / n
    table = {}
    for kind, rs in runs.items():
        if not rs:
            table[kind] = None
            continue
        medians = [statistics.median(r["times"]) for r in rs]
        busbw = [a.size * MIB / t * factor for t in medians]  # bytes/s
        table[kind] = {
            "median_s": statistics.median(medians),
            "bus_GBps": statistics.median(busbw) / 1e9,
            "bus_of_link": statistics.median(busbw) * 8 / link_bits,
            "bytes_per_rank_per_allreduce": statistics.median(
                r["bytes_per_rank_per_allreduce"] for r in rs),
            "all_ok": all(r["ok"] for r in rs), "runs": len(rs),
            "shared_memory": any(r.get("shared_memory") for r in rs),
        }
    record = {"rate": a.rate, "hosts": n, "size_mib": a.size, "iters": a.iters,
              "repeats": a.repeats, "sides": table}
    print(json.dumps(record), flush=True)
    ideal = a.size * MIB * factor
    print(f"\n{n} hosts, {a.rate} links, {a.size} MiB float32 sum, median of {a.repeats} runs "
          f"of {a.iters} all-reduces")
    print(f"{'':12} {'time ms':>9} {'bus GB/s':>9} {'of link':>8} {'MB sent/rank':>13}"
          f" (ring ideal {ideal / 1e6:.1f})")
    for kind, t in table.items():
        if t is None:
            print(f"{kind:12} failed")
            continue
        print(f"{kind:12} {t['median_s'] * 1e3:9.1f} {t['bus_GBps']:9.3f} "
              f"{t['bus_of_link']:8.2f} {t['bytes_per_rank_per_allreduce'] / 1e6:13.1f}")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(record, f)
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("run", "allreduce", "rank"):
        print(__doc__)
        return 2
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "rank":
        rank_main(rest)
        return 0
    return run_trainer(rest) if mode == "run" else run_allreduce(rest)


if __name__ == "__main__":
    sys.exit(main())
