"""``tf.data.experimental.prefetch_to_device`` and ``copy_to_device``: tensorfleet's
kernels run on CPU devices only, so a pipeline is already on the one device kind there is;
both accept CPU devices (of any task) and refuse others."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.framework.device import DeviceSpec


def _check_cpu(device: Any, what: str) -> None:
    spec = device if isinstance(device, DeviceSpec) else DeviceSpec.from_string(str(device))
    if spec.device_type is not None and spec.device_type != "CPU":
        raise ValueError(f"{what}: device {device!r} is not a CPU; tensorfleet has CPU "
                         f"devices only")


def prefetch_to_device(device: str, buffer_size: Optional[int] = None
                       ) -> Callable[[Dataset], Dataset]:
    """``dataset.apply(prefetch_to_device("/cpu:0"))``: prefetching onto a CPU device.

    Raises:
      ValueError: a device that is not a CPU.
    """
    _check_cpu(device, "prefetch_to_device")

    def apply(ds: Dataset) -> Dataset:
        return ds.prefetch(-1 if buffer_size is None else buffer_size)
    return apply


def copy_to_device(target_device: str, source_device: str = "/cpu:0"
                   ) -> Callable[[Dataset], Dataset]:
    """``dataset.apply(copy_to_device(...))`` between CPU devices: the elements unchanged.

    Raises:
      ValueError: a device that is not a CPU.
    """
    _check_cpu(target_device, "copy_to_device")
    _check_cpu(source_device, "copy_to_device")
    return lambda ds: ds


__all__ = ["prefetch_to_device", "copy_to_device"]
