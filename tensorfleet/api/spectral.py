"""``tf.spectral``: TensorFlow 1.x's earlier home of the FFTs and the DCT (the same
functions as ``tf.signal``)."""

from tensorfleet.ops.signal_transforms import (dct, idct)
from tensorfleet.ops.spectral_ops import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft,
    irfft2d, irfft3d, rfft, rfft2d, rfft3d)

__all__ = ["dct", "fft", "fft2d", "fft3d", "idct", "ifft", "ifft2d", "ifft3d", "irfft",
           "irfft2d", "irfft3d", "rfft", "rfft2d", "rfft3d"]
