"""``tf.random.Generator`` (state in a variable, new draws each run, reproducible from a
seed), the stateless binomial/gamma/Poisson/parameterized truncated normal draws (moments
and ranges), seed derivation, ``stateless_shuffle``, ``index_shuffle`` (a bijection) and
``all_candidate_sampler``."""

import numpy as np
import pytest
import scipy.special as sc
import scipy.stats

import tensorfleet as tf

SEED = [7, 11]


def _run(*ts, init=False):
    with tf.Session() as s:
        if init:
            s.run(tf.global_variables_initializer())
        return s.run(list(ts))


def test_generator_draws_move_on_and_repeat_from_a_seed():
    g = tf.random.Generator.from_seed(42)
    n = g.normal([1000])
    u = g.uniform([4], minval=2.0, maxval=3.0)
    ints = g.uniform([5], maxval=10, dtype=tf.int32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        a, b = s.run(n), s.run(n)
        uu, ii = s.run([u, ints])
        state = s.run(g.state)
        s.run(g.reset_from_seed(42))
        again = s.run(n)
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, again)
    assert abs(a.mean()) < 0.15 and abs(a.std() - 1) < 0.1
    assert np.all((uu >= 2) & (uu < 3)) and np.all((ii >= 0) & (ii < 10))
    assert state[0] == 46  # one counter step per draw, from the seed's 42
    assert tf.random.experimental.create_rng_state(42, "philox").tolist() == [42, 0, 0]
    assert g.algorithm is tf.random.Algorithm.PHILOX


def test_generator_helpers():
    g = tf.random.experimental.Generator.from_seed([1, 2])
    seeds, full, binom = _run(g.make_seeds(3), g.uniform_full_int([3], tf.int64),
                              g.binomial([200], counts=10.0, probs=0.3), init=True)
    assert seeds.shape == (2, 3) and full.dtype == np.int64
    assert abs(binom.mean() - 3.0) < 0.5
    kids = g.split(2)
    assert len(kids) == 2 and all(isinstance(k, tf.random.Generator) for k in kids)
    tf.random.set_global_generator(g)
    assert tf.random.get_global_generator() is g
    with pytest.raises(ValueError, match="algorithm"):
        tf.random.Generator.from_seed(1, alg="mersenne")


def test_stateless_distributions():
    out = _run(tf.random.stateless_binomial([4000], SEED, counts=20, probs=0.25),
               tf.random.stateless_gamma([4000], SEED, alpha=3.0, beta=2.0),
               tf.random.stateless_poisson([4000, 1], SEED, lam=[4.0]),
               tf.random.stateless_parameterized_truncated_normal(
                   [4000], SEED, means=1.0, stddevs=2.0, minvals=0.5, maxvals=1.5),
               tf.random.stateless_gamma([3], SEED, alpha=[1.0, 2.0, 3.0]))
    binom, gamma, pois, trunc, g2 = out
    assert binom.dtype == np.int32 and abs(binom.mean() - 5.0) < 0.2
    assert abs(gamma.mean() - 1.5) < 0.1
    assert pois.shape == (4000, 1) and abs(pois.mean() - 4.0) < 0.2
    assert trunc.min() >= 0.5 and trunc.max() <= 1.5
    again = _run(tf.random.stateless_binomial([4000], SEED, counts=20, probs=0.25))[0]
    np.testing.assert_array_equal(binom, again)
    assert g2.shape == (3,)
    # Implicit reparameterization: d x / d alpha = -(dF/d alpha) / (dF/dx) at the draw.
    alpha = tf.constant([1.5, 4.0], tf.float64)
    draws = tf.random.stateless_gamma([50, 2], SEED, alpha=alpha, dtype=tf.float64)
    x, grad = _run(draws, tf.gradients(tf.reduce_sum(draws), alpha)[0])
    a = np.array([1.5, 4.0])
    h = 1e-6
    dfda = (sc.gammainc(a + h, x) - sc.gammainc(a - h, x)) / (2 * h)
    want = (-dfda / scipy.stats.gamma.pdf(x, a)).sum(0)
    np.testing.assert_allclose(grad, want, rtol=1e-4)


def test_seed_derivation_and_shuffles():
    folded, split, folded2, shuffled = _run(
        tf.random.fold_in(SEED, 3), tf.random.experimental.stateless_split(SEED, 4),
        tf.random.experimental.stateless_fold_in(SEED, 4),
        tf.random.experimental.stateless_shuffle(np.arange(20), SEED))
    assert folded.shape == (2,) and folded[1] == 3 and folded2[1] == 4
    assert folded[0] == folded2[0]
    assert split.shape == (4, 2) and len({tuple(r) for r in split}) == 4
    assert sorted(shuffled.tolist()) == list(range(20))
    assert shuffled.tolist() != list(range(20))
    perm, perm_again, other = _run(
        tf.random.experimental.index_shuffle(np.arange(1000), [1, 2, 3], 999),
        tf.random_index_shuffle(np.arange(1000), [1, 2, 3], 999),
        tf.random.experimental.index_shuffle(np.arange(37), [4, 5, 6], 36))
    assert sorted(perm.tolist()) == list(range(1000))
    np.testing.assert_array_equal(perm, perm_again)
    assert sorted(other.tolist()) == list(range(37))
    with pytest.raises(ValueError, match="shape \\[3\\]"):
        tf.random.experimental.index_shuffle(1, [1, 2], 5)


def test_all_candidate_sampler():
    sampled, true_exp, sampled_exp = _run(*tf.random.all_candidate_sampler(
        np.array([[1, 4], [2, 0]], np.int64), 2, 5, True))
    np.testing.assert_array_equal(sampled, np.arange(5))
    np.testing.assert_array_equal(true_exp, np.ones((2, 2)))
    np.testing.assert_array_equal(sampled_exp, np.ones(5))
    assert tf.nn.all_candidate_sampler is tf.random.all_candidate_sampler
