"""One knob for tensorfleet's log output: ``--log-level`` or ``TENSORFLEET_LOG_LEVEL``.

Library code only calls ``logging.getLogger(__name__)``; this module decides where
the records of the ``tensorfleet`` logger tree go and from which level. It imports
nothing from tensorfleet, so any layer (or a task started by ``tensorfleet launch``)
can call ``configure_from_env()`` cheaply.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Optional, Union

ENV = "TENSORFLEET_LOG_LEVEL"
LEVELS = ("debug", "info", "warning", "error", "critical")
DEFAULT_LEVEL = "warning"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_HANDLER_NAME = "tensorfleet-log"
_applied: Optional[str] = None


def parse_level(value: Union[str, int, None]) -> int:
    """A logging level from a name (``info``, case-insensitive) or a number.

    Raises:
      ValueError: an unknown level name, with the accepted names.
    """
    if value is None or value == "":
        return logging.getLevelName(DEFAULT_LEVEL.upper())
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.isdigit():
        return int(text)
    if text.lower() == "warn":
        text = "warning"
    if text.lower() not in LEVELS:
        raise ValueError(f"unknown log level {value!r}; use one of {', '.join(LEVELS)}")
    return logging.getLevelName(text.upper())


def configure_logging(level: Union[str, int, None] = None, stream=None) -> int:
    """Sends ``tensorfleet.*`` records at ``level`` and above to stderr.

    ``level`` None reads ``$TENSORFLEET_LOG_LEVEL`` (default ``warning``). Calling
    it again replaces the handler rather than adding a second one. Returns the level.
    """
    if level is None:
        level = os.environ.get(ENV) or DEFAULT_LEVEL
    lvl = parse_level(level)
    logger = logging.getLogger("tensorfleet")
    for h in list(logger.handlers):
        if h.get_name() == _HANDLER_NAME:
            logger.removeHandler(h)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter(_FORMAT, "%H:%M:%S"))
    logger.addHandler(handler)
    logger.setLevel(lvl)
    return lvl


def configure_from_env() -> Optional[int]:
    """Applies ``$TENSORFLEET_LOG_LEVEL`` if it is set; does nothing otherwise.

    An invalid value is reported once on stderr and ignored, never raised: this
    runs when a program creates its first server, whether or not it asked for it.
    """
    global _applied
    raw = os.environ.get(ENV)
    if not raw or raw == _applied:
        return None
    _applied = raw
    try:
        return configure_logging(raw)
    except ValueError as e:
        print(f"tensorfleet: ignoring {ENV}: {e}", file=sys.stderr)
        return None


__all__ = ["ENV", "LEVELS", "parse_level", "configure_logging", "configure_from_env"]
