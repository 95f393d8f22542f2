"""All-reduce through shared memory among the ranks of one host.

Over TCP on loopback every byte of a ring all-reduce is copied by the kernel twice
per hop (into the socket, out of it); with three ranks on two cores that copying,
not the sums, bounds the operation. Ranks that share a host can instead each
publish their tensor in a shared-memory segment and read one another's directly:

1. each rank copies its tensor into its own segment; barrier;
2. rank ``r`` reduces segment ``r`` of the tensor (the same boundaries as the
   ring's) from every rank's segment, in rank order, into its result, and
   publishes that slice in its own segment; barrier;
3. each rank copies the other ranks' reduced slices into its result; barrier
   (no rank overwrites its segment for the next operation while another reads it).

Each slice is reduced once, by one rank, so every rank ends with the same bits.
The barriers and the set-up travel over the group's own links, so a rank that
dies fails the operation as it would fail a ring step.

Set-up happens on the first operation that needs it (and again when a bigger
tensor comes): every rank creates a segment under ``/dev/shm`` (mode 0600, a
random name, its space reserved with ``posix_fallocate`` so a full tmpfs is an
error now, not a SIGBUS later), sends its name and a random nonce to the others,
opens theirs and checks size and nonce, and tells everyone whether it could. Only
if every rank could is shared memory used; otherwise (ranks on other hosts, no
/dev/shm) the group keeps using its ring for good.

A peer's segment is opened only if the peer runs on this host as the network sees it:
same kernel (boot id) and same network namespace. Ranks in different network
namespaces of one machine (containers, or the test hosts of
``tensorfleet.testing.hosts``) may well see one /dev/shm, yet they are separate
hosts to the network and their all-reduce must measure the network path. Once everyone has opened
every segment, each owner removes its name, so nothing is left behind even if a
process is killed afterwards. A process killed during set-up, while its peers may
still be opening its segment, cannot remove the name; the name holds the creator's
pid (and pid namespace), so the next group formed on the host removes segments whose
creator is gone. A segment is opened only under a name of the form this module
makes, and only if it is a regular file of the expected size.
"""

from __future__ import annotations

import logging
import hashlib
import mmap
import os
import re
import secrets
import stat
from typing import Any, Dict, Optional

import numpy as np

from tensorfleet.collectives import algorithms
from tensorfleet.collectives import group as _g

logger = logging.getLogger(__name__)

SHM_DIR = "/dev/shm"
# tfleet-coll-<pid namespace>-<pid>-<random>: who made it, so that a segment left
# by a killed process can be found and removed.
_NAME_RE = re.compile(r"^tfleet-coll-(\d+)-(\d+)-[0-9a-f]{32}$")


def _pid_namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def segment_name() -> str:
    """A new segment's name: this process's pid namespace and pid, and 128 random bits."""
    return f"tfleet-coll-{_pid_namespace()}-{os.getpid()}-{secrets.token_hex(16)}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def remove_stale_segments(directory: Optional[str] = None) -> int:
    """Removes the segments (in ``directory``, default ``SHM_DIR``) that processes of
    this pid namespace and user created and that are gone (killed during a set-up);
    returns how many were removed."""
    directory = SHM_DIR if directory is None else directory
    ns, uid, removed = _pid_namespace(), os.getuid(), 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        m = _NAME_RE.fullmatch(entry.name)
        if not m or int(m.group(1)) != ns or _alive(int(m.group(2))):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_uid == uid:
            _unlink(entry.path)
            removed += 1
            logger.info("removed %s, left by a process that is gone", entry.path)
    return removed
def host_key() -> bytes:
    """16 bytes that ranks share exactly when they share a host: a hash of the
    kernel's boot id and this process's network namespace."""
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as f:
            boot = f.read(64).strip()
    except OSError:
        boot = b""
    try:
        netns = os.stat("/proc/self/ns/net").st_ino
    except OSError:
        netns = 0
    return hashlib.sha256(boot + b"/" + str(netns).encode("ascii")).digest()[:_HOST]


# Segment layout: the owner's nonce, then the data, 64-byte aligned.
_HEADER = 64
_NONCE = 16
# The set-up message: the segment name (NUL-padded), the sender's host key, the nonce.
_MSG = 128
_HOST = 16
_OK, _FAILED = 1, 2


class SharedSegments:
    """This rank's segment and its peers', for a group's shared-memory all-reduce.

    Args:
      enabled: False keeps the group on its ring (and creates nothing).
    """

    def __init__(self, enabled: bool = True):
        self.enabled = bool(enabled) and os.path.isdir(SHM_DIR)
        self.capacity = 0
        self._maps: Dict[int, mmap.mmap] = {}
        if self.enabled:
            remove_stale_segments()  # what a rank killed in an earlier set-up left

    def close(self) -> None:
        """Unmaps every segment (their names were removed at set-up)."""
        maps, self._maps = self._maps, {}
        self.capacity = 0
        for m in maps.values():
            try:
                m.close()
            except (BufferError, ValueError):
                pass  # an array still views it; the mapping goes with that array

    def data(self, rank: int, dtype: np.dtype, count: int) -> np.ndarray:
        """The data area of ``rank``'s segment as ``count`` elements of ``dtype``."""
        return np.frombuffer(self._maps[rank], dtype=dtype, count=count, offset=_HEADER)


def usable(g: Any, src: np.ndarray, compression: Optional[str]) -> bool:
    """Whether an all-reduce of ``src`` may take the shared-memory path (the ring's
    conditions for its pipelined path, no compression, a numeric dtype)."""
    seg: SharedSegments = g.shm
    return (seg.enabled and g.size > 1 and compression == _g.NO_COMPRESSION
            and src.dtype.kind in "biufc" and src.nbytes > g.small_bytes
            and src.size >= 2 * g.size)


def all_reduce(g: Any, seq: int, src: np.ndarray, dst: np.ndarray, reduction: str,
               timeout: float) -> bool:
    """Reduces flat ``src`` into flat ``dst`` through shared memory. False if the group
    cannot use it (every rank learns that in the same set-up exchange), so the caller
    takes the ring; ``dst`` is then untouched."""
    seg: SharedSegments = g.shm
    algorithms._set_header(g, seq, "all_reduce", src.size)
    if seg.capacity < src.nbytes and not _set_up(g, seg, src.nbytes, timeout):
        return False
    n, r = g.size, g.rank
    views = [seg.data(p, src.dtype, src.size) for p in range(n)]
    np.copyto(views[r], src)
    _barrier(g, timeout)
    bounds = _g.segment_bounds(src.size, n)
    a, b = bounds[r], bounds[r + 1]
    mine = dst[a:b]
    merge = _g.merge_fn(reduction)
    np.copyto(mine, views[0][a:b])
    for p in range(1, n):
        merge(mine, views[p][a:b], out=mine)
    if reduction == _g.MEAN:
        algorithms._scale(mine, n)
    np.copyto(views[r][a:b], mine)
    _barrier(g, timeout)
    for p in range(n):
        if p != r:
            np.copyto(dst[bounds[p]:bounds[p + 1]], views[p][bounds[p]:bounds[p + 1]])
    _barrier(g, timeout)
    return True


def _barrier(g: Any, timeout: float) -> None:
    token = np.zeros(1, np.uint8)
    algorithms._exchange(g, timeout, {p: token for p in range(g.size) if p != g.rank},
                         {p: np.empty(1, np.uint8) for p in range(g.size) if p != g.rank})


def _set_up(g: Any, seg: SharedSegments, nbytes: int, timeout: float) -> bool:
    """Creates this rank's segment, opens the peers'; True if every rank could."""
    n, r = g.size, g.rank
    # Room for twice the tensor, so that a slowly growing size does not set up again
    # at every step; every rank computes the same size.
    capacity = max(nbytes, 2 * seg.capacity)
    seg.close()
    nonce = secrets.token_bytes(_NONCE)
    name = segment_name()
    path = os.path.join(SHM_DIR, name)
    own = _create(path, _HEADER + capacity, nonce)
    msg = setup_message(name, nonce) if own is not None else np.zeros(_MSG, np.uint8)
    got = {p: np.empty(_MSG, np.uint8) for p in range(n) if p != r}
    votes = {p: np.empty(1, np.uint8) for p in got}
    maps: Dict[int, mmap.mmap] = {}
    everyone = False
    try:
        algorithms._exchange(g, timeout, {p: msg for p in got}, got)
        ok = own is not None
        for p, m in got.items():
            opened = _open_peer(m, _HEADER + capacity) if ok else None
            ok = opened is not None
            if opened is not None:
                maps[p] = opened
        verdict = np.full(1, _OK if ok else _FAILED, np.uint8)
        algorithms._exchange(g, timeout, {p: verdict for p in got}, votes)
        everyone = ok and all(int(v[0]) == _OK for v in votes.values())
    finally:
        if own is not None:
            # Every rank has tried to open it by now (its vote came after): the name
            # can go; the mappings keep the memory alive.
            _unlink(path)
        if not everyone:
            for m in list(maps.values()) + ([own] if own is not None else []):
                m.close()
    if not everyone:
        seg.enabled = False
        logger.info("collective group %r: ranks do not share a host (or /dev/shm is not "
                    "usable); all-reduce stays on the ring", getattr(g, "name", "?"))
        return False
    assert own is not None
    maps[r] = own
    seg._maps, seg.capacity = maps, capacity
    logger.debug("collective group %r: shared-memory all-reduce with %d bytes per rank",
                 getattr(g, "name", "?"), capacity)
    return True


def _create(path: str, size: int, nonce: bytes) -> Optional[mmap.mmap]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except OSError as e:
        logger.debug("cannot create %s: %s", path, e)
        return None
    try:
        # Reserves the pages now: a full tmpfs fails here, not with SIGBUS on a write.
        os.posix_fallocate(fd, 0, size)
        m = mmap.mmap(fd, size)
    except OSError as e:
        logger.debug("cannot reserve %d bytes in %s: %s", size, path, e)
        os.close(fd)
        _unlink(path)
        return None
    os.close(fd)
    m[:_NONCE] = nonce
    return m


def setup_message(name: str, nonce: bytes, key: Optional[bytes] = None) -> np.ndarray:
    """What a rank sends its peers at set-up: its segment's name, its host key
    (default ``host_key()``) and its segment's nonce."""
    msg = np.zeros(_MSG, np.uint8)
    msg[:len(name)] = np.frombuffer(name.encode("ascii"), np.uint8)
    msg[_MSG - _NONCE - _HOST:_MSG - _NONCE] = np.frombuffer(
        host_key() if key is None else key, np.uint8)
    msg[_MSG - _NONCE:] = np.frombuffer(nonce, np.uint8)
    return msg


def _open_peer(msg: np.ndarray, size: int) -> Optional[mmap.mmap]:
    """Maps the segment a peer announced, if its name, size and nonce check out."""
    raw = bytes(msg[:_MSG - _NONCE - _HOST]).rstrip(b"\0")
    nonce = bytes(msg[_MSG - _NONCE:])
    if bytes(msg[_MSG - _NONCE - _HOST:_MSG - _NONCE]) != host_key():
        return None  # another host, though it may see the same /dev/shm
    try:
        name = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not _NAME_RE.fullmatch(name):
        return None
    try:
        fd = os.open(os.path.join(SHM_DIR, name), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None  # another host's rank, most likely
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size or st.st_uid != os.getuid():
            return None
        # Read-only: a rank only ever reads its peers' segments.
        m = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
    except OSError:
        return None
    finally:
        os.close(fd)
    if m[:_NONCE] != nonce:
        m.close()
        return None
    return m


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


__all__ = ["SharedSegments", "usable", "all_reduce", "SHM_DIR", "segment_name",
           "remove_stale_segments", "host_key", "setup_message"]
