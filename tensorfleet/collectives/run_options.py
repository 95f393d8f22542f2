"""``tf.distribute.RunOptions``: options of ``Strategy.run``."""

from __future__ import annotations

from typing import Any


class RunOptions:
    """Options of ``strategy.run(fn, args, kwargs, options)``.

    Every field is about compiling the replica function for TPUs (dynamic batch sizes,
    bucketized dynamic shapes, XLA). tensorfleet's replicas run the graph ``fn`` builds as
    it is, which is what the defaults mean; a value that would change that raises a
    ValueError.
    """

    __slots__ = ("experimental_enable_dynamic_batch_size",
                 "experimental_bucketizing_dynamic_shape", "experimental_xla_options")

    def __init__(self, experimental_enable_dynamic_batch_size: bool = True,
                 experimental_bucketizing_dynamic_shape: bool = False,
                 experimental_xla_options: Any = None):
        if experimental_bucketizing_dynamic_shape:
            raise ValueError("RunOptions.experimental_bucketizing_dynamic_shape is a TPU "
                             "compilation option that tensorfleet does not support")
        if experimental_xla_options is not None:
            raise ValueError("RunOptions.experimental_xla_options is not supported: "
                             "tensorfleet does not compile with XLA")
        if not experimental_enable_dynamic_batch_size:
            raise ValueError("RunOptions.experimental_enable_dynamic_batch_size=False asks "
                             "for static batch shapes, a TPU compilation option that "
                             "tensorfleet does not support")
        self.experimental_enable_dynamic_batch_size = True
        self.experimental_bucketizing_dynamic_shape = False
        self.experimental_xla_options = None

    def __repr__(self) -> str:
        return ("RunOptions(experimental_enable_dynamic_batch_size=True, "
                "experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None)")


def check_run_options(options: Any) -> None:
    """Raises TypeError unless ``options`` is None or a ``RunOptions``."""
    if options is not None and not isinstance(options, RunOptions):
        raise TypeError(f"options must be a tf.distribute.RunOptions, got "
                        f"{type(options).__name__}")


__all__ = ["RunOptions", "check_run_options"]
