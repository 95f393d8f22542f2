"""tf.decode_csv's column-at-once path gives what the record-by-record path gives, and
hands every record it cannot take (quotes, uneven records, bad values) back to it."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import dtypes
from tensorfleet.kernels.numpy.string_kernels import _decode_csv_columns


def _decode(lines, defaults, **kw):
    with tf.Graph().as_default():
        out = tf.decode_csv(tf.constant(np.array(lines, dtype=object)), defaults, **kw)
        with tf.Session() as sess:
            return sess.run(out)


def test_columns_match_numpy_reference_with_missing_values():
    rng = np.random.RandomState(0)
    rows = []
    for _ in range(200):
        i = "" if rng.rand() < 0.2 else str(rng.randint(-50, 50))
        f = "" if rng.rand() < 0.2 else f"{rng.normal():.5f}"
        c = "" if rng.rand() < 0.2 else "%08x" % rng.randint(0, 2 ** 31)
        rows.append((i, f, c))
    lines = [",".join(r).encode() for r in rows]
    a, b, c = _decode(lines, [[7], [0.5], ["none"]])
    np.testing.assert_array_equal(a, [int(r[0]) if r[0] else 7 for r in rows])
    np.testing.assert_allclose(b, [float(r[1]) if r[1] else 0.5 for r in rows], rtol=1e-6)
    assert b.dtype == np.float32 and a.dtype == np.int32
    assert c.tolist() == [r[2].encode() if r[2] else b"none" for r in rows]


def test_the_fast_path_takes_plain_records_and_declines_the_rest():
    types = [dtypes.int64, dtypes.string]
    recs = np.array([b"1,a", b" 2 ,b"], dtype=object)
    out = _decode_csv_columns(recs, types, [0, b""], b",", True, b"", None)
    assert out[0].tolist() == [1, 2] and out[1].tolist() == [b"a", b"b"]
    for bad in ([b'1,"a"', b"2,b"],          # quotes: parsed record by record
                [b"1,a,x", b"2"],            # uneven records with an even total
                [b"1.5,a", b"2,b"]):         # not an int
        assert _decode_csv_columns(np.array(bad, dtype=object), types, [0, b""], b",",
                                   True, b"", None) is None


def test_errors_still_name_the_record():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields"):
        _decode([b"1,a,x", b"2"], [[0], [""]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 in record 1"):
        _decode([b"1,a", b"x,b"], [[0], [""]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 in record 0"):
        _decode([b"99999999999,a"], [[0], [""]])      # int32 overflow
    with pytest.raises(tf.errors.InvalidArgumentError, match="required but missing"):
        _decode([b",a"], [np.zeros(0, np.int32), [""]])


def test_select_cols_and_na_value():
    a, c = _decode([b"1,x,NA", b"NA,y,z"], [[5], ["q"]], select_cols=[0, 2], na_value="NA")
    assert a.tolist() == [1, 5] and c.tolist() == [b"q", b"z"]
