"""The test hosts of ``tensorfleet.testing.hosts``: addresses that exist only in their
namespaces, a link that carries traffic and is capped both ways, a cut that drops
packets silently and a heal that brings them back, and nothing left at the end --
also after a failure, and also what a killed earlier run left."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import sys

import pytest

from tensorfleet.testing import hosts

pytestmark = pytest.mark.timeout(120)

# Listens on port 5000 of its host; answers every connection with what it received.
ECHO = """
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5000)); s.listen()
print("UP", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(c.recv(100)); c.close()
"""
# Connects to argv[1]:5000 and prints the echo, or the error, within 2 s.
CALL = """
import socket, sys
try:
    c = socket.create_connection((sys.argv[1], 5000), timeout=2)
    c.sendall(b"hello"); print(c.recv(100).decode())
except OSError as e:
    print(type(e).__name__)
"""


def _namespaces():
    out = subprocess.run(["ip", "-j", "netns", "list"], capture_output=True, text=True).stdout
    return {e["name"] for e in json.loads(out or "[]")}


def _call(h, i, j):
    return h.check_output(i, [sys.executable, "-c", CALL, h.addresses[j]]).strip()


def test_hosts_reach_each_other_over_capped_links_and_a_cut_drops_silently(network_hosts):
    h = network_hosts(3, rate="100mbit")
    addrs = [ipaddress.ip_address(a) for a in h.addresses]
    assert len(set(addrs)) == 3 and all(a in ipaddress.ip_network("10.0.0.0/8") for a in addrs)
    own = subprocess.run(["ip", "-4", "addr"], capture_output=True, text=True).stdout
    assert not any(a in own for a in h.addresses)  # the machine's namespace has none of them
    assert set(h.namespaces) | {h.switch} <= _namespaces()
    # Both ends of every link are capped: the host's interface and its switch port.
    for i in range(3):
        mine = subprocess.run(["tc", "-n", h.namespaces[i], "qdisc", "show", "dev", "eth0"],
                              capture_output=True, text=True).stdout
        port = subprocess.run(["tc", "-n", h.switch, "qdisc", "show", "dev", h.port(i)],
                              capture_output=True, text=True).stdout
        assert "tbf" in mine and "100Mbit" in mine, mine
        assert "tbf" in port and "100Mbit" in port, port
    server = h.run(1, [sys.executable, "-c", ECHO], stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().strip() == "UP"
    before = h.counters(0)["tx_bytes"]
    assert _call(h, 0, 1) == "hello"
    assert h.counters(0)["tx_bytes"] > before
    h.cut(1)
    assert h.is_cut(1)
    # Dropped, not refused: the caller finds out only by its own timeout.
    assert _call(h, 0, 1) in ("TimeoutError", "timeout")
    h.heal(1)
    assert _call(h, 0, 1) == "hello"
    assert _call(h, 2, 1) == "hello"


def test_everything_is_removed_at_close_also_after_a_failure(network_hosts):
    with pytest.raises(RuntimeError, match="boom"):
        with hosts.NetworkHosts(2) as h:
            names = set(h.namespaces) | {h.switch}
            p = h.run(0, [sys.executable, "-c", "import time; time.sleep(600)"])
            assert names <= _namespaces()
            raise RuntimeError("boom")
    assert p.poll() is not None  # ended by its pid
    assert hosts.wait_gone(list(names))


def test_the_sweeper_removes_only_what_gone_processes_left(network_hosts):
    # A process that made a namespace and died without removing it ...
    made = "n=%s$$-abcdef-h0; ip netns add $n && echo $n" % hosts.PREFIX
    left = subprocess.run(["sh", "-c", made], capture_output=True, text=True, check=True,
                          timeout=20).stdout.strip()
    live = network_hosts(1)  # ... and hosts of a live process, this one
    try:
        assert left in _namespaces()
        assert left in hosts.sweep()
        assert left not in _namespaces()
        assert set(live.namespaces) <= _namespaces()
    finally:
        subprocess.run(["ip", "netns", "del", left], capture_output=True)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="rate"):
        hosts.NetworkHosts(2, rate="fast")
    with pytest.raises(ValueError, match="between 1 and 200"):
        hosts.NetworkHosts(0)
