"""``tf.debugging.enable_check_numerics`` / ``disable_check_numerics``: while enabled,
every op created (in any graph) that computes a floating-point value is marked with the
``_check_numerics`` attr, and running it checks its outputs (``runtime/numerics_check``):
the first op of a step to produce an Inf or NaN fails the step with an
InvalidArgumentError naming that op. Ops that only move or reshape values (constants,
placeholders, variables, identities, reshapes, concatenations, gathers ...) are not
marked: they cannot create an Inf or NaN, and the op that did is reported instead."""

from __future__ import annotations

import logging
from tensorfleet.framework.graph import Operation, add_op_creation_hook, remove_op_creation_hook

_log = logging.getLogger(__name__)

CHECK_NUMERICS_ATTR = "_check_numerics"

_MOVES_VALUES = frozenset({
    "Const", "Placeholder", "PlaceholderWithDefault", "VariableV2", "Variable", "Identity",
    "IdentityN", "Snapshot", "StopGradient", "Reshape", "ExpandDims", "Squeeze",
    "Transpose", "ConcatV2", "Concat", "Pack", "Unpack", "Split", "SplitV", "Gather",
    "GatherV2", "GatherNd", "Slice", "StridedSlice", "Fill", "ZerosLike", "OnesLike",
    "Shape", "Switch", "Merge", "Tile", "_Recv", "_Send", "_Arg", "_Retval",
    "PreventGradient", "CheckNumerics"})


def _mark(op: Operation) -> None:
    if op.type in _MOVES_VALUES:
        return
    if any(t.dtype.is_floating for t in op.outputs):
        op.attrs[CHECK_NUMERICS_ATTR] = True


def enable_check_numerics(stack_height_limit: int = 30,
                          path_length_limit: int = 50) -> None:
    """Checks, from now on, every op created that computes floating-point values: a step
    in which one produces an Inf or NaN fails with an InvalidArgumentError naming it.

    ``stack_height_limit`` and ``path_length_limit`` bound TensorFlow's printed stack
    trace; the error here names the line that created the op.
    """
    for name, value in (("stack_height_limit", stack_height_limit),
                        ("path_length_limit", path_length_limit)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"enable_check_numerics: {name} must be a positive int, got "
                             f"{value!r}")
    add_op_creation_hook(_mark)
    _log.info("check numerics enabled: ops created from now on check their outputs")


def disable_check_numerics() -> None:
    """Stops marking new ops; ops created while enabled stay checked."""
    remove_op_creation_hook(_mark)


__all__ = ["enable_check_numerics", "disable_check_numerics", "CHECK_NUMERICS_ATTR"]
