"""Device names: ``/job:ps/replica:0/task:1/device:CPU:0`` and the short forms."""

from __future__ import annotations

import re
from typing import Any, Optional

_PART = re.compile(r"^(job|replica|task|device|cpu|gpu):(.*)$", re.IGNORECASE)


class DeviceSpec:
    """A (partial) device specification; unset fields are None.

    ``DeviceSpec.from_string("/job:ps/task:1/cpu:0")`` parses every spelling that
    TensorFlow accepts; ``merge_from`` lets another spec override set fields.
    """

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job: Optional[str] = None, replica: Optional[int] = None,
                 task: Optional[int] = None, device_type: Optional[str] = None,
                 device_index: Optional[int] = None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = None if device_type is None else device_type.upper()
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec: str) -> "DeviceSpec":
        """Parses a device string; raises ValueError naming the bad part."""
        out = cls()
        out._parse_into(spec or "")
        return out

    def _parse_into(self, spec: str) -> None:
        for part in spec.split("/"):
            if not part:
                continue
            m = _PART.match(part)
            if m is None:
                # "CPU:0" style bare device, as written by users.
                if ":" in part and part.split(":", 1)[0].isalpha():
                    kind, idx = part.split(":", 1)
                    self.device_type = kind.upper()
                    self.device_index = None if idx in ("*", "") else int(idx)
                    continue
                raise ValueError(f"Unknown attribute {part!r} in device specification {spec!r}")
            key, val = m.group(1).lower(), m.group(2)
            try:
                if key == "job":
                    self.job = val
                elif key == "replica":
                    self.replica = int(val)
                elif key == "task":
                    self.task = int(val)
                elif key in ("cpu", "gpu"):
                    self.device_type = key.upper()
                    self.device_index = None if val in ("*", "") else int(val)
                else:
                    kind, _, idx = val.partition(":")
                    self.device_type = kind.upper()
                    self.device_index = None if idx in ("*", "") else int(idx)
            except ValueError:
                raise ValueError(
                    f"Bad value {val!r} for {key} in device specification {spec!r}") from None

    def merge_from(self, other: "DeviceSpec") -> None:
        """Overrides this spec's fields with the fields set in ``other``."""
        for f in self.__slots__:
            v = getattr(other, f)
            if v is not None:
                setattr(self, f, v)

    def make_merged_spec(self, other: "DeviceSpec") -> "DeviceSpec":
        out = self.copy()
        out.merge_from(other)
        return out

    def copy(self) -> "DeviceSpec":
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)

    def to_string(self) -> str:
        out = ""
        if self.job is not None:
            out += f"/job:{self.job}"
        if self.replica is not None:
            out += f"/replica:{self.replica}"
        if self.task is not None:
            out += f"/task:{self.task}"
        if self.device_type is not None:
            idx = "*" if self.device_index is None else self.device_index
            out += f"/device:{self.device_type}:{idx}"
        return out

    def task_name(self) -> Optional[str]:
        """``/job:x/task:n`` when both are set, else None."""
        if self.job is None:
            return None
        return f"/job:{self.job}/task:{self.task or 0}"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def __repr__(self) -> str:
        return f"DeviceSpec({self.to_string()!r})"


def canonical_name(spec: Any) -> str:
    """Normalizes a device string or spec (``/cpu:0`` -> ``/device:CPU:0``)."""
    if spec is None:
        return ""
    if isinstance(spec, DeviceSpec):
        return spec.to_string()
    return DeviceSpec.from_string(spec).to_string()


def merge_device(outer: str, inner: str) -> str:
    """The spec that results from nesting device scope ``inner`` inside ``outer``."""
    if not outer:
        return canonical_name(inner)
    if not inner:
        return outer
    base = DeviceSpec.from_string(outer)
    base.merge_from(DeviceSpec.from_string(inner))
    return base.to_string()


__all__ = ["DeviceSpec", "canonical_name", "merge_device"]
