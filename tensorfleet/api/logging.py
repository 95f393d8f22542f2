"""``tf.logging``: TensorFlow 1.x's logging functions and levels."""

from tensorfleet.platform.tf_logging import (DEBUG, ERROR, FATAL, INFO, WARN, debug, error,
    fatal, flush, get_verbosity, info, log, log_every_n, log_first_n, log_if, set_verbosity,
    vlog, warning as warn, warning, TaskLevelStatusMessage)

__all__ = ["DEBUG", "ERROR", "FATAL", "INFO", "WARN", "debug", "error", "fatal", "flush",
           "get_verbosity", "info", "log", "log_every_n", "log_first_n", "log_if",
           "set_verbosity", "vlog", "warn", "warning",
           "TaskLevelStatusMessage"]
