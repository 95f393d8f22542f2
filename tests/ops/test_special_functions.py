"""``tf.math.special`` (Bessel J/Y/K/I, Dawson, Ei, Fresnel, Spence), ``tf.math.igamma`` /
``igammac`` / ``erfcinv``, ``approx_max_k`` / ``approx_min_k`` and ``sobol_sample``:
values against scipy, gradients numerically."""

import numpy as np
import pytest
import scipy.special as sc
from scipy.stats import qmc

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

POS = np.array([0.3, 0.9, 1.7, 3.2, 6.5])
ANY = np.array([-2.5, -0.7, 0.4, 1.3, 4.0])

SPECIAL = [
    ("bessel_j0", sc.j0, ANY), ("bessel_j1", sc.j1, ANY), ("bessel_y0", sc.y0, POS),
    ("bessel_y1", sc.y1, POS), ("bessel_k0", sc.k0, POS), ("bessel_k0e", sc.k0e, POS),
    ("bessel_k1", sc.k1, POS), ("bessel_k1e", sc.k1e, POS), ("bessel_i0", sc.i0, ANY),
    ("bessel_i0e", sc.i0e, ANY), ("bessel_i1", sc.i1, ANY), ("bessel_i1e", sc.i1e, ANY),
    ("dawsn", sc.dawsn, ANY), ("expint", sc.expi, np.array([-2.0, -0.5, 0.5, 1.5, 3.0])),
    ("fresnel_cos", lambda x: sc.fresnel(x)[1], ANY),
    ("fresnel_sin", lambda x: sc.fresnel(x)[0], ANY),
    ("spence", sc.spence, np.array([0.2, 0.8, 1.0, 1.5, 3.0])),
]


@pytest.mark.parametrize("name, ref, xs", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_functions_match_scipy_with_gradients(name, ref, xs):
    fn = getattr(tf.math.special, name)
    with tf.Session() as s:
        got64, got32 = s.run([fn(xs), fn(xs.astype(np.float32))])
    np.testing.assert_allclose(got64, ref(xs), rtol=1e-10)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, ref(xs), rtol=1e-5, atol=1e-6)
    check_gradients(lambda x: fn(x), [xs], delta=1e-5, rtol=1e-4, atol=1e-5)


def test_special_functions_refuse_integers():
    with pytest.raises(TypeError, match="allowed types"):
        tf.math.special.bessel_j0(tf.constant([1, 2]))


def test_incomplete_gamma_and_erfcinv():
    a = np.array([[0.5], [2.0], [7.5]])
    x = np.array([0.3, 1.0, 4.0])
    with tf.Session() as s:
        p, q, inv = s.run([tf.math.igamma(a, x), tf.igammac(a, x),
                           tf.math.erfcinv(np.array([0.1, 1.0, 1.7, 0.0]))])
    np.testing.assert_allclose(p, sc.gammainc(a, x), rtol=1e-10)
    np.testing.assert_allclose(q, sc.gammaincc(a, x), rtol=1e-10)
    np.testing.assert_allclose(inv, sc.erfcinv([0.1, 1.0, 1.7, 0.0]), rtol=1e-7)
    check_gradients(lambda a, x: tf.math.igamma(a, x), [a, x], delta=1e-5, rtol=1e-4)
    check_gradients(lambda a, x: tf.math.igammac(a, x), [a, x], delta=1e-5, rtol=1e-4)
    check_gradients(lambda x: tf.math.erfcinv(x), [np.array([0.2, 0.9, 1.6])], delta=1e-6,
                    rtol=1e-4)


def test_approx_top_k_is_exact():
    x = np.random.RandomState(0).randn(4, 9)
    with tf.Session() as s:
        (v, i), (mv, mi), (cv, ci) = s.run([tf.math.approx_max_k(x, 3),
                                            tf.nn.approx_min_k(x, 2),
                                            tf.math.approx_max_k(x, 2, reduction_dimension=0)])
    np.testing.assert_array_equal(v, -np.sort(-x, 1)[:, :3])
    np.testing.assert_array_equal(np.take_along_axis(x, i, 1), v)
    np.testing.assert_array_equal(mv, np.sort(x, 1)[:, :2])
    np.testing.assert_array_equal(np.take_along_axis(x, mi, 1), mv)
    np.testing.assert_array_equal(cv, -np.sort(-x, 0)[:2])
    np.testing.assert_array_equal(np.take_along_axis(x, ci, 0), cv)
    with pytest.raises(ValueError, match="aggregate_to_topk"):
        tf.math.approx_max_k(x, 2, aggregate_to_topk=False)
    with pytest.raises(ValueError, match="recall_target"):
        tf.math.approx_min_k(x, 2, recall_target=0.0)


def test_sobol_sample_is_the_unscrambled_sequence_without_the_origin():
    with tf.Session() as s:
        pts, skipped = s.run([tf.math.sobol_sample(4, 6), tf.math.sobol_sample(
            4, 3, skip=5, dtype=tf.float64)])
    seq = qmc.Sobol(4, scramble=False).random(16)
    np.testing.assert_array_equal(pts, seq[1:7].astype(np.float32))
    np.testing.assert_array_equal(skipped, seq[6:9])
    with pytest.raises(ValueError, match="dim"):
        tf.math.sobol_sample(0, 3)
