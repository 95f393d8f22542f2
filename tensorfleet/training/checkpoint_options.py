"""``tf.train.CheckpointOptions``: how ``tf.train.Checkpoint`` writes a checkpoint."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.device import DeviceSpec


class CheckpointOptions:
    """Options of ``Checkpoint.save`` / ``write``.

    ``experimental_io_device`` places the save ops on that device (for example
    ``"/job:localhost"``, so every task writes through its own file system), as in
    TensorFlow. tensorfleet's graph-mode checkpoints are written synchronously by the save
    op itself, in one tensor-bundle file per saver, so asynchronous saving, write callbacks,
    sharding callbacks and skipping slot variables are refused with a ValueError rather
    than ignored.
    """

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint",
                 "experimental_write_callbacks", "enable_async",
                 "experimental_sharding_callback", "experimental_skip_slot_variables")

    def __init__(self, experimental_io_device: Optional[str] = None,
                 experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: Any = None, enable_async: bool = False,
                 experimental_skip_slot_variables: bool = False,
                 experimental_sharding_callback: Any = None):
        if experimental_io_device is not None:
            if not isinstance(experimental_io_device, str):
                raise TypeError(f"CheckpointOptions.experimental_io_device must be a device "
                                f"string, got {type(experimental_io_device).__name__}")
            DeviceSpec.from_string(experimental_io_device)  # a malformed name fails here
        refused = [(experimental_enable_async_checkpoint or enable_async,
                    "asynchronous checkpointing (enable_async)"),
                   (experimental_write_callbacks, "experimental_write_callbacks"),
                   (experimental_sharding_callback, "experimental_sharding_callback"),
                   (experimental_skip_slot_variables, "experimental_skip_slot_variables")]
        for value, what in refused:
            if value:
                raise ValueError(f"CheckpointOptions: {what} is not supported by tensorfleet's "
                                 f"graph-mode checkpoints")
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = False
        self.enable_async = False
        self.experimental_write_callbacks = None
        self.experimental_sharding_callback = None
        self.experimental_skip_slot_variables = False

    def __repr__(self) -> str:
        return f"CheckpointOptions(experimental_io_device={self.experimental_io_device!r})"


def io_device_of(options: Optional[CheckpointOptions]) -> Optional[str]:
    """The device the save ops go on (None: where the saver puts them by default).

    Raises:
      TypeError: ``options`` is not a ``CheckpointOptions``.
    """
    if options is None:
        return None
    if not isinstance(options, CheckpointOptions):
        raise TypeError(f"options must be a tf.train.CheckpointOptions, got "
                        f"{type(options).__name__}")
    return options.experimental_io_device


__all__ = ["CheckpointOptions", "io_device_of"]
