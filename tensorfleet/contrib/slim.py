"""``tf.contrib.slim``: the slim names TF 1.x model zoos import as ``slim``.

``slim.conv2d``, ``slim.fully_connected``... are the ``tf.contrib.layers``
functions, ``slim.arg_scope`` and the variable helpers come from
``tf.contrib.framework``, and ``slim.losses`` is ``tf.contrib.losses``.
"""

from tensorfleet.contrib import losses  # noqa: F401
from tensorfleet.contrib.framework import (  # noqa: F401
    add_arg_scope, arg_scope, assign_from_checkpoint, assign_from_checkpoint_fn,
    get_model_variables, get_or_create_global_step, get_trainable_variables,
    get_unique_variable, get_variables, get_variables_by_name, get_variables_to_restore,
    local_variable, model_variable, variable)
from tensorfleet.contrib.layers import (  # noqa: F401
    avg_pool2d, batch_norm, bias_add, conv2d, conv2d_transpose, convolution2d, dropout,
    flatten, fully_connected, l1_regularizer, l2_regularizer, layer_norm, max_pool2d,
    one_hot_encoding, repeat, separable_conv2d, softmax, stack, unit_norm,
    variance_scaling_initializer, xavier_initializer)
from tensorfleet.contrib import slim_learning as learning  # noqa: F401,E402
from tensorfleet.contrib import slim_model_analyzer as model_analyzer  # noqa: F401,E402
from tensorfleet.contrib import slim_utils as utils  # noqa: F401,E402
from tensorfleet.contrib.layers_norm import instance_norm  # noqa: F401,E402
from tensorfleet.contrib import slim_prefetch_queue as prefetch_queue  # noqa: F401,E402
from tensorfleet.training.training_util import create_global_step  # noqa: F401,E402
from tensorfleet.contrib import slim_dataset as dataset  # noqa: F401,E402
from tensorfleet.contrib import slim_data_provider as dataset_data_provider  # noqa: F401,E402
from tensorfleet.contrib import slim_data_provider as parallel_reader  # noqa: F401,E402
from tensorfleet.contrib import slim_tfexample_decoder as tfexample_decoder  # noqa: F401,E402

__all__ = ["losses", "add_arg_scope", "arg_scope", "assign_from_checkpoint",
           "assign_from_checkpoint_fn", "get_model_variables", "get_or_create_global_step",
           "get_trainable_variables", "get_unique_variable", "get_variables",
           "get_variables_by_name", "get_variables_to_restore", "local_variable",
           "model_variable", "variable", "avg_pool2d", "batch_norm", "bias_add", "conv2d",
           "conv2d_transpose", "convolution2d", "dropout", "flatten", "fully_connected",
           "l1_regularizer", "l2_regularizer", "layer_norm", "max_pool2d", "one_hot_encoding",
           "repeat", "separable_conv2d", "softmax", "stack", "unit_norm",
           "variance_scaling_initializer", "xavier_initializer"]
__all__ += ["learning", "model_analyzer", "utils", "instance_norm"]
__all__ += ["prefetch_queue", "create_global_step"]
__all__ += ["dataset", "dataset_data_provider", "parallel_reader", "tfexample_decoder"]
