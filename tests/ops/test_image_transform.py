"""tf.contrib.image transforms against a per-pixel numpy reference of the projective map,
np.rot90 and shifted arrays, with a numerical gradient check."""

import math

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(6)
ci = tf.contrib.image


def run(t):
    with tf.Session() as s:
        return s.run(t)


def ref_transform(img, tr, out_hw, bilinear):
    b, h, w, c = img.shape
    out = np.zeros((b, out_hw[0], out_hw[1], c))

    def read(n, y, x):
        return img[n, int(y), int(x)] if 0 <= y <= h - 1 and 0 <= x <= w - 1 else 0.0

    f = np.float32  # the map is computed in float32: rounding ties depend on it
    for n in range(b):
        a0, a1, a2, b0, b1, b2, c0, c1 = tr[min(n, len(tr) - 1)].astype(np.float32)
        for y in map(f, range(out_hw[0])):
            for x in map(f, range(out_hw[1])):
                k = c0 * x + c1 * y + f(1)
                ix, iy = (a0 * x + a1 * y + a2) / k, (b0 * x + b1 * y + b2) / k
                if not bilinear:
                    rx = math.floor(ix + 0.5) if ix >= 0 else -math.floor(-ix + 0.5)
                    ry = math.floor(iy + 0.5) if iy >= 0 else -math.floor(-iy + 0.5)
                    out[n, int(y), int(x)] = read(n, ry, rx)
                    continue
                y0, x0 = math.floor(iy), math.floor(ix)
                dy, dx = iy - y0, ix - x0
                top = (1 - dx) * read(n, y0, x0) + dx * read(n, y0, x0 + 1)
                bottom = (1 - dx) * read(n, y0 + 1, x0) + dx * read(n, y0 + 1, x0 + 1)
                out[n, int(y), int(x)] = (1 - dy) * top + dy * bottom
    return out


TR = np.array([[1.1, 0.2, -0.7, 0.1, 0.9, 0.4, 0.01, -0.02],
               [0.8, -0.3, 1.5, 0.25, 1.2, -1.1, 0, 0]], np.float32)


@pytest.mark.parametrize("interpolation", ["NEAREST", "BILINEAR"])
def test_transform_matches_reference(interpolation):
    img = R.rand(2, 5, 6, 2).astype(np.float32)
    out = ci.transform(img, TR, interpolation, output_shape=[4, 7])
    assert out.shape.as_list() == [2, 4, 7, 2]
    got = run(out)
    np.testing.assert_allclose(got, ref_transform(img, TR, (4, 7), interpolation == "BILINEAR"),
                               atol=1e-5)
    # one transform for every image, and a single image
    one = run(ci.transform(img[1], TR[0], interpolation))
    np.testing.assert_allclose(one, ref_transform(img[1:], TR[:1], (5, 6),
                                                  interpolation == "BILINEAR")[0], atol=1e-5)


def test_transform_numbers_recorded_from_tensorflow():
    r = np.random.RandomState(1)
    img = r.rand(2, 5, 6, 2).astype(np.float32)
    np.testing.assert_allclose(run(ci.transform(img, TR, "NEAREST", [4, 7])).sum(),
                               44.55242, rtol=1e-6)
    np.testing.assert_allclose(run(ci.transform(img, TR, "BILINEAR", [4, 7])).sum(),
                               45.2853, rtol=1e-6)


def test_rotate_and_translate():
    img = R.rand(5, 5, 3).astype(np.float32)
    np.testing.assert_allclose(run(ci.rotate(img, math.pi / 2)), np.rot90(img), atol=1e-6)
    batch = np.stack([img, img])
    got = run(ci.rotate(batch, [math.pi, -math.pi / 2]))
    np.testing.assert_allclose(got[0], np.rot90(img, 2), atol=1e-6)
    np.testing.assert_allclose(got[1], np.rot90(img, -1), atol=1e-6)
    gray = img[:, :, 0]
    np.testing.assert_allclose(run(ci.rotate(gray, math.pi / 2)), np.rot90(gray), atol=1e-6)
    shifted = run(ci.translate(img, [2, 1]))
    want = np.zeros_like(img)
    want[1:, 2:] = img[:-1, :-2]
    np.testing.assert_allclose(shifted, want)


def test_compose_and_matrices():
    a = ci.translations_to_projective_transforms([1.0, 2.0])
    b = ci.angles_to_projective_transforms(0.3, 5, 7)
    m = run(ci.flat_transforms_to_matrices(ci.compose_transforms(a, b)))
    want = run(ci.flat_transforms_to_matrices(a))[0] @ run(ci.flat_transforms_to_matrices(b))[0]
    np.testing.assert_allclose(m[0], want / want[2, 2], rtol=1e-6)
    back = run(ci.matrices_to_flat_transforms(ci.flat_transforms_to_matrices(TR)))
    np.testing.assert_allclose(back, TR, rtol=1e-6)


def test_transform_gradient_and_errors():
    img = R.rand(2, 4, 5, 2)
    for interpolation in ("NEAREST", "BILINEAR"):
        check_gradients(lambda x: ci.transform(x, TR, interpolation, output_shape=[3, 4]),
                        [img])
    with pytest.raises(ValueError, match="interpolation"):
        ci.transform(img, TR, "BICUBIC")
    with pytest.raises(tf.errors.InvalidArgumentError, match="transforms"):
        run(ci.transform(img, np.zeros((3, 8), np.float32)))
