"""``tensorfleet server``: the server of one task, for clusters started task by task.

The cluster comes from ``--cluster`` (a JSON file or string: ``{"ps": [...],
"worker": [...]}`` or a whole TF_CONFIG), from the seed's flags, or else from
``$TF_CONFIG``. The server serves until SIGTERM/Ctrl-C or, with
``--until-workers-done`` on a ps, until every worker called
``tf.train.signal_workers_done``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from typing import Any, Dict, Optional, Tuple
from tensorfleet import errors
import tensorfleet as tf  # its public names load on first use, not for --help

logger = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "server", help="run the server of one task and serve until stopped",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run tf.train.Server for one task of a cluster and join it.\n\n"
                    "The cluster is taken from --cluster, else from the seed's flags, else "
                    "from $TF_CONFIG.\nEvery task must use the same TENSORFLEET_TOKEN "
                    "(required unless the address is loopback).",
        epilog="examples:\n"
               "  tensorfleet server --ps_hosts=h0:2222 --worker_hosts=h1:2222,h2:2222 "
               "--job_name=ps --task_index=0\n"
               "  tensorfleet server --cluster spec.json --job_name worker --task_index 1\n"
               "  TF_CONFIG='{\"cluster\": ..., \"task\": {\"type\": \"ps\", \"index\": 0}}' "
               "tensorfleet server\n\n"
               "exit status: 0 when stopped by SIGTERM or when the workers are done, "
               "130 on Ctrl-C, 2 on a bad cluster or a port in use.")
    p.add_argument("--cluster", metavar="JSON|FILE",
                   help="cluster spec as a JSON string or file: {\"ps\": [\"h:p\"], "
                        "\"worker\": [...]} (a TF_CONFIG with 'cluster' and 'task' works too)")
    p.add_argument("--ps_hosts", default="", help="comma-separated host:port of the ps tasks")
    p.add_argument("--worker_hosts", default="",
                   help="comma-separated host:port of the worker tasks")
    p.add_argument("--chief_hosts", default="", help="host:port of the chief task, if any")
    p.add_argument("--job_name", default=None, help="this task's job: ps, worker, chief, ...")
    p.add_argument("--task_index", type=int, default=None, help="this task's index in its job")
    p.add_argument("--until-workers-done", action="store_true",
                   help="on a ps: exit once every worker called tf.train.signal_workers_done")
    p.set_defaults(func=run_command)
    return p


def _load_cluster(text: str) -> Dict[str, Any]:
    if os.path.exists(text):
        with open(text) as f:
            text = f.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"--cluster is neither a file nor JSON: {e}") from None
    if not isinstance(value, dict):
        raise ValueError("--cluster must be a JSON object of job name -> addresses")
    return value


def resolve(args: argparse.Namespace) -> Tuple[Any, str, int]:
    """(cluster spec, job name, task index) from the options; ValueError if incomplete."""
    from tensorfleet.distributed.cluster import ClusterSpec
    from tensorfleet.distributed.resolver import TFConfigClusterResolver, cluster_from_flags

    job, index = args.job_name, args.task_index
    if args.cluster:
        value = _load_cluster(args.cluster)
        if "cluster" in value:  # a TF_CONFIG
            task = value.get("task") or {}
            job = job or task.get("type")
            index = index if index is not None else task.get("index", 0)
            value = value["cluster"]
        spec = ClusterSpec({j: t for j, t in value.items() if j != "evaluator"})
    elif args.worker_hosts or args.ps_hosts:
        if job is None:
            raise ValueError("--job_name is required with --ps_hosts/--worker_hosts")
        spec, job, index = cluster_from_flags(args.ps_hosts, args.worker_hosts, job,
                                              index or 0, args.chief_hosts)
    elif os.environ.get("TF_CONFIG"):
        r = TFConfigClusterResolver()
        spec = r.cluster_spec()
        job = job or r.task_type
        index = index if index is not None else r.task_id
    else:
        raise ValueError("no cluster given: pass --cluster, the --ps_hosts/--worker_hosts "
                         "flags, or set TF_CONFIG")
    if not job:
        raise ValueError("this task's job is unknown: pass --job_name")
    if job not in spec.jobs:
        raise ValueError(f"job {job!r} is not in the cluster (jobs: {spec.jobs})")
    return spec, job, int(index or 0)


def run_command(args: argparse.Namespace) -> int:
    """``tensorfleet server``."""
    try:
        spec, job, index = resolve(args)
        server = tf.train.Server(spec, job_name=job, task_index=index)
    except (ValueError, errors.OpError) as e:
        print(f"tensorfleet server: {getattr(e, 'message', e)}", file=sys.stderr)
        return 2
    print(f"tensorfleet server: /job:{job}/task:{index} serving at {server.target} "
          f"(cluster {json.dumps(spec.as_dict())})", flush=True)
    if args.until_workers_done and job != "ps":
        print("tensorfleet server: --until-workers-done is for ps tasks", file=sys.stderr)
        server.stop()
        return 2
    stopped: Dict[str, Optional[int]] = {"signal": None}
    done = threading.Event()
    # The main thread only waits, so signals are handled at once; stopping the
    # server (which waits for calls in flight) happens on a helper thread.
    stopper = threading.Thread(target=lambda: (server.stop(), done.set()), daemon=True)

    def on_signal(signum: int, frame: Any) -> None:
        if stopped["signal"] is None:
            stopped["signal"] = signum
            stopper.start()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    if args.until_workers_done:
        def wait_for_workers() -> None:
            try:
                tf.train.join_until_workers_done(server)
                logger.info("every worker is done; %s exits", server.task)
            except errors.OpError as e:
                if stopped["signal"] is None:
                    logger.error("waiting for the workers failed: %s", e)
            done.set()
        threading.Thread(target=wait_for_workers, daemon=True).start()
    else:
        threading.Thread(target=lambda: (server.join(), done.set()), daemon=True).start()
    while not done.wait(0.5):
        pass
    if stopper.is_alive():
        stopper.join(10)
    print(f"tensorfleet server: /job:{job}/task:{index} stopped", flush=True)
    return 130 if stopped["signal"] == signal.SIGINT else 0


__all__ = ["add_parser", "run_command", "resolve"]
