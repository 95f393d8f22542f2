"""``tf.distribute.experimental.CommunicationOptions`` (and its older name
``CollectiveHints``) and ``CommunicationImplementation``: how a strategy's collectives
are packed, timed out and carried."""

from __future__ import annotations

import enum
from typing import Any, Optional


class CommunicationImplementation(str, enum.Enum):
    """Which collective implementation to use. tensorfleet's collectives run on CPU over
    the ring (TCP or shared memory), which ``AUTO`` and ``RING`` select; ``NCCL`` needs
    GPUs and is refused where collectives are built."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


def _check_implementation(implementation: Any) -> CommunicationImplementation:
    if isinstance(implementation, str) and not isinstance(implementation,
                                                          CommunicationImplementation):
        try:
            implementation = CommunicationImplementation(implementation.upper())
        except ValueError:
            pass
    if not isinstance(implementation, CommunicationImplementation):
        raise ValueError(f"implementation must be a CommunicationImplementation (AUTO, RING "
                         f"or NCCL), got {implementation!r}")
    return implementation


class CommunicationOptions:
    """Options of one collective call (``extended.reduce_to``, ``batch_reduce_to``,
    ``ReplicaContext.all_reduce``).

    Args:
      bytes_per_pack: the largest fused message in bytes when several tensors are
        reduced together; 0 fuses them all into one.
      timeout_seconds: seconds a peer may stay silent before the collective fails
        (None: the group's own timeout).
      implementation: ``CommunicationImplementation.AUTO`` or ``RING``; ``NCCL`` raises
        a ValueError when used, since tensorfleet's collectives run on CPU.

    Raises:
      ValueError: ``bytes_per_pack`` is negative or ``implementation`` is not one of
        the choices.
    """

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: Optional[float] = None,
                 implementation: Any = CommunicationImplementation.AUTO):
        if isinstance(bytes_per_pack, bool) or not isinstance(bytes_per_pack, int) \
                or bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received "
                             f"{bytes_per_pack}.")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = _check_implementation(implementation)

    def __repr__(self) -> str:
        return (f"CommunicationOptions(bytes_per_pack={self.bytes_per_pack}, "
                f"timeout_seconds={self.timeout_seconds}, "
                f"implementation={self.implementation})")


class CollectiveHints(CommunicationOptions):
    """The TensorFlow 2.3 name of ``CommunicationOptions``, without ``implementation``."""

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: Optional[float] = None):
        super().__init__(bytes_per_pack, timeout_seconds)


def resolve_options(options: Any) -> CommunicationOptions:
    """``options`` checked for use by a collective: ``None`` is the defaults.

    Raises:
      TypeError: ``options`` is not a ``CommunicationOptions``.
      ValueError: it asks for NCCL.
    """
    if options is None:
        return CommunicationOptions()
    if not isinstance(options, CommunicationOptions):
        raise TypeError(f"options must be a tf.distribute.experimental.CommunicationOptions, "
                        f"got {type(options).__name__}")
    if options.implementation is CommunicationImplementation.NCCL:
        raise ValueError("CommunicationImplementation.NCCL is not available: tensorfleet's "
                         "collectives run on CPU over the ring; use AUTO or RING")
    return options


__all__ = ["CollectiveHints", "CommunicationImplementation", "CommunicationOptions",
           "resolve_options"]
