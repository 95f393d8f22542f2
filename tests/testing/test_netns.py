"""A network partition: the ps in its own network namespace, its link cut and healed.

The parameter server runs in a network namespace of its own, joined to the host by
a veth pair; the workers run on the host side of the pair. Cutting the link (``ip
link set ... down`` on the ps's side, as when its cable is pulled: packets are
dropped, nothing is refused) must fail the workers' steps within seconds with an
``UnavailableError`` naming ``/job:ps/task:0``; bringing it back up must let
training go on without a restart and without restoring a checkpoint.

Needs root and iproute2 (``ip netns``); skipped, saying why, where a namespace
cannot be made (unprivileged CI runners, containers without CAP_NET_ADMIN).
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time

import pytest

from tests.distributed.test_faults import ASYNC, FaultCluster, finish, logged_at, report

pytestmark = pytest.mark.timeout(180)


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True,
                          timeout=20)


def _namespaces_unavailable() -> str:
    """Why network namespaces cannot be used here, or '' when they can."""
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed (apt-get install -y iproute2)"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    probe = f"tfprobe{secrets.token_hex(3)}"
    r = _ip("netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"`ip netns add` failed: {r.stderr.strip() or r.stdout.strip()}"
    _ip("netns", "del", probe, check=False)
    return ""


class PsNamespace:
    """A namespace holding the ps's end of a veth pair; ``cut()`` and ``heal()`` the link."""

    def __init__(self) -> None:
        tag = secrets.token_hex(3)
        self.name, self.host_end, self.ps_end = f"tfps{tag}", f"tfh{tag}", f"tfp{tag}"
        n = int(tag, 16)
        net = f"10.{200 + n % 50}.{n % 250}"
        self.host_ip, self.ps_ip = f"{net}.1", f"{net}.2"

    def create(self) -> None:
        _ip("netns", "add", self.name)
        _ip("link", "add", self.host_end, "type", "veth", "peer", "name", self.ps_end)
        _ip("link", "set", self.ps_end, "netns", self.name)
        _ip("addr", "add", f"{self.host_ip}/24", "dev", self.host_end)
        _ip("link", "set", self.host_end, "up")
        self.exec("ip", "addr", "add", f"{self.ps_ip}/24", "dev", self.ps_end)
        self.exec("ip", "link", "set", self.ps_end, "up")
        self.exec("ip", "link", "set", "lo", "up")

    def exec(self, *cmd: str) -> None:
        _ip("netns", "exec", self.name, *cmd)

    def prefix(self) -> list:
        return ["ip", "netns", "exec", self.name]

    def cut(self) -> None:
        self.exec("ip", "link", "set", self.ps_end, "down")

    def heal(self) -> None:
        self.exec("ip", "link", "set", self.ps_end, "up")

    def destroy(self) -> None:
        _ip("netns", "del", self.name, check=False)  # takes the veth pair with it
        _ip("link", "del", self.host_end, check=False)


@pytest.fixture
def ps_namespace():
    why = _namespaces_unavailable()
    if why:
        pytest.skip(f"network namespaces unavailable: {why}")
    ns = PsNamespace()
    try:
        ns.create()
        yield ns
    finally:
        ns.destroy()


def test_ps_cut_off_by_the_network_is_named_within_seconds_and_training_resumes(
        tmp_path, ps_namespace):
    ns = ps_namespace
    # Addresses other than loopback need the cluster token.
    c = FaultCluster(tmp_path, args=ASYNC, ps_host=ns.ps_ip, worker_host=ns.host_ip,
                     env={"TENSORFLEET_TOKEN": secrets.token_urlsafe(24)})
    try:
        c.start("ps:0", prefix=ns.prefix())
        c.start("worker:0")
        c.start("worker:1")
        c.wait_step("worker:0", 30, 60)
        c.wait_step("worker:1", 30, 60)
        ns.cut()
        cut = time.time()
        try:
            for w in ("worker:0", "worker:1"):
                line = c.wait_log(w, r"^.*A step failed with UnavailableError: Task "
                                     r"/job:ps/task:0 stopped responding.*$", 20)
                took = logged_at(line) - cut
                report(f"link of ps cut -> {w}'s step fails naming /job:ps/task:0", took)
                assert took < 10
            time.sleep(2)
            frozen = c.last_step("worker:0")
        finally:
            ns.heal()
        healed = time.time()
        c.wait_step("worker:0", frozen + 10, 60)
        report("link healed -> chief steps again", time.time() - healed)
        finish(c)
        # The ps kept its variables across the partition: nothing was restored.
        assert "Restoring parameters" not in c.log("worker:0")
    finally:
        c.stop_all()
