"""tf.summary.image / audio / text and the pre-1.0 summary names, read back from
TensorBoard event files."""

import glob
import io
import struct

import numpy as np
import pytest
from PIL import Image

import tensorfleet as tf


def _write_and_read(tmp_path, summary_tensor, step=1, feed=None):
    writer = tf.train.SummaryWriter(str(tmp_path))
    with tf.Session() as s:
        writer.add_summary(s.run(summary_tensor, feed), step)
    writer.close()
    path, = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    values = {}
    for ev in tf.train.summary_iterator(path):
        if ev.HasField("summary"):
            assert ev.step == step
            for v in ev.summary.value:
                values[v.tag] = v
    return values


def _png(v):
    return np.array(Image.open(io.BytesIO(v.image.encoded_image_string)))


def test_float_images_are_scaled_per_image(tmp_path):
    img = np.array([[[[-1.0], [0.5]], [[2.0], [np.nan]]],
                    [[[0.1], [0.2]], [[0.0], [0.3]]],
                    [[[5.0], [5.0]], [[5.0], [5.0]]]], np.float32)
    tf.summary.image("im", tf.constant(img), max_outputs=2)
    values = _write_and_read(tmp_path, tf.summary.merge_all())
    assert sorted(values) == ["im/image/0", "im/image/1"]
    first = values["im/image/0"]
    assert (first.image.height, first.image.width, first.image.colorspace) == (2, 2, 1)
    # Negative values: 0 -> 128, largest magnitude (2) -> 128 + 127, truncated; NaN -> red.
    np.testing.assert_array_equal(_png(first), [[64, 159], [255, 255]])
    # All non-negative: max -> 255, computed in float32 as TensorFlow does.
    np.testing.assert_array_equal(_png(values["im/image/1"]), [[84, 169], [0, 254]])


def test_uint8_rgb_images_and_single_output_tag(tmp_path):
    rng = np.random.RandomState(0)
    img = rng.randint(0, 256, size=(2, 3, 4, 3)).astype(np.uint8)
    x = tf.placeholder(tf.uint8, [None, 3, 4, 3])
    with tf.name_scope("scope"):
        s = tf.summary.image("pic", x, max_outputs=1)
    values = _write_and_read(tmp_path, s, feed={x: img})
    assert list(values) == ["scope/pic/image"]
    np.testing.assert_array_equal(_png(values["scope/pic/image"]), img[0])
    assert values["scope/pic/image"].image.colorspace == 3


def test_rgba_nonfinite_pixel_is_opaque_red(tmp_path):
    img = np.zeros((1, 1, 2, 4), np.float32)
    img[0, 0, 1] = [0.5, np.inf, 0.5, 1.0]
    img[0, 0, 0] = [1.0, 0.0, 0.5, 1.0]
    values = _write_and_read(tmp_path, tf.summary.image("rgba", img))
    np.testing.assert_array_equal(_png(values["rgba/image/0"]),
                                  [[[255, 0, 127, 255], [255, 0, 0, 255]]])


def test_image_shape_checks():
    with pytest.raises(ValueError, match="4-D with last dim 1, 3, or 4"):
        tf.summary.image("bad", tf.zeros([2, 3, 3, 2]))
    with pytest.raises(ValueError, match="4-D"):
        tf.summary.image("bad", tf.zeros([3, 3]))
    with pytest.raises(ValueError, match="max_outputs"):
        tf.summary.image("bad", tf.zeros([1, 3, 3, 1]), max_outputs=0)
    x = tf.placeholder(tf.float32)
    s = tf.summary.image("late", x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="4-D"):
            sess.run(s, {x: np.zeros((2, 2))})


def _wav_fields(data):
    riff, size, wave, fmt, fmt_len, pcm, ch, rate, byte_rate, align, bits, tag, n = \
        struct.unpack("<4sI4s4sIHHIIHH4sI", data[:44])
    return dict(riff=riff, size=size, wave=wave, fmt=fmt, fmt_len=fmt_len, pcm=pcm, ch=ch,
                rate=rate, byte_rate=byte_rate, align=align, bits=bits, tag=tag, n=n)


def test_audio_is_16_bit_pcm_wav(tmp_path):
    clips = np.array([[[0.5, 0.0], [-0.25, 1.0], [1.5, -2.0]],
                      [[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]]], np.float32)
    tf.summary.audio("snd", tf.constant(clips), 8000, max_outputs=3)
    values = _write_and_read(tmp_path, tf.summary.merge_all())
    assert sorted(values) == ["snd/audio/0", "snd/audio/1"]
    a = values["snd/audio/0"].audio
    assert (a.sample_rate, a.num_channels, a.length_frames, a.content_type) == (
        8000.0, 2, 3, "audio/wav")
    f = _wav_fields(a.encoded_audio_string)
    assert f == dict(riff=b"RIFF", size=36 + 12, wave=b"WAVE", fmt=b"fmt ", fmt_len=16, pcm=1,
                     ch=2, rate=8000, byte_rate=32000, align=4, bits=16, tag=b"data", n=12)
    samples = np.frombuffer(a.encoded_audio_string[44:], "<i2")
    # Interleaved frames, clipped to [-1, 1], scaled by 32767 and rounded.
    np.testing.assert_array_equal(samples, [16384, 0, -8192, 32767, 32767, -32767])


def test_audio_two_d_and_bad_rate(tmp_path):
    s = tf.summary.audio("mono", tf.constant([[0.0, 1.0]]), 16000, max_outputs=1)
    values = _write_and_read(tmp_path, s)
    a = values["mono/audio"].audio
    assert a.num_channels == 1 and a.length_frames == 2
    with pytest.raises(ValueError, match="3-D or 2-D"):
        tf.summary.audio("bad", tf.zeros([2]), 100)
    rate = tf.placeholder(tf.float32, [])
    bad = tf.summary.audio("r", tf.zeros([1, 2]), rate)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="sample_rate"):
            sess.run(bad, {rate: -1.0})


def test_text_summary_in_event_file(tmp_path):
    values = _write_and_read(tmp_path, tf.summary.text("notes", tf.constant(["hi", "there"])))
    v = values["notes"]
    assert v.metadata.plugin_data.plugin_name == "text"
    assert list(v.tensor.string_val) == [b"hi", b"there"]


def test_pre_1_0_summary_names(tmp_path):
    tf.scalar_summary(["loss", "acc"], tf.constant([0.5, 0.75]))
    tf.scalar_summary("lr", 0.1)
    tf.histogram_summary("weights", tf.constant([1.0, 2.0, 3.0]))
    tf.image_summary("img", tf.zeros([2, 2, 2, 1], tf.uint8), max_images=1)
    tf.audio_summary("clip", tf.zeros([1, 4]), 4000)
    with tf.name_scope("ignored"):
        tf.scalar_summary("exact/tag", 1.0)
    merged = tf.merge_all_summaries()
    values = _write_and_read(tmp_path, merged, step=3)
    assert sorted(values) == ["acc", "clip/audio/0", "exact/tag", "img/image", "loss", "lr",
                              "weights"]
    assert values["loss"].simple_value == 0.5 and values["acc"].simple_value == 0.75
    assert values["weights"].histo.num == 3
    assert tf.train.SummaryWriter is tf.summary.FileWriter
    both = tf.merge_summary([tf.scalar_summary("p", 1.0, collections=[]),
                             tf.scalar_summary("q", 2.0, collections=[])])
    with tf.Session() as s:
        parsed = tf.Summary.FromString(s.run(both))
    assert [v.tag for v in parsed.value] == ["p", "q"]
    with pytest.raises(ValueError, match="same shape"):
        tf.scalar_summary(["a", "b"], tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="known when the graph is built"):
        tf.scalar_summary(tf.placeholder(tf.string, []), 1.0)
