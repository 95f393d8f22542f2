"""The dtypes of ``tf.dtypes`` / ``tf.dtypes.experimental``: complex, unsigned, bfloat16,
quantized and the narrow ml_dtypes types (their numpy types, TensorFlow's enum numbers
and properties), and the conversions ``tf.dtypes`` also offers."""

import ml_dtypes
import numpy as np
import pytest

import tensorfleet as tf

# TensorFlow's DataType numbers (tensorflow/core/framework/types.proto).
ENUMS = {"complex64": 8, "complex128": 18, "uint32": 22, "uint64": 23, "bfloat16": 14,
         "qint8": 11, "quint8": 12, "qint16": 15, "quint16": 16, "qint32": 13, "resource": 20,
         "float8_e5m2": 24, "float8_e4m3fn": 25, "float8_e4m3fnuz": 26,
         "float8_e4m3b11fnuz": 27, "float8_e5m2fnuz": 28, "int4": 29, "uint4": 30,
         "int2": 31, "uint2": 32, "float4_e2m1fn": 33}


@pytest.mark.parametrize("name", sorted(ENUMS))
def test_enum_numbers_and_lookup_by_name(name):
    ns = tf.dtypes.experimental if hasattr(tf.dtypes.experimental, name) else tf.dtypes
    dt = getattr(ns, name)
    assert dt.as_datatype_enum == ENUMS[name]
    assert tf.as_dtype(name) is dt


def test_kinds_and_limits():
    assert tf.complex64.is_complex and not tf.complex64.is_floating
    assert tf.complex128.real_dtype is tf.float64 and tf.float32.real_dtype is tf.float32
    assert tf.bfloat16.is_floating and tf.bfloat16.max == float(ml_dtypes.finfo(
        ml_dtypes.bfloat16).max)
    assert tf.dtypes.experimental.int4.is_integer
    assert tf.dtypes.experimental.int4.limits == (-8, 7)
    assert tf.dtypes.experimental.float8_e4m3fn.is_floating
    assert tf.uint32.is_unsigned and tf.uint64.max == 2 ** 64 - 1
    assert tf.qint8.is_quantized and tf.qint8 in tf.QUANTIZED_DTYPES and tf.qint8.min == -128
    assert not tf.qint8.is_integer and not tf.float32.is_quantized
    assert tf.as_dtype(np.complex64) is tf.complex64
    assert tf.as_dtype(np.int8) is tf.int8  # never a quantized type
    assert tf.as_dtype(ml_dtypes.bfloat16) is tf.bfloat16
    with pytest.raises(TypeError, match="minimum/maximum"):
        tf.complex64.min


def test_tensors_of_the_narrow_types_compute_and_convert():
    b = tf.constant([1.5, -2.25], dtype=tf.bfloat16)
    u = tf.constant([2 ** 32 - 1], dtype=tf.uint32)
    f8 = tf.cast(tf.constant([0.5, 3.0]), tf.dtypes.experimental.float8_e4m3fn)
    with tf.Session() as s:
        bb, uu, back = s.run([b + b, u, tf.cast(f8, tf.float32)])
    assert bb.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(bb.astype(np.float32), [3.0, -4.5])
    assert uu.dtype == np.uint32 and uu[0] == 2 ** 32 - 1
    np.testing.assert_array_equal(back, [0.5, 3.0])


def test_conversions_under_tf_dtypes():
    with tf.Session() as s:
        c, sat, txt, z = s.run([tf.dtypes.cast([1.7, -2.2], tf.int32),
                                tf.dtypes.saturate_cast([300.0, -5.0], tf.uint8),
                                tf.dtypes.as_string([1, 2]),
                                tf.dtypes.complex([1.0], [2.0])])
    np.testing.assert_array_equal(c, [1, -2])
    np.testing.assert_array_equal(sat, [255, 0])
    assert list(txt) == [b"1", b"2"]
    np.testing.assert_array_equal(z, [1 + 2j])
