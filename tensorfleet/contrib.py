"""``tf.contrib``: the few contrib names the TensorFlow 1.x examples use.

``tf.contrib.framework.get_or_create_global_step`` is what the distributed
training example of the seed documents calls; it is the same function as
``tf.train.get_or_create_global_step``.
"""

import types

from tensorfleet.ops import embedding_ops as _embedding_ops
from tensorfleet.training import device_setter as _device_setter
from tensorfleet.training import training_util as _training_util

framework = types.SimpleNamespace(
    get_or_create_global_step=_training_util.get_or_create_global_step,
    get_global_step=_training_util.get_global_step,
    create_global_step=_training_util.create_global_step,
    assert_global_step=_training_util.assert_global_step,
)
"""``tf.contrib.framework``: the global-step helpers."""

training = types.SimpleNamespace(
    GreedyLoadBalancingStrategy=_device_setter.GreedyLoadBalancingStrategy,
    RandomStrategy=_device_setter.RandomStrategy,
    byte_size_load_fn=_device_setter.byte_size_load_fn,
)
"""``tf.contrib.training``: ps placement strategies for ``replica_device_setter``."""

layers = types.SimpleNamespace(
    safe_embedding_lookup_sparse=_embedding_ops.safe_embedding_lookup_sparse,
)
"""``tf.contrib.layers``: the sparse embedding lookup that tolerates invalid ids."""

__all__ = ["framework", "training", "layers"]
