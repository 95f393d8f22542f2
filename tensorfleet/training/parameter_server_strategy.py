"""``tf.distribute.experimental.ParameterServerStrategy`` (TensorFlow 1.x, between-graph)
and ``CentralStorageStrategy``: a strategy whose variables live on parameter devices.

With a cluster (``TF_CONFIG`` or a cluster resolver), every worker builds its own graph;
inside ``scope()`` variables go round-robin to the ps tasks (``replica_device_setter``)
and the other ops to the worker's device, and gradients are applied to the ps variables
asynchronously. Each worker is one replica (``num_replicas_in_sync == 1``), as
TensorFlow's strategy is on workers without GPUs; only the chief checkpoints, writes
summaries and initializes. Without a cluster everything is local.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional, Sequence, Tuple

from tensorfleet.collectives.one_device_strategy import OneDeviceStrategy
from tensorfleet.collectives.strategy import Strategy, StrategyExtended
from tensorfleet.distributed.resolver import TFConfigClusterResolver
from tensorfleet.framework.device import DeviceSpec
from tensorfleet.framework.graph import device as device_scope
from tensorfleet.training.device_setter import replica_device_setter

_LOCAL_DEVICE = "/replica:0/task:0/device:CPU:0"
_CHIEF_TYPES = ("chief", "master")


class _ParameterServerExtended(StrategyExtended):
    """``strategy.extended`` of ``ParameterServerStrategy``: only the chief runs the
    initializers; the others wait for them."""

    @property
    def experimental_should_init(self) -> bool:
        """Whether this task runs the initializers (the chief)."""
        return self._s.is_chief


class ParameterServerStrategy(Strategy):
    """Between-graph training with variables on parameter servers.

    Args:
      cluster_resolver: where the cluster comes from (default: ``TF_CONFIG``).

    Raises:
      ValueError: the task's type is not in the cluster, or a cluster has no ps job.
    """

    def __init__(self, cluster_resolver: Any = None):
        super().__init__(_ParameterServerExtended(self))
        self.cluster_resolver = cluster_resolver or TFConfigClusterResolver()
        spec = self.cluster_resolver.cluster_spec()
        self._task_type = self.cluster_resolver.task_type
        self._task_id = int(self.cluster_resolver.task_id or 0)
        self._cluster = spec if spec and self._task_type is not None else None
        if self._cluster is not None:
            if "ps" not in self._cluster.jobs:
                raise ValueError(f"ParameterServerStrategy needs a 'ps' job in the cluster, "
                                 f"got jobs {self._cluster.jobs}")
            self._cluster.task_address(self._task_type, self._task_id)  # validates

    @property
    def is_chief(self) -> bool:
        """The chief (or master) task, or worker 0 of a cluster without one; a lone
        process is its own chief."""
        if self._cluster is None:
            return True
        if self._task_type in _CHIEF_TYPES:
            return True
        has_chief = any(j in self._cluster.jobs for j in _CHIEF_TYPES)
        return not has_chief and self._task_type == "worker" and self._task_id == 0

    @property
    def worker_device(self) -> str:
        """``/job:<type>/replica:0/task:<id>/device:CPU:0`` of this worker."""
        if self._cluster is None:
            return _LOCAL_DEVICE
        return f"/job:{self._task_type}/replica:0/task:{self._task_id}/device:CPU:0"

    @property
    def parameter_devices(self) -> Tuple[str, ...]:
        """``/job:ps/task:<i>`` for each ps task."""
        if self._cluster is None:
            return (_LOCAL_DEVICE,)
        return tuple(f"/job:ps/task:{i}" for i in self._cluster.task_indices("ps"))

    def _device_function(self) -> Any:
        if self._cluster is None:
            return None
        return replica_device_setter(cluster=self._cluster,
                                     worker_device=f"/job:{self._task_type}/task:"
                                                   f"{self._task_id}")

    @contextlib.contextmanager
    def scope(self) -> Iterator["ParameterServerStrategy"]:
        """Makes this the current strategy; variables created inside go to the ps tasks
        round-robin and the other ops to this worker."""
        chooser = self._device_function()
        with super().scope(), (device_scope(chooser) if chooser is not None
                               else contextlib.nullcontext()):
            yield self

    @contextlib.contextmanager
    def _replica_scope(self) -> Iterator[None]:
        with device_scope(self.worker_device):
            yield

    def update_config_proto(self, config_proto: Any) -> Any:
        """``config_proto`` with device filters that keep this worker to itself and the
        ps tasks (a worker must not wait for the other workers)."""
        if self._cluster is not None:
            config_proto.device_filters[:] = [f"/job:{self._task_type}/task:{self._task_id}",
                                              "/job:ps"]
        return config_proto


class CentralStorageStrategy(OneDeviceStrategy):
    """Variables on one parameter device, computation on the compute device.

    Args:
      compute_devices: the replicas' devices; tensorfleet runs one replica per process,
        so at most one (default ``/replica:0/task:0/device:CPU:0``).
      parameter_device: where variables go (default: the compute device).

    Raises:
      ValueError: more than one compute device (use ``MultiWorkerMirroredStrategy`` with
        one process per replica), or a malformed device name.
    """

    # TensorFlow reports this strategy as between-graph, as the base class does.
    _extended_class = StrategyExtended

    def __init__(self, compute_devices: Optional[Sequence[str]] = None,
                 parameter_device: Optional[str] = None):
        devices = list(compute_devices) if compute_devices else [_LOCAL_DEVICE]
        if len(devices) != 1:
            raise ValueError(f"CentralStorageStrategy: tensorfleet runs one replica per "
                             f"process, got compute_devices={devices}; start a process per "
                             f"replica with MultiWorkerMirroredStrategy instead")
        if parameter_device is not None:
            DeviceSpec.from_string(parameter_device)
        super().__init__(devices[0])
        self._variable_device = parameter_device or self._device

    @property
    def parameter_devices(self) -> Tuple[str, ...]:
        """The parameter device."""
        return (self._variable_device,)


__all__ = ["CentralStorageStrategy", "ParameterServerStrategy"]
