"""Ring all-reduce on separate network hosts, one rank's host cut off mid-run.

Three ranks, each on a host of its own (``tensorfleet.testing.hosts``), run under the
launcher (``tensorfleet.cli.launch.Launcher`` with ``--max-restarts``, every task's
command prefixed to run on its host) a program that forms its group from
``TF_CONFIG`` and all-reduces in a loop. Cutting rank 2's host must make the other
ranks fail within the group's timeout with an error naming rank 2 and its address
(and rank 2 fail naming a peer); every rank exits non-zero, so the launcher restarts
them; once the host is back the group forms again and every rank finishes its
all-reduces with the right sums and exits 0. Nothing hangs.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import sys
import threading
import time

import pytest

from tensorfleet.cli.launch import Launcher, build_tasks
from tensorfleet.cli.output import PrefixWriter
from tests.distributed.test_faults import report, wait_until

pytestmark = pytest.mark.timeout(180)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PORT = 2222  # every host has its own ports
TIMEOUT = 3.0  # the group's timeout: how long a peer may stay silent
ROUNDS = 60

PROGRAM = '''
import json, sys, time
import numpy as np
import tensorfleet.collectives as coll
from tensorfleet import errors
g = coll.init()
print("FORMED rank %d of %d" % (g.rank, g.size), flush=True)
x = np.full(1 << 16, g.rank + 1.0, np.float32)
want = g.size * (g.size + 1) / 2
t0 = time.time()
for i in range(ROUNDS):
    try:
        out = g.all_reduce(x)
    except errors.OpError as e:
        print("FAILED %.3f %s: %s" % (time.time(), type(e).__name__, e), flush=True)
        sys.exit(3)
    assert float(out[0]) == want and float(out[-1]) == want, (out[0], want)
    print("ROUND %d %.3f" % (i, time.time()), flush=True)
    time.sleep(0.05)
print("DONE", flush=True)
'''.replace("ROUNDS", str(ROUNDS))


class Output:
    """The launcher's output as it comes, thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.buf = io.StringIO()

    def write(self, s: str) -> int:
        with self.lock:
            return self.buf.write(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        with self.lock:
            return self.buf.getvalue()

    def lines(self, task: str, pattern: str):
        return re.findall(rf"^\[{task}\] ({pattern})$", self.text(), re.M)


def test_a_cut_rank_is_named_within_the_timeout_and_the_group_forms_again(tmp_path,
                                                                          network_hosts):
    h = network_hosts(3)
    script = tmp_path / "allreduce_loop.py"
    script.write_text(PROGRAM)
    cluster = {"worker": [f"{a}:{PORT}" for a in h.addresses]}
    tasks = build_tasks(cluster, [sys.executable, "-u", str(script)], [],
                        token=secrets.token_urlsafe(24), flags=False,
                        extra_env={"PYTHONPATH": ROOT, "TENSORFLEET_COLLECTIVE_TIMEOUT":
                                   str(TIMEOUT)})
    for i, t in enumerate(tasks):
        t.argv = h.prefix(i) + t.argv
    out = Output()
    launcher = Launcher(tasks, max_restarts=2, grace=2.0,
                        writer=PrefixWriter(out, out, color=False), cwd=str(tmp_path))
    result = {}
    runner = threading.Thread(target=lambda: result.setdefault("rc", launcher.run()),
                              daemon=True)
    runner.start()
    try:
        wait_until(lambda: all(len(out.lines(f"worker:{i}", r"ROUND \d+ \S+")) >= 5
                               for i in range(3)), 60, "every rank's fifth all-reduce",
                   out.text)
        h.cut(2)
        cut = time.time()
        try:
            for i in (0, 1):
                line = wait_until(lambda: out.lines(f"worker:{i}", r"FAILED .*"), 30,
                                  f"worker:{i} to fail", out.text)[0]
                _, at, kind, message = re.match(r"(FAILED) (\S+) (\w+): (.*)", line).groups()
                took = float(at) - cut
                report(f"rank 2's host cut -> rank {i} fails naming it", took)
                assert kind in ("DeadlineExceededError", "UnavailableError"), line
                assert f"rank 2 ({h.addresses[2]}:{PORT})" in message, line
                # The group's timeout, plus the time to notice on a loaded machine.
                assert took < TIMEOUT + 5, line
            wait_until(lambda: out.lines("worker:2", r"FAILED .*"), 30,
                       "the cut rank to fail", out.text)
            wait_until(lambda: "worker:2 exited (exit code 3); restarting it" in out.text(),
                       30, "the launcher to restart the cut rank", out.text)
        finally:
            h.heal(2)
        healed = time.time()
        wait_until(lambda: all(len(out.lines(f"worker:{i}", r"FORMED rank \d+ of 3")) >= 2
                               for i in range(3)), 60, "the group to form again", out.text)
        report("host healed -> the group formed again", time.time() - healed)
        runner.join(90)
        assert not runner.is_alive(), f"the launch did not end\n{out.text()}"
        assert result.get("rc") == 0, out.text()
        for i in range(3):
            assert out.lines(f"worker:{i}", "DONE"), out.text()
            assert "exited (exit code 3); restarting it" in out.text()
    finally:
        launcher.stop(grace=0)
        runner.join(30)
