"""``LinearClassifier`` and ``LinearRegressor``: ``linear_model`` over feature columns.

Variables live under ``linear/linear_model/<column>/weights`` (and
``linear/linear_model/bias_weights``), partitioned across the parameter servers
by ``min_max_variable_partitioner`` as in TensorFlow. The default optimizer is
FTRL with learning rate ``min(0.2, 1/sqrt(number of columns))``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from tensorfleet.estimator.canned.head import RegressionHead, _Head, classification_head
from tensorfleet.estimator.canned.optimizers import (check_feature_columns,
                                                     get_optimizer_instance,
                                                     linear_learning_rate)
from tensorfleet.estimator.estimator import Estimator, EstimatorSpec
from tensorfleet.estimator.run_config import RunConfig
from tensorfleet.feature_column.layers import linear_model
from tensorfleet.ops.partitioned_variables import min_max_variable_partitioner
from tensorfleet.ops.variable_scope import variable_scope
from tensorfleet.training.training_util import get_global_step

_LEARNING_RATE = 0.2
# Shards of at least 64 MiB: small models stay in one piece per variable.
_MIN_SLICE_SIZE = 64 << 20


def num_ps_tasks(config: RunConfig) -> int:
    """The ps tasks of the training cluster, also seen from the evaluator.

    The evaluator is outside the cluster (``num_ps_replicas`` is 0 there) but must
    build variables split as training split them, for checkpoints store each shard
    under its own name.
    """
    if config.num_ps_replicas:
        return int(config.num_ps_replicas)
    spec = config.cluster_spec
    return len(spec.as_dict().get("ps", [])) if spec is not None else 0


def default_partitioner(config: RunConfig) -> Any:
    """The partitioner of canned models: up to one shard per ps task."""
    return min_max_variable_partitioner(max_partitions=max(1, num_ps_tasks(config)),
                                        min_slice_size=_MIN_SLICE_SIZE)


def linear_logits(features: Dict[str, Any], feature_columns: Sequence[Any], units: int,
                  sparse_combiner: str, partitioner: Any) -> Any:
    """The logits of a linear model in variable scope ``linear``."""
    with variable_scope("linear", values=list(features.values()), partitioner=partitioner):
        return linear_model(features, feature_columns, units=units,
                            sparse_combiner=sparse_combiner)


def _linear_model_fn(features: Dict[str, Any], labels: Any, mode: str, head: _Head,
                     feature_columns: Sequence[Any], optimizer: Any, partitioner: Any,
                     config: RunConfig, sparse_combiner: str) -> EstimatorSpec:
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features).__name__}")
    part = partitioner if partitioner is not None else default_partitioner(config)
    logits = linear_logits(features, feature_columns, head.logits_dimension, sparse_combiner,
                           part)
    opt = get_optimizer_instance(optimizer, linear_learning_rate(len(feature_columns),
                                                                 _LEARNING_RATE))

    def train_op_fn(loss: Any) -> Any:
        return opt.minimize(loss, global_step=get_global_step())

    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)


class _LinearEstimator(Estimator):
    def __init__(self, head: _Head, feature_columns: Any, model_dir: Optional[str],
                 optimizer: Any, config: Optional[RunConfig], partitioner: Any,
                 sparse_combiner: str, warm_start_from: Any, what: str):
        cols = check_feature_columns(feature_columns, what)
        if sparse_combiner not in ("mean", "sqrtn", "sum"):
            raise ValueError(f"sparse_combiner must be one of 'mean', 'sqrtn', 'sum', got "
                             f"{sparse_combiner!r}")
        if isinstance(optimizer, str):
            get_optimizer_instance(optimizer, _LEARNING_RATE)  # an unknown name fails here

        def _model_fn(features: Any, labels: Any, mode: str, config: RunConfig) -> Any:
            return _linear_model_fn(features, labels, mode, head, cols, optimizer,
                                    partitioner, config, sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(_LinearEstimator):
    """A linear classifier (logistic regression for two classes, softmax above)."""

    def __init__(self, feature_columns: Any, model_dir: Optional[str] = None,
                 n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Optional[Sequence[str]] = None, optimizer: Any = "Ftrl",
                 config: Optional[RunConfig] = None, partitioner: Any = None,
                 warm_start_from: Any = None, loss_reduction: Any = None,
                 sparse_combiner: str = "sum"):
        _check_loss_reduction(loss_reduction)
        super().__init__(classification_head(n_classes, weight_column, label_vocabulary),
                         feature_columns, model_dir, optimizer, config, partitioner,
                         sparse_combiner, warm_start_from, "LinearClassifier")


class LinearRegressor(_LinearEstimator):
    """A linear regressor (squared error) with ``label_dimension`` outputs."""

    def __init__(self, feature_columns: Any, model_dir: Optional[str] = None,
                 label_dimension: int = 1, weight_column: Any = None, optimizer: Any = "Ftrl",
                 config: Optional[RunConfig] = None, partitioner: Any = None,
                 warm_start_from: Any = None, loss_reduction: Any = None,
                 sparse_combiner: str = "sum"):
        _check_loss_reduction(loss_reduction)
        super().__init__(RegressionHead(label_dimension, weight_column), feature_columns,
                         model_dir, optimizer, config, partitioner, sparse_combiner,
                         warm_start_from, "LinearRegressor")


def _check_loss_reduction(loss_reduction: Any) -> None:
    """Only TensorFlow 1.x's default (the weighted sum over the batch) is implemented."""
    if loss_reduction not in (None, "weighted_sum"):
        raise ValueError(f"loss_reduction {loss_reduction!r} is not supported; canned "
                         f"estimators sum the weighted losses of a batch")


__all__ = ["LinearClassifier", "LinearRegressor", "linear_logits", "default_partitioner",
           "num_ps_tasks"]
