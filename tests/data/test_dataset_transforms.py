"""tf.data: zip, concatenate, filter, padded_batch, unbatch, from_generator and
reinitializable iterators (Iterator.from_structure + make_initializer)."""

from __future__ import annotations

import os
from typing import Any, List

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _all(fetch: Any, sess: Any, limit: int = 1000) -> List[Any]:
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
    pytest.fail("data set never ended")


def _run(ds: Any) -> List[Any]:
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _all(nxt, sess)


# -- zip / concatenate ------------------------------------------------------------------------

def test_zip_pairs_elements_and_stops_at_the_shortest():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    a = tf.data.Dataset.from_tensor_slices(x)
    b = tf.data.Dataset.range(10, 14)
    c = tf.data.Dataset.from_tensor_slices({"s": np.array([b"p", b"q", b"r", b"s", b"t"])})
    ds = tf.data.Dataset.zip((a, (b, c)))
    assert ds.output_types == (tf.float32, (tf.int64, {"s": tf.string}))
    assert ds.output_shapes[0].as_list() == [2]
    got = _run(ds)
    assert len(got) == 4
    for i, (xa, (xb, xc)) in enumerate(got):
        np.testing.assert_array_equal(xa, x[i])
        assert xb == 10 + i and xc["s"] == b"pqrs"[i:i + 1]


def test_zip_of_batched_and_shuffled_children_then_batch():
    a = tf.data.Dataset.range(8).shuffle(8, seed=3)
    b = tf.data.Dataset.range(8).map(lambda v: v * 10)
    got = _run(tf.data.Dataset.zip((a, b)).batch(3))
    xs = np.concatenate([g[0] for g in got])
    ys = np.concatenate([g[1] for g in got])
    assert sorted(xs.tolist()) == list(range(8))
    assert ys.tolist() == [10 * i for i in range(8)]
    assert [len(g[0]) for g in got] == [3, 3, 2]


def test_concatenate_relaxes_shapes_and_checks_types():
    a = tf.data.Dataset.from_tensor_slices(np.ones((2, 3), np.int32))
    b = tf.data.Dataset.from_tensor_slices(np.zeros((1, 4), np.int32))
    ds = a.concatenate(b).concatenate(a.take(1))
    assert ds.output_shapes.as_list() == [None]
    got = _run(ds)
    assert [g.tolist() for g in got] == [[1, 1, 1], [1, 1, 1], [0, 0, 0, 0], [1, 1, 1]]
    with pytest.raises(TypeError, match="types"):
        a.concatenate(tf.data.Dataset.range(3))


# -- filter -----------------------------------------------------------------------------------

def test_filter_after_map_and_before_batch():
    ds = (tf.data.Dataset.range(20)
          .map(lambda v: v * v)
          .filter(lambda v: tf.equal(tf.mod(v, 3), 1))
          .batch(4))
    got = np.concatenate(_run(ds))
    ref = np.array([v * v for v in range(20) if (v * v) % 3 == 1])
    np.testing.assert_array_equal(got, ref)


def test_filter_on_tuple_elements_and_bad_predicates():
    x = np.random.RandomState(0).randn(30).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, np.arange(30))).filter(lambda a, i: a > 0.5)
    got = _run(ds)
    assert [int(i) for _, i in got] == [i for i in range(30) if x[i] > 0.5]
    with pytest.raises(ValueError, match="scalar bool"):
        tf.data.Dataset.range(3).filter(lambda v: v + 1)
    outside = tf.constant(2, tf.int64)
    with pytest.raises(ValueError, match="surrounding graph"):
        tf.data.Dataset.range(3).filter(lambda v: v > outside)


# -- padded_batch / unbatch / from_generator ----------------------------------------------------

def _ragged(n: int) -> List[List[int]]:
    rng = np.random.RandomState(1)
    return [list(rng.randint(1, 9, size=rng.randint(0, 5))) for _ in range(n)]


def test_padded_batch_unknown_dims_and_padding_values():
    seqs = _ragged(7)

    def gen():
        for i, s in enumerate(seqs):
            yield s, f"w{i}"

    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.string),
                                        (tf.TensorShape([None]), tf.TensorShape([])))
    pb = ds.padded_batch(3, padded_shapes=([None], []), padding_values=(-7, ""))
    assert pb.output_shapes[0].as_list() == [None, None]
    got = _run(pb)
    assert [len(g[1]) for g in got] == [3, 3, 1]
    for b, (ids, words) in enumerate(got):
        chunk = seqs[3 * b:3 * b + 3]
        width = max(len(s) for s in chunk)
        ref = np.full((len(chunk), width), -7, np.int32)
        for j, s in enumerate(chunk):
            ref[j, :len(s)] = s
        np.testing.assert_array_equal(ids, ref)
        assert ids.dtype == np.int32
        assert words.tolist() == [f"w{3 * b + j}".encode() for j in range(len(chunk))]


def test_padded_batch_fixed_shape_and_drop_remainder():
    seqs = _ragged(5)
    ds = tf.data.Dataset.from_generator(lambda: iter(seqs), tf.int64, [None])
    pb = ds.padded_batch(2, padded_shapes=[6], drop_remainder=True)
    assert pb.output_shapes.as_list() == [2, 6]
    got = _run(pb)
    assert len(got) == 2
    ref = np.zeros((4, 6), np.int64)
    for j, s in enumerate(seqs[:4]):
        ref[j, :len(s)] = s
    np.testing.assert_array_equal(np.concatenate(got), ref)
    with pytest.raises(ValueError, match="smaller"):
        tf.data.Dataset.from_tensor_slices(np.ones((3, 4))).padded_batch(2, [2])


def test_padded_batch_element_larger_than_padded_shape_fails_at_run_time():
    ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.int32, [None])
    nxt = ds.padded_batch(1, [2]).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="larger than its padded"):
            sess.run(nxt)


def test_unbatch_undoes_batch():
    x = np.arange(21).reshape(7, 3)
    ds = tf.data.Dataset.from_tensor_slices(x).batch(3).unbatch()
    assert ds.output_shapes.as_list() == [3]
    np.testing.assert_array_equal(np.stack(_run(ds)), x)


def test_from_generator_checks_yielded_values_and_takes_args():
    def gen(n):
        for i in range(int(n)):
            yield np.full([2], i, np.float32)

    ds = tf.data.Dataset.from_generator(gen, tf.float32, [2], args=(3,))
    assert [g.tolist() for g in _run(ds)] == [[0, 0], [1, 1], [2, 2]]
    bad = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.float32, [2])
    nxt = bad.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
            sess.run(nxt)


def test_from_generator_in_another_process_is_a_clear_error():
    ds = tf.data.Dataset.from_generator(lambda: iter([1]), tf.int64, [])
    g = tf.get_default_graph()
    nxt = ds.make_one_shot_iterator().get_next()
    plain = graph_to_plain(g)
    # The graph arriving in another process names a generator it cannot have.
    for node in plain["node"]:
        attrs = node.get("attr", {})
        if "source" in attrs:
            src = attrs["source"]["dict"]
            tok = src["token"]
            key = next(iter(tok))
            tok[key] = f"{os.getpid() + 1}:deadbeef"
    g2 = import_graph_def(plain)
    with tf.Session(graph=g2) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="another|process"):
            sess.run(g2.get_tensor_by_name(nxt.name))


# -- reinitializable iterators ------------------------------------------------------------------

def test_reinitializable_iterator_switches_between_train_and_validation():
    train = tf.data.Dataset.range(10).map(lambda v: v * 2).filter(lambda v: v < 15)
    valid = tf.data.Dataset.range(100, 103)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    nxt = it.get_next()
    assert nxt.dtype == tf.int64 and nxt.shape.as_list() == []
    train_init = it.make_initializer(train)
    valid_init = it.make_initializer(valid)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(nxt)
        for _ in range(2):
            sess.run(train_init)
            assert _all(nxt, sess) == [0, 2, 4, 6, 8, 10, 12, 14]
            sess.run(valid_init)
            assert sess.run(nxt) == 100
            sess.run(valid_init)
            assert _all(nxt, sess) == [100, 101, 102]


def test_reinitializable_iterator_with_batched_tuples_and_type_checks():
    x = np.arange(10, dtype=np.float32)
    train = tf.data.Dataset.from_tensor_slices((x, x.astype(np.int32))).batch(4)
    valid = tf.data.Dataset.from_tensor_slices((-x[:3], np.zeros(3, np.int32))).batch(4)
    it = tf.data.Iterator.from_structure((tf.float32, tf.int32),
                                         (tf.TensorShape([None]), tf.TensorShape([None])))
    a, b = it.get_next()
    with tf.Session() as sess:
        sess.run(it.make_initializer(train))
        first = sess.run([a, b])
        np.testing.assert_array_equal(first[0], x[:4])
        sess.run(it.make_initializer(valid))
        np.testing.assert_array_equal(sess.run(a), -x[:3])
    with pytest.raises(TypeError, match="types"):
        it.make_initializer(tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match="make_initializer"):
        it.initializer  # noqa: B018


def test_composite_pipeline_survives_graph_serialization():
    a = tf.data.Dataset.range(4).filter(lambda v: v > 0)
    b = tf.data.Dataset.range(3).map(lambda v: v + 100)
    ds = tf.data.Dataset.zip((a, b)).concatenate(tf.data.Dataset.zip((b, a)))
    nxt = ds.make_one_shot_iterator().get_next()
    g2 = import_graph_def(graph_to_plain(tf.get_default_graph()))
    with tf.Session(graph=g2) as sess:
        fetch = [g2.get_tensor_by_name(t.name) for t in nxt]
        got = [tuple(int(v) for v in pair) for pair in _all(fetch, sess)]
    assert got == [(1, 100), (2, 101), (3, 102), (100, 1), (101, 2), (102, 3)]


def test_non_elementwise_map_before_batch_runs_per_element(tmp_path):
    paths = []
    for i in range(5):
        p = tmp_path / f"v{i}.txt"
        p.write_bytes(b"%d %d %d %d" % (i, i + 1, i + 2, i + 3))
        paths.append(str(p))

    def parse(path, label):
        text = tf.read_file(path)
        nums = tf.string_to_number(tf.string_split([text], " ").values, tf.int32)
        return tf.reshape(nums, [2, 2]), label * 10

    ds = tf.data.Dataset.from_tensor_slices((paths, np.arange(5))).map(parse).batch(2)
    assert ds.output_shapes[0].as_list() == [None, 2, 2]
    got = _run(ds)
    mats = np.concatenate([g[0] for g in got])
    ref = np.stack([np.arange(i, i + 4).reshape(2, 2) for i in range(5)])
    np.testing.assert_array_equal(mats, ref)
    assert np.concatenate([g[1] for g in got]).tolist() == [0, 10, 20, 30, 40]


def test_padded_batch_of_dicts_with_string_padding_and_tuple_shapes():
    items = [{"ids": [1], "word": "x"}, {"ids": [4, 5, 6], "word": b"yz"}]
    ds = tf.data.Dataset.from_generator(lambda: iter(items), {"ids": tf.int32, "word": tf.string},
                                        {"ids": [None], "word": []})
    got = _run(ds.padded_batch(2, {"ids": (4,), "word": []},
                               padding_values={"ids": 5, "word": "?"}))
    assert len(got) == 1
    np.testing.assert_array_equal(got[0]["ids"], [[1, 5, 5, 5], [4, 5, 6, 5]])
    assert got[0]["word"].tolist() == [b"x", b"yz"]
    with pytest.raises(ValueError, match="keys"):
        ds.padded_batch(2, {"ids": [None]})


def test_filter_on_text_lines(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"a\n\n#c\nd\n")
    ds = tf.data.TextLineDataset(str(path)).filter(lambda line: tf.not_equal(line, ""))
    assert _run(ds) == [b"a", b"#c", b"d"]


def test_reinitializable_iterator_with_kernel_functions_on_a_cluster_task():
    from tensorfleet.testing.cluster import local_cluster
    with local_cluster(worker=1, ps=1) as c:
        with tf.device("/job:ps/task:0"):
            train = tf.data.Dataset.range(12).map(lambda v: v * 3).filter(
                lambda v: tf.equal(tf.mod(v, 2), 0)).padded_batch(2, [])
            valid = tf.data.Dataset.range(3).batch(2)
            it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
            nxt = it.get_next()
            inits = [it.make_initializer(train), it.make_initializer(valid)]
        with tf.Session(c.target("worker")) as sess:
            sess.run(inits[0])
            got = np.concatenate(_all(nxt, sess)).tolist()
            assert got == [v * 3 for v in range(12) if (v * 3) % 2 == 0]
            sess.run(inits[1])
            assert [b.tolist() for b in _all(nxt, sess)] == [[0, 1], [2]]


def test_generator_is_released_with_its_graph():
    import gc
    from tensorfleet.kernels import dataset_values
    g = tf.Graph()
    with g.as_default():
        token = tf.data.Dataset.from_generator(lambda: iter([1]), tf.int64, [])._source["token"]
    assert token in dataset_values._GENERATORS
    del g
    gc.collect()
    assert token not in dataset_values._GENERATORS


def test_text_to_ragged_ids_then_padded_batch(tmp_path):
    lines = ["1 2 3", "4", "", "5 6", "7 8 9 10"]
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(lines) + "\n")

    def ids(line):
        toks = tf.string_split([line], " ").values
        return tf.string_to_number(toks, tf.int32), tf.size(toks)

    ds = tf.data.TextLineDataset(str(path)).map(ids).padded_batch(2, ([None], []))
    got = _run(ds)
    rows = [[int(t) for t in ln.split()] for ln in lines]
    for b, (mat, lens) in enumerate(got):
        chunk = rows[2 * b:2 * b + 2]
        assert lens.tolist() == [len(r) for r in chunk]
        width = max(len(r) for r in chunk)
        assert mat.tolist() == [r + [0] * (width - len(r)) for r in chunk]
