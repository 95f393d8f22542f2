"""``DNNLinearCombinedClassifier`` / ``...Regressor``: wide (linear) and deep (DNN) parts.

The logits are the sum of a linear model over ``linear_feature_columns`` (scope
``linear``) and a DNN over ``dnn_feature_columns`` (scope ``dnn``). Each part has
its own optimizer, applied to its own variables only: FTRL for the linear part
(learning rate ``min(0.005, 1/sqrt(number of linear columns))``) and Adagrad
(0.001) for the DNN by default, as in TensorFlow. One training step runs both
and then increments the global step once.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

from tensorfleet.estimator.canned.dnn import check_dnn_args, dnn_logits
from tensorfleet.estimator.canned.head import RegressionHead, _Head, classification_head
from tensorfleet.estimator.canned.linear import (_check_loss_reduction, default_partitioner,
                                                 num_ps_tasks)
from tensorfleet.estimator.canned.optimizers import get_optimizer_instance, \
    linear_learning_rate
from tensorfleet.estimator.estimator import Estimator, EstimatorSpec
from tensorfleet.estimator.run_config import RunConfig
from tensorfleet.feature_column.layers import linear_model
from tensorfleet.framework.graph import GraphKeys, control_dependencies, get_default_graph
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.math_ops import add
from tensorfleet.ops.nn_ops import relu
from tensorfleet.ops.partitioned_variables import min_max_variable_partitioner
from tensorfleet.ops.state_ops import assign_add
from tensorfleet.ops.variable_scope import variable_scope
from tensorfleet.training.training_util import get_global_step

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _scope_trainables(scope_name: str) -> list:
    prefix = scope_name + "/"
    return [v for v in get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
            if v.op.name.startswith(prefix)]


def _combined_model_fn(features: Dict[str, Any], labels: Any, mode: str, head: _Head,
                       linear_columns: Sequence[Any], linear_optimizer: Any,
                       dnn_columns: Sequence[Any], dnn_optimizer: Any,
                       hidden_units: Sequence[int], activation_fn: Callable[..., Any],
                       dropout: Optional[float], input_layer_partitioner: Any,
                       config: RunConfig, sparse_combiner: str) -> EstimatorSpec:
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features).__name__}")
    num_ps = max(1, num_ps_tasks(config))
    part = input_layer_partitioner if input_layer_partitioner is not None else \
        default_partitioner(config)
    parts = []
    dnn_scope = linear_scope = None
    if dnn_columns:
        with variable_scope("dnn", values=list(features.values()),
                            partitioner=min_max_variable_partitioner(max_partitions=num_ps)
                            ) as scope:
            dnn_scope = scope.name
            parts.append(dnn_logits(features, mode, dnn_columns, hidden_units,
                                    head.logits_dimension, activation_fn, dropout, part))
    if linear_columns:
        with variable_scope("linear", values=list(features.values()), partitioner=part) as scope:
            linear_scope = scope.name
            parts.append(linear_model(features, linear_columns, units=head.logits_dimension,
                                      sparse_combiner=sparse_combiner))
    logits = parts[0] if len(parts) == 1 else add(parts[0], parts[1], name="logits")
    dnn_opt = get_optimizer_instance(dnn_optimizer, _DNN_LEARNING_RATE) \
        if dnn_columns else None
    linear_opt = get_optimizer_instance(
        linear_optimizer, linear_learning_rate(len(linear_columns), _LINEAR_LEARNING_RATE)) \
        if linear_columns else None

    def train_op_fn(loss: Any) -> Any:
        ops = []
        if dnn_opt is not None:
            ops.append(dnn_opt.minimize(loss, var_list=_scope_trainables(dnn_scope)))
        if linear_opt is not None:
            ops.append(linear_opt.minimize(loss, var_list=_scope_trainables(linear_scope)))
        train_op = group(*ops)
        with control_dependencies([train_op]):
            return assign_add(get_global_step(), 1).op

    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)


class _CombinedEstimator(Estimator):
    def __init__(self, head: _Head, model_dir: Optional[str], linear_feature_columns: Any,
                 linear_optimizer: Any, dnn_feature_columns: Any, dnn_optimizer: Any,
                 dnn_hidden_units: Any, dnn_activation_fn: Any, dnn_dropout: Any,
                 input_layer_partitioner: Any, config: Optional[RunConfig],
                 warm_start_from: Any, linear_sparse_combiner: str, batch_norm: bool,
                 what: str):
        linear_cols = tuple(linear_feature_columns or ())
        dnn_cols = tuple(dnn_feature_columns or ())
        if not linear_cols and not dnn_cols:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                             "defined.")
        units = check_dnn_args(dnn_hidden_units, dnn_cols, dnn_dropout, dnn_activation_fn,
                               what) if dnn_cols else []
        if dnn_cols and not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                             "specified.")
        if batch_norm:
            raise ValueError(f"{what}: batch_norm=True is not supported")
        if linear_sparse_combiner not in ("mean", "sqrtn", "sum"):
            raise ValueError(f"linear_sparse_combiner must be one of 'mean', 'sqrtn', 'sum', "
                             f"got {linear_sparse_combiner!r}")
        for opt, rate in ((linear_optimizer, _LINEAR_LEARNING_RATE),
                          (dnn_optimizer, _DNN_LEARNING_RATE)):
            if isinstance(opt, str):
                get_optimizer_instance(opt, rate)

        def _model_fn(features: Any, labels: Any, mode: str, config: RunConfig) -> Any:
            return _combined_model_fn(features, labels, mode, head, linear_cols,
                                      linear_optimizer, dnn_cols, dnn_optimizer, units,
                                      dnn_activation_fn, dnn_dropout, input_layer_partitioner,
                                      config, linear_sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNLinearCombinedClassifier(_CombinedEstimator):
    """Wide & deep classifier: a linear model plus a DNN, trained jointly."""

    def __init__(self, model_dir: Optional[str] = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Callable[..., Any] = relu,
                 dnn_dropout: Optional[float] = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Optional[Sequence[str]] = None,
                 input_layer_partitioner: Any = None, config: Optional[RunConfig] = None,
                 warm_start_from: Any = None, loss_reduction: Any = None,
                 batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        _check_loss_reduction(loss_reduction)
        super().__init__(classification_head(n_classes, weight_column, label_vocabulary),
                         model_dir, linear_feature_columns, linear_optimizer,
                         dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                         dnn_activation_fn, dnn_dropout, input_layer_partitioner, config,
                         warm_start_from, linear_sparse_combiner, batch_norm,
                         "DNNLinearCombinedClassifier")


class DNNLinearCombinedRegressor(_CombinedEstimator):
    """Wide & deep regressor (squared error)."""

    def __init__(self, model_dir: Optional[str] = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Callable[..., Any] = relu,
                 dnn_dropout: Optional[float] = None, label_dimension: int = 1,
                 weight_column: Any = None, input_layer_partitioner: Any = None,
                 config: Optional[RunConfig] = None, warm_start_from: Any = None,
                 loss_reduction: Any = None, batch_norm: bool = False,
                 linear_sparse_combiner: str = "sum"):
        _check_loss_reduction(loss_reduction)
        super().__init__(RegressionHead(label_dimension, weight_column), model_dir,
                         linear_feature_columns, linear_optimizer, dnn_feature_columns,
                         dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                         input_layer_partitioner, config, warm_start_from,
                         linear_sparse_combiner, batch_norm, "DNNLinearCombinedRegressor")


__all__ = ["DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor"]
