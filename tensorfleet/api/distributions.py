"""``tf.distributions``: TensorFlow 1.x's probability distributions and KL divergences."""

from tensorfleet.ops.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED,
    Distribution, RegisterKL, ReparameterizationType, kl_divergence)
from tensorfleet.ops.distributions_multivariate import (Dirichlet, DirichletMultinomial,
    Multinomial)
from tensorfleet.ops.distributions_univariate import (Bernoulli, Beta, Categorical,
    Exponential, Gamma, Laplace, Normal, StudentT, Uniform)

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "DirichletMultinomial",
           "Distribution", "Exponential", "FULLY_REPARAMETERIZED", "Gamma", "Laplace",
           "Multinomial", "NOT_REPARAMETERIZED", "Normal", "RegisterKL",
           "ReparameterizationType", "StudentT", "Uniform", "kl_divergence"]
