"""Reverse-mode gradients; importing this registers every family's gradients."""

from tensorfleet.gradients import (  # noqa: F401
    array_grad, control_flow_grad, math_grad, nn_grad, state_grad)
from tensorfleet.gradients import sparse_grad  # noqa: F401
from tensorfleet.gradients.gradients_impl import gradients  # noqa: F401
from tensorfleet.gradients.registry import (  # noqa: F401
    NotDifferentiable, RegisterGradient, no_gradient, register_gradient)
