"""``tf.audio``: WAV decoding and encoding."""

from tensorfleet.ops.audio_ops import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]
