"""``tf.random``: the random ops and candidate samplers under their ``tf.random`` names."""

from tensorfleet.framework.graph import (get_seed, set_random_seed)
from tensorfleet.ops.nn_sampling_ops import (fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler, log_uniform_candidate_sampler, uniform_candidate_sampler)
from tensorfleet.ops.random_ops import (categorical, random_gamma as gamma, multinomial,
    random_normal as normal, random_shuffle as shuffle, truncated_normal,
    random_uniform as uniform)

from tensorfleet.ops.random_ops import random_poisson as poisson

__all__ = ["categorical", "fixed_unigram_candidate_sampler", "gamma", "get_seed",
           "learned_unigram_candidate_sampler", "log_uniform_candidate_sampler", "multinomial",
           "normal", "poisson", "set_random_seed", "shuffle", "truncated_normal", "uniform",
           "uniform_candidate_sampler"]
