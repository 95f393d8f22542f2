"""``tf.random``: the random ops and candidate samplers under their ``tf.random`` names."""

from tensorfleet.framework.graph import (get_seed, set_random_seed)
from tensorfleet.ops.nn_sampling_ops import (fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler, log_uniform_candidate_sampler, uniform_candidate_sampler)
from tensorfleet.ops.random_ops import (categorical, random_gamma as gamma, multinomial,
    random_normal as normal, random_shuffle as shuffle, truncated_normal,
    random_uniform as uniform)

from tensorfleet.ops.random_ops import random_poisson as poisson

from tensorfleet.ops.stateless_random_ops import (stateless_categorical,
    stateless_multinomial, stateless_random_normal as stateless_normal,
    stateless_truncated_normal, stateless_random_uniform as stateless_uniform)

__all__ = ["categorical", "fixed_unigram_candidate_sampler", "gamma", "get_seed",
           "learned_unigram_candidate_sampler", "log_uniform_candidate_sampler", "multinomial",
           "normal", "poisson", "set_random_seed", "shuffle", "stateless_categorical",
           "stateless_multinomial", "stateless_normal", "stateless_truncated_normal",
           "stateless_uniform", "truncated_normal", "uniform", "uniform_candidate_sampler"]
