"""What launch and demo check before any task starts: a module that cannot be found,
a port already taken."""

import socket
import subprocess
import sys

from tensorfleet.cli import launch_checks
from tensorfleet.cli.main import main


def test_launch_of_a_missing_module_is_one_line_before_any_task(capsys):
    assert main(["launch", "--ps", "0", "--workers", "1", "-m", "no_such_pkg.trainer"]) == 2
    err = capsys.readouterr().err
    assert "no such module: no_such_pkg.trainer" in err
    assert "[launch]" not in err  # nothing was started


def test_module_exists_asks_the_tasks_interpreter():
    assert launch_checks.module_exists("tensorfleet.cli.demo_train")
    assert not launch_checks.module_exists("tensorfleet.cli.no_such_module")
    assert not launch_checks.module_exists("examples/trainer.py")


def test_demo_with_a_taken_port_base_is_one_line_before_any_task():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", "demo", "--ps", "1",
                            "--port-base", str(port)], capture_output=True, text=True,
                           timeout=120)
    assert r.returncode == 2, r.stderr
    assert f"localhost:{port} (ps:0)" in r.stderr and "already in use" in r.stderr
    assert "[launch]" not in r.stderr and "[worker" not in r.stdout
