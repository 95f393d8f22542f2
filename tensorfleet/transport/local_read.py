"""Big replies between processes of one host, read from the sender's memory.

Over TCP on loopback every byte of a reply is copied by the kernel twice, into
the socket and out of it, with both processes busy: a 64 MiB reply took 33 to
44 ms on this project's 2-core VM, a plain memory copy of it 10 to 15 ms. When
the side channel's two ends are processes of one host, the receiver instead
reads the reply straight from the sender's memory into its own buffer with
``process_vm_readv`` (one copy, made by the receiver's kernel call; the GIL is
released meanwhile), while the sender keeps the reply alive until told it was
read. TCP stays the path whenever anything about that does not hold.

The sender names its pid and where the reply lies in its memory. That comes
from the network like everything else, so before reading, the receiver checks
that the process with that pid holds the other end of this very TCP
connection: the connection's socket inode, found in the kernel's table of this
network namespace (``/proc/net/tcp``, ``tcp6``), must be one of that process's
open descriptors. A peer that merely knows the token cannot have the receiver
read some other process's memory; a peer in another network namespace (a
separate host to the network, though maybe the same kernel) is not found there
and gets TCP. The read is bounded by the size the reply head declared, checked
before the receive buffer is taken.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import socket
import ssl
import struct
import sys
from typing import List, Optional, Sequence, Tuple

import numpy as np

logger = logging.getLogger(__name__)

# Below this a reply goes over the socket: a round trip more costs more than it saves.
LOCAL_MIN_BYTES = 1 << 20
# A reply's parts: a head and one piece per tensor (a RecvTensors batch may hold many).
MAX_PARTS = 4096

# After the reply head (status STATUS_LOCAL): pid u64 | part count u32 | 0 u32, then
# per part: address u64 | length u64.
LOCAL_HEAD = struct.Struct("<QII")
LOCAL_PART = struct.Struct("<QQ")


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _load() -> Optional[object]:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.process_vm_readv
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_ssize_t
    fn.argtypes = [ctypes.c_int, ctypes.POINTER(_IoVec), ctypes.c_ulong,
                   ctypes.POINTER(_IoVec), ctypes.c_ulong, ctypes.c_ulong]
    return fn


_READV = _load()


def supported() -> bool:
    """Whether this process can read another's memory at all (Linux, the call exists)."""
    return _READV is not None


def wanted(sock: socket.socket) -> bool:
    """Whether to ask the peer of ``sock`` for replies by memory: a plain (not TLS)
    TCP connection between two addresses that are the same, as loopback is."""
    if _READV is None or isinstance(sock, ssl.SSLSocket):
        return False
    try:
        return sock.getsockname()[0] == sock.getpeername()[0]
    except OSError:
        return False


def describe(pid: int, parts: Sequence[memoryview]) -> List[bytes]:
    """The descriptor of a reply held in this process's memory as ``parts``."""
    pieces = [p for p in parts if len(p)]
    out = [LOCAL_HEAD.pack(pid, len(pieces), 0)]
    for p in pieces:
        # np.frombuffer takes read-only memory (bytes) as well; only its address is used.
        out.append(LOCAL_PART.pack(np.frombuffer(p, np.uint8).ctypes.data, len(p)))
    return out


def parse_parts(raw: bytes, count: int, total: int) -> List[Tuple[int, int]]:
    """The ``count`` (address, length) pairs of a descriptor, which must add up to
    ``total``; ValueError otherwise."""
    if len(raw) != count * LOCAL_PART.size:
        raise ValueError("descriptor of the wrong size")
    parts = [LOCAL_PART.unpack_from(raw, i * LOCAL_PART.size) for i in range(count)]
    if any(n <= 0 for _, n in parts) or sum(n for _, n in parts) != total:
        raise ValueError(f"parts that do not add up to the {total} bytes announced")
    return parts


def _inode_of_peer(sock: socket.socket) -> Optional[str]:
    """The inode of the socket at the other end of ``sock``, from this network
    namespace's TCP tables; None when it is not there (another namespace, another
    host) or is not unique."""
    try:
        mine, theirs = sock.getsockname()[1], sock.getpeername()[1]
    except OSError:
        return None
    # The peer's socket has our port as its remote one and its own as its local one.
    want_local, want_remote = f":{theirs:04X}", f":{mine:04X}"
    found: List[str] = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, "r") as f:
                next(f, None)
                for line in f:
                    cols = line.split()
                    if len(cols) > 9 and cols[1].endswith(want_local) \
                            and cols[2].endswith(want_remote):
                        found.append(cols[9])
        except OSError:
            continue
    return found[0] if len(found) == 1 and found[0] != "0" else None


def peer_is(sock: socket.socket, pid: int) -> bool:
    """Whether the process ``pid`` holds the other end of the TCP connection ``sock``."""
    if pid <= 0:
        return False
    inode = _inode_of_peer(sock)
    if inode is None:
        return False
    target = f"socket:[{inode}]"
    fd_dir = f"/proc/{pid}/fd"
    try:
        names = os.listdir(fd_dir)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"{fd_dir}/{name}") == target:
                return True
        except OSError:
            continue
    return False


def read(pid: int, parts: Sequence[Tuple[int, int]], out: np.ndarray) -> None:
    """Copies the memory ``parts`` of process ``pid`` into ``out`` (as big as they
    add up to). OSError when the kernel refuses (no permission, the process is gone,
    an address it does not map)."""
    if _READV is None:
        raise OSError(errno.ENOSYS, "process_vm_readv is not available")
    dst = out.ctypes.data
    filled, i, skip = 0, 0, 0
    while i < len(parts):
        batch = parts[i:i + 1024]  # IOV_MAX
        remote = (_IoVec * len(batch))()
        want = 0
        for k, (addr, n) in enumerate(batch):
            off = skip if k == 0 else 0
            remote[k].base, remote[k].len = addr + off, n - off
            want += n - off
        local = _IoVec(dst + filled, want)
        got = _READV(pid, ctypes.byref(local), 1, remote, len(batch), 0)
        if got < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        if got == 0:
            raise OSError(errno.EFAULT, "process_vm_readv read nothing")
        filled += got
        # Walk past what was read: whole parts, then into the one it stopped in.
        while got and i < len(parts):
            left = parts[i][1] - skip
            if got >= left:
                got -= left
                i, skip = i + 1, 0
            else:
                skip += got
                got = 0


__all__ = ["LOCAL_MIN_BYTES", "MAX_PARTS", "LOCAL_HEAD", "LOCAL_PART", "supported", "wanted",
           "describe", "parse_parts", "peer_is", "read"]
