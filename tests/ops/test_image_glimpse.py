"""tf.image.extract_glimpse: window positions from TensorFlow 2.21 (fixture), noise drawn
from the image's own values."""

import json
import os

import numpy as np
import pytest

import tensorfleet as tf

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures",
                       "extract_glimpse_tf221.json")
X = np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2)


def test_glimpse_windows_match_tensorflow():
    with open(FIXTURE) as f:
        cases = json.load(f)["cases"]
    assert len(cases) == 12
    with tf.Graph().as_default(), tf.Session() as s:
        for case in cases:
            got = s.run(tf.image.extract_glimpse(X, [3, 4], np.float32(case["offsets"]),
                                                 **case["kwargs"]))
            assert got.shape == (2, 3, 4, 2)
            want = np.asarray(case["channel0"], dtype=np.float32)
            inside = want >= 0
            np.testing.assert_array_equal(got[..., 0][inside], want[inside], str(case))
            np.testing.assert_array_equal(got[..., 1][inside], want[inside] + 1)
            for b in range(2):
                noise = got[b][~inside[b]]
                assert np.all((noise >= X[b].min()) & (noise <= X[b].max())), case


def test_glimpse_noise_and_errors():
    with tf.Graph().as_default(), tf.Session() as s:
        far = np.float32([[5.0, 5.0], [5.0, 5.0]])
        t = tf.image.extract_glimpse(X, [3, 4], far)
        a, b = s.run(t), s.run(t)
        assert not np.array_equal(a, b)  # fresh noise every run
        gauss = s.run(tf.image.extract_glimpse(X, [40, 40], far, uniform_noise=False))
        # Gaussian noise with the channel's mean and spread.
        assert abs(gauss[0, ..., 0].mean() - X[0, ..., 0].mean()) < 3.0
        assert 0.7 < gauss[0, ..., 0].std() / X[0, ..., 0].std() < 1.3
        assert tf.image.extract_glimpse(X, [3, 4], far).shape.as_list() == [2, 3, 4, 2]
    with pytest.raises(TypeError, match="float32"):
        tf.image.extract_glimpse(X.astype(np.int32), [3, 4], far)
    with pytest.raises(ValueError, match=r"\[batch, 2\]"):
        tf.image.extract_glimpse(X, [3, 4], np.zeros((2, 3), np.float32))
