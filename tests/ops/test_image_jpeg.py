"""``tf.image.is_jpeg``, ``decode_and_crop_jpeg``, ``adjust_jpeg_quality``,
``random_jpeg_quality`` and ``decode_webp``, checked against Pillow's own encoding and
decoding of small images made here."""

import io

import numpy as np
import pytest
from PIL import Image

import tensorfleet as tf

RNG = np.random.RandomState(0)
IMG = (RNG.rand(16, 12, 3) * 255).astype(np.uint8)


def _jpeg(arr, quality=95):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def test_is_jpeg_and_crop():
    png = io.BytesIO()
    Image.fromarray(IMG).save(png, format="PNG")
    data = _jpeg(IMG)
    yes, no, full, crop = _run(tf.image.is_jpeg(data), tf.image.is_jpeg(png.getvalue()),
                               tf.image.decode_jpeg(data),
                               tf.image.decode_and_crop_jpeg(data, [2, 3, 5, 4]))
    assert yes and not no
    np.testing.assert_array_equal(crop, full[2:7, 3:7])


def test_jpeg_quality_round_trips():
    f = IMG.astype(np.float32) / 255.0
    low, batch, u8 = _run(tf.image.adjust_jpeg_quality(f, 10),
                          tf.image.adjust_jpeg_quality(np.stack([IMG, IMG]), 50),
                          tf.image.random_jpeg_quality(IMG, 30, 31, seed=1))
    want10 = np.asarray(Image.open(io.BytesIO(_jpeg(IMG, 10)))).astype(np.float32) / 255.0
    np.testing.assert_allclose(low, want10, atol=1.5 / 255)
    assert low.dtype == np.float32
    want50 = np.asarray(Image.open(io.BytesIO(_jpeg(IMG, 50))))
    np.testing.assert_array_equal(batch[0], want50)
    np.testing.assert_array_equal(u8, np.asarray(Image.open(io.BytesIO(_jpeg(IMG, 30)))))
    with pytest.raises(ValueError, match="min_jpeg_quality"):
        tf.image.random_jpeg_quality(IMG, 50, 40)


def test_decode_webp():
    buf = io.BytesIO()
    Image.fromarray(IMG).save(buf, format="WEBP", lossless=True)
    out, rgba = _run(tf.image.decode_webp(buf.getvalue()),
                     tf.image.decode_webp(buf.getvalue(), channels=4))
    np.testing.assert_array_equal(out[0], IMG)
    assert out.shape == (1, 16, 12, 3) and rgba.shape == (1, 16, 12, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="WebP"):
        _run(tf.image.decode_webp(_jpeg(IMG)))
