"""User-facing op constructors, one module per family."""

from tensorfleet.ops import (  # noqa: F401
    array_ops, control_flow_ops, data_flow_ops, init_ops, math_ops, nn_ops, random_ops, state_ops,
    summary_ops, variable_scope, variables)
