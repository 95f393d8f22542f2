"""Separate network hosts on one machine: network namespaces joined by a switch.

``NetworkHosts(n)`` makes ``n`` hosts. Each host is a network namespace with one
interface, ``eth0``, holding a private address; its other end is a port of a bridge
(the switch) that lives in a namespace of its own. Nothing is added to the machine's
own namespace: the hosts' addresses exist only inside these namespaces, so no packet
of a test can leave the machine or meet its other traffic, and every port number is
free on every host. Processes run on a host through ``ip netns exec``, which execs
the command itself, so the returned ``Popen``'s pid is the task's own.

What a test can do to the network:

- ``rate``: a token-bucket cap (``tc qdisc ... tbf``) on the egress of both ends of
  each host's link, so the cap holds in both directions, as on a real NIC;
- ``cut(i)`` / ``heal(i)``: host ``i``'s switch port is taken off the bridge and put
  back. Host ``i`` keeps its interface up and its address, as when a switch port or
  a cable fails: packets in both directions are dropped without an error, nothing is
  refused, and the peers find out only through their own timeouts.

``close()`` ends every process started on the hosts (by pid) and deletes the
namespaces (their links go with them); it runs also after a failure. Namespace names
carry the creating process's pid (``tfhost-<pid>-<tag>-...``): ``sweep()`` deletes
those whose creator is gone, left by a run that was killed before it could clean up.

Needs root and iproute2; ``unavailable()`` says why hosts cannot be made here.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from typing import Dict, List, Optional, Sequence

logger = logging.getLogger(__name__)

PREFIX = "tfhost-"
_NAME_RE = re.compile(r"^tfhost-(\d+)-[0-9a-f]{6}-(sw|h\d+)$")
HOST_IF = "eth0"
BRIDGE_IF = "br0"
_IP_TIMEOUT = 20.0


class HostsError(RuntimeError):
    """A network command failed; the message holds the command and its error output."""


def _run(cmd: Sequence[str], check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=_IP_TIMEOUT)
    if check and r.returncode != 0:
        raise HostsError(f"{' '.join(cmd)} failed ({r.returncode}): "
                         f"{(r.stderr or r.stdout).strip()}")
    return r


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return _run(["ip", *args], check=check)


def unavailable() -> str:
    """Why network hosts cannot be made on this machine, or '' when they can."""
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed (apt-get install -y iproute2)"
    if shutil.which("tc") is None:
        return "iproute2's `tc` is not installed (apt-get install -y iproute2)"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    probe = f"{PREFIX}{os.getpid()}-{secrets.token_hex(3)}-sw"
    r = _ip("netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"`ip netns add` failed: {(r.stderr or r.stdout).strip()}"
    try:
        r = _ip("-n", probe, "link", "add", BRIDGE_IF, "type", "bridge", check=False)
        if r.returncode != 0:
            return f"cannot make a bridge in a namespace: {(r.stderr or r.stdout).strip()}"
    finally:
        _ip("netns", "del", probe, check=False)
    return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _namespaces() -> List[str]:
    r = _ip("-j", "netns", "list", check=False)
    if r.returncode != 0 or not r.stdout.strip():
        return []
    return [e["name"] for e in json.loads(r.stdout)]


def _end_processes_in(ns: str) -> None:
    r = _ip("netns", "pids", ns, check=False)
    for tok in r.stdout.split():
        try:
            os.kill(int(tok), signal.SIGKILL)
        except (ValueError, ProcessLookupError):
            pass


def sweep() -> List[str]:
    """Deletes the namespaces (and the processes in them) that a ``NetworkHosts`` of a
    process that is gone left behind; returns their names. Hosts of live processes,
    such as tests running beside this one, are left alone."""
    removed = []
    for ns in _namespaces():
        m = _NAME_RE.fullmatch(ns)
        if not m or _alive(int(m.group(1))):
            continue
        _end_processes_in(ns)
        if _ip("netns", "del", ns, check=False).returncode == 0:
            removed.append(ns)
            logger.info("removed network namespace %s, left by a process that is gone", ns)
    return removed


def _used_networks() -> List[ipaddress.IPv4Network]:
    """The IPv4 networks of the machine's own addresses and routes."""
    nets = []
    for args in (["-j", "-4", "addr", "show"], ["-j", "-4", "route", "show", "table", "all"]):
        r = _ip(*args, check=False)
        try:
            entries = json.loads(r.stdout or "[]")
        except ValueError:
            continue
        for e in entries:
            for a in e.get("addr_info", []):
                nets.append(ipaddress.ip_network(f"{a['local']}/{a['prefixlen']}", strict=False))
            dst = e.get("dst")
            if dst and dst != "default":
                try:
                    nets.append(ipaddress.ip_network(dst, strict=False))
                except ValueError:
                    pass
    return nets


def _free_subnet() -> ipaddress.IPv4Network:
    """A random /24 in 10.0.0.0/8 that no address or route of the machine overlaps."""
    used = _used_networks()
    for _ in range(200):
        net = ipaddress.ip_network(f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.0/24")
        if not any(net.overlaps(u) for u in used):
            return net
    raise HostsError("no free /24 in 10.0.0.0/8 for the test hosts")


def _rate_bits(rate: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmg]?)(?:bit)?", rate.strip().lower())
    if not m:
        raise ValueError(f"rate {rate!r} is not of the form <number>[k|m|g]bit, "
                         "e.g. '1gbit'")
    bits = float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]
    if bits <= 0:
        raise ValueError(f"rate {rate!r} must be positive")
    return int(bits)


class NetworkHosts:
    """``n`` hosts on one switch, each a network namespace with one address.

    Args:
      n: how many hosts (1 to 200).
      rate: a cap on each host's link in both directions, e.g. ``"1gbit"``; None
        leaves the links uncapped.

    Attributes:
      addresses: host ``i``'s IPv4 address is ``addresses[i]``.
      namespaces: host ``i``'s namespace name.
    """

    def __init__(self, n: int, rate: Optional[str] = None):
        if not 1 <= n <= 200:
            raise ValueError(f"n={n}: between 1 and 200 hosts")
        self.n = n
        self.rate_bits = _rate_bits(rate) if rate is not None else None
        tag = secrets.token_hex(3)
        base = f"{PREFIX}{os.getpid()}-{tag}"
        self.switch = f"{base}-sw"
        self.namespaces = [f"{base}-h{i}" for i in range(n)]
        self.subnet: Optional[ipaddress.IPv4Network] = None
        self.addresses: List[str] = []
        self._procs: List[subprocess.Popen] = []
        self._made: List[str] = []
        self._cut: Dict[int, bool] = {}

    # -- making and removing ---------------------------------------------------------
    def create(self) -> "NetworkHosts":
        """Makes the switch and the hosts; on any failure removes what it made."""
        try:
            self.subnet = _free_subnet()
            hosts = list(self.subnet.hosts())
            self.addresses = [str(hosts[i]) for i in range(self.n)]
            self._add_namespace(self.switch)
            sw = ["-n", self.switch]
            _ip(*sw, "link", "add", BRIDGE_IF, "type", "bridge")
            _ip(*sw, "link", "set", BRIDGE_IF, "up")
            _ip(*sw, "link", "set", "lo", "up")
            for i, ns in enumerate(self.namespaces):
                self._add_namespace(ns)
                # Both ends are made inside their namespaces: nothing ever appears in the
                # machine's own, and the names need only be unique within each namespace.
                _ip("link", "add", HOST_IF, "netns", ns, "type", "veth", "peer", "name",
                    self.port(i), "netns", self.switch)
                _ip(*sw, "link", "set", self.port(i), "master", BRIDGE_IF)
                _ip(*sw, "link", "set", self.port(i), "up")
                _ip("-n", ns, "addr", "add", f"{self.addresses[i]}/{self.subnet.prefixlen}",
                    "dev", HOST_IF)
                _ip("-n", ns, "link", "set", HOST_IF, "up")
                _ip("-n", ns, "link", "set", "lo", "up")
                if self.rate_bits is not None:
                    self._cap(ns, HOST_IF)
                    self._cap(self.switch, self.port(i))
        except BaseException:
            self.close()
            raise
        return self

    def _add_namespace(self, ns: str) -> None:
        _ip("netns", "add", ns)
        self._made.append(ns)

    def _cap(self, ns: str, dev: str) -> None:
        rate = self.rate_bits
        assert rate is not None
        # The bucket holds 4 ms at the rate (the kernel refills it at least every tick),
        # and never less than two 64 KiB segments: veth hands tbf whole GSO segments.
        burst = max(rate // 8 // 250, 2 * 65536)
        _run(["tc", "-n", ns, "qdisc", "replace", "dev", dev, "root", "tbf", "rate",
              f"{rate}bit", "burst", str(burst), "latency", "50ms"])
        # Segments of up to 64 KiB would make a bucket of small rates overflow at once.
        if rate < 100_000_000:
            _run(["ip", "-n", ns, "link", "set", dev, "gso_max_size", "16384"], check=False)

    def close(self) -> None:
        """Ends every process started on the hosts, then deletes the namespaces."""
        procs, self._procs = self._procs, []
        for p in procs:
            if p.poll() is None:
                try:
                    p.kill()
                except ProcessLookupError:
                    pass
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                logger.warning("process %d on a test host did not end", p.pid)
        made, self._made = self._made, []
        for ns in reversed(made):
            _end_processes_in(ns)  # what a started process forked and left running
            r = _ip("netns", "del", ns, check=False)
            if r.returncode != 0:
                logger.warning("cannot delete network namespace %s: %s", ns, r.stderr.strip())

    def __enter__(self) -> "NetworkHosts":
        return self.create()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the network -----------------------------------------------------------------
    def port(self, i: int) -> str:
        """The name of host ``i``'s switch port (in the switch's namespace)."""
        self._check(i)
        return f"p{i}"

    def _check(self, i: int) -> None:
        if not 0 <= i < self.n:
            raise IndexError(f"host {i}: there are hosts 0 to {self.n - 1}")

    def cut(self, i: int) -> None:
        """Disconnects host ``i``: its switch port leaves the bridge, so every packet to
        or from it is dropped silently, while its own interface stays up."""
        self._check(i)
        _ip("-n", self.switch, "link", "set", self.port(i), "nomaster")
        self._cut[i] = True

    def heal(self, i: int) -> None:
        """Connects host ``i`` to the switch again."""
        self._check(i)
        _ip("-n", self.switch, "link", "set", self.port(i), "master", BRIDGE_IF)
        self._cut[i] = False

    def is_cut(self, i: int) -> bool:
        return self._cut.get(i, False)

    def counters(self, i: int) -> Dict[str, int]:
        """Host ``i``'s interface counters: ``tx_bytes``, ``rx_bytes``, ``tx_packets``,
        ``rx_packets`` (what it sent and received over its link)."""
        self._check(i)
        r = _ip("-n", self.namespaces[i], "-j", "-s", "link", "show", "dev", HOST_IF)
        stats = json.loads(r.stdout)[0]["stats64"]
        return {"tx_bytes": stats["tx"]["bytes"], "rx_bytes": stats["rx"]["bytes"],
                "tx_packets": stats["tx"]["packets"], "rx_packets": stats["rx"]["packets"]}

    # -- processes -------------------------------------------------------------------
    def prefix(self, i: int) -> List[str]:
        """The command prefix that runs a program on host ``i``."""
        self._check(i)
        return ["ip", "netns", "exec", self.namespaces[i]]

    def run(self, i: int, cmd: Sequence[str], **popen_kw) -> subprocess.Popen:
        """Starts ``cmd`` on host ``i``; the process is ended by ``close()`` if still
        running. ``ip netns exec`` execs ``cmd``, so the pid is the command's own."""
        p = subprocess.Popen([*self.prefix(i), *cmd], **popen_kw)
        self._procs.append(p)
        return p

    def check_output(self, i: int, cmd: Sequence[str], timeout: float = 30.0) -> str:
        """Runs ``cmd`` on host ``i`` to the end; its stdout."""
        r = subprocess.run([*self.prefix(i), *cmd], capture_output=True, text=True,
                           timeout=timeout)
        if r.returncode != 0:
            raise HostsError(f"{' '.join(cmd)} on host {i} failed ({r.returncode}): "
                             f"{(r.stderr or r.stdout).strip()}")
        return r.stdout


def wait_gone(namespaces: Sequence[str], timeout: float = 10.0) -> bool:
    """Whether the namespaces are gone from ``ip netns list`` within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not set(namespaces) & set(_namespaces()):
            return True
        time.sleep(0.05)
    return False


__all__ = ["NetworkHosts", "HostsError", "unavailable", "sweep", "wait_gone", "PREFIX"]
