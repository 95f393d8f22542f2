"""``tf.distribute.OneDeviceStrategy``: one replica on one named device, and
``tf.distribute.get_loss_reduction``."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from tensorfleet.collectives.strategy import ReduceOp, Strategy, StrategyExtended
from tensorfleet.framework.device import DeviceSpec, canonical_name
from tensorfleet.framework.graph import device as device_scope

# Op types that hold a variable's state: the ones ``scope()`` places on the device.
VARIABLE_OPS = frozenset(("Variable", "VariableV2", "VarHandleOp", "AutoReloadVariable"))


def full_device_name(device: str) -> str:
    """``device`` canonical, with ``/replica:0/task:0`` when it names no job or task, as
    TensorFlow's strategies report their devices (``/cpu:0`` ->
    ``/replica:0/task:0/device:CPU:0``)."""
    name = canonical_name(device)
    return "/replica:0/task:0" + name if name.startswith("/device:") else name


class _OneDeviceExtended(StrategyExtended):
    """``strategy.extended`` of ``OneDeviceStrategy``: one replica, nothing to exchange."""

    experimental_between_graph = False


class OneDeviceStrategy(Strategy):
    """Everything on one device: variables created in ``scope()`` and the ops of
    ``run(fn)`` are placed on ``device``; reductions over the one replica return the
    value itself.

    Args:
      device: the device string, e.g. ``"/cpu:0"`` or ``"/job:worker/task:1/cpu:0"``.

    Raises:
      TypeError: ``device`` is not a string.
      ValueError: ``device`` is not a valid device name.
    """

    _extended_class = _OneDeviceExtended

    def __init__(self, device: str):
        if not isinstance(device, str):
            raise TypeError(f"{type(self).__name__}: device must be a string, got "
                            f"{type(device).__name__}")
        DeviceSpec.from_string(device)  # a malformed name fails here
        super().__init__(self._extended_class(self))
        self._device = full_device_name(device)
        self._variable_device = self._device

    @property
    def worker_device(self) -> str:
        """The strategy's device, canonical (``/replica:0/task:0/device:CPU:0``)."""
        return self._device

    def _place_variables(self, op: Any) -> str:
        # Other ops keep what inner scopes chose, as TensorFlow's scope() only places
        # variables.
        if getattr(op, "type", "") in VARIABLE_OPS and not op.device:
            return self._variable_device
        return op.device

    @contextlib.contextmanager
    def scope(self) -> Iterator["OneDeviceStrategy"]:
        """Makes this the current strategy; variables created inside go on its device."""
        with super().scope(), device_scope(self._place_variables):
            yield self

    @contextlib.contextmanager
    def _replica_scope(self) -> Iterator[None]:
        with device_scope(self._device):
            yield


def get_loss_reduction() -> str:
    """The ``ReduceOp`` a v1 optimizer applies to the per-replica losses.

    TensorFlow answers from the last ``tf.losses`` reduction only when an Estimator trains
    under a distribution strategy; tensorfleet's Estimator trains through its own
    parameter-server and collective paths (``RunConfig(train_distribute=...)`` is not
    used), so the answer is ``ReduceOp.SUM``, TensorFlow's answer everywhere else.
    """
    return ReduceOp.SUM


__all__ = ["OneDeviceStrategy", "VARIABLE_OPS", "full_device_name", "get_loss_reduction"]
