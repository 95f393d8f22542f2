"""The fused categorical-feature ops written as TensorFlow's standard ops: only ops of
TensorFlow's op set (tests/fixtures/tf_files/tf_op_defs.json), and the same values when
the written graph is imported back. ``make_fixtures.py check-examples`` (docs/interop.md)
has TensorFlow itself serve the estimator examples' exports."""

import os
import shutil

import numpy as np

import tensorfleet as tf
from tensorfleet.framework import tensorflow_graph_export as tge
from tensorfleet.ops import sparse_lookup_ops as slo
from tensorfleet.ops import tensorflow_graph_import as tgi
from tensorfleet.protos import saved_model_pb2
from tests.framework.tensorflow_op_set import assert_tensorflow_graph

FUSED = {"SparseLookupPrepare", "SparseLookupPrepareMany", "SparseLookupCombine",
         "SparseLookupCombineMany", "StringToHashBucketSparse"}


def _ids(name):
    return tf.SparseTensor(tf.placeholder(tf.int64, [None, 2], name=f"{name}_indices"),
                           tf.placeholder(tf.int64, [None], name=f"{name}_values"),
                           tf.placeholder(tf.int64, [2], name=f"{name}_shape"))


def test_fused_lookups_written_as_tensorflow_ops_give_the_same_values():
    rng = np.random.RandomState(0)
    g = tf.Graph()
    with g.as_default():
        a, b = _ids("a"), _ids("b")
        strings = tf.placeholder(tf.string, [None], name="strings")
        matrix = tf.placeholder(tf.string, [None, 3], name="matrix")
        table_value = rng.randn(20, 3).astype(np.float32)
        table = tf.constant(table_value)
        (pa, pb) = slo.sparse_lookup_prepare_many([a, b], [None, 4])
        rows_a, rows_b = tf.gather(table, pa[0]), tf.gather(table, pb[0])
        outs = {
            "mean": slo.sparse_lookup_combine(rows_a, *pa[1:], combiner="mean"),
            # A default id: empty rows take row 4, not zeros.
            "sqrtn": slo.sparse_lookup_combine(rows_b, *pb[1:], combiner="sqrtn",
                                               zero_empty=False),
            "concat": slo.sparse_lookup_combine_many(
                [rows_a, rows_b], [pa[1], pb[1]], [pa[2], pb[2]], [pa[3], pb[3]],
                ["sum", "mean"], [True, False], reduce="concat"),
            "sum": slo.sparse_lookup_combine_many(
                [rows_a, rows_b], [pa[1], pb[1]], [pa[2], pb[2]], [pa[3], pb[3]],
                ["sqrtn", "sum"], [True, True], reduce="sum"),
        }
        single = slo.sparse_lookup_prepare(a, None)
        outs["single"] = slo.sparse_lookup_combine(tf.gather(table, single[0]), *single[1:])
        for i, sp in enumerate(slo.string_to_hash_bucket_sparse([strings, matrix], [7, 1000])):
            outs[f"hash{i}_indices"], outs[f"hash{i}_values"] = sp.indices, sp.values
            outs[f"hash{i}_shape"] = sp.dense_shape
        # Named outputs to fetch in the graph imported back.
        outs = {k: tf.identity(v, name=f"out_{k}") for k, v in outs.items()}
    assert FUSED <= {op.type for op in g.get_operations()}
    feed_values = {
        # Row 1 of a has only a negative id (dropped: an empty row), row 3 nothing.
        "a_indices:0": np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 2]]),
        "a_values:0": np.array([3, 3, -1, 19, 5]),
        "a_shape:0": np.array([4, 3]),
        "b_indices:0": np.array([[0, 0], [2, 0], [2, 1]]),
        "b_values:0": np.array([7, 0, 11]),
        "b_shape:0": np.array([4, 2]),
        "strings:0": np.array([b"x", b"", b"yz", b"x"], dtype=object),
        "matrix:0": np.array([[b"p", b"", b"q"], [b"", b"", b""], [b"r", b"s", b""],
                              [b"", b"t", b"p"]], dtype=object),
    }
    with tf.Session(graph=g) as sess:
        want = sess.run(outs, {g.get_tensor_by_name(k): v for k, v in feed_values.items()})
    gd = tge.to_tensorflow_graph_def(g)
    ops = assert_tensorflow_graph(gd)
    assert not ops & FUSED
    assert {"SparseFillEmptyRows", "Unique", "SparseSegmentMeanWithNumSegments",
            "SparseSegmentSqrtNWithNumSegments", "SparseSegmentSumWithNumSegments",
            "StringToHashBucketFast", "GatherNd", "Where", "Select"} <= ops
    g2 = tf.Graph()
    with g2.as_default():
        tensors = tgi.import_tensorflow_graph_def(gd, name="", return_elements=[
            v.name for v in outs.values()])
    fetch = dict(zip(outs, tensors))
    with tf.Session(graph=g2) as sess:
        got = sess.run(fetch, {g2.get_tensor_by_name(k): v for k, v in feed_values.items()})
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-6, err_msg=k)
    # What the expected values say: an empty row is zeros, or the default id's row.
    np.testing.assert_array_equal(want["mean"][1], np.zeros(3))
    np.testing.assert_allclose(want["sqrtn"][1], table_value[4], rtol=1e-6)
    assert want["hash1_values"].shape == (6,) and list(want["hash1_shape"]) == [4, 3]


def _example(rng):
    feats = {"n": tf.train.Feature(float_list=tf.train.FloatList(value=[rng.uniform(0, 9)]))}
    for key in ("c1", "c2"):
        if rng.uniform() < 0.8:  # a missing category is an empty row
            words = [b"w%d" % rng.randint(30) for _ in range(rng.randint(1, 3))]
            feats[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=words))
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def _serve(export_dir, examples):
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["predict"]
        (feed,) = sig.inputs.values()
        return sess.run({k: v.name for k, v in sig.outputs.items() if v.dtype != tf.string},
                        {feed.name: examples})


def test_wide_and_deep_export_is_tensorflows_and_serves_the_same_predictions(tmp_path):
    fc = tf.feature_column
    c1 = fc.categorical_column_with_hash_bucket("c1", 40)
    c2 = fc.categorical_column_with_hash_bucket("c2", 40)
    numeric = fc.numeric_column("n", normalizer_fn=lambda x: tf.log1p(x))
    wide = [c1, c2, fc.crossed_column(["c1", "c2"], 50)]
    deep = [numeric, fc.embedding_column(c1, 3), fc.embedding_column(c2, 3, combiner="sqrtn")]
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[4],
        model_dir=str(tmp_path / "m"),
        input_layer_partitioner=tf.min_max_variable_partitioner(max_partitions=2,
                                                                min_slice_size=64))
    rng = np.random.RandomState(1)
    spec = fc.make_parse_example_spec(wide + deep)

    def input_fn():
        examples = tf.constant([_example(rng) for _ in range(32)])
        features = tf.parse_example(examples, spec)
        return features, tf.constant(rng.randint(0, 2, size=(32, 1)))

    est.train(input_fn, steps=2)
    export_dir = est.export_saved_model(
        str(tmp_path / "export"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)).decode()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        saved = saved_model_pb2.SavedModel.FromString(f.read())
    (meta,) = saved.meta_graphs
    ops = assert_tensorflow_graph(meta.graph_def)
    assert {"SparseCross", "Log1p", "Unique", "SparseFillEmptyRows"} <= ops
    assert sorted(meta.signature_def) == ["classification", "predict", "regression",
                                          "serving_default"]
    # Served from tensorfleet's own files, and from TensorFlow's alone (through the
    # GraphDef importer): the same predictions.
    tf_only = tmp_path / "tf_only"
    os.makedirs(tf_only / "variables")
    shutil.copy(os.path.join(export_dir, "saved_model.pb"), tf_only)
    for name in ("variables.index", "variables.data-00000-of-00001"):
        shutil.copy(os.path.join(export_dir, "variables", name), tf_only / "variables")
    examples = [_example(rng) for _ in range(12)]
    want, got = _serve(export_dir, examples), _serve(str(tf_only), examples)
    assert sorted(want) == sorted(got) and "probabilities" in want
    assert np.ptp(want["probabilities"][:, 1]) > 0  # the examples differ in what they get
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
