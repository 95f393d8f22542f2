"""numpy kernels, one module per op family; importing this registers them all."""

from tensorfleet.kernels import (  # noqa: F401
    accumulator_kernels, array_kernels, control_flow_kernels, data_flow_kernels, dataset_kernels,
    math_kernels,
    io_kernels, nn_kernels, random_kernels, sendrecv_kernels, state_kernels, summary_kernels,
    training_kernels, collective_kernels)
from tensorfleet.kernels import parsing_kernels, string_kernels  # noqa: F401,E402
from tensorfleet.kernels import sparse_kernels  # noqa: F401,E402
from tensorfleet.kernels import functional_kernels, tensor_array_kernels  # noqa: F401,E402
from tensorfleet.kernels import categorical_kernels, hash_kernels  # noqa: F401,E402
from tensorfleet.kernels import (  # noqa: F401,E402
    linalg_kernels, nn_conv_more_kernels, nn_norm_kernels, nn_sampling_kernels, scatter_kernels)
from tensorfleet.kernels import rnn_kernels  # noqa: F401,E402
from tensorfleet.kernels import lookup_kernels  # noqa: F401,E402
from tensorfleet.kernels import script_kernels  # noqa: F401,E402
from tensorfleet.kernels import image_codec_kernels, image_kernels  # noqa: F401,E402
from tensorfleet.kernels import training_sparse_kernels  # noqa: F401,E402
from tensorfleet.kernels import training_group_kernels  # noqa: F401,E402
from tensorfleet.kernels import dynamic_embedding_kernels  # noqa: F401,E402
from tensorfleet.kernels import array_kernels_more  # noqa: F401,E402
from tensorfleet.kernels import nn_conv_kernels  # noqa: F401,E402
from tensorfleet.kernels import io_reader_kernels  # noqa: F401,E402
from tensorfleet.kernels import ctc_kernels  # noqa: F401,E402
from tensorfleet.kernels import image_boxes_kernels  # noqa: F401,E402
from tensorfleet.kernels import segment_kernels  # noqa: F401,E402
from tensorfleet.kernels import nn_pool_kernels  # noqa: F401,E402
from tensorfleet.kernels import image_transform_kernels  # noqa: F401,E402
from tensorfleet.kernels import print_kernels, string_kernels_more  # noqa: F401,E402
from tensorfleet.kernels import sparse_lookup_kernels  # noqa: F401,E402
from tensorfleet.kernels import seq2seq_beam_kernels  # noqa: F401,E402
from tensorfleet.kernels import math_special_kernels  # noqa: F401,E402
from tensorfleet.kernels import misc_census_kernels  # noqa: F401,E402
from tensorfleet.kernels.registry import get_kernel, register_kernel  # noqa: F401
# The oneDNN CPU kernels register beside the numpy ones; which run is chosen on the
# first kernel lookup (tensorfleet.kernels.backends).
from tensorfleet.kernels import backends, onednn  # noqa: F401,E402
