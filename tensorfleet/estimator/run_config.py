"""``tf.estimator.RunConfig``: where an estimator runs and how often it saves.

The cluster and this task's role come from ``TF_CONFIG`` (as set by Kubeflow's
TFJob or by hand, see the seed)::

    {"cluster": {"chief": ["h0:2222"], "worker": ["h1:2222"], "ps": ["h2:2222"]},
     "task": {"type": "worker", "index": 0}}

The evaluator is not part of the training cluster: it gets no master and no
replicas, and only reads the checkpoints that the chief writes to
``model_dir``. Without ``TF_CONFIG`` the run is local: one worker that is chief.
"""

from __future__ import annotations

import copy
import logging
import os
from typing import Any, Dict, Optional

from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.resolver import TF_CONFIG, parse_tf_config

logger = logging.getLogger(__name__)


class TaskType:
    """The task types that ``TF_CONFIG`` may name."""

    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


_USE_DEFAULT = object()
# Task types ordered as TensorFlow numbers them for ``global_id_in_cluster``.
_ID_ORDER = (TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER, TaskType.PS)


class RunConfig:
    """Run settings of an ``Estimator``; the cluster part is read from ``TF_CONFIG``.

    Args:
      model_dir: where checkpoints and summaries go (``TF_CONFIG``'s
        ``model_dir`` when None).
      tf_random_seed: the graph-level random seed of every graph built.
      save_summary_steps: save summaries every this many steps; 0 or None writes none
        (no training summaries and no evaluation summaries).
      save_checkpoints_steps: checkpoint every this many steps; exclusive with
        ``save_checkpoints_secs``.
      save_checkpoints_secs: checkpoint every this many seconds (600 when neither
        is given).
      session_config: the ``ConfigProto`` of training sessions.
      keep_checkpoint_max: how many recent checkpoints to keep.
      keep_checkpoint_every_n_hours: additionally keep one checkpoint per this many hours.
      log_step_count_steps: log the loss and steps/sec every this many steps.
      device_fn: a device function for every op (overrides ``replica_device_setter``).

    Raises:
      ValueError: both checkpoint periods are given, or ``TF_CONFIG`` is invalid.
    """

    def __init__(self, model_dir: Optional[str] = None, tf_random_seed: Optional[int] = None,
                 save_summary_steps: int = 100, save_checkpoints_steps: Any = _USE_DEFAULT,
                 save_checkpoints_secs: Any = _USE_DEFAULT, session_config: Any = None,
                 keep_checkpoint_max: int = 5, keep_checkpoint_every_n_hours: float = 10000,
                 log_step_count_steps: int = 100, train_distribute: Any = None,
                 device_fn: Any = None, protocol: Optional[str] = None,
                 eval_distribute: Any = None, experimental_distribute: Any = None):
        steps = None if save_checkpoints_steps is _USE_DEFAULT else save_checkpoints_steps
        secs = None if save_checkpoints_secs is _USE_DEFAULT else save_checkpoints_secs
        if steps is not None and secs is not None:
            raise ValueError("save_checkpoints_steps and save_checkpoints_secs cannot both be "
                             "set.")
        if steps is None and secs is None and save_checkpoints_secs is _USE_DEFAULT:
            secs = 600
        if train_distribute is not None or eval_distribute is not None:
            logger.warning("RunConfig: distribution strategies are not used by this Estimator; "
                           "it trains with parameter servers as TF_CONFIG describes")
        self._tf_config = parse_tf_config(os.environ.get(TF_CONFIG))
        self._model_dir = model_dir or self._tf_config.get("model_dir") or None
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = steps
        self._save_checkpoints_secs = secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._device_fn = device_fn
        self._protocol = protocol
        self._init_cluster()

    def _init_cluster(self) -> None:
        cfg = self._tf_config
        cluster = cfg.get("cluster") or {}
        task = cfg.get("task") or {}
        training = {j: t for j, t in cluster.items() if j != TaskType.EVALUATOR}
        self._cluster_spec = ClusterSpec(training)
        if not cluster:
            if task.get("type") not in (None, TaskType.WORKER, TaskType.CHIEF):
                raise ValueError(f"TF_CONFIG names task type {task.get('type')!r} but no cluster")
            self._task_type, self._task_id = TaskType.WORKER, 0
            self._master, self._is_chief = "", True
            self._num_ps, self._num_workers, self._global_id = 0, 1, 0
            return
        if not task.get("type"):
            raise ValueError("TF_CONFIG has a cluster but no task.type: every task must say "
                             "which one it is")
        self._task_type, self._task_id = task["type"], int(task.get("index", 0))
        if self._task_type == TaskType.EVALUATOR:
            # The evaluator trains nothing and reaches no server.
            self._master, self._is_chief = "", False
            self._num_ps, self._num_workers, self._global_id = 0, 0, None
            return
        has_chief = TaskType.CHIEF in training or TaskType.MASTER in training
        if TaskType.WORKER in training and not has_chief:
            raise ValueError("TF_CONFIG: a cluster with workers needs a 'chief' job (the worker "
                             "that initializes the model and writes checkpoints)")
        self._master = f"grpc://{self._cluster_spec.task_address(self._task_type, self._task_id)}"
        self._is_chief = self._task_type in (TaskType.CHIEF, TaskType.MASTER)
        self._num_ps = len(training.get(TaskType.PS, []))
        self._num_workers = sum(len(training.get(j, [])) for j in
                                (TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER))
        gid = 0
        for job in list(_ID_ORDER) + sorted(j for j in training if j not in _ID_ORDER):
            if job == self._task_type:
                gid += self._task_id
                break
            gid += len(training.get(job, []))
        self._global_id = gid

    # -- cluster ------------------------------------------------------------------------------
    @property
    def cluster_spec(self) -> ClusterSpec:
        """The training cluster (without the evaluator); empty when local."""
        return self._cluster_spec

    @property
    def task_type(self) -> str:
        return self._task_type

    @property
    def task_id(self) -> int:
        return self._task_id

    @property
    def is_chief(self) -> bool:
        return self._is_chief

    @property
    def master(self) -> str:
        """The session target of this task's own server ("" when local)."""
        return self._master

    @property
    def evaluation_master(self) -> str:
        return ""

    @property
    def num_ps_replicas(self) -> int:
        return self._num_ps

    @property
    def num_worker_replicas(self) -> int:
        """Training workers, the chief included."""
        return self._num_workers

    @property
    def global_id_in_cluster(self) -> Optional[int]:
        """This task's number: chief 0, workers next, then ps (None for the evaluator).

        For a chief or worker it is its shard index: ``ds.shard(num_worker_replicas,
        global_id_in_cluster)``.
        """
        return self._global_id

    @property
    def protocol(self) -> Optional[str]:
        return self._protocol

    # -- run settings -------------------------------------------------------------------------
    @property
    def model_dir(self) -> Optional[str]:
        return self._model_dir

    @property
    def tf_random_seed(self) -> Optional[int]:
        return self._tf_random_seed

    @property
    def save_summary_steps(self) -> int:
        return self._save_summary_steps

    @property
    def save_checkpoints_steps(self) -> Optional[int]:
        return self._save_checkpoints_steps

    @property
    def save_checkpoints_secs(self) -> Optional[float]:
        return self._save_checkpoints_secs

    @property
    def session_config(self) -> Any:
        return self._session_config

    @property
    def keep_checkpoint_max(self) -> int:
        return self._keep_checkpoint_max

    @property
    def keep_checkpoint_every_n_hours(self) -> float:
        return self._keep_checkpoint_every_n_hours

    @property
    def log_step_count_steps(self) -> int:
        return self._log_step_count_steps

    @property
    def device_fn(self) -> Any:
        return self._device_fn

    @property
    def train_distribute(self) -> Any:
        return None

    @property
    def eval_distribute(self) -> Any:
        return None

    def replace(self, **kwargs: Any) -> "RunConfig":
        """A copy with some settings changed (the cluster part is re-read from ``TF_CONFIG``).

        Raises:
          ValueError: a name that is not a setting, or both checkpoint periods set.
        """
        allowed = {"model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                   "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
                   "keep_checkpoint_every_n_hours", "log_step_count_steps", "device_fn",
                   "protocol"}
        bad = set(kwargs) - allowed
        if bad:
            raise ValueError(f"RunConfig.replace: unknown or read-only settings {sorted(bad)}")
        new = copy.copy(self)
        for k, v in kwargs.items():
            setattr(new, "_" + k, v)
        if new._save_checkpoints_steps is not None and new._save_checkpoints_secs is not None:
            if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs:
                new._save_checkpoints_secs = None
            elif "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs:
                new._save_checkpoints_steps = None
            else:
                raise ValueError("save_checkpoints_steps and save_checkpoints_secs cannot both "
                                 "be set.")
        return new

    def as_dict(self) -> Dict[str, Any]:
        """The settings and cluster role, for logging."""
        return {"model_dir": self._model_dir, "task_type": self._task_type,
                "task_id": self._task_id, "is_chief": self._is_chief, "master": self._master,
                "num_ps_replicas": self._num_ps, "num_worker_replicas": self._num_workers,
                "save_checkpoints_steps": self._save_checkpoints_steps,
                "save_checkpoints_secs": self._save_checkpoints_secs,
                "save_summary_steps": self._save_summary_steps,
                "keep_checkpoint_max": self._keep_checkpoint_max,
                "log_step_count_steps": self._log_step_count_steps}

    def __repr__(self) -> str:
        return f"RunConfig({self.as_dict()})"


__all__ = ["RunConfig", "TaskType"]
