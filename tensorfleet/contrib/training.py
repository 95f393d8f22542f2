"""``tf.contrib.training``: ps placement strategies for ``replica_device_setter``, train ops,
``HParams`` and bucketed batching."""

from tensorfleet.training.device_setter import (  # noqa: F401
    GreedyLoadBalancingStrategy, RandomStrategy, byte_size_load_fn)
from tensorfleet.contrib.train_op import (  # noqa: F401,E402
    add_gradients_summaries, clip_gradient_norms, create_train_op, multiply_gradients)
from tensorfleet.contrib.hparams import HParams  # noqa: F401,E402
from tensorfleet.contrib.training_bucket import (  # noqa: F401,E402
    bucket, bucket_by_sequence_length)
