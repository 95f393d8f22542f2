"""``tensorflow.python.client.device_lib``: the devices this process can run kernels on.

``list_local_devices()`` is what TF 1.x programs call to find GPUs; tensorfleet answers
with one entry per registered kernel device type (CPU first), so a program looking for
``device_type == "GPU"`` finds one only when an accelerator backend is registered.
"""

from __future__ import annotations

import os
import random
from typing import Any, List

from tensorfleet.kernels.registry import registered_device_types


class DeviceAttributes:
    """One local device: ``name`` (``/device:CPU:0``), ``device_type``, ``memory_limit``
    (bytes), ``incarnation`` and ``physical_device_desc``, as TensorFlow's message has."""

    def __init__(self, name: str, device_type: str, memory_limit: int, incarnation: int,
                 physical_device_desc: str = ""):
        self.name = name
        self.device_type = device_type
        self.memory_limit = memory_limit
        self.incarnation = incarnation
        self.physical_device_desc = physical_device_desc

    def __repr__(self) -> str:
        return (f'name: "{self.name}"\ndevice_type: "{self.device_type}"\n'
                f"memory_limit: {self.memory_limit}\nincarnation: {self.incarnation}\n"
                f'physical_device_desc: "{self.physical_device_desc}"')


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


_INCARNATIONS = {t: random.Random(t).getrandbits(63) for t in ("CPU",)}


def list_local_devices(session_config: Any = None) -> List[DeviceAttributes]:
    """One ``DeviceAttributes`` per device type with registered kernels, CPU first."""
    out = []
    for t in registered_device_types():
        inc = _INCARNATIONS.setdefault(t, random.Random(t).getrandbits(63))
        out.append(DeviceAttributes(f"/device:{t}:0", t, _physical_memory() if t == "CPU" else 0,
                                    inc, "" if t == "CPU" else f"device: 0, name: {t}"))
    return out


__all__ = ["DeviceAttributes", "list_local_devices"]
