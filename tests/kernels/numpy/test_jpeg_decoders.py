"""JPEG decoding through simplejpeg gives Pillow's pixels, and every file it does not take
(one channel, a reduced size, CMYK, damage) still goes through Pillow's path."""

import io

import numpy as np
import pytest
from PIL import Image

import tensorfleet as tf
from tensorfleet.kernels.numpy import image_codec_kernels as codecs

pytest.importorskip("simplejpeg")


def _jpeg(shape, mode=None, subsampling=0):
    rng = np.random.default_rng(sum(shape))
    img = Image.fromarray((rng.random(shape) * 255).astype(np.uint8))
    if mode:
        img = img.convert(mode)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=85, subsampling=subsampling)
    return buf.getvalue()


FILES = {"rgb 4:4:4": _jpeg((37, 53, 3)), "rgb 4:2:0": _jpeg((37, 53, 3), subsampling=2),
         "grey": _jpeg((29, 31)), "cmyk": _jpeg((20, 24, 3), mode="CMYK")}


def _decode(data, channels, ratio=1):
    with tf.Graph().as_default():
        c = tf.placeholder(tf.string, [])
        out = tf.image.decode_jpeg(c, channels=channels, ratio=ratio)
        with tf.Session() as sess:
            return sess.run(out, {c: data})


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("channels,ratio", [(0, 1), (1, 1), (3, 1), (3, 2)])
def test_the_pixels_are_pillows(name, channels, ratio, monkeypatch):
    data = FILES[name]
    fast = _decode(data, channels, ratio)
    monkeypatch.setattr(codecs, "simplejpeg", None)
    np.testing.assert_array_equal(fast, _decode(data, channels, ratio))


def test_the_common_files_take_the_fast_path_and_the_others_do_not():
    assert codecs._turbo_decode(FILES["rgb 4:2:0"], 3) is not None
    assert codecs._turbo_decode(FILES["grey"], 0).shape[-1] == 1
    assert codecs._turbo_decode(FILES["rgb 4:4:4"], 1) is None
    assert codecs._turbo_decode(FILES["cmyk"], 3) is None


def test_a_damaged_file_is_an_error_naming_the_decoder():
    data = FILES["rgb 4:4:4"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeJpeg"):
        _decode(data[: len(data) // 3], 3)
