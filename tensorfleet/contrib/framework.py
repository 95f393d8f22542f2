"""``tf.contrib.framework``: the global-step helpers.

``tf.contrib.framework.get_or_create_global_step`` is what the distributed training
example of the seed documents calls; it is the same function as
``tf.train.get_or_create_global_step``.
"""

from tensorfleet.training.training_util import (  # noqa: F401
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step)
