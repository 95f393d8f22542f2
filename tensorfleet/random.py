"""``tf.random``: the random ops and candidate samplers under their ``tf.random`` names."""

from tensorfleet.framework.graph import set_random_seed  # noqa: F401
from tensorfleet.framework.graph import get_seed  # noqa: F401  (tf.random.get_seed)
from tensorfleet.ops.nn_sampling_ops import (  # noqa: F401
    fixed_unigram_candidate_sampler, learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler, uniform_candidate_sampler)
from tensorfleet.ops.random_ops import multinomial, truncated_normal  # noqa: F401
from tensorfleet.ops.random_ops import random_normal as normal  # noqa: F401
from tensorfleet.ops.random_ops import random_shuffle as shuffle  # noqa: F401
from tensorfleet.ops.random_ops import random_uniform as uniform  # noqa: F401
from tensorfleet.ops.random_ops import categorical  # noqa: F401
from tensorfleet.ops.random_ops import random_gamma as gamma  # noqa: F401
