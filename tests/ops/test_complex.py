"""Complex tensors: complex64/complex128 constants, casts, arithmetic and reductions,
``tf.complex`` / ``real`` / ``imag`` / ``angle`` / ``conj`` / ``abs`` against numpy,
their gradients numerically (TensorFlow's convention: dL/dx + i dL/dy), and the
dtype plumbing (tensor protos, the wire coding)."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.tensor_proto import make_ndarray, make_tensor_proto
from tensorfleet.testing.gradient_checker import check_gradients

Z = np.array([[1 + 2j, -3 + 0.5j, 0.25 - 1j], [-2 - 2j, 4j, 1.5 + 0j]])


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def test_constants_casts_and_arithmetic_keep_complex_dtypes():
    c = tf.constant(Z)
    assert c.dtype is tf.complex128
    c64 = tf.cast(c, tf.complex64)
    f = tf.constant(Z.real, dtype=tf.float32)
    out = _run(c * c + 1, c - c / (c + 1), -c, tf.square(c), tf.exp(c), tf.sqrt(c),
               tf.reduce_sum(c, 1), tf.reduce_mean(c), tf.reduce_prod(c, 0),
               tf.matmul(c, c, adjoint_b=True), c64, tf.cast(f, tf.complex64),
               tf.cast(c, tf.float64), tf.to_complex64(f), tf.to_complex128(f), tf.abs(c))
    ref = [Z * Z + 1, Z - Z / (Z + 1), -Z, Z ** 2, np.exp(Z), np.sqrt(Z), Z.sum(1), Z.mean(),
           Z.prod(0), Z @ Z.conj().T, Z.astype(np.complex64), Z.real.astype(np.complex64),
           Z.real, Z.real.astype(np.complex64), Z.real.astype(np.complex128), np.abs(Z)]
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-6)
        assert o.dtype == np.asarray(r).dtype
    assert c64.dtype is tf.complex64 and tf.abs(c64).dtype is tf.float32


def test_complex_parts_angle_conj_match_numpy():
    re, im = Z.real.astype(np.float32), Z.imag.astype(np.float32)
    z = tf.complex(re, im)
    assert z.dtype is tf.complex64
    out = _run(z, tf.real(z), tf.imag(z), tf.angle(z), tf.conj(z), tf.math.real(3.0),
               tf.math.imag(tf.constant([1.0, -2.0])), tf.angle(tf.constant([-1.0, 2.0])),
               tf.conj(tf.constant([1, 2])), tf.complex(tf.constant([1.0, 2.0], tf.float64),
                                                         tf.constant(3.0, tf.float64)))
    ref = [Z, Z.real, Z.imag, np.angle(Z), Z.conj(), 3.0, [0.0, 0.0], [np.pi, 0.0], [1, 2],
           [1 + 3j, 2 + 3j]]
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o, r, rtol=1e-6, atol=1e-6)
    assert out[1].dtype == np.float32 and out[-1].dtype == np.complex128


def test_complex_argument_errors_are_clear():
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.complex(tf.constant([1, 2]), tf.constant([3, 4]))
    with pytest.raises(TypeError, match="does not match"):
        tf.complex(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    with pytest.raises(TypeError, match="numeric"):
        tf.conj(tf.constant(["a"]))


@pytest.mark.parametrize("fn", [tf.real, tf.imag, tf.angle, tf.abs, tf.conj,
                                lambda z: tf.conj(z) * z, lambda z: z / (z * z + 2.0),
                                lambda z: tf.exp(z) + tf.log(z),
                                lambda z: tf.matmul(z, z, adjoint_a=True)],
                         ids=["real", "imag", "angle", "abs", "conj", "mul", "div", "exp_log",
                              "matmul"])
def test_gradients_through_complex_values(fn):
    def build(a, b):
        out = fn(tf.complex(a, b))
        if out.dtype.is_complex:
            return tf.concat([tf.real(out), tf.imag(out)], 0)
        return out
    check_gradients(build, [Z.real, Z.imag])


def test_complex_and_new_dtypes_round_trip_protos_and_the_wire():
    from tensorfleet.transport import wire
    for arr in (Z.astype(np.complex64), Z, np.array([1, 2], np.uint32),
                np.array([3], np.uint64), np.array([1.5, -2], tf.bfloat16.np)):
        back = make_ndarray(make_tensor_proto(arr))
        assert back.dtype == arr.dtype
        np.testing.assert_array_equal(back, arr)
    proto = make_tensor_proto(np.zeros(2, np.complex64))
    proto.ClearField("tensor_content")
    proto.scomplex_val.extend([1.0, 2.0])
    np.testing.assert_array_equal(make_ndarray(proto), [1 + 2j, 1 + 2j])
    assert tf.complex64.enum in wire._DTYPE_BY_CODE and tf.bfloat16.enum in wire._DTYPE_BY_CODE


def test_adjoint_and_conjugate_transpose_conjugate_complex_entries_only():
    x = np.array([[[1 + 2j, 3 - 1j], [0.5j, 2]]], np.complex64)
    r = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with tf.Session() as sess:
        adj, ct, t, radj = sess.run([tf.linalg.adjoint(x),
                                     tf.linalg.matrix_transpose(x, conjugate=True),
                                     tf.linalg.matrix_transpose(x), tf.linalg.adjoint(r)])
    np.testing.assert_array_equal(adj, np.conj(np.swapaxes(x, -1, -2)))
    np.testing.assert_array_equal(ct, adj)
    np.testing.assert_array_equal(t, np.swapaxes(x, -1, -2))
    np.testing.assert_array_equal(radj, r.T)
