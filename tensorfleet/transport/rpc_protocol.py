"""What both ends of a gRPC call agree on: limits, handles, options and error payloads.

``rpc`` (the server) and ``rpc_client`` (the client) both build on this module;
neither imports the other's internals, so the client can be used without the
server and the two never import each other.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import re
import struct
import threading
from typing import Any, Dict, Optional, Tuple

import grpc

from tensorfleet import errors
from tensorfleet.transport import wire

PROTOCOL_VERSION = wire.WIRE_VERSION
# Requests above this size stream over gRPC; so do replies when the side channel is off.
STREAM_THRESHOLD = 1 << 20
# Replies above this size are parked for the bulk side channel (see the module docstring).
BULK_THRESHOLD = 3 << 19
DEFAULT_TIMEOUT = 60.0
ERROR_METADATA_KEY = "x-tensorfleet-error"
HANDLE_MAGIC = b"TFLH"
FETCH_METHOD = "_Fetch"
SIDE_CHANNEL_METHOD = "_SideChannel"
STREAM_SUFFIX = ".Stream"

# One chunk plus room for gRPC framing; a unary message is never bigger than a chunk.
_GRPC_MESSAGE_LIMIT = wire.CHUNK_BYTES + (64 << 10)
_MAX_ERROR_CHARS = 8000
_HANDLE = struct.Struct("<4sHHQ16s")
# The same plus the side channel's port and a reserved zero; flags == _FLAG_BULK.
_BULK_HANDLE = struct.Struct("<4sHHQ16sHH")
_FLAG_BULK = 1
_METHOD_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_SERVICE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*$")
_STATUS_BY_CODE = {sc.value[0]: sc for sc in grpc.StatusCode}
_COMMON_OPTIONS = [
    ("grpc.max_send_message_length", _GRPC_MESSAGE_LIMIT),
    ("grpc.max_receive_message_length", _GRPC_MESSAGE_LIMIT),
    ("grpc.max_metadata_size", 256 << 10),
]
# HTTP/2 keepalive pings notice a peer that is gone or frozen (SIGSTOP, a cut
# network) within seconds, even while a long call such as a step is waiting.
KEEPALIVE_MS = 2000
_CLIENT_KEEPALIVE = [
    ("grpc.keepalive_time_ms", KEEPALIVE_MS),
    ("grpc.keepalive_timeout_ms", 3000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # Without this, a call that waits with no data flowing (a blocked step) pings
    # only every five minutes.
    ("grpc.http2.min_sent_ping_interval_without_data_ms", KEEPALIVE_MS),
]


def _version_mismatch(peer_version: int, who: str) -> errors.FailedPreconditionError:
    return errors.FailedPreconditionError(
        None, None, f"protocol version mismatch: {who} speaks version {peer_version}, "
        f"this process speaks version {PROTOCOL_VERSION}; run the same tensorfleet "
        "release on every task")


def _too_big(size: int, limit: int, who: str) -> errors.ResourceExhaustedError:
    return errors.ResourceExhaustedError(
        None, None, f"a message of {size} bytes exceeds {who}'s limit of {limit} bytes "
        "(max_message_bytes)")


_MALLOC_TUNED = False
_MALLOC_LOCK = threading.Lock()
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # from glibc's malloc.h


def tune_malloc() -> bool:
    """Keeps glibc from mapping and unmapping memory for every received chunk.

    Each chunk gRPC hands to Python is a fresh 4 MiB ``bytes``; with glibc's
    defaults such blocks come from mmap (or from a heap top that is trimmed right
    after), so every chunk pays ~1000 page faults, which measured as half of the
    receiving side's CPU time. Serving blocks up to 8 MiB from the heap and
    keeping up to 128 MiB of free heap fixes that. Process-wide and idempotent;
    skipped when ``TENSORFLEET_MALLOC_TUNING=0``, when any ``MALLOC_*``
    variable is set, or without glibc. Returns whether the tuning is in effect.
    """
    global _MALLOC_TUNED
    with _MALLOC_LOCK:
        if _MALLOC_TUNED:
            return True
        if os.environ.get("TENSORFLEET_MALLOC_TUNING", "1") == "0" or any(
                k.startswith("MALLOC_") for k in os.environ):
            return False
        if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
            return False
        try:
            libc = ctypes.CDLL(None)
            ok = (libc.mallopt(_M_MMAP_THRESHOLD, 2 * wire.CHUNK_BYTES) == 1
                  and libc.mallopt(_M_TRIM_THRESHOLD, 128 << 20) == 1)
        except (OSError, AttributeError):
            ok = False
        _MALLOC_TUNED = ok
        return ok


def _error_payload(error: errors.OpError, task: Optional[str]) -> Dict[str, Any]:
    """What a client needs to re-raise ``error``: code, message, op and task."""
    node = error.node_def
    node = getattr(node, "name", node)
    return {
        "code": int(error.error_code),
        "message": str(error.message)[:_MAX_ERROR_CHARS],
        "node": node if isinstance(node, str) else None,
        "task": error.task or task,
    }


def _parse_error_payload(value: Any) -> Optional[Tuple[int, str, Optional[str], Optional[str]]]:
    """(code, message, op name, task) from an error payload, or None if malformed."""
    try:
        payload = json.loads(value) if len(value) <= 4 * _MAX_ERROR_CHARS + 1024 else None
    except (ValueError, TypeError):
        payload = None
    if not isinstance(payload, dict) or not isinstance(payload.get("message"), str):
        return None
    code, node, task = payload.get("code"), payload.get("node"), payload.get("task")
    return (code if isinstance(code, int) and not isinstance(code, bool) else 2,
            payload["message"], node if isinstance(node, str) else None,
            task if isinstance(task, str) else None)


def _remote_error(e: grpc.RpcError) -> Optional[Tuple[str, Optional[str], Optional[str]]]:
    """(message, op name, task) from a tensorfleet server's error metadata, if present."""
    getter = getattr(e, "trailing_metadata", None)
    for key, value in (getter() if callable(getter) else None) or ():
        if key == ERROR_METADATA_KEY:
            remote = _parse_error_payload(value)
            return None if remote is None else remote[1:]
    return None


__all__ = [
    "PROTOCOL_VERSION", "STREAM_THRESHOLD", "BULK_THRESHOLD", "DEFAULT_TIMEOUT",
    "ERROR_METADATA_KEY", "HANDLE_MAGIC", "FETCH_METHOD", "SIDE_CHANNEL_METHOD",
    "STREAM_SUFFIX", "KEEPALIVE_MS", "tune_malloc",
]
