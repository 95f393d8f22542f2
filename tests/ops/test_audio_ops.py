"""``tf.audio``: WAV encoding matches TensorFlow's bytes; decoding reads it back, with
channel and sample adjustments; damaged files are refused."""

import numpy as np
import pytest

import tensorfleet as tf

AUDIO = np.array([[0.5, -0.25], [1.0, -1.2], [0.1, 0.0]], np.float32)
# tf.audio.encode_wav(AUDIO, 16000) from TensorFlow 2.21.
TF_WAV = (b"RIFF0\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x80>\x00\x00\x00\xfa"
          b"\x00\x00\x04\x00\x10\x00data\x0c\x00\x00\x00\x00@\x00\xe0\xff\x7f\x00\x80\xcd"
          b"\x0c\x00\x00")


def test_encode_matches_tensorflow_and_decodes_back():
    with tf.Graph().as_default(), tf.Session() as sess:
        wav = sess.run(tf.audio.encode_wav(AUDIO, 16000))
        assert wav == TF_WAV
        audio, rate = sess.run(tf.audio.decode_wav(TF_WAV))
        assert rate == 16000 and audio.dtype == np.float32
        np.testing.assert_allclose(audio, [[0.5, -0.25], [0.999969482421875, -1.0],
                                           [0.100006103515625, 0.0]])
        more, _ = sess.run(tf.audio.decode_wav(TF_WAV, desired_channels=3, desired_samples=5))
        assert more.shape == (5, 3) and more[0, 2] == -0.25 and not more[3:].any()
        fewer, _ = sess.run(tf.audio.decode_wav(TF_WAV, desired_channels=1, desired_samples=2))
        np.testing.assert_allclose(fewer, [[0.5], [0.999969482421875]])


def test_bad_files_and_arguments():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="not a WAV file"):
            sess.run(tf.audio.decode_wav(b"hello"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="runs past the end"):
            sess.run(tf.audio.decode_wav(TF_WAV[:-4]))
        float_wav = TF_WAV.replace(b"\x01\x00\x02\x00", b"\x03\x00\x02\x00", 1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="16-bit PCM"):
            sess.run(tf.audio.decode_wav(float_wav))
    with pytest.raises(ValueError, match="desired_channels"):
        tf.audio.decode_wav(TF_WAV, desired_channels=0)
    with pytest.raises(ValueError, match=r"\[samples, channels\]"):
        tf.audio.encode_wav([1.0, 2.0], 8000)
