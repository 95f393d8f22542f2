"""The one authenticated handshake of every raw-TCP connection.

The side channel (``bulk``) and the collectives' links (``collectives.formation``)
authenticate a new connection the same way, in four messages::

    connector -> acceptor   hello       connector nonce (and what it wants to reach)
    acceptor  -> connector  challenge   acceptor nonce, acceptor MAC
    connector -> acceptor   proof       connector MAC
    acceptor  -> connector  verdict     accepted or refused

Both MACs are HMAC-SHA256 under the cluster token over one transcript: the
protocol's name and version, what the connection is for (the collective group,
its size and both ranks; nothing for the side channel), both nonces and the
side's role. So each side proves it holds the token, the token never travels,
a recorded handshake cannot be replayed (the other side's nonce is fresh) and
a MAC computed for one role, protocol or group is worthless for another.
Without a token (loopback only) the key is empty and the handshake still runs.

This module holds the cryptography; each protocol frames the four messages in
its own encoding (``bulk``: fixed structs; collectives: ``wire`` control frames).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import struct
from typing import Iterable, Union

NONCE_BYTES = 16
MAC_BYTES = 32
ROLE_CONNECTOR = "connector"
ROLE_ACCEPTOR = "acceptor"
_DOMAIN = b"tensorfleet.handshake.v1"
_LENGTH = struct.Struct("<I")

Field = Union[str, int, bytes]


def new_nonce() -> bytes:
    """A fresh random nonce of ``NONCE_BYTES``."""
    return os.urandom(NONCE_BYTES)


def _field(value: Field) -> bytes:
    if isinstance(value, bool):
        raise TypeError("a handshake field must be str, int or bytes, not bool")
    if isinstance(value, int):
        value = str(value)
    if isinstance(value, str):
        value = value.encode("utf-8")
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"a handshake field must be str, int or bytes, not "
                        f"{type(value).__name__}")
    # Length-prefixed, so that no choice of group name makes two transcripts equal.
    return _LENGTH.pack(len(value)) + bytes(value)


def transcript(protocol: str, version: int, context: Iterable[Field],
               connector_nonce: bytes, acceptor_nonce: bytes) -> bytes:
    """What both MACs of one handshake cover.

    Args:
      protocol, version: the protocol being authenticated (``tensorfleet.bulk``, ...).
      context: what the connection is for, in a fixed order (may be empty).
      connector_nonce, acceptor_nonce: the two fresh nonces, ``NONCE_BYTES`` each.

    Raises:
      ValueError: a nonce of the wrong length.
    """
    for nonce in (connector_nonce, acceptor_nonce):
        if len(nonce) != NONCE_BYTES:
            raise ValueError(f"a handshake nonce must be {NONCE_BYTES} bytes, got {len(nonce)}")
    fields = [protocol, version, *context]
    return _DOMAIN + b"".join(_field(f) for f in fields) + _field(connector_nonce) \
        + _field(acceptor_nonce)


def mac(key: bytes, role: str, text: bytes) -> bytes:
    """The ``role``'s proof (``ROLE_CONNECTOR`` or ``ROLE_ACCEPTOR``) over ``text``.

    Raises:
      ValueError: an unknown role.
    """
    if role not in (ROLE_CONNECTOR, ROLE_ACCEPTOR):
        raise ValueError(f"handshake role must be {ROLE_CONNECTOR!r} or {ROLE_ACCEPTOR!r}, "
                         f"got {role!r}")
    return hmac.new(key, _field(role) + text, hashlib.sha256).digest()


def verify(key: bytes, role: str, text: bytes, proof: bytes) -> bool:
    """Whether ``proof`` is ``role``'s MAC over ``text`` (compared in constant time)."""
    return hmac.compare_digest(bytes(proof), mac(key, role, text))


__all__ = ["MAC_BYTES", "NONCE_BYTES", "ROLE_ACCEPTOR", "ROLE_CONNECTOR", "mac", "new_nonce",
           "transcript", "verify"]
