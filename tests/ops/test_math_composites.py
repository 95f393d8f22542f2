"""tf.math.xlog1py, cumulative_logsumexp and tf.nn.compute_average_loss /
scale_regularization_loss against numpy, gradients numerically."""

import numpy as np
import pytest
import scipy.special

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(8)


def run(t):
    with tf.Session() as s:
        return s.run(t)


def test_xlog1py():
    x = np.array([0.0, 1.0, 2.5, 0.0])
    y = np.array([-1.0, 0.5, 3.0, np.nan])
    # x == 0 gives 0 even where log1p(y) is -inf or nan.
    np.testing.assert_allclose(run(tf.math.xlog1py(x, y)),
                               [0.0, np.log1p(0.5), 2.5 * np.log1p(3.0), 0.0])
    a, b = RNG.rand(3, 4) + 0.5, RNG.rand(3, 4)
    np.testing.assert_allclose(run(tf.math.xlog1py(a, b)), scipy.special.xlog1py(a, b))
    check_gradients(lambda p, q: tf.math.xlog1py(p, q), [a, b])


def test_cumulative_logsumexp():
    x = RNG.randn(3, 5) * 50
    for axis, exclusive, reverse in ((0, False, False), (1, True, False), (1, False, True)):
        got = run(tf.math.cumulative_logsumexp(x, axis, exclusive, reverse))
        with np.errstate(divide="ignore"):
            e = np.exp(x - x.max())
            want = np.log(run(tf.cumsum(e, axis, exclusive=exclusive, reverse=reverse))) + \
                x.max()
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    small = RNG.randn(2, 4)
    check_gradients(lambda t: tf.math.cumulative_logsumexp(t, axis=1), [small])


def test_loss_scaling_helpers():
    loss = np.array([1.0, 2.0, 3.0, 6.0])
    assert run(tf.nn.compute_average_loss(loss)) == pytest.approx(3.0)
    assert run(tf.nn.compute_average_loss(loss, global_batch_size=8)) == pytest.approx(1.5)
    assert run(tf.nn.compute_average_loss(loss, sample_weight=[1.0, 0.0, 0.0, 0.5])) == \
        pytest.approx(1.0)
    assert run(tf.nn.scale_regularization_loss([0.5, 0.25])) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.nn.compute_average_loss(1.0)
    with pytest.raises(ValueError, match="positive"):
        tf.nn.compute_average_loss(loss, global_batch_size=0)
