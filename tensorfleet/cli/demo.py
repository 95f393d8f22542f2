"""``tensorfleet demo``: a real cluster on this machine, training on real data, in seconds.

It launches 1 ps + 2 workers as separate processes (the same machinery as
``tensorfleet launch``), each running ``tensorfleet.cli.demo_train``: the seed's
between-graph trainer with the variables on the ps, on the 8x8 digits that ship
inside scikit-learn (nothing is downloaded). The chief shows a progress bar and
the demo ends with the accuracy on held-out digits.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Dict, List

from tensorfleet.cli import launch, launch_checks
from tensorfleet.cli import runfiles
from tensorfleet.cli.output import PrefixWriter

_ACCURACY = re.compile(r"test accuracy: ([0-9.]+)")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "demo", help="train on the digits with a local 1 ps + 2 worker cluster",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Start a local cluster (1 ps + 2 workers, separate processes talking "
                    "gRPC) and train a\nperceptron on scikit-learn's 8x8 digits with "
                    "between-graph replication: variables on\nthe ps, asynchronous updates "
                    "from both workers. The chief shows a progress bar (global\nstep, loss, "
                    "steps/s); the demo ends with the test accuracy (about 0.98, in 10-20 s).",
        epilog="examples:\n"
               "  tensorfleet demo\n"
               "  tensorfleet demo --workers 3 --steps 3000\n"
               "  tensorfleet demo --sync              # SyncReplicasOptimizer\n"
               "  tensorfleet status                   # from another terminal, while it "
               "runs\n\n"
               "The same program under `tensorfleet launch`:\n"
               "  tensorfleet launch --ps 1 --workers 2 -m tensorfleet.cli.demo_train "
               "--steps 1500")
    p.add_argument("--steps", type=int, default=1500, help="global steps to train "
                                                           "(default 1500)")
    p.add_argument("--workers", type=int, default=2, help="worker tasks (default 2)")
    p.add_argument("--ps", type=int, default=1, help="parameter server tasks (default 1)")
    p.add_argument("--batch-size", type=int, default=32, help="per-worker batch (default 32)")
    p.add_argument("--learning-rate", type=float, default=0.01,
                   help="Adam learning rate (default 0.01)")
    p.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    p.add_argument("--sync", action="store_true",
                   help="synchronous training: SyncReplicasOptimizer averages the workers' "
                        "gradients each step")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--port-base", type=int, default=None, metavar="P",
                   help="ports P, P+1, ... (default: free ports)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_command)
    return p


def run_command(args: argparse.Namespace) -> int:
    """``tensorfleet demo``."""
    if args.steps < 1 or args.workers < 1 or args.ps < 0:
        print("tensorfleet demo: need --steps >= 1, --workers >= 1 and --ps >= 0",
              file=sys.stderr)
        return launch.EXIT_USAGE
    try:
        cluster = launch.plan_cluster(args.ps, args.workers, port_base=args.port_base)
    except ValueError as e:
        print(f"tensorfleet demo: {e}", file=sys.stderr)
        return launch.EXIT_USAGE
    script_args = ["--steps", str(args.steps), "--batch_size", str(args.batch_size),
                   "--learning_rate", str(args.learning_rate), "--hidden", str(args.hidden),
                   "--seed", str(args.seed)] + (["--sync"] if args.sync else [])
    env: Dict[str, str] = {}
    if args.no_progress:
        env["TENSORFLEET_PROGRESS"] = "0"
    if getattr(args, "log_level", None):
        env["TENSORFLEET_LOG_LEVEL"] = args.log_level
    token = launch.make_token()
    tasks = launch.build_tasks(cluster, launch.program_for("tensorfleet.cli.demo_train", True),
                               script_args, token, flags=False, extra_env=env)
    # As launch does: a port taken is one line before any task starts.
    busy = launch_checks.busy_ports({t.name: t.address for t in tasks})
    if busy:
        print(f"tensorfleet demo: {launch_checks.busy_ports_message(busy, args.port_base)}",
              file=sys.stderr)
        return launch.EXIT_USAGE
    found: List[float] = []

    def on_line(task: str, line: str) -> None:
        m = _ACCURACY.search(line)
        if m and task == "worker:0":
            found.append(float(m.group(1)))

    launcher = launch.Launcher(tasks, writer=PrefixWriter(on_line=on_line))
    mode = "synchronous" if args.sync else "asynchronous"
    launcher.say(f"tensorfleet demo: {args.ps} ps + {args.workers} workers on this machine, "
                 f"{mode} training on the 8x8 digits for {args.steps} global steps")
    first = cluster["worker"][0]
    launcher.say(f"watch the cluster from another terminal: tensorfleet status grpc://{first}")
    path = runfiles.write(cluster, token, "tensorfleet demo")
    start = time.time()
    try:
        rc = launcher.run()
    finally:
        runfiles.remove(path)
    elapsed = time.time() - start
    if rc in (launch.EXIT_SIGINT, launch.EXIT_SIGTERM):
        print("tensorfleet demo: interrupted; every task was stopped", file=sys.stderr)
        return rc
    if rc != launch.EXIT_OK:
        print(f"tensorfleet demo: failed: {launcher.failed}", file=sys.stderr)
        return rc
    if not found:
        print("tensorfleet demo: the chief did not report a test accuracy", file=sys.stderr)
        return launch.EXIT_TASK_FAILED
    print(f"\ntest accuracy: {found[-1]:.3f}  ({args.ps} ps + {args.workers} workers, "
          f"{args.steps} steps, {elapsed:.1f} s)", flush=True)
    return 0


__all__ = ["add_parser", "run_command"]
