"""collectives: groups of ranks that all-reduce, all-gather and broadcast tensors."""

from tensorfleet.collectives.group import (  # noqa: F401
    FP16, MAX, MEAN, MIN, SUM, Group, LocalGroup)
from tensorfleet.collectives.ring import RingGroup  # noqa: F401

__all__ = ["Group", "LocalGroup", "RingGroup", "SUM", "MEAN", "MAX", "MIN", "FP16"]
