"""The switches TF 1.15 and 2.x programs call to choose TensorFlow 1.x behaviour.

tensorfleet only has 1.x behaviour (graphs and sessions, ``Dimension`` shapes, reference
variables), so the calls that ask for it return without doing anything, and the calls
that ask for 2.x behaviour (eager execution) raise a ``RuntimeError`` that says so
rather than leaving a program to run under semantics it did not ask for.
"""

from __future__ import annotations

import logging
from typing import Any

_log = logging.getLogger(__name__)

_NO_EAGER = ("tensorfleet runs TensorFlow 1.x graphs and sessions only; eager execution "
             "is not supported. Remove the call and run the graph with tf.Session().")


def disable_v2_behavior() -> None:
    """Asks for TensorFlow 1.x behaviour, which is tensorfleet's only behaviour."""
    _log.debug("disable_v2_behavior: tensorfleet always behaves as TensorFlow 1.x")


def disable_eager_execution() -> None:
    """Asks for graph mode, which is tensorfleet's only mode."""


def disable_resource_variables() -> None:
    """Asks for reference variables, the kind tensorfleet's ``tf.Variable`` makes."""


def disable_v2_tensorshape() -> None:
    """Asks for ``TensorShape`` of ``Dimension`` objects, tensorfleet's only kind."""


def resource_variables_enabled() -> bool:
    """False: variables behave as TensorFlow 1.x reference variables."""
    return False


def executing_eagerly() -> bool:
    """False: ops build a graph that a session runs."""
    return False


def enable_eager_execution(config: Any = None, device_policy: Any = None,
                           execution_mode: Any = None) -> None:
    """Always raises: tensorfleet has no eager mode.

    Raises:
      RuntimeError: saying that eager execution is not supported.
    """
    raise RuntimeError("enable_eager_execution: " + _NO_EAGER)


def enable_v2_behavior() -> None:
    """Always raises: TensorFlow 2.x behaviour means eager execution, which tensorfleet
    does not have.

    Raises:
      RuntimeError: saying that 2.x behaviour is not supported.
    """
    raise RuntimeError("enable_v2_behavior: " + _NO_EAGER)


def executing_eagerly_outside_functions() -> bool:
    """False: outside functions too, ops build a graph."""
    return False


def control_flow_v2_enabled() -> bool:
    """True: ``tf.cond`` and ``tf.while_loop`` build functional ``If`` / ``While`` ops
    holding their branches and bodies as sub-graphs, as TensorFlow's control flow v2
    does (there are no Switch/Merge frames of control flow v1)."""
    return True


def enable_control_flow_v2() -> None:
    """Asks for functional control flow (``If`` / ``While`` ops), tensorfleet's only kind."""


def disable_control_flow_v2() -> None:
    """Asks for control flow v1. tensorfleet keeps its functional ``If`` / ``While`` ops,
    which compute the same values and gradients; a program that looks for v1's
    ``Enter`` / ``Exit`` / ``Merge`` nodes in the graph does not find them."""
    _log.info("disable_control_flow_v2: tensorfleet's tf.cond and tf.while_loop stay "
              "functional (If / While ops); values and gradients are unchanged")


def disable_tensor_equality() -> None:
    """Asks for TensorFlow 1.x ``==`` on tensors (identity, so tensors can key dicts and
    sets), which is tensorfleet's only kind."""


def enable_tensor_equality() -> None:
    """Always raises: element-wise ``==`` on tensors is TensorFlow 2.x behaviour; use
    ``tf.equal``.

    Raises:
      RuntimeError: saying so.
    """
    raise RuntimeError("enable_tensor_equality: tensorfleet's Tensor == is identity, as in "
                       "TensorFlow 1.x; compare values with tf.equal")


__all__ = ["control_flow_v2_enabled", "enable_control_flow_v2", "disable_control_flow_v2",
           "executing_eagerly_outside_functions", "disable_tensor_equality",
           "enable_tensor_equality", "disable_v2_behavior", "disable_eager_execution", "disable_resource_variables",
           "disable_v2_tensorshape", "resource_variables_enabled", "executing_eagerly",
           "enable_eager_execution", "enable_v2_behavior"]
