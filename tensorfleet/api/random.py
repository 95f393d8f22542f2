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
from tensorfleet.ops.nn_sampling_ops import all_candidate_sampler
from tensorfleet.ops.random_generator import (Algorithm, Generator, create_rng_state,
    get_global_generator, set_global_generator)
from tensorfleet.ops.stateless_random_distributions import (stateless_fold_in as fold_in,
    stateless_split as split, stateless_random_binomial as stateless_binomial,
    stateless_random_gamma as stateless_gamma, stateless_parameterized_truncated_normal,
    stateless_random_poisson as stateless_poisson)

from tensorfleet.api import random_experimental as experimental

__all__ = ["Algorithm", "Generator", "all_candidate_sampler", "categorical", "create_rng_state",
           "experimental", "fixed_unigram_candidate_sampler", "fold_in", "gamma",
           "get_global_generator", "get_seed", "learned_unigram_candidate_sampler",
           "log_uniform_candidate_sampler", "multinomial", "normal", "poisson",
           "set_global_generator", "set_random_seed", "shuffle", "split", "stateless_binomial",
           "stateless_categorical", "stateless_gamma", "stateless_multinomial",
           "stateless_normal", "stateless_parameterized_truncated_normal", "stateless_poisson",
           "stateless_truncated_normal", "stateless_uniform", "truncated_normal", "uniform",
           "uniform_candidate_sampler"]
