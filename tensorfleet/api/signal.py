"""``tf.signal``: Fourier and cosine transforms, framing, windows, STFTs and mel
features."""

from tensorfleet.ops.signal_frames import (frame, overlap_and_add)
from tensorfleet.ops.signal_stft import (inverse_stft, inverse_stft_window_fn, stft)
from tensorfleet.ops.signal_transforms import (dct, idct, inverse_mdct,
    linear_to_mel_weight_matrix, mdct, mfccs_from_log_mel_spectrograms)
from tensorfleet.ops.signal_windows import (hamming_window, hann_window,
    kaiser_bessel_derived_window, kaiser_window, vorbis_window)
from tensorfleet.ops.spectral_ops import (fft, fft2d, fft3d, fftnd, fftshift, ifft, ifft2d,
    ifft3d, ifftnd, ifftshift, irfft, irfft2d, irfft3d, irfftnd, rfft, rfft2d, rfft3d, rfftnd)

__all__ = ["dct", "fft", "fft2d", "fft3d", "fftnd", "fftshift", "frame", "hamming_window",
           "hann_window", "idct", "ifft", "ifft2d", "ifft3d", "ifftnd", "ifftshift",
           "inverse_mdct", "inverse_stft", "inverse_stft_window_fn", "irfft", "irfft2d",
           "irfft3d", "irfftnd", "kaiser_bessel_derived_window", "kaiser_window",
           "linear_to_mel_weight_matrix", "mdct", "mfccs_from_log_mel_spectrograms",
           "overlap_and_add", "rfft", "rfft2d", "rfft3d", "rfftnd", "stft", "vorbis_window"]
