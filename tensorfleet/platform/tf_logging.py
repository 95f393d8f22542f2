"""``tf.logging``: the logging calls of TensorFlow 1.x programs.

``tf.logging.set_verbosity(tf.logging.INFO)`` then ``tf.logging.info("step %d", n)``:
the messages go to the ``tensorfleet`` logger tree on stderr, with the library's own
messages (checkpoints saved, steps per second), as TensorFlow's do. The level is the
one ``--log-level``/``TENSORFLEET_LOG_LEVEL`` set (see ``logs``) until the program sets
its own.
"""

from __future__ import annotations

import logging as _logging
import sys
import threading
from typing import Any, Dict, Tuple

from tensorfleet.platform import logs

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL

# The program's messages: a child of the library's tree, so one handler serves both.
_logger = _logging.getLogger("tensorfleet.program")
_tree = _logging.getLogger("tensorfleet")
_counts: Dict[Tuple[str, int], int] = {}
_counts_lock = threading.Lock()


def _ensure_handler() -> None:
    if not any(h.get_name() == logs._HANDLER_NAME for h in _tree.handlers):
        logs.configure_logging(_tree.level or None)


def set_verbosity(v: int) -> None:
    """Shows messages at level ``v`` (``tf.logging.INFO``, say) and above on stderr."""
    level = logs.parse_level(v)  # a level name or number; ValueError naming anything else
    _ensure_handler()
    _tree.setLevel(level)


def get_verbosity() -> int:
    """The level set by ``set_verbosity`` (or by ``TENSORFLEET_LOG_LEVEL``)."""
    return _tree.getEffectiveLevel()


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs ``msg % args`` at ``level``."""
    if _tree.isEnabledFor(level):
        _ensure_handler()
    _logger.log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at DEBUG."""
    log(DEBUG, msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at INFO."""
    log(INFO, msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at WARN."""
    log(WARN, msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at ERROR."""
    log(ERROR, msg, *args, **kwargs)


def get_logger() -> _logging.Logger:
    """The Python logger ``tf.logging`` writes to (``tf.get_logger``)."""
    return _logger


def TaskLevelStatusMessage(msg: Any) -> None:  # noqa: N802 (TensorFlow's name)
    """Logs a task's status message, at ERROR as TensorFlow does, so it shows at every
    verbosity."""
    error(msg)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at FATAL."""
    log(FATAL, msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at ``level`` (TensorFlow's verbose logging takes a plain level too)."""
    log(level, msg, *args, **kwargs)


def _where() -> str:
    frame = sys._getframe(3)  # the program's frame: past log_*_n and _count
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _count(limit_key: int) -> int:
    key = (_where(), limit_key)
    with _counts_lock:
        n = _counts.get(key, 0)
        _counts[key] = n + 1
    return n


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs the first call from this line and then every ``n``-th."""
    if _count(0) % max(1, int(n)) == 0:
        log(level, msg, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs only the first ``n`` calls from this line."""
    if _count(1) < int(n):
        log(level, msg, *args)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    """Logs when ``condition`` is true."""
    if condition:
        log(level, msg, *args)


def flush() -> None:
    """Flushes the handlers of the logger tree."""
    for h in _tree.handlers:
        h.flush()


__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "set_verbosity", "get_verbosity",
           "log", "debug", "info", "warning", "warn", "error", "fatal", "vlog",
           "log_every_n", "log_first_n", "log_if", "flush", "TaskLevelStatusMessage",
           "get_logger"]
