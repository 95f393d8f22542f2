"""``tf.random.experimental``: the generator API and the seed-derivation and shuffling
stateless ops."""

from tensorfleet.ops.random_generator import (Algorithm, Generator, create_rng_state,
    get_global_generator, set_global_generator)
from tensorfleet.ops.stateless_random_distributions import (index_shuffle, stateless_fold_in,
    stateless_shuffle, stateless_split)

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator",
           "index_shuffle", "set_global_generator", "stateless_fold_in", "stateless_shuffle",
           "stateless_split"]
