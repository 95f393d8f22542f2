"""``tf.initializers``: TensorFlow 1.x's initializer classes under short names, and the ops
that run variable and table initializers."""

from tensorfleet.ops.init_ops import (Constant as constant, GlorotNormal as glorot_normal,
    GlorotUniform as glorot_uniform, Identity as identity, Ones as ones,
    Orthogonal as orthogonal, RandomNormal as random_normal, RandomUniform as random_uniform,
    TruncatedNormal as truncated_normal, UniformUnitScaling as uniform_unit_scaling,
    VarianceScaling as variance_scaling, Zeros as zeros, he_normal, he_uniform, lecun_normal,
    lecun_uniform)
from tensorfleet.ops.variables import (global_variables_initializer as global_variables,
    local_variables_initializer as local_variables, variables_initializer as variables)
from tensorfleet.ops.lookup_ops import tables_initializer

__all__ = ["constant", "glorot_normal", "glorot_uniform", "identity", "ones", "orthogonal",
           "random_normal", "random_uniform", "truncated_normal", "uniform_unit_scaling",
           "variance_scaling", "zeros", "he_normal", "he_uniform", "lecun_normal",
           "lecun_uniform", "global_variables", "local_variables", "variables",
           "tables_initializer"]
