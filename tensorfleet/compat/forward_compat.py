"""``tf.compat.forward_compatible``: whether graphs may use forms that consumers released
before a given date cannot read. The horizon is this release's date; a program moves it
forward for a block with ``forward_compatibility_horizon`` (tests of new forms), and the
environment variable ``TF_FORWARD_COMPATIBILITY_DELTA_DAYS`` moves it by whole days."""

from __future__ import annotations

import contextlib
import datetime
import os
from typing import Iterator

# The date of this release: graphs it writes are read by consumers released since.
_RELEASE_DATE = datetime.date(2026, 11, 28)
_horizon_override = []


def _date(year: int, month: int, day: int) -> datetime.date:
    try:
        return datetime.date(int(year), int(month), int(day))
    except (TypeError, ValueError) as e:
        raise ValueError(f"not a date: {year}-{month}-{day} ({e})") from None


def _horizon() -> datetime.date:
    if _horizon_override:
        return _horizon_override[-1]
    delta = os.environ.get("TF_FORWARD_COMPATIBILITY_DELTA_DAYS")
    if delta:
        try:
            days = int(delta)
        except ValueError:
            raise ValueError(f"TF_FORWARD_COMPATIBILITY_DELTA_DAYS must be an integer, got "
                             f"{delta!r}") from None
        return _RELEASE_DATE + datetime.timedelta(days=days)
    return _RELEASE_DATE


def forward_compatible(year: int, month: int, day: int) -> bool:
    """True when the forward-compatibility horizon is past ``year-month-day``."""
    return _horizon() > _date(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int) -> Iterator[None]:
    """Sets the horizon to ``year-month-day`` inside the block."""
    _horizon_override.append(_date(year, month, day))
    try:
        yield
    finally:
        _horizon_override.pop()


__all__ = ["forward_compatible", "forward_compatibility_horizon"]
