"""tf.edit_distance against a plain Levenshtein, tf.extract_image_patches against a loop
over windows, and its gradient numerically."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(2)


def run(t):
    with tf.Session() as s:
        return s.run(t)


def test_edit_distance_values_normalized_and_not():
    h = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1]],
                        tf.constant(["a", "b", "c", "x", "y"]), [2, 2, 2])
    t = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 1, 0], [2, 0, 0]],
                        tf.constant(["a", "c", "b", "z", "q"]), [3, 2, 3])
    # "ab"->"acb" 1 edit; "c"->"" (no truth) inf; ""->"" 0; "xy"->"" inf; ""->"z" 1; ""->"q" 1
    np.testing.assert_allclose(run(tf.edit_distance(h, t)),
                               [[1 / 3, np.inf], [np.inf, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(run(tf.edit_distance(h, t, normalize=False)),
                               [[1, 1], [2, 1], [1, 0]])
    ints = tf.SparseTensor([[0, 1], [0, 0]], tf.constant([2, 1], tf.int64), [1, 3])
    ref = tf.SparseTensor([[0, 0], [0, 1], [0, 2]], tf.constant([1, 3, 2], tf.int64), [1, 3])
    np.testing.assert_allclose(run(tf.edit_distance(ints, ref, normalize=False)), [1.0])
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.edit_distance(tf.constant([[1]]), ref)
    with pytest.raises(TypeError, match="same dtype"):
        tf.edit_distance(h, ref)


def _patches_ref(x, k, s, r, padding):
    b, hgt, wid, d = x.shape
    eff = [k[i] + (k[i] - 1) * (r[i] - 1) for i in (1, 2)]
    if padding == "VALID":
        oh, ow = (-(-(hgt - eff[0] + 1) // s[1]), -(-(wid - eff[1] + 1) // s[2]))
        pt = pl = 0
    else:
        oh, ow = -(-hgt // s[1]), -(-wid // s[2])
        pt = max((oh - 1) * s[1] + eff[0] - hgt, 0) // 2
        pl = max((ow - 1) * s[2] + eff[1] - wid, 0) // 2
    out = np.zeros((b, oh, ow, k[1] * k[2] * d), x.dtype)
    for i in range(oh):
        for j in range(ow):
            vals = []
            for a in range(k[1]):
                for c in range(k[2]):
                    y, z = i * s[1] - pt + a * r[1], j * s[2] - pl + c * r[2]
                    inside = 0 <= y < hgt and 0 <= z < wid
                    vals.append(x[:, y, z, :] if inside else np.zeros((b, d), x.dtype))
            out[:, i, j, :] = np.concatenate(vals, axis=1)
    return out


CASES = [([1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
         ([1, 3, 3, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME"),
         ([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 2, 1], "VALID")]


@pytest.mark.parametrize("k,s,r,padding", CASES)
def test_extract_image_patches_matches_a_loop_and_its_gradient(k, s, r, padding):
    x = RNG.randn(2, 7, 6, 3)
    out = tf.extract_image_patches(x, k, s, r, padding)
    want = _patches_ref(x, k, s, r, padding)
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(run(out), want)
    small = RNG.randn(1, 5, 4, 2)
    check_gradients(lambda a: tf.extract_image_patches(a, k, s, r, padding), [small])


def test_extract_patches_name_and_errors():
    x = np.ones((1, 4, 4, 1), np.float32)
    np.testing.assert_array_equal(
        run(tf.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")),
        np.ones((1, 2, 2, 4)))
    with pytest.raises(ValueError, match="ksizes"):
        tf.extract_image_patches(x, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="padding"):
        tf.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
