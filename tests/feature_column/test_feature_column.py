"""tf.feature_column: each column's ids and dense values against numpy, TensorFlow's
bucket ids and variable names, input_layer, linear_model and parse specs."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.feature_column.base import FeatureTransformationCache

fc = tf.feature_column


def _run(t, init=True):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(t)


def _ids(column, features):
    return _run(column.get_sparse_tensors(FeatureTransformationCache(features)).id_tensor,
                init=False)


def test_numeric_column_shape_and_normalizer():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    col = fc.numeric_column("x", shape=(2,), normalizer_fn=lambda t: t * 2.0 - 1.0)
    out = _run(fc.input_layer({"x": x}, [col]))
    np.testing.assert_allclose(out, x * 2 - 1)
    one = _run(fc.input_layer({"y": np.array([1, 2, 3], np.int64)}, [fc.numeric_column("y")]))
    assert one.shape == (3, 1) and one.dtype == np.float32
    assert fc.numeric_column("z", shape=3, default_value=0.5).default_value == (0.5,) * 3
    with pytest.raises(ValueError, match="default_value"):
        fc.numeric_column("z", shape=2, default_value=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="SparseTensor is not supported"):
        fc.input_layer({"x": tf.SparseTensor([[0, 0]], [1.0], [1, 1])},
                       [fc.numeric_column("x")])


def test_bucketized_column_one_hot_and_ids():
    x = np.array([[-1.0, 0.5], [1.0, 9.0]], np.float32)
    bounds = [0.0, 1.0, 5.0]
    col = fc.bucketized_column(fc.numeric_column("x", shape=(2,)), bounds)
    out = _run(fc.input_layer({"x": x}, [col]))
    buckets = np.searchsorted(bounds, x, side="right")
    np.testing.assert_array_equal(out, np.eye(4)[buckets].reshape(2, 8))
    ids = _ids(col, {"x": x})
    assert ids.values.tolist() == (buckets + np.array([0, 4])).reshape(-1).tolist()
    assert col.num_buckets == 8 and col.name == "x_bucketized"
    with pytest.raises(ValueError, match="sorted"):
        fc.bucketized_column(fc.numeric_column("x"), [2.0, 1.0])


def test_hash_bucket_ids_match_tensorflow():
    n = fc.categorical_column_with_hash_bucket("n", 100, dtype=tf.int64)
    assert _ids(n, {"n": tf.constant([[5], [-3], [123]], tf.int64)}).values.tolist() == \
        [71, 99, 31]
    s = fc.categorical_column_with_hash_bucket("s", 50)
    ids = _ids(s, {"s": tf.constant([["x", ""], ["y", "z"], ["", ""]])})
    assert ids.indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert ids.values.tolist() == [20, 5, 37]
    assert ids.dense_shape.tolist() == [3, 2]


def test_crossed_column_ids_match_tensorflow():
    feats = {"x": tf.constant([[0.5], [2.0]]), "c": tf.constant([["a"], ["b"]]),
             "d": tf.constant([["u"], ["v"]])}
    bx = fc.bucketized_column(fc.numeric_column("x"), [0.0, 1.0])
    cr = fc.crossed_column([bx, "c"], 1000)
    assert cr.name == "c_X_x_bucketized"
    assert _ids(cr, feats).values.tolist() == [445, 149]
    assert _ids(fc.crossed_column(["c", "d"], 1000), feats).values.tolist() == [840, 893]
    feats2 = {"s": tf.constant([["x", ""], ["y", "z"], ["", ""]]),
              "n2": tf.constant([[1], [2], [3]], tf.int64)}
    cr2 = fc.crossed_column(["s", fc.categorical_column_with_identity("n2", 10)], 77,
                            hash_key=12345)
    assert _ids(cr2, feats2).values.tolist() == [16, 16, 46, 47, 29, 29]
    with pytest.raises(ValueError, match="hash_bucket"):
        fc.crossed_column([fc.categorical_column_with_hash_bucket("c", 5), "d"], 10)
    with pytest.raises(ValueError, match="length > 1"):
        fc.crossed_column(["c"], 10)


def test_vocabulary_columns_and_indicator(tmp_path):
    vocab = ["red", "green", "blue"]
    feats = {"color": tf.constant([["green", "red"], ["pink", ""], ["blue", "blue"]])}
    lst = fc.categorical_column_with_vocabulary_list("color", vocab)
    expected = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 2]], np.float32)
    np.testing.assert_array_equal(_run(fc.input_layer(feats, [fc.indicator_column(lst)])),
                                  expected)
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n")
    fil = fc.categorical_column_with_vocabulary_file("color", str(path), num_oov_buckets=2)
    assert fil.num_buckets == 5
    ids = _ids(fil, feats)
    assert ids.values[:2].tolist() == [1, 0] and 3 <= ids.values[2] < 5
    with pytest.raises(ValueError, match="both num_oov_buckets and default_value"):
        fc.categorical_column_with_vocabulary_list("c", vocab, default_value=0,
                                                   num_oov_buckets=1)
    with pytest.raises(tf.errors.NotFoundError):
        fc.categorical_column_with_vocabulary_file("c", str(tmp_path / "missing.txt"))


def test_identity_column_range():
    col = fc.categorical_column_with_identity("i", 4)
    assert _ids(col, {"i": tf.constant([[0], [3]], tf.int64)}).values.tolist() == [0, 3]
    with pytest.raises(tf.errors.InvalidArgumentError):
        _ids(col, {"i": tf.constant([[0], [7]], tf.int64)})
    fallback = fc.categorical_column_with_identity("i", 4, default_value=2)
    assert _ids(fallback, {"i": tf.constant([[9], [1]], tf.int64)}).values.tolist() == [2, 1]


def test_weighted_column_indicator_and_embedding():
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0, 2, 2], tf.int64), [2, 2])
    w = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0.5, 2.0, 3.0], [2, 2])
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    assert weighted.name == "i_weighted_by_w"
    out = _run(fc.input_layer({"i": ids, "w": w}, [fc.indicator_column(weighted)]))
    np.testing.assert_allclose(out, [[0.5, 0, 2.0], [0, 0, 3.0]])
    table = np.arange(6, dtype=np.float32).reshape(3, 2)
    emb = fc.embedding_column(weighted, 2, combiner="sum",
                              initializer=tf.constant_initializer(table))
    out = _run(fc.input_layer({"i": ids, "w": w}, [emb]))
    np.testing.assert_allclose(out, [0.5 * table[0] + 2 * table[2], 3 * table[2]])


def test_embedding_column_mean_and_empty_rows():
    table = np.random.RandomState(0).randn(10, 3).astype(np.float32)
    cat = fc.categorical_column_with_identity("i", 10)
    emb = fc.embedding_column(cat, 3, initializer=tf.constant_initializer(table))
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([4, 7, 1], tf.int64), [3, 2])
    out = _run(fc.input_layer({"i": ids}, [emb]))
    np.testing.assert_allclose(out, [(table[4] + table[7]) / 2, np.zeros(3), table[1]],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="ckpt_to_load_from"):
        fc.embedding_column(cat, 3, ckpt_to_load_from="/tmp/x")
    with pytest.raises(ValueError, match="combiner"):
        fc.embedding_column(cat, 3, combiner="max")


def _names():
    return sorted((v.op.name, tuple(v.shape.as_list())) for v in tf.global_variables())


def test_variable_names_and_partitioning_as_tensorflow():
    feats = {"x": tf.constant([[0.5], [2.0]]), "c": tf.constant([["a"], ["b"]]),
             "d": tf.constant([["u"], ["v"]])}
    x = fc.numeric_column("x")
    bx = fc.bucketized_column(x, [0.0, 1.0])
    c = fc.categorical_column_with_hash_bucket("c", 10)
    d = fc.categorical_column_with_hash_bucket("d", 10)
    shared = fc.shared_embedding_columns([c, d], 4)
    with tf.variable_scope("outer", partitioner=tf.fixed_size_partitioner(2)):
        out = fc.input_layer(feats, [x, bx, fc.embedding_column(c, 3),
                                     fc.indicator_column(fc.crossed_column([bx, "c"], 1000))]
                             + shared)
    fc.linear_model(feats, [x, bx, c, fc.crossed_column([bx, "c"], 1000),
                            fc.crossed_column(["c", "d"], 1000)])
    assert out.shape.as_list() == [2, 1015]
    assert _names() == sorted([
        ("outer/input_layer/c_embedding/embedding_weights/part_0", (5, 3)),
        ("outer/input_layer/c_embedding/embedding_weights/part_1", (5, 3)),
        ("outer/input_layer/c_d_shared_embedding/embedding_weights/part_0", (5, 4)),
        ("outer/input_layer/c_d_shared_embedding/embedding_weights/part_1", (5, 4)),
        ("linear_model/c/weights", (10, 1)), ("linear_model/c_X_d/weights", (1000, 1)),
        ("linear_model/c_X_x_bucketized/weights", (1000, 1)),
        ("linear_model/x/weights", (1, 1)), ("linear_model/x_bucketized/weights", (3, 1)),
        ("linear_model/bias_weights", (1,))])
    assert _run(out).shape == (2, 1015)


def test_partitioned_embedding_lands_on_every_ps_task():
    setter = tf.train.replica_device_setter(ps_tasks=2)
    with tf.device(setter), tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
        fc.input_layer({"c": tf.constant([["a"]])},
                       [fc.embedding_column(fc.categorical_column_with_hash_bucket("c", 8), 2)])
    devices = sorted(v.device for v in tf.global_variables())
    assert devices == ["/job:ps/task:0", "/job:ps/task:1"]


def test_linear_model_values_against_numpy():
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 3], tf.int64), [2, 2])
    cols = [fc.numeric_column("x", shape=(2,)), fc.categorical_column_with_identity("i", 4)]
    cols_to_vars = {}
    pred = fc.linear_model({"x": x, "i": ids}, cols, units=2, sparse_combiner="mean",
                           cols_to_vars=cols_to_vars)
    wx = np.array([[1.0, -1.0], [0.5, 2.0]], np.float32)
    wi = np.arange(8, dtype=np.float32).reshape(4, 2)
    bias = np.array([0.25, -0.5], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(pred).tolist() == [[0, 0], [0, 0]]
        sess.run([tf.assign(cols_to_vars[cols[0]][0], wx),
                  tf.assign(cols_to_vars[cols[1]][0], wi),
                  tf.assign(cols_to_vars["bias"][0], bias)])
        got = sess.run(pred)
    expected = x @ wx + np.stack([(wi[1] + wi[3]) / 2, wi[3]]) + bias
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(ValueError, match="sparse_combiner"):
        fc.linear_model({"x": x}, cols[:1], sparse_combiner="max")
    with pytest.raises(ValueError, match="Duplicate"):
        fc.linear_model({"x": x}, [cols[0], fc.numeric_column("x", shape=(2,))])


def test_make_parse_example_spec_and_parsing():
    x = fc.numeric_column("x", default_value=0.0)
    c = fc.categorical_column_with_vocabulary_list("c", ["a", "b"])
    spec = fc.make_parse_example_spec([x, fc.bucketized_column(x, [1.0]),
                                       fc.weighted_categorical_column(c, "w"),
                                       fc.crossed_column(["c", "d"], 10)])
    assert spec == {"x": tf.FixedLenFeature((1,), tf.float32, (0.0,)),
                    "c": tf.VarLenFeature(tf.string), "w": tf.VarLenFeature(tf.float32),
                    "d": tf.VarLenFeature(tf.string)}
    examples = []
    for xv, cs in [(2.0, [b"b", b"a"]), (None, [b"b"])]:
        feat = {"c": tf.train.Feature(bytes_list=tf.train.BytesList(value=cs))}
        if xv is not None:
            feat["x"] = tf.train.Feature(float_list=tf.train.FloatList(value=[xv]))
        examples.append(tf.train.Example(features=tf.train.Features(feature=feat))
                        .SerializeToString())
    parsed = tf.parse_example(examples, fc.make_parse_example_spec([x, c]))
    out = _run(fc.input_layer(parsed, [x, fc.indicator_column(c)]))
    np.testing.assert_array_equal(out, [[1, 1, 2.0], [0, 1, 0.0]])
