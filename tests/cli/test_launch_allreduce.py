"""``tensorfleet launch --allreduce N``: the launch form for ring all-reduce, and the
all-reduce example refusing to start a job of its own inside a launched task."""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tensorfleet.cli import launch
from tensorfleet.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "allreduce_convnet.py"


def _launch_args(*argv):
    return build_parser().parse_args(["launch", *argv])


def test_allreduce_means_n_workers_no_ps_no_seed_flags():
    args = _launch_args("--allreduce", "3", "train.py")
    launch.resolve_layout(args)
    assert (args.ps, args.workers, args.no_flags) == (0, 3, True)
    cluster = launch.plan_cluster(args.ps, args.workers)
    tasks = launch.build_tasks(cluster, ["python", "train.py"], [], "t", flags=not args.no_flags)
    assert [t.name for t in tasks] == ["worker:0", "worker:1", "worker:2"]
    assert not any(a.startswith("--ps_hosts") for t in tasks for a in t.argv)
    cfg = json.loads(tasks[2].env["TF_CONFIG"])
    assert cfg["cluster"] == {"worker": cluster["worker"]}
    assert cfg["task"] == {"type": "worker", "index": 2}


def test_defaults_without_allreduce_are_one_ps_two_workers():
    args = _launch_args("train.py")
    launch.resolve_layout(args)
    assert (args.ps, args.workers, args.no_flags) == (1, 2, False)


@pytest.mark.parametrize("extra", [["--ps", "1"], ["--workers", "2"], ["--chief"],
                                   ["--evaluator"]])
def test_allreduce_with_another_layout_is_refused(extra):
    args = _launch_args("--allreduce", "2", *extra, "train.py")
    with pytest.raises(ValueError, match=f"drop {extra[0]}"):
        launch.resolve_layout(args)


def test_the_cli_says_so_in_one_line(capsys):
    rc = launch.run_command(_launch_args("--allreduce", "2", "--ps", "1", str(EXAMPLE)))
    assert rc == launch.EXIT_USAGE
    assert "--allreduce 2 starts 2 workers and no ps; drop --ps" in capsys.readouterr().err


def _env(tf_config):
    env = dict(os.environ, TF_CONFIG=json.dumps(tf_config), OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_a_launched_task_with_a_disagreeing_workers_flag_is_an_error():
    # Before: the task started a 2-process job of its own inside the launched cluster.
    cfg = {"cluster": {"worker": ["localhost:1", "localhost:2"]},
           "task": {"type": "worker", "index": 0}}
    r = subprocess.run([sys.executable, str(EXAMPLE), "--workers", "3", "--steps", "1"],
                       env=_env(cfg), capture_output=True, text=True, timeout=120,
                       cwd=str(EXAMPLE.parent))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "TF_CONFIG makes this process one of 2 workers; --workers 3 disagrees" in r.stderr


def test_a_task_named_by_tf_config_trains_as_that_worker_and_starts_no_other():
    cfg = {"cluster": {"worker": ["localhost:1"]}, "task": {"type": "worker", "index": 0}}
    r = subprocess.run([sys.executable, str(EXAMPLE), "--workers", "1", "--steps", "2",
                        "--log_every", "0"],
                       env=_env(cfg), capture_output=True, text=True, timeout=120,
                       cwd=str(EXAMPLE.parent))
    assert r.returncode == 0, r.stderr
    assert "trained 2 steps on 1 worker(s)" in r.stdout
