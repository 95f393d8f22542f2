"""tf.data.experimental.rejection_resample: classes come out in the target distribution."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy.dataset_resample_kernels import acceptance

E = tf.data.experimental


def _labelled(n=3000):
    labels = (np.random.RandomState(0).rand(n) < 0.2).astype(np.int32)  # 80% class 0
    return tf.data.Dataset.from_tensor_slices((labels, np.arange(n)))


def test_acceptance_mixture_is_the_target():
    initial, target = np.array([0.8, 0.2]), np.array([0.5, 0.5])
    a, m = acceptance(initial, target)
    assert m == pytest.approx(0.625) and a.tolist() == [0.0, 1.0]
    filtered = initial * a / (initial * a).sum()
    np.testing.assert_allclose(m * initial + (1 - m) * filtered, target)


@pytest.mark.parametrize("initial", [[0.8, 0.2], None])
def test_rejection_resample_reaches_the_target(initial):
    ds = _labelled().apply(E.rejection_resample(lambda label, i: label, [0.5, 0.5], initial,
                                                seed=3))
    assert ds.output_types == (tf.int32, (tf.int32, tf.int64))
    out = list(tf.data.NumpyIterator(ds))
    classes = np.array([c for c, _ in out])
    assert np.all(classes == [e[0] for _, e in out])
    assert len({e[1] for _, e in out}) == len(out)  # each input element at most once
    assert len(out) > 1000
    assert abs(classes.mean() - 0.5) < 0.05


def test_rejection_resample_errors():
    with pytest.raises(ValueError, match="non-negative"):
        E.rejection_resample(lambda x: x, [0.5, -0.5])
    with pytest.raises(ValueError, match="classes"):
        E.rejection_resample(lambda x: x, [0.5, 0.5], [1.0])
    bad = tf.data.Dataset.range(3).apply(E.rejection_resample(lambda x: x + 5, [0.5, 0.5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside"):
        list(tf.data.NumpyIterator(bad))
