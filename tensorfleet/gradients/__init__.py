"""Reverse-mode gradients; importing this registers every family's gradients."""

from tensorfleet.gradients import (  # noqa: F401
    array_grad, control_flow_grad, math_grad, nn_grad, state_grad)
from tensorfleet.gradients import sparse_grad  # noqa: F401
from tensorfleet.gradients import functional_grad, tensor_array_grad  # noqa: F401,E402
from tensorfleet.gradients import linalg_grad, nn_norm_grad, nn_sampling_grad, scatter_grad  # noqa: F401
from tensorfleet.gradients import nn_conv_variant_grad  # noqa: F401
from tensorfleet.gradients import rnn_grad  # noqa: F401,E402
from tensorfleet.gradients import script_grad  # noqa: F401,E402
from tensorfleet.gradients import image_grad  # noqa: F401,E402
from tensorfleet.gradients import ctc_grad  # noqa: F401,E402
from tensorfleet.gradients import segment_grad  # noqa: F401,E402
from tensorfleet.gradients import nn_pool_grad  # noqa: F401,E402
from tensorfleet.gradients import random_grad  # noqa: F401,E402
from tensorfleet.gradients import sparse_lookup_grad  # noqa: F401,E402
from tensorfleet.gradients import math_special_grad  # noqa: F401,E402
from tensorfleet.gradients import bitwise_grad, edit_distance_grad  # noqa: F401,E402
from tensorfleet.gradients import decode_compressed_grad, tensor_serialization_grad  # noqa: F401,E402
from tensorfleet.gradients import image_patches_grad, sets_grad, shape_check_grad  # noqa: F401,E402
from tensorfleet.gradients import stateless_random_grad  # noqa: F401,E402
from tensorfleet.gradients import complex_grad, spectral_grad  # noqa: F401,E402
from tensorfleet.gradients import special_function_grad  # noqa: F401,E402
from tensorfleet.gradients import lu_grad, tridiagonal_grad  # noqa: F401,E402
from tensorfleet.gradients import matrix_function_grad  # noqa: F401,E402
from tensorfleet.gradients import fake_quant_grad, morphology_grad  # noqa: F401,E402
from tensorfleet.gradients import quantize_grad  # noqa: F401,E402
from tensorfleet.gradients.gradients_impl import AggregationMethod, gradients  # noqa: F401
from tensorfleet.gradients.registry import (  # noqa: F401
    NotDifferentiable, RegisterGradient, no_gradient, register_gradient)
