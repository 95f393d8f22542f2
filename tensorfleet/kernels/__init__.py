"""numpy kernels, one module per op family; importing this registers them all."""

from tensorfleet.kernels import (  # noqa: F401
    accumulator_kernels, array_kernels, control_flow_kernels, data_flow_kernels, dataset_kernels,
    math_kernels,
    io_kernels, nn_kernels, random_kernels, sendrecv_kernels, state_kernels, summary_kernels,
    training_kernels, collective_kernels)
from tensorfleet.kernels import parsing_kernels, string_kernels  # noqa: F401,E402
from tensorfleet.kernels import sparse_kernels  # noqa: F401,E402
from tensorfleet.kernels.registry import get_kernel, register_kernel  # noqa: F401
