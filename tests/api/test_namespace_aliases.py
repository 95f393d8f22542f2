"""Names that later TensorFlow namespaces gave existing ops compute what those ops do."""

import numpy as np
import pytest

import tensorfleet as tf


def test_aliases_compute_the_same():
    x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    with tf.Session() as s:
        assert s.run(tf.math.is_non_decreasing([1, 2, 2])) and \
            not s.run(tf.math.is_strictly_increasing([1, 2, 2]))
        np.testing.assert_array_equal(
            s.run(tf.image.resize_with_crop_or_pad(x[0], 2, 2)),
            s.run(tf.image.resize_image_with_crop_or_pad(x[0], 2, 2)))
        np.testing.assert_array_equal(
            s.run(tf.image.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1],
                                                 "VALID"))[0, 0, 0], [0, 1, 4, 5])
        assert s.run(tf.debugging.assert_all_finite(tf.constant([1.0]), "ok")) == [1.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
            s.run(tf.debugging.assert_all_finite(tf.constant([np.inf]), "bad"))
        with pytest.raises(tf.errors.InvalidArgumentError):
            s.run(tf.debugging.Assert(tf.constant(False), ["no"]))
    assert tf.graph_util.import_graph_def is tf.import_graph_def
    assert tf.sparse.SparseConditionalAccumulator is tf.SparseConditionalAccumulator


def test_conv_transpose_dispatches_by_rank_and_other_names():
    rng = np.random.RandomState(0)
    x2, w2 = rng.randn(1, 3, 3, 2), rng.randn(2, 2, 4, 2)
    x1, w1 = rng.randn(1, 3, 2), rng.randn(2, 4, 2)
    with tf.Session() as s:
        a, b = s.run([tf.nn.conv_transpose(x2, w2, [1, 6, 6, 4], 2),
                      tf.nn.conv2d_transpose(x2, w2, [1, 6, 6, 4], [1, 2, 2, 1])])
        np.testing.assert_allclose(a, b)
        c, d = s.run([tf.nn.conv_transpose(x1, w1, [1, 6, 4], 2),
                      tf.nn.conv1d_transpose(x1, w1, [1, 6, 4], 2)])
        np.testing.assert_allclose(c, d)
    with pytest.raises(ValueError, match="rank 3, 4 or 5"):
        tf.nn.conv_transpose(np.ones((2, 2)), np.ones((1, 1)), [2, 2], 1)
    assert tf.train.queue_runner.QueueRunner is tf.train.QueueRunner
    assert tf.io.gfile.join("a", "b", "c.txt") == "a/b/c.txt"


def test_io_image_decoders_are_the_image_ones():
    import io as _io
    from PIL import Image
    for n in ("decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_webp",
              "extract_jpeg_shape", "is_jpeg"):
        assert getattr(tf.io, n) is getattr(tf.image, n), n
    img = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    bmp, jpg = _io.BytesIO(), _io.BytesIO()
    Image.fromarray(img).save(bmp, format="BMP")
    Image.fromarray(img).save(jpg, format="JPEG")
    with tf.Graph().as_default(), tf.Session() as s:
        np.testing.assert_array_equal(s.run(tf.io.decode_bmp(bmp.getvalue())), img)
        assert s.run(tf.io.extract_jpeg_shape(jpg.getvalue())).tolist() == [2, 4, 3]
        assert s.run(tf.io.is_jpeg(jpg.getvalue())) and not s.run(tf.io.is_jpeg(bmp.getvalue()))
