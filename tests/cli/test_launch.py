"""`tensorfleet launch`: real processes, each task with its TF_CONFIG and flags."""

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tensorfleet.cli import launch
from tensorfleet.cli.output import PrefixWriter

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

ROLE_SCRIPT = """
import argparse, json, os
p = argparse.ArgumentParser()
for f in ("--ps_hosts", "--worker_hosts", "--job_name"):
    p.add_argument(f)
p.add_argument("--task_index", type=int)
a, rest = p.parse_known_args()
task = json.loads(os.environ["TF_CONFIG"])["task"]
print("env=%s:%d flags=%s:%d rest=%s token=%s blas=%s" % (
    task["type"], task["index"], a.job_name, a.task_index, ",".join(rest),
    bool(os.environ.get("TENSORFLEET_TOKEN")), os.environ.get("TENSORFLEET_BLAS_THREADS")))
"""

# Worker 1 fails with exit code 3; the other tasks would run for a minute.
FAILING_SCRIPT = """
import json, os, sys, time
task = json.loads(os.environ["TF_CONFIG"])["task"]
name = "%s-%d" % (task["type"], task["index"])
# Renamed into place: the test globs *.pid and reads each file at once.
open(os.path.join(sys.argv[1], name + ".tmp"), "w").write(str(os.getpid()))
os.rename(os.path.join(sys.argv[1], name + ".tmp"), os.path.join(sys.argv[1], name + ".pid"))
if name == "worker-1":
    time.sleep(0.5)
    print("worker 1 gives up", flush=True)
    sys.exit(3)
time.sleep(60)
"""

# Fails the first time (no marker yet), succeeds when restarted.
FLAKY_SCRIPT = """
import json, os, sys
task = json.loads(os.environ["TF_CONFIG"])["task"]
marker = os.path.join(sys.argv[1], "failed-once")
if task["type"] == "worker" and task["index"] == 0 and not os.path.exists(marker):
    open(marker, "w").close()
    print("first attempt fails", flush=True)
    sys.exit(1)
print("attempt ok", flush=True)
"""


def _env():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TENSORFLEET_TOKEN", None)
    return env


def _cli(*args, timeout=180, **kw):
    return subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", *args], env=_env(),
                          capture_output=True, text=True, timeout=timeout, **kw)


def _run_launcher(tmp_path, script_text, ps=1, workers=2, max_restarts=0, args=()):
    script = tmp_path / "task.py"
    script.write_text(script_text)
    cluster = launch.plan_cluster(ps, workers)
    tasks = launch.build_tasks(cluster, launch.program_for(str(script)), list(args),
                               token="test-token")
    out, err = io.StringIO(), io.StringIO()
    lines = []
    writer = PrefixWriter(out, err, color=False, on_line=lambda t, s: lines.append((t, s)))
    launcher = launch.Launcher(tasks, max_restarts=max_restarts, grace=5, writer=writer)
    rc = launcher.run()
    return rc, out.getvalue(), err.getvalue(), lines, launcher


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_plan_cluster_ports_and_tf_config():
    cluster = launch.plan_cluster(2, 3, chief=True, evaluator=True, port_base=4000)
    assert cluster == {"chief": ["localhost:4000"], "ps": ["localhost:4001", "localhost:4002"],
                       "worker": ["localhost:4003", "localhost:4004", "localhost:4005"],
                       "evaluator": ["localhost:4006"]}
    tasks = launch.build_tasks(cluster, ["python", "t.py"], ["--x"], token="tok")
    assert [t.name for t in tasks] == ["chief:0", "ps:0", "ps:1", "worker:0", "worker:1",
                                       "worker:2", "evaluator:0"]
    w1 = tasks[4]
    cfg = json.loads(w1.env["TF_CONFIG"])
    assert cfg["task"] == {"type": "worker", "index": 1}
    assert "evaluator" not in cfg["cluster"]
    assert "evaluator" in json.loads(tasks[-1].env["TF_CONFIG"])["cluster"]
    assert w1.env["TENSORFLEET_TOKEN"] == "tok"
    assert w1.env["TENSORFLEET_BLAS_THREADS"] == "1"
    assert w1.argv == ["python", "t.py", "--x", "--chief_hosts=localhost:4000",
                       "--ps_hosts=localhost:4001,localhost:4002",
                       "--worker_hosts=localhost:4003,localhost:4004,localhost:4005",
                       "--job_name=worker", "--task_index=1"]
    no_flags = launch.build_tasks(cluster, ["python", "t.py"], ["--x"], "tok", flags=False)
    assert no_flags[4].argv == ["python", "t.py", "--x"]
    with pytest.raises(ValueError):
        launch.plan_cluster(1, 0)


def test_every_task_gets_its_role_by_env_and_flags(tmp_path):
    rc, out, err, lines, _ = _run_launcher(tmp_path, ROLE_SCRIPT, args=["--lr", "0.1"])
    assert rc == 0, out + err
    got = {task: text for task, text in lines}
    for name in ("ps:0", "worker:0", "worker:1"):
        job, idx = name.split(":")
        assert got[name] == (f"env={job}:{idx} flags={job}:{idx} rest=--lr,0.1 token=True "
                             "blas=1"), out
        assert f"[{name}] env={job}:{idx}" in out


def test_a_failing_task_stops_the_launch_and_is_named(tmp_path):
    start = time.monotonic()
    rc, out, err, lines, launcher = _run_launcher(tmp_path, FAILING_SCRIPT,
                                                  args=[str(tmp_path)])
    assert rc == launch.EXIT_TASK_FAILED
    assert time.monotonic() - start < 30
    assert "worker:1 failed: exit code 3" in err, err
    assert launcher.failed == "worker:1 failed: exit code 3"
    assert ("worker:1", "worker 1 gives up") in lines
    pids = {p.stem: int(p.read_text()) for p in tmp_path.glob("*.pid")}
    assert set(pids) == {"ps-0", "worker-0", "worker-1"}
    assert not [name for name, pid in pids.items() if _alive(pid)]


def test_max_restarts_restarts_a_task_that_fails_once(tmp_path):
    rc, out, err, lines, _ = _run_launcher(tmp_path, FLAKY_SCRIPT, ps=0, workers=2,
                                           max_restarts=1, args=[str(tmp_path)])
    assert rc == 0, out + err
    assert "worker:0 exited (exit code 1); restarting it (1/1)" in err
    assert [s for t, s in lines if t == "worker:0"] == ["first attempt fails", "attempt ok"]


def test_without_restarts_the_flaky_task_fails_the_launch(tmp_path):
    rc, _, err, _, _ = _run_launcher(tmp_path, FLAKY_SCRIPT, ps=0, workers=1,
                                     args=[str(tmp_path)])
    assert rc == 1 and "worker:0 failed: exit code 1" in err


def test_ctrl_c_stops_every_task(tmp_path):
    script = tmp_path / "task.py"
    script.write_text(FAILING_SCRIPT.replace('name == "worker-1"', "False"))
    proc = subprocess.Popen([sys.executable, "-m", "tensorfleet.cli.main", "launch", "--ps", "1",
                             "--workers", "1", "--grace", "5", str(script), str(tmp_path)],
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("*.pid"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "received SIGINT" in err
    pids = [int(p.read_text()) for p in tmp_path.glob("*.pid")]
    assert len(pids) == 2 and not [p for p in pids if _alive(p)]


def test_dry_run_prints_one_command_per_task():
    r = _cli("launch", "--ps", "1", "--workers", "2", "--port-base", "5000", "--dry-run",
             "trainer.py", "--steps", "10")
    # A missing script is reported before anything else.
    assert r.returncode == 2 and "no such script" in r.stderr
    r = _cli("launch", "--ps", "1", "--workers", "2", "--port-base", "5000", "--dry-run",
             str(EXAMPLES / "hello.py"), "--steps", "10")
    assert r.returncode == 0, r.stderr
    cmds = [ln for ln in r.stdout.splitlines() if ln.startswith("TF_CONFIG=")]
    assert len(cmds) == 3
    assert "--job_name=worker --task_index=1" in cmds[2]
    assert "--ps_hosts=localhost:5000 --worker_hosts=localhost:5001,localhost:5002" in cmds[0]


EXAMPLE_LAUNCHES = [
    (["--ps", "1", "--workers", "1", str(EXAMPLES / "launch_seed_zcalc.py")], "[worker:0] -18"),
    (["--ps", "0", "--workers", "1", str(EXAMPLES / "hello.py")],
     "[worker:0] Hello, distributed TensorFlow!"),
    (["--ps", "0", "--workers", "1", "--no-flags", str(EXAMPLES / "mlp.py"), "--steps", "20",
      "--examples", "256", "--log_every", "0"], "[worker:0] final loss:"),
    (["--ps", "0", "--workers", "1", "--no-flags", str(EXAMPLES / "mnist_convnet.py"),
      "--steps", "20", "--log_every", "0"], "[worker:0] test accuracy:"),
    (["--ps", "1", "--workers", "2", "-m", "tensorfleet.cli.demo_train", "--steps", "60"],
     "[worker:0] test accuracy:"),
    (["--ps", "1", "--workers", "2", str(EXAMPLES / "trainer.py"), "--train_steps", "60",
      "--checkpoint_dir", "{tmp}/ckpt"], '[worker:0] RESULT {"worker": 0'),
    (["--allreduce", "2", str(EXAMPLES / "allreduce_convnet.py"),
      "--steps", "10", "--log_every", "0"],
     "[worker:0] test accuracy:"),
    (["--ps", "1", "--workers", "1", "--chief", "--evaluator", "--no-flags",
      str(EXAMPLES / "estimator_digits.py"), "--model_dir", "{tmp}/model", "--max_steps", "40",
      "--throttle_secs", "0.5"], "[evaluator:0]"),
]


@pytest.mark.parametrize("args,expected", EXAMPLE_LAUNCHES,
                         ids=["seed_zcalc", "hello", "mlp", "mnist_convnet", "demo_trainer",
                              "trainer", "allreduce_convnet", "estimator_digits"])
def test_launch_runs_the_examples(args, expected, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    r = _cli("launch", *args, cwd=str(EXAMPLES))
    assert r.returncode == 0, r.stdout + r.stderr
    assert expected in r.stdout, r.stdout
    assert "all workers finished successfully" in r.stderr


# -- first-run frictions: one clear line instead of the wrong usage or a traceback per task --

NO_PS_SCRIPT = """
import json, os
import tensorfleet as tf
cfg = json.loads(os.environ["TF_CONFIG"])
server = tf.train.Server(tf.train.ClusterSpec(cfg["cluster"]), job_name=cfg["task"]["type"],
                         task_index=cfg["task"]["index"])
with tf.device("/job:ps/task:0"):
    w = tf.Variable(1.0)
with tf.Session(server.target) as sess:
    sess.run(tf.global_variables_initializer())
"""


def test_an_unknown_option_before_the_script_gets_launchs_usage_and_where_it_goes():
    r = _cli("launch", "--ps", "1", "--workers", "2", "--sync", "trainer.py")
    assert r.returncode == 2
    assert "usage: tensorfleet launch" in r.stderr, r.stderr
    assert "unrecognized arguments: --sync" in r.stderr
    assert "tensorfleet launch --ps 1 --workers 2 trainer.py --sync" in r.stderr, r.stderr
    # An unknown option's value stays with it; the script's own arguments follow.
    r = _cli("launch", "--ps", "1", "--steps", "100", "trainer.py", "--lr", "0.1")
    assert r.returncode == 2 and "usage: tensorfleet launch" in r.stderr
    assert "tensorfleet launch --ps 1 trainer.py --steps 100 --lr 0.1" in r.stderr, r.stderr
    # The other commands name the option under their own usage too.
    r = _cli("status", "--bogus")
    assert r.returncode == 2 and "usage: tensorfleet status" in r.stderr, r.stderr


def test_every_launch_option_with_a_value_is_known_to_the_hint():
    from tensorfleet.cli.main import build_parser
    sub = next(a for a in build_parser()._actions if a.choices and "launch" in a.choices)
    takes_value = {o for a in sub.choices["launch"]._actions for o in a.option_strings
                   if o.startswith("--") and a.nargs != 0 and o != "--help"}
    assert takes_value == set(launch.VALUE_OPTIONS)


def test_a_port_in_use_is_one_line_before_any_task_starts(tmp_path):
    script = tmp_path / "task.py"
    script.write_text("import sys; open(sys.argv[1], 'w').close()\n")
    marker = tmp_path / "started"
    with socket.socket() as taken:
        taken.bind(("localhost", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = _cli("launch", "--ps", "1", "--workers", "1", "--port-base", str(port),
                 str(script), str(marker))
    assert r.returncode == 2, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == [f"tensorfleet launch: localhost:{port} (ps:0) is already in use by another "
                     "program; choose another --port-base, or leave it out to use free ports"]
    assert not marker.exists(), "no task may start"


def test_a_cluster_without_ps_for_a_program_that_needs_one_is_one_line(tmp_path):
    rc, out, err, lines, launcher = _run_launcher(tmp_path, NO_PS_SCRIPT, ps=0, workers=2,
                                                  max_restarts=2)
    assert rc == launch.EXIT_TASK_FAILED
    assert "Traceback" not in out + err, out + err
    failed = [ln for ln in err.splitlines() if " failed" in ln]
    assert len(failed) == 1, err
    assert failed[0].startswith("[launch] task")
    assert failed[0].endswith("failed: the program places variables on a parameter server, "
                              "but the cluster has none: launch it with --ps 1 (or more)")
    assert "restarting" not in err, "a restart cannot give the cluster a ps"
