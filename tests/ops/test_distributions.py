"""``tf.distributions``: densities, CDFs, quantiles, moments and entropies against
``scipy.stats``; sample means and ranges; KL divergences against their closed forms or a
Monte-Carlo estimate; gradients of log densities numerically."""

import numpy as np
import pytest
import scipy.stats as st

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

ds = tf.distributions


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


X = np.array([0.2, 0.7, 1.3, 2.9])
CONTINUOUS = {
    "normal": (lambda: ds.Normal(np.float64(0.5), np.float64(1.5)), st.norm(0.5, 1.5)),
    "uniform": (lambda: ds.Uniform(np.float64(0.1), np.float64(3.0)), st.uniform(0.1, 2.9)),
    "exponential": (lambda: ds.Exponential(np.float64(1.7)), st.expon(scale=1 / 1.7)),
    "gamma": (lambda: ds.Gamma(np.float64(2.5), np.float64(1.5)), st.gamma(2.5, scale=1 / 1.5)),
    "beta": (lambda: ds.Beta(np.float64(2.0), np.float64(3.5)), st.beta(2.0, 3.5)),
    "laplace": (lambda: ds.Laplace(np.float64(1.0), np.float64(0.7)), st.laplace(1.0, 0.7)),
    "studentt": (lambda: ds.StudentT(np.float64(5.0), np.float64(0.5), np.float64(2.0)),
                 st.t(5.0, 0.5, 2.0)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_distributions_match_scipy(name):
    make, ref = CONTINUOUS[name]
    d = make()
    x = X / 3.0 if name == "beta" else X
    fetch = [d.log_prob(x), d.prob(x), d.cdf(x), d.entropy(), d.mean(), d.variance(),
             d.stddev(), d.survival_function(x)]
    out = _run(*fetch)
    want = [ref.logpdf(x), ref.pdf(x), ref.cdf(x), ref.entropy(), ref.mean(), ref.var(),
            ref.std(), ref.sf(x)]
    for i, (o, w) in enumerate(zip(out, want)):
        np.testing.assert_allclose(o, w, rtol=1e-6, atol=1e-10, err_msg=f"output {i}")
    sample, = _run(d.sample([4000], seed=3))
    assert sample.shape == (4000,)
    assert abs(sample.mean() - ref.mean()) < 4 * ref.std() / np.sqrt(4000)
    assert d.reparameterization_type is ds.FULLY_REPARAMETERIZED


def test_normal_quantile_mode_and_batches():
    d = ds.Normal(loc=[0.0, 1.0], scale=[[1.0], [2.0]])
    assert d.batch_shape.as_list() == [2, 2] and d.event_shape.as_list() == []
    q, mode, s = _run(d.quantile(0.975), d.mode(), d.sample(3, seed=1))
    np.testing.assert_allclose(q, st.norm([0.0, 1.0], [[1.0], [2.0]]).ppf(0.975), rtol=1e-5)
    np.testing.assert_allclose(mode, [[0.0, 1.0], [0.0, 1.0]])
    assert s.shape == (3, 2, 2)
    check_gradients(lambda m, sc: ds.Normal(m, sc).log_prob(X),
                    [np.array([0.3]), np.array([1.2])])
    with pytest.raises(TypeError, match="no mode"):
        ds.Uniform().mode()


def test_discrete_distributions():
    b = ds.Bernoulli(probs=np.float64(0.3))
    c = ds.Categorical(logits=np.log([0.2, 0.5, 0.3]))
    out = _run(b.log_prob([0, 1]), b.entropy(), b.mean(), b.variance(), b.mode(),
               c.log_prob([0, 1, 2]), c.entropy(), c.mode(), c.cdf(1), c.probs,
               b.sample(4000, seed=2), c.sample([2000], seed=4))
    np.testing.assert_allclose(out[0], np.log([0.7, 0.3]))
    np.testing.assert_allclose(out[1], st.bernoulli(0.3).entropy())
    np.testing.assert_allclose(out[2:4], [0.3, 0.21])
    assert out[4] == 0
    np.testing.assert_allclose(out[5], np.log([0.2, 0.5, 0.3]), rtol=1e-6)
    np.testing.assert_allclose(out[6], st.entropy([0.2, 0.5, 0.3]), rtol=1e-6)
    assert out[7] == 1
    np.testing.assert_allclose(out[8], 0.7, rtol=1e-6)
    assert out[10].dtype == np.int32 and abs(out[10].mean() - 0.3) < 0.05
    assert np.bincount(out[11], minlength=3)[1] > 800
    with pytest.raises(ValueError, match="exactly one"):
        ds.Bernoulli(logits=0.1, probs=0.5)


def test_multivariate_distributions():
    alpha = np.array([1.5, 2.0, 3.5])
    d = ds.Dirichlet(alpha)
    x = np.array([0.2, 0.3, 0.5])
    counts = np.array([1.0, 2.0, 3.0])
    m = ds.Multinomial(total_count=6.0, probs=[0.2, 0.3, 0.5])
    dm = ds.DirichletMultinomial(6.0, alpha)
    out = _run(d.log_prob(x), d.entropy(), d.mean(), d.variance(), d.covariance(),
               m.log_prob(counts), m.mean(), m.covariance(), dm.log_prob(counts), dm.mean(),
               d.sample(2000, seed=5), m.sample(500, seed=6), dm.sample(7, seed=7))
    ref = st.dirichlet(alpha)
    np.testing.assert_allclose(out[0], ref.logpdf(x), rtol=1e-6)
    np.testing.assert_allclose(out[1], ref.entropy(), rtol=1e-6)
    np.testing.assert_allclose(out[2], ref.mean(), rtol=1e-6)
    np.testing.assert_allclose(out[3], ref.var(), rtol=1e-6)
    np.testing.assert_allclose(np.diag(out[4]), ref.var(), rtol=1e-6)
    mref = st.multinomial(6, [0.2, 0.3, 0.5])
    np.testing.assert_allclose(out[5], mref.logpmf(counts), rtol=1e-6)
    np.testing.assert_allclose(out[6], mref.mean(), rtol=1e-6)
    np.testing.assert_allclose(out[7], mref.cov(), rtol=1e-6)
    np.testing.assert_allclose(out[8], st.dirichlet_multinomial(alpha, 6).logpmf(counts),
                               rtol=1e-6)
    np.testing.assert_allclose(out[9], 6 * alpha / alpha.sum(), rtol=1e-6)
    np.testing.assert_allclose(out[10].sum(-1), 1.0, rtol=1e-6)
    assert np.all(out[11].sum(-1) == 6) and out[11].shape == (500, 3)
    assert np.all(out[12].sum(-1) == 6)


def test_kl_divergences():
    a, b = ds.Normal(0.0, 1.0), ds.Normal(1.0, 2.0)
    ga, gb = ds.Gamma(2.0, 1.0), ds.Gamma(3.0, 2.0)
    ba, bb = ds.Beta(2.0, 3.0), ds.Beta(1.5, 1.0)
    ca, cb = ds.Categorical(probs=[0.2, 0.8]), ds.Categorical(probs=[0.5, 0.5])
    da, db = ds.Dirichlet([1.0, 2.0]), ds.Dirichlet([2.0, 2.0])
    out = _run(ds.kl_divergence(a, b), a.kl_divergence(b), a.cross_entropy(b),
               ds.kl_divergence(ga, gb), ds.kl_divergence(ba, bb), ds.kl_divergence(ca, cb),
               ds.kl_divergence(ds.Bernoulli(probs=0.2), ds.Bernoulli(probs=0.5)),
               ds.kl_divergence(da, db), ds.kl_divergence(ds.Exponential(2.0), gb))
    np.testing.assert_allclose(out[0], np.log(2) + 2 / 8 - 0.5, rtol=1e-6)
    np.testing.assert_allclose(out[1], out[0])
    np.testing.assert_allclose(out[2], out[0] + st.norm(0, 1).entropy(), rtol=1e-6)
    # Numerical integration for the rest.
    grid = np.linspace(1e-4, 30, 300001)
    p, q = st.gamma(2, scale=1).pdf(grid), st.gamma(3, scale=0.5).pdf(grid)
    np.testing.assert_allclose(out[3], np.trapezoid(p * np.log(p / q), grid), rtol=1e-4)
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    p, q = st.beta(2, 3).pdf(grid), st.beta(1.5, 1).pdf(grid)
    np.testing.assert_allclose(out[4], np.trapezoid(p * np.log(p / q), grid), rtol=1e-3)
    np.testing.assert_allclose(out[5], 0.2 * np.log(0.4) + 0.8 * np.log(1.6), rtol=1e-6)
    np.testing.assert_allclose(out[6], 0.2 * np.log(0.4) + 0.8 * np.log(1.6), rtol=1e-6)
    # Dir(1, 2) vs Dir(2, 2) on the 1-simplex are Beta(1, 2) and Beta(2, 2).
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    p, q = st.beta(1, 2).pdf(grid), st.beta(2, 2).pdf(grid)
    np.testing.assert_allclose(out[7], np.trapezoid(p * np.log(p / q), grid), rtol=1e-3)
    assert np.isfinite(out[8])
    with pytest.raises(TypeError, match="No KL"):
        ds.kl_divergence(a, ga)

    class Mine(ds.Normal):
        pass

    @ds.RegisterKL(Mine, ds.Gamma)
    def _kl(x, y, name=None):
        return tf.constant(7.0)

    kl, = _run(ds.kl_divergence(Mine(0.0, 1.0), ga))
    assert kl == 7.0
    with pytest.raises(ValueError, match="already been registered"):
        ds.RegisterKL(Mine, ds.Gamma)(_kl)
