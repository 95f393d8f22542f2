"""``tf.signal`` / ``tf.spectral``: the FFTs against ``numpy.fft`` (crop/pad by
``fft_length``, N-d axes and norms), framing, windows, STFTs, cosine transforms and mel
features against numpy references written from their definitions, and gradients
numerically (each transform is linear, its gradient the adjoint)."""

import numpy as np
import pytest
import scipy.fftpack

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(0)
X = RNG.randn(2, 3, 6)
Z = X + 1j * RNG.randn(2, 3, 6)


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def _close(got, want, tol=1e-4):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_complex_ffts_match_numpy_and_keep_precision():
    z64 = Z.astype(np.complex64)
    ops = [tf.signal.fft(z64), tf.signal.ifft(z64), tf.signal.fft2d(z64), tf.signal.ifft2d(Z),
           tf.signal.fft3d(z64), tf.spectral.ifft3d(z64), tf.fft(z64), tf.ifft2d(z64)]
    ref = [np.fft.fft(Z), np.fft.ifft(Z), np.fft.fft2(Z), np.fft.ifft2(Z), np.fft.fftn(Z),
           np.fft.ifftn(Z), np.fft.fft(Z), np.fft.ifft2(Z)]
    out = _run(*ops)
    for o, r in zip(out, ref):
        _close(o, r)
    assert out[0].dtype == np.complex64 and out[3].dtype == np.complex128


@pytest.mark.parametrize("n", [4, 6, 9])
def test_real_ffts_crop_or_pad_to_fft_length(n):
    x32 = X.astype(np.float32)
    out = _run(tf.signal.rfft(x32, [n]), tf.signal.irfft(Z[..., :4].astype(np.complex64), [n]),
               tf.signal.rfft2d(x32, [2, n]), tf.signal.irfft2d(Z, [3, n]),
               tf.signal.rfft3d(x32, [2, 2, n]), tf.spectral.irfft3d(Z, [1, 3, n]))
    ref = [np.fft.rfft(X, n), np.fft.irfft(Z[..., :4], n), np.fft.rfftn(X, [2, n], axes=(1, 2)),
           np.fft.irfftn(Z, [3, n], axes=(1, 2)), np.fft.rfftn(X, [2, 2, n], axes=(0, 1, 2)),
           np.fft.irfftn(Z, [1, 3, n], axes=(0, 1, 2))]
    for o, r in zip(out, ref):
        _close(o, r)
    assert out[0].dtype == np.complex64 and out[1].dtype == np.float32
    assert tf.signal.rfft(x32, [n]).shape.as_list() == [2, 3, n // 2 + 1]


def test_default_fft_lengths():
    out = _run(tf.signal.rfft(X), tf.signal.irfft(Z), tf.signal.rfft2d(X))
    _close(out[0], np.fft.rfft(X))
    _close(out[1], np.fft.irfft(Z))
    _close(out[2], np.fft.rfft2(X))


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_nd_ffts_over_axes_with_norms(norm):
    out = _run(tf.signal.fftnd(Z, fft_length=[4, 3], axes=[0, 2], norm=norm),
               tf.signal.ifftnd(Z, axes=[1], norm=norm), tf.fftnd(Z, norm=norm),
               tf.signal.rfftnd(X, fft_length=[5], axes=[-1], norm=norm),
               tf.irfftnd(Z, fft_length=[2, 7], axes=[0, 2], norm=norm),
               tf.ifftnd(Z, norm=norm), tf.rfftnd(X, norm=norm))
    ref = [np.fft.fftn(Z, [4, 3], axes=(0, 2), norm=norm), np.fft.ifftn(Z, axes=(1,), norm=norm),
           np.fft.fftn(Z, norm=norm), np.fft.rfftn(X, [5], axes=(-1,), norm=norm),
           np.fft.irfftn(Z, [2, 7], axes=(0, 2), norm=norm), np.fft.ifftn(Z, norm=norm),
           np.fft.rfftn(X, norm=norm)]
    for o, r in zip(out, ref):
        _close(o, r)


def test_fft_argument_errors():
    with pytest.raises(TypeError, match="complex64 or complex128"):
        tf.signal.fft(tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.signal.rfft(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="norm"):
        tf.signal.fftnd(Z, norm="bogus")
    with pytest.raises(ValueError, match="fft_length has 1 entries"):
        tf.signal.rfft2d(X, [4])
    with pytest.raises(ValueError, match="known when the graph is built"):
        tf.signal.rfft(X, tf.placeholder(tf.int32, [1]))
    with pytest.raises(ValueError, match="twice"):
        tf.signal.fftnd(Z, axes=[0, -3])


def _parts(z):
    return tf.concat([tf.real(z), tf.imag(z)], 0)


@pytest.mark.parametrize("build", [
    lambda a, b: _parts(tf.signal.fft(tf.complex(a, b))),
    lambda a, b: _parts(tf.signal.ifft2d(tf.complex(a, b))),
    lambda a, b: _parts(tf.signal.fft3d(tf.reshape(tf.complex(a, b), [1, 3, 5]))),
    lambda a, b: _parts(tf.signal.fftnd(tf.complex(a, b), [3, 4], axes=[0, 1], norm="ortho")),
    lambda a, b: tf.concat([_parts(tf.signal.rfft(a, [4])), _parts(tf.signal.rfft(b, [7]))], 1),
    lambda a, b: _parts(tf.signal.rfft2d(a, [2, 4])),
    lambda a, b: tf.concat([tf.signal.irfft(tf.complex(a, b), [6]),
                            tf.signal.irfft(tf.complex(b, a), [5])], 1),
    lambda a, b: tf.signal.irfft2d(tf.complex(a, b), [2, 7]),
    lambda a, b: tf.signal.irfftnd(tf.complex(a, b), [4], axes=[0]),
], ids=["fft", "ifft2d", "fft3d", "fftnd", "rfft", "rfft2d", "irfft", "irfft2d", "irfftnd"])
def test_fft_gradients(build):
    check_gradients(build, [X[0, :, :5], X[1, :, :5]])


def test_fftshift_matches_numpy():
    a = np.arange(15.0).reshape(3, 5)
    out = _run(tf.signal.fftshift(a), tf.signal.ifftshift(a), tf.signal.fftshift(a, axes=1),
               tf.signal.ifftshift(a, axes=[0]))
    for o, r in zip(out, [np.fft.fftshift(a), np.fft.ifftshift(a), np.fft.fftshift(a, axes=1),
                          np.fft.ifftshift(a, axes=[0])]):
        np.testing.assert_array_equal(o, r)


def _frames(x, length, step):
    count = 1 + (x.shape[-1] - length) // step
    return np.stack([x[..., i * step:i * step + length] for i in range(count)], -2)


def test_frame_and_overlap_and_add():
    x = np.arange(20.0).reshape(2, 10)
    out = _run(tf.signal.frame(x, 4, 3), tf.signal.frame(x, 4, 3, pad_end=True, pad_value=-1),
               tf.signal.frame(x.T, 4, 2, axis=0), tf.signal.overlap_and_add(_frames(x, 4, 2), 2))
    np.testing.assert_array_equal(out[0], _frames(x, 4, 3))
    padded = np.concatenate([x, -np.ones((2, 3))], 1)
    np.testing.assert_array_equal(out[1], _frames(padded, 4, 3)[:, :4])
    np.testing.assert_array_equal(out[2], _frames(x, 4, 2).transpose(1, 2, 0))
    want = np.zeros((2, 10))
    for i, f in enumerate(np.moveaxis(_frames(x, 4, 2), -2, 0)):
        want[:, 2 * i:2 * i + 4] += f
    np.testing.assert_array_equal(out[3], want)
    check_gradients(lambda a: tf.signal.overlap_and_add(tf.signal.frame(a, 4, 2), 2), [x])


def test_windows_match_their_formulas():
    n = np.arange(6)
    out = _run(tf.signal.hann_window(6), tf.signal.hann_window(6, periodic=False),
               tf.signal.hann_window(5), tf.signal.hamming_window(6, dtype=tf.float64),
               tf.signal.kaiser_window(6, 3.0), tf.signal.vorbis_window(6),
               tf.signal.kaiser_bessel_derived_window(6, 3.0), tf.signal.hann_window(1))
    _close(out[0], 0.5 - 0.5 * np.cos(2 * np.pi * n / 6))
    _close(out[1], 0.5 - 0.5 * np.cos(2 * np.pi * n / 5))
    _close(out[2], np.hanning(5))  # odd lengths are symmetric whatever `periodic` says
    _close(out[3], 0.54 - 0.46 * np.cos(2 * np.pi * n / 6))
    assert out[3].dtype == np.float64
    _close(out[4], np.kaiser(6, 3.0))
    _close(out[5], np.sin(np.pi / 2 * np.sin(np.pi * (n + 0.5) / 6) ** 2))
    kbd = out[6]
    _close(kbd[:3] ** 2 + kbd[3:] ** 2, np.ones(3))  # power complementary
    _close(kbd, kbd[::-1])
    _close(out[7], [1.0])
    with pytest.raises(ValueError, match="floating"):
        tf.signal.hann_window(4, dtype=tf.int32)
    with pytest.raises(ValueError, match="even length"):
        tf.signal.kaiser_bessel_derived_window(5)


def test_stft_and_its_inverse():
    x = RNG.randn(2, 40).astype(np.float32)
    s = tf.signal.stft(x, 16, 4)
    win = np.hanning(17)[:16]
    want = np.fft.rfft(_frames(x, 16, 4) * win, 16)
    back = tf.signal.inverse_stft(s, 16, 4,
                                  window_fn=tf.signal.inverse_stft_window_fn(4))
    got, rec = _run(s, back)
    _close(got, want)
    # Away from the edges (where fewer than four frames overlap) the signal comes back.
    _close(rec[:, 12:28], x[:, 12:28])
    check_gradients(lambda a: tf.abs(tf.signal.stft(a, 8, 4, fft_length=8)), [x[:, :20]
                                                                               .astype(float)])


@pytest.mark.parametrize("dtype", [1, 2, 3, 4])
def test_dct_and_idct_follow_scipy_fftpack(dtype):
    norms = [None] if dtype == 1 else [None, "ortho"]
    for norm in norms:
        out = _run(tf.signal.dct(X, type=dtype, norm=norm), tf.spectral.idct(X, type=dtype,
                                                                             norm=norm),
                   tf.signal.dct(X, type=dtype, n=4, norm=norm))
        _close(out[0], scipy.fftpack.dct(X, type=dtype, norm=norm))
        _close(out[1], scipy.fftpack.idct(X, type=dtype, norm=norm))
        _close(out[2], scipy.fftpack.dct(X[..., :4], type=dtype, norm=norm))
    check_gradients(lambda a: tf.signal.dct(a, type=dtype, n=7), [X[0]])


def test_dct_argument_errors():
    with pytest.raises(ValueError, match="Type-I"):
        tf.signal.dct(X, type=1, norm="ortho")
    with pytest.raises(ValueError, match="innermost"):
        tf.signal.dct(X, axis=0)
    with pytest.raises(ValueError, match="Types"):
        tf.signal.idct(X, type=5)


def _mdct_reference(x, length, window, scale):
    half = length // 2
    n, k = np.arange(length)[:, None], np.arange(half)[None, :]
    basis = np.cos(np.pi / half * (n + 0.5 + half / 2) * (k + 0.5))
    return (_frames(x, length, half) * window) @ basis * scale


def test_mdct_matches_its_definition_and_inverts():
    x = RNG.randn(2, 24)
    n = np.arange(8)
    vorbis = np.sin(np.pi / 2 * np.sin(np.pi * (n + 0.5) / 8) ** 2)
    m, mo, mn = _run(tf.signal.mdct(x, 8), tf.signal.mdct(x, 8, norm="ortho"),
                     tf.signal.mdct(x, 8, window_fn=None))
    _close(m, _mdct_reference(x, 8, vorbis, 2.0))
    _close(mo, _mdct_reference(x, 8, vorbis, np.sqrt(0.5)))
    _close(mn, _mdct_reference(x, 8, 1.0, np.sqrt(2.0)))
    rec, reco = _run(tf.signal.inverse_mdct(m), tf.signal.inverse_mdct(mo, norm="ortho"))
    # Princen-Bradley: the inner samples (covered by two frames) come back exactly.
    _close(rec[:, 4:-4], x[:, 4:-4])
    _close(reco[:, 4:-4], x[:, 4:-4])
    with pytest.raises(ValueError, match="multiple of 4"):
        tf.signal.mdct(x, 6)


def test_mel_matrix_and_mfccs():
    w, = _run(tf.signal.linear_to_mel_weight_matrix(10, 33, 8000, 100.0, 3000.0))
    mel = lambda f: 1127.0 * np.log1p(f / 700.0)  # noqa: E731
    spec = mel(np.linspace(0, 4000, 33))[1:, None]
    edges = np.linspace(mel(100.0), mel(3000.0), 12)
    tri = np.maximum(0, np.minimum((spec - edges[:-2]) / (edges[1:-1] - edges[:-2]),
                                   (edges[2:] - spec) / (edges[2:] - edges[1:-1])))
    _close(w, np.vstack([np.zeros((1, 10)), tri]))
    assert w.shape == (33, 10) and w.dtype == np.float32
    logmel = RNG.randn(3, 16)
    got, = _run(tf.signal.mfccs_from_log_mel_spectrograms(logmel))
    _close(got, scipy.fftpack.dct(logmel, type=2) / np.sqrt(32))
    with pytest.raises(ValueError, match="upper_edge_hertz"):
        tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
