"""User-facing op constructors, one module per family."""

from tensorfleet.ops import (  # noqa: F401
    array_ops, control_flow_ops, data_flow_ops, init_ops, io_ops, math_ops, nn_ops, random_ops,
    state_ops, summary_ops, variable_scope, variables)
from tensorfleet.ops import embedding_ops, partitioned_variables  # noqa: F401
