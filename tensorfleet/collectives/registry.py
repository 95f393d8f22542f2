"""The process's collective groups, by key, and how a process joins one.

A graph's collective ops name their group by a string key (``"default"`` unless
said otherwise); the kernels find the group here at run time. ``init`` creates
the group of a key from an explicit address list and rank, or from
``TF_CONFIG``: the chief (if any) is rank 0 and the workers follow in order,
which is the membership TensorFlow's ``MultiWorkerMirroredStrategy`` uses.

Several groups may live in one process (tests run every rank of a group as
threads of one process, each under its own key).

Importing this module installs ``get_group`` as the collective kernels'
group resolver.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.collectives import group as _g
from tensorfleet.collectives.ring import RingGroup
from tensorfleet.distributed.resolver import parse_tf_config
from tensorfleet.kernels.numpy import collective_kernels as _kernels
from tensorfleet.runtime import process

logger = logging.getLogger(__name__)

DEFAULT_KEY = "default"
PORT_OFFSET_ENV = "TENSORFLEET_COLLECTIVE_PORT_OFFSET"
TIMEOUT_ENV = "TENSORFLEET_COLLECTIVE_TIMEOUT"
CONNECT_TIMEOUT_ENV = "TENSORFLEET_COLLECTIVE_CONNECT_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT = 120.0



class _Groups:
    """The collective groups of one ``ProcessRuntime``, by key."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.by_key: Dict[str, _g.Group] = {}

    def close(self) -> None:
        """Closes every group (the runtime is closing)."""
        with self.lock:
            groups, self.by_key = list(self.by_key.values()), {}
        for grp in groups:
            grp.close()


def _groups() -> _Groups:
    """This runtime's groups (a ``ProcessRuntime`` component, made on first use)."""
    return process.current().component("collectives.groups", _Groups, _Groups.close)


def _shift_port(address: str, offset: int) -> str:
    host, _, port = address.rpartition(":")
    return f"{host}:{int(port) + offset}"


def members_from_tf_config(tf_config: Optional[str] = None,
                           port_offset: Optional[int] = None) -> Tuple[List[str], int]:
    """``(addresses, rank)`` of this task's all-reduce group according to ``TF_CONFIG``.

    Members are the ``chief`` job's task (rank 0) and then the ``worker`` tasks;
    parameter servers and evaluators are not members. Each member's collective
    service listens on its task's address shifted by ``port_offset`` (default
    ``$TENSORFLEET_COLLECTIVE_PORT_OFFSET`` or 0; set it when the task also runs
    a ``tf.train.Server`` on that address).

    Raises:
      InvalidArgumentError: no ``TF_CONFIG``, or this task is not a member.
    """
    try:
        cfg = parse_tf_config(tf_config if tf_config is not None
                              else os.environ.get("TF_CONFIG"))
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None
    cluster = cfg.get("cluster", {})
    task = cfg.get("task", {})
    members: List[Tuple[str, int]] = []
    for job in ("chief", "master", "worker"):
        members.extend((job, i) for i in range(len(cluster.get(job, []))))
    if not members:
        raise errors.InvalidArgumentError(
            None, None, "TF_CONFIG names no chief or worker tasks to form an all-reduce group")
    me = (task.get("type"), task.get("index", 0))
    if me not in members:
        raise errors.InvalidArgumentError(
            None, None, f"task {me[0]}:{me[1]} of TF_CONFIG is not a chief or worker; only "
            "they take part in all-reduce")
    if port_offset is None:
        port_offset = int(os.environ.get(PORT_OFFSET_ENV, "0") or 0)
    addresses = [_shift_port(cluster[j][i], port_offset) for j, i in members]
    return addresses, members.index(me)


def _seconds_from_env(name: str, default: float) -> float:
    """A positive number of seconds from ``$name`` (``default`` when unset or empty)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise errors.InvalidArgumentError(
            None, None, f"${name}={raw!r} is not a positive number of seconds")
    return value


def init(addresses: Optional[Sequence[str]] = None, rank: Optional[int] = None, *,
         key: str = DEFAULT_KEY, token: Optional[str] = None, timeout: Optional[float] = None,
         connect_timeout: Optional[float] = None, port_offset: Optional[int] = None,
         **ring_options: Any) -> _g.Group:
    """Creates (or returns the existing) group ``key`` of this process.

    Args:
      addresses, rank: every member's collective address and this process's
        rank; both None reads ``TF_CONFIG``. With no ``TF_CONFIG`` either, the
        group is a ``LocalGroup`` of one.
      token: cluster token (None reads ``$TENSORFLEET_TOKEN``).
      timeout: seconds a peer may stay silent in a collective (default
        ``$TENSORFLEET_COLLECTIVE_TIMEOUT`` or 30).
      connect_timeout: the formation deadline: how long the ranks keep trying
        to connect to each other (default ``$TENSORFLEET_COLLECTIVE_CONNECT_TIMEOUT``
        or 120 s), so a rank may start up to this much later than the others.
      ring_options: ``chunk_bytes``, ``small_bytes`` for ``RingGroup``.

    Raises:
      InvalidArgumentError: a bad address list or rank.
      UnavailableError / DeadlineExceededError: the peers could not be reached.
    """
    groups = _groups()
    with groups.lock:
        existing = groups.by_key.get(key)
        if existing is not None:
            return existing
        if timeout is None:
            timeout = float(os.environ.get(TIMEOUT_ENV, _g.DEFAULT_TIMEOUT))
        if connect_timeout is None:
            connect_timeout = _seconds_from_env(CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_TIMEOUT)
        if addresses is None and rank is None:
            if os.environ.get("TF_CONFIG"):
                addresses, rank = members_from_tf_config(port_offset=port_offset)
            else:
                addresses, rank = ["localhost:0"], 0
        elif addresses is None or rank is None:
            raise errors.InvalidArgumentError(
                None, None, "init needs both addresses and rank, or neither (TF_CONFIG)")
        addresses, rank = _g.check_peers(addresses, rank)
        if len(addresses) == 1:
            grp: _g.Group = _g.LocalGroup(key)
        else:
            grp = RingGroup(addresses, rank, key, token=token, timeout=timeout,
                            connect_timeout=connect_timeout, **ring_options)
        groups.by_key[key] = grp
        return grp


def register_group(grp: _g.Group, key: str = DEFAULT_KEY) -> _g.Group:
    """Makes ``grp`` the group that collective ops with ``group_key=key`` use."""
    groups = _groups()
    with groups.lock:
        if key in groups.by_key and groups.by_key[key] is not grp:
            raise errors.AlreadyExistsError(
                None, None, f"a collective group with key {key!r} already exists")
        groups.by_key[key] = grp
    return grp


def get_group(key: str = DEFAULT_KEY, create: bool = True) -> _g.Group:
    """The group ``key``; the default one is created on first use (``init()``).

    Raises:
      FailedPreconditionError: ``key`` names no group and cannot be created.
    """
    groups = _groups()
    with groups.lock:
        grp = groups.by_key.get(key)
        if grp is None and create and key == DEFAULT_KEY:
            grp = init(key=key)
    if grp is None:
        raise errors.FailedPreconditionError(
            None, None, f"no collective group {key!r} in this process: call "
            "tensorfleet.collectives.init(...) first")
    return grp


def is_initialized(key: str = DEFAULT_KEY) -> bool:
    """Whether group ``key`` exists in this process."""
    return key in _groups().by_key


def shutdown(key: Optional[str] = None) -> None:
    """Closes and forgets group ``key`` (every group when None)."""
    groups = _groups()
    with groups.lock:
        keys = list(groups.by_key) if key is None else [key]
        closing = [groups.by_key.pop(k) for k in keys if k in groups.by_key]
    for grp in closing:
        grp.close()


def rank(key: str = DEFAULT_KEY) -> int:
    """This process's rank in group ``key``."""
    return get_group(key).rank


def size(key: str = DEFAULT_KEY) -> int:
    """The number of ranks of group ``key``."""
    return get_group(key).size


def describe() -> str:
    """The process's groups as JSON (for logs)."""
    by_key = _groups().by_key
    return json.dumps({k: {"rank": g.rank, "size": g.size} for k, g in by_key.items()})


__all__ = ["DEFAULT_KEY", "PORT_OFFSET_ENV", "TIMEOUT_ENV", "CONNECT_TIMEOUT_ENV", "init",
           "register_group", "get_group", "is_initialized", "shutdown", "rank", "size",
           "members_from_tf_config", "describe"]


_kernels.set_group_resolver(get_group)
