"""String hashing and feature crosses give TensorFlow's bucket ids.

The expected ids below were produced by TensorFlow (``string_to_hash_bucket_fast``,
``tf.sparse.cross_hashed``, feature columns) for the same inputs: FarmHash
Fingerprint64 of the bytes, and FingerprintCat64 chains for crosses.
"""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy.hash_kernels import fingerprint64, fingerprint_cat64
from tensorfleet.ops import categorical_ops, hash_ops

WORDS = [b"", b"a", b"hello", b"tensorfleet", b"\xff\x00\x01bin", b"x" * 100,
         "日本".encode()]
TF_BUCKETS_1000 = [263, 939, 296, 849, 258, 719, 883]
TF_BUCKETS_2_62 = [1936946117179621455, 3694432073954588131, 3786372426573024488,
                   3251086959323772137, 1860816245090324450, 1978794067220662815,
                   1065147945313323979]


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_fingerprint64_known_value():
    assert int(fingerprint64([b"hello"])[0]) == 13009744463427800296
    assert fingerprint64(np.array([["a", "b"]], dtype=object)).shape == (1, 2)


def test_string_to_hash_bucket_fast_matches_tensorflow():
    assert _run(tf.string_to_hash_bucket_fast(WORDS, 1000)).tolist() == TF_BUCKETS_1000
    assert _run(tf.string_to_hash_bucket_fast(WORDS, 2 ** 62)).tolist() == TF_BUCKETS_2_62


def test_string_to_hash_bucket_strong_matches_tensorflow():
    got = _run(tf.string_to_hash_bucket_strong(WORDS, 1000, key=[1, 2]))
    assert got.tolist() == [435, 646, 622, 28, 703, 463, 27]
    with pytest.raises(ValueError, match="key"):
        tf.string_to_hash_bucket_strong(WORDS, 10, key=[1])


def test_string_to_hash_bucket_keeps_shape_and_feeds():
    ph = tf.placeholder(tf.string, [None, 2])
    out = tf.string_to_hash_bucket_fast(ph, 1000)
    assert out.dtype == tf.int64 and out.shape.as_list() == [None, 2]
    got = _run(out, {ph: [["a", "hello"], ["", "tensorfleet"]]})
    assert got.tolist() == [[939, 296], [263, 849]]


def test_string_to_hash_bucket_bad_arguments():
    with pytest.raises(ValueError, match="num_buckets"):
        tf.string_to_hash_bucket_fast(["a"], 0)
    with pytest.raises(TypeError, match="string"):
        tf.string_to_hash_bucket_fast(tf.constant([1, 2]), 10)


def _ab():
    a = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [b"a", b"b", b"c"], [2, 2])
    b = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [b"x", b"y", b"z"], [2, 2])
    return a, b


def test_sparse_cross_hashed_matches_tensorflow():
    a, b = _ab()
    got = _run(tf.sparse_cross_hashed([a, b], num_buckets=100))
    assert got.indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert got.values.tolist() == [92, 4, 60, 80]
    assert got.dense_shape.tolist() == [2, 2]
    unbounded = _run(tf.sparse.cross_hashed([a, b], num_buckets=0))
    assert unbounded.values.tolist() == [1484974617627318892, 3552177129620670004,
                                         6571367263544129360, 5890530401397985473]


def test_sparse_cross_with_dense_int_input():
    a, _ = _ab()
    d = tf.constant([[3], [5]], dtype=tf.int64)
    got = _run(tf.sparse_cross_hashed([a, d], num_buckets=1000))
    assert got.indices.tolist() == [[0, 0], [0, 1], [1, 0]]
    assert got.values.tolist() == [486, 964, 7]
    strings = _run(tf.sparse_cross([a, d]))
    assert strings.values.tolist() == [b"a_X_3", b"b_X_3", b"c_X_5"]


def test_sparse_cross_empty_row_gives_no_value():
    a = tf.SparseTensor([[0, 0], [2, 0]], [b"a", b"c"], [3, 1])
    b = tf.SparseTensor([[0, 0], [1, 0], [2, 0]], [b"x", b"y", b"z"], [3, 1])
    got = _run(tf.sparse_cross_hashed([a, b], num_buckets=100))
    assert got.indices[:, 0].tolist() == [0, 2]
    assert got.dense_shape.tolist() == [3, 1]


def test_fingerprint_cat64_is_vectorised_and_ordered():
    x = np.array([1, 2, 3], dtype=np.uint64)
    y = np.array([7, 7, 7], dtype=np.uint64)
    one = fingerprint_cat64(x, y)
    assert one.dtype == np.uint64 and len(set(one.tolist())) == 3
    assert (fingerprint_cat64(y, x) != one).all()


def test_sparse_cross_bad_inputs():
    with pytest.raises(TypeError, match="non-empty list"):
        tf.sparse_cross_hashed([], 10)
    with pytest.raises(TypeError, match="string, int32 or int64"):
        tf.sparse_cross_hashed([tf.constant([[1.0]]), tf.constant([[2.0]])], 10)
    with pytest.raises(ValueError, match="rank 2"):
        tf.sparse_cross_hashed([tf.constant(["a"]), tf.constant(["b"])], 10)


def test_vocabulary_lookup_oov_buckets_match_tensorflow():
    ids = categorical_ops.vocabulary_lookup(["a", "zz", "b", "q"], ["a", "b"],
                                            num_oov_buckets=3)
    assert _run(ids).tolist() == [0, 3, 1, 4]
    int_ids = categorical_ops.vocabulary_lookup(tf.constant([5, 7, 9], tf.int64), [7, 5],
                                                num_oov_buckets=3)
    assert _run(int_ids).tolist() == [1, 0, 4]
    default = categorical_ops.vocabulary_lookup(["a", "nope"], ["a"], default_value=-7)
    assert _run(default).tolist() == [0, -7]
    with pytest.raises(ValueError, match="duplicate"):
        categorical_ops.vocabulary_lookup(["a"], ["a", "a"])


def test_bucketize_against_numpy():
    x = np.array([[-1.0, 0.0, 0.5, 1.0, 2.0, 7.5]], np.float32)
    bounds = [0.0, 1.0, 5.0]
    got = _run(categorical_ops.bucketize(x, bounds))
    np.testing.assert_array_equal(got, np.searchsorted(bounds, x, side="right"))
    with pytest.raises(ValueError, match="sorted"):
        categorical_ops.bucketize(x, [1.0, 0.0])


def test_dense_to_sparse_drop_and_as_string():
    sp = _run(categorical_ops.dense_to_sparse_drop([["a", ""], ["", "b"]]))
    assert sp.indices.tolist() == [[0, 0], [1, 1]]
    assert sp.values.tolist() == [b"a", b"b"]
    ints = _run(categorical_ops.dense_to_sparse_drop(tf.constant([[3, -1], [-1, 4]])))
    assert ints.values.tolist() == [3, 4]
    assert _run(tf.as_string(tf.constant([5, -3], tf.int64))).tolist() == [b"5", b"-3"]
    with pytest.raises(ValueError, match="ignore_value"):
        categorical_ops.dense_to_sparse_drop(tf.constant([1.0]))


def test_hash_ops_graph_serializes():
    from tensorfleet.framework.serialization import graph_to_plain, import_graph_def
    a, b = _ab()
    out = hash_ops.sparse_cross_hashed([a, b], num_buckets=100, hash_key=2 ** 63 + 5)
    lookup = categorical_ops.vocabulary_lookup(["a", "q"], ["a"], num_oov_buckets=2)
    g2 = import_graph_def(graph_to_plain(tf.get_default_graph()))
    with tf.Session(graph=g2) as sess:
        v1, v2 = sess.run([out.values.name, lookup.name])
    with tf.Session() as sess:
        w1, w2 = sess.run([out.values, lookup])
    assert v1.tolist() == w1.tolist() and v2.tolist() == w2.tolist()
