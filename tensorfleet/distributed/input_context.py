"""``tf.distribute.InputContext`` and ``InputReplicationMode``: what an input function
learns about its place among the input pipelines of a distributed job."""

from __future__ import annotations

import enum


class InputReplicationMode(enum.Enum):
    """How input is replicated: ``PER_WORKER`` (one pipeline per worker, its elements
    split among the worker's replicas) or ``PER_REPLICA`` (one pipeline per replica)."""
    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputContext:
    """Args:
      num_input_pipelines: how many input pipelines the job has.
      input_pipeline_id: this pipeline's index, in ``[0, num_input_pipelines)``.
      num_replicas_in_sync: how many replicas train in step.

    Raises:
      ValueError: counts below one, or an id out of range.
    """

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1):
        for what, v, lo in (("num_input_pipelines", num_input_pipelines, 1),
                            ("input_pipeline_id", input_pipeline_id, 0),
                            ("num_replicas_in_sync", num_replicas_in_sync, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"InputContext: {what} must be an int >= {lo}, got {v!r}")
        if input_pipeline_id >= num_input_pipelines:
            raise ValueError(f"InputContext: input_pipeline_id {input_pipeline_id} is not "
                             f"below num_input_pipelines {num_input_pipelines}")
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_input_pipelines(self) -> int:
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self) -> int:
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """``global_batch_size`` split evenly among the replicas in sync.

        Raises:
          ValueError: a global batch size the replicas do not divide.
        """
        if global_batch_size % self._num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self) -> str:
        return (f"InputContext(num_input_pipelines={self._num_input_pipelines}, "
                f"input_pipeline_id={self._input_pipeline_id}, "
                f"num_replicas_in_sync={self._num_replicas_in_sync})")


__all__ = ["InputContext", "InputReplicationMode"]
