"""``tensorfleet status``: a live view of a cluster from any one of its tasks.

It asks the given task for its status, which includes the cluster spec, then asks
every task (with a short deadline; a task that does not answer is DOWN). Two
rounds about a second apart give steps/s and bytes/s. Bytes are tensor payload
bytes: what a task's handlers received and sent, plus the tensors it pulled from
peers (which those peers count under its name).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple
from tensorfleet import errors
from tensorfleet.cli import runfiles

EXIT_ALL_UP = 0
EXIT_SOME_DOWN = 1
EXIT_UNREACHABLE = 2


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "status", help="show every task of a running cluster: up/down, steps/s, bytes, "
                       "variables",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Connect to one task, read the cluster spec from it and show every "
                    "task: its role,\naddress, state (UP/DOWN), graph steps run, steps/s, "
                    "tensor bytes in and out, and\nthe variables each parameter server "
                    "holds with their shapes and sizes.",
        epilog="examples:\n"
               "  tensorfleet status                          # the newest `tensorfleet "
               "launch` on this machine\n"
               "  tensorfleet status grpc://localhost:2222\n"
               "  tensorfleet status grpc://ps0:2222 --watch 5\n"
               "  tensorfleet status grpc://ps0:2222 --json\n\n"
               "The cluster token comes from --token, $TENSORFLEET_TOKEN, or the run file "
               "of a local launch.\n\n"
               "exit status: 0 every task is up, 1 some task is down, 2 the given task "
               "cannot be reached.")
    p.add_argument("target", nargs="?", default=None,
                   help="grpc://host:port (or host:port) of any task; default: the newest "
                        "live local launch")
    p.add_argument("--watch", type=float, default=None, metavar="N",
                   help="refresh every N seconds until Ctrl-C")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--timeout", type=float, default=2.0, metavar="SECONDS",
                   help="deadline of each task's answer (default 2)")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                   help="time between the two samples that give the rates (default 1; 0: "
                        "one sample, no rates)")
    p.add_argument("--token", default=None, help="cluster token (default $TENSORFLEET_TOKEN)")
    p.set_defaults(func=run_command)
    return p


# -- collecting ---------------------------------------------------------------------------------

def _address(target: str) -> str:
    return target[len("grpc://"):] if target.startswith("grpc://") else target


def query(address: str, token: Optional[str], timeout: float) -> "Answer":
    """(status, None) from a task's GetStatus, or (None, why it failed)."""
    try:
        # Imported on use: the client, not the whole package, is what status needs.
        from tensorfleet.distributed.remote import client_for

        header, _ = client_for(address, token).call("GetStatus", {}, [], timeout=timeout)
        return header, None
    except errors.OpError as e:
        return None, f"{type(e).__name__}: {e.message}"


Answer = Tuple[Optional[Dict[str, Any]], Optional[str]]


def _sample(tasks: List[Tuple[str, int, str]], token: Optional[str],
            timeout: float) -> Dict[Tuple[str, int], Answer]:
    with ThreadPoolExecutor(max_workers=min(16, max(1, len(tasks)))) as pool:
        futs = {(j, i): pool.submit(query, a, token, timeout) for j, i, a in tasks}
        return {k: f.result() for k, f in futs.items()}


def _role(job: str, index: int, jobs: List[str]) -> str:
    if job in ("chief", "master"):
        return "chief"
    if job == "worker" and index == 0 and "chief" not in jobs and "master" not in jobs:
        return "worker (chief)"
    if job == "ps":
        return "parameter server"
    return job


def _received(samples: Dict[Tuple[str, int], Answer], task: str) -> int:
    """Bytes that peers sent to ``task`` in replies to its RecvTensor pulls."""
    total = 0
    for st, _ in samples.values():
        if st is not None and st.get("task") != task:
            total += int((st.get("bytes_sent_to") or {}).get(task, 0))
    return total


def _side_channel(value: Any) -> Optional[Dict[str, int]]:
    """The side channel's port and the calls and fetches it served; None when the task
    does not say (an older release) or says something malformed."""
    if not isinstance(value, dict):
        return None
    out = {k: value.get(k) for k in ("port", "calls", "fetches")}
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in out.values()):
        return None
    return out


def _side_channel_cell(side: Optional[Dict[str, int]]) -> str:
    if side is None:
        return "-"
    if not side["port"]:
        return "off"
    return f":{side['port']} ({side['calls'] + side['fetches']} calls)"


def collect(target: str, token: Optional[str] = None, timeout: float = 2.0,
            interval: float = 1.0) -> Dict[str, Any]:
    """The status of every task of the cluster that the task at ``target`` belongs to.

    Raises:
      ConnectionError: ``target`` itself does not answer (with the reason).
    """
    address = _address(target)
    first, why = query(address, token, timeout)
    if first is None:
        raise ConnectionError(f"cannot get the status of {address}: {why}")
    from tensorfleet.distributed.cluster import ClusterSpec  # not needed for --help

    spec = ClusterSpec(first.get("cluster") or {})
    tasks = [(j, i, spec.task_address(j, i)) for j in spec.jobs for i in spec.task_indices(j)]
    t0 = time.monotonic()
    s0 = _sample(tasks, token, timeout)
    s1, dt = s0, 0.0
    if interval > 0:
        time.sleep(max(0.0, interval - (time.monotonic() - t0)))
        t1 = time.monotonic()
        s1 = _sample(tasks, token, timeout)
        dt = t1 - t0
    rows = []
    for job, index, addr in tasks:
        name = f"/job:{job}/task:{index}"
        st, err = s1[(job, index)]
        before, _ = s0[(job, index)]
        row: Dict[str, Any] = {"task": name, "job": job, "index": index, "address": addr,
                               "role": _role(job, index, spec.jobs),
                               "state": "UP" if st is not None else "DOWN"}
        if st is None:
            row["error"] = err
        else:
            b_in = int(st.get("bytes_in", 0)) + _received(s1, name)
            b_out = int(st.get("bytes_out", 0))
            variables = st.get("variables") or []
            row.update({"steps": int(st.get("steps", 0)), "uptime": float(st.get("uptime", 0)),
                        "bytes_in": b_in, "bytes_out": b_out, "variables": variables,
                        "variable_bytes": sum(int(v.get("bytes") or 0) for v in variables),
                        "side_channel": _side_channel(st.get("side_channel"))})
            if dt > 0 and before is not None:
                row["steps_per_sec"] = (row["steps"] - int(before.get("steps", 0))) / dt
                row["bytes_in_per_sec"] = (b_in - int(before.get("bytes_in", 0))
                                           - _received(s0, name)) / dt
                row["bytes_out_per_sec"] = (b_out - int(before.get("bytes_out", 0))) / dt
        rows.append(row)
    return {"target": f"grpc://{address}", "cluster": spec.as_dict(), "time": time.time(),
            "tasks": rows}


# -- rendering ----------------------------------------------------------------------------------

def human_bytes(n: float) -> str:
    """``1.5 MiB``."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def _shape(shape: Any) -> str:
    if shape is None:
        return "uninitialized"
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _table(header: List[str], rows: List[List[str]]) -> List[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return [fmt(header)] + [fmt(r) for r in rows]


def render(status: Dict[str, Any]) -> str:
    """The status as the text table that ``tensorfleet status`` prints."""
    tasks = status["tasks"]
    up = sum(t["state"] == "UP" for t in tasks)
    lines = [f"cluster of {status['target']}: {up}/{len(tasks)} tasks up  "
             f"({time.strftime('%H:%M:%S', time.localtime(status['time']))})", ""]
    rows = []
    for t in tasks:
        if t["state"] != "UP":
            rows.append([t["task"], t["role"], t["address"], "DOWN", "-", "-", "-", "-", "-",
                         "-"])
            continue
        rate = t.get("steps_per_sec")
        nvar = len(t["variables"])
        in_rate, out_rate = t.get("bytes_in_per_sec"), t.get("bytes_out_per_sec")
        rows.append([
            t["task"], t["role"], t["address"], "UP", str(t["steps"]),
            "-" if rate is None else f"{rate:.1f}",
            human_bytes(t["bytes_in"]) + ("" if in_rate is None
                                          else f" ({human_bytes(in_rate)}/s)"),
            human_bytes(t["bytes_out"]) + ("" if out_rate is None
                                           else f" ({human_bytes(out_rate)}/s)"),
            f"{nvar} ({human_bytes(t['variable_bytes'])})" if nvar else "-",
            _side_channel_cell(t.get("side_channel"))])
    lines += _table(["TASK", "ROLE", "ADDRESS", "STATE", "STEPS", "STEPS/S", "BYTES IN",
                     "BYTES OUT", "VARIABLES", "SIDE CHANNEL"], rows)
    for t in tasks:
        if t["state"] == "UP" and t["variables"]:
            lines += ["", f"variables on {t['task']} ({t['role']}):"]
            vrows = [[str(v.get("name", "?")), _shape(v.get("shape")),
                      str(v.get("dtype", "")), human_bytes(v.get("bytes") or 0)]
                     for v in t["variables"]]
            lines += ["  " + ln for ln in _table(["NAME", "SHAPE", "DTYPE", "SIZE"], vrows)]
    for t in tasks:
        if t["state"] == "DOWN":
            lines.append(f"{t['task']} is DOWN: {t.get('error')}")
    return "\n".join(lines)


def _resolve_target(args: argparse.Namespace) -> Tuple[Optional[str], Optional[str]]:
    """(target, token) from the options, the environment and local run files."""
    import os

    target, token = args.target, args.token or os.environ.get("TENSORFLEET_TOKEN")
    if target is None:
        live = runfiles.live_launches()
        if not live:
            return None, token
        info = live[0]
        cluster = info.get("cluster") or {}
        first = (cluster.get("chief") or cluster.get("worker") or
                 next(iter(cluster.values()), [None]))[0]
        return (f"grpc://{first}" if first else None), token or info.get("token")
    if token is None:
        token = runfiles.token_for(_address(target))
    return target, token


def run_command(args: argparse.Namespace) -> int:
    """``tensorfleet status``."""
    target, token = _resolve_target(args)
    if target is None:
        print("tensorfleet status: give a task's address (grpc://host:port); no local "
              "`tensorfleet launch` is running", file=sys.stderr)
        return EXIT_UNREACHABLE
    clear = args.watch and sys.stdout.isatty() and not args.json
    while True:
        started = time.monotonic()
        try:
            st = collect(target, token, args.timeout, args.interval)
        except ConnectionError as e:
            if not args.watch:
                print(f"tensorfleet status: {e}", file=sys.stderr)
                return EXIT_UNREACHABLE
            st = None
            text = f"tensorfleet status: {e}"
        else:
            text = json.dumps(st, indent=2) if args.json else render(st)
        if clear:
            sys.stdout.write("\033[H\033[2J")
        print(text, flush=True)
        if not args.watch:
            return EXIT_ALL_UP if all(t["state"] == "UP" for t in st["tasks"]) \
                else EXIT_SOME_DOWN
        try:
            time.sleep(max(0.0, args.watch - (time.monotonic() - started)))
        except KeyboardInterrupt:
            return EXIT_ALL_UP
        if not clear:
            print()


__all__ = ["add_parser", "run_command", "collect", "render", "query", "human_bytes"]
