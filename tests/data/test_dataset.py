"""tf.data: every stage against a numpy reference, iterators, map rules, sharding."""

import json

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def
from tensorfleet.kernels.numpy.dataset_kernels import build_pipeline, validate_stages


def _drain(sess, t, limit=1000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(t))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("iterator did not end")


X = np.arange(30, dtype=np.float32).reshape(10, 3)
Y = np.arange(10, dtype=np.int64) * 10


def test_slices_batch_matches_numpy_and_ends_with_out_of_range():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)
    assert ds.output_types == (tf.float32, tf.int64)
    x, y = ds.make_one_shot_iterator().get_next()
    assert x.shape.as_list() == [None, 3] and y.shape.as_list() == [None]
    with tf.Session() as sess:
        got = _drain(sess, [x, y])
        with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
            sess.run(x)  # stays at the end
    assert [len(b[0]) for b in got] == [4, 4, 2]
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), X)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), Y)


def test_drop_remainder_gives_static_batch_dim():
    ds = tf.data.Dataset.from_tensor_slices(X).batch(4, drop_remainder=True)
    x = tf.data.make_one_shot_iterator(ds).get_next()
    assert x.shape.as_list() == [4, 3]
    with tf.Session() as sess:
        got = _drain(sess, x)
    np.testing.assert_array_equal(np.stack(got), X[:8].reshape(2, 4, 3))


def test_shards_are_disjoint_and_cover_the_data():
    parts = []
    for i in range(3):
        tf.reset_default_graph()
        it = tf.data.Dataset.from_tensor_slices(Y).shard(3, i).make_one_shot_iterator()
        with tf.Session() as sess:
            parts.append(_drain(sess, it.get_next()))
        np.testing.assert_array_equal(parts[-1], Y[i::3])
    flat = [v for p in parts for v in p]
    assert sorted(flat) == sorted(Y.tolist()) and len(set(flat)) == len(flat)


def test_range_skip_take_repeat():
    ds = tf.data.Dataset.range(5).skip(1).take(3).repeat(2)
    t = ds.make_one_shot_iterator().get_next()
    assert t.dtype == tf.int64 and t.shape.as_list() == []
    with tf.Session() as sess:
        assert _drain(sess, t) == [1, 2, 3, 1, 2, 3]
    tf.reset_default_graph()
    t = tf.data.Dataset.range(2, 11, 3).repeat().take(7).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert _drain(sess, t) == [2, 5, 8, 2, 5, 8, 2]


def _shuffled(seed, reshuffle=True, graph_seed=None, epochs=2):
    tf.reset_default_graph()
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    ds = tf.data.Dataset.range(20).shuffle(8, seed=seed, reshuffle_each_iteration=reshuffle)
    t = ds.repeat(epochs).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _drain(sess, t)


def test_shuffle_is_a_seeded_permutation_per_epoch():
    a, b = _shuffled(7), _shuffled(7)
    assert a == b                                        # same seed, same order
    assert sorted(a[:20]) == list(range(20)) and sorted(a[20:]) == list(range(20))
    assert a[:20] != list(range(20))
    assert a[:20] != a[20:]                              # reshuffled each epoch
    fixed = _shuffled(7, reshuffle=False)
    assert fixed[:20] == fixed[20:]
    assert _shuffled(None, graph_seed=3) == _shuffled(None, graph_seed=3)
    assert _shuffled(7) != _shuffled(8)


def test_pipeline_state_machine_directly():
    stages = validate_stages([{"op": "shard", "num_shards": 2, "index": 0},
                              {"op": "batch", "batch_size": 2, "drop_remainder": False},
                              {"op": "repeat", "count": 2}])
    assert list(build_pipeline(5, stages)) == [[0, 2], [4], [0, 2], [4]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        validate_stages([{"op": "exec", "code": "x"}])
    with pytest.raises(tf.errors.InvalidArgumentError):
        validate_stages([{"op": "shard", "num_shards": 2, "index": 2}])


def test_bad_arguments_fail_at_build_time():
    ds = tf.data.Dataset.range(4)
    with pytest.raises(tf.errors.InvalidArgumentError):
        ds.shard(2, 2)
    with pytest.raises(tf.errors.InvalidArgumentError):
        ds.batch(0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.from_tensor_slices((X, Y[:4]))


def test_initializable_iterator_reinitializes_with_new_feeds():
    data = tf.placeholder(tf.int64, [None])
    it = tf.data.Dataset.from_tensor_slices(data).batch(2).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(nxt)
        sess.run(it.initializer, {data: np.arange(3)})
        assert [b.tolist() for b in _drain(sess, nxt)] == [[0, 1], [2]]
        sess.run(it.initializer, {data: np.arange(10, 14)})
        assert sess.run(nxt).tolist() == [10, 11]
        sess.run(it.initializer, {data: np.arange(10, 14)})  # restart mid-way
        assert [b.tolist() for b in _drain(sess, nxt)] == [[10, 11], [12, 13]]
    with pytest.raises(ValueError):
        tf.data.Dataset.range(3).make_one_shot_iterator().initializer


def test_map_before_batch_is_elementwise_and_restructures():
    ds = tf.data.Dataset.from_tensor_slices((X, Y))
    ds = ds.map(lambda x, y: ({"x": tf.cast(x, tf.float64) * 2.0 + 1.0}, tf.one_hot(y // 10, 10)))
    ds = ds.shuffle(4, seed=1).batch(3)
    assert ds.output_shapes[0]["x"].as_list() == [None, 3]
    assert ds.output_shapes[1].as_list() == [None, 10]
    feats, labels = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = _drain(sess, [feats, labels])
    xs = np.concatenate([g[0]["x"] for g in got])
    ys = np.concatenate([g[1] for g in got])
    order = np.argmax(ys, axis=1)
    assert sorted(order.tolist()) == list(range(10))
    np.testing.assert_allclose(xs, X[order].astype(np.float64) * 2 + 1)


def test_map_that_is_not_elementwise_runs_per_element_before_batch_and_fine_after():
    ds = tf.data.Dataset.from_tensor_slices(X)
    summed = ds.map(lambda x: tf.reduce_sum(x)).batch(2).make_one_shot_iterator().get_next()
    paired = ds.map(lambda x: (x, 1)).batch(3).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        np.testing.assert_allclose(np.concatenate(_drain(sess, summed)), X.sum(axis=1))
        ones = _drain(sess, paired[1])
    assert np.concatenate(ones).tolist() == [1] * len(X)
    t = ds.batch(4).map(lambda x: tf.reduce_sum(x, axis=1)).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = np.concatenate(_drain(sess, t))
    np.testing.assert_allclose(got, X.sum(axis=1))


def test_one_iteration_across_fetch_lists_and_get_next_calls():
    it = tf.data.Dataset.range(6).make_one_shot_iterator()
    a, b = it.get_next(), it.get_next()
    c = tf.constant(1, tf.int64)
    with tf.Session() as sess:
        assert sess.run(a) == 0
        assert sess.run([a, c])[0] == 1
        assert sess.run(b) == 2
    with tf.Session() as sess:  # a new session starts a one-shot iterator afresh
        assert sess.run(a) == 0


def test_graph_is_plain_data_and_runs_after_a_round_trip():
    ds = tf.data.Dataset.from_tensor_slices({"a": X, "b": Y}).shuffle(5, seed=2).batch(4)
    ref = ds.make_one_shot_iterator().get_next()
    plain = graph_to_plain(tf.get_default_graph())
    json.dumps(plain)  # nothing but plain data: no callables, no pickles
    g2 = import_graph_def(json.loads(json.dumps(plain)))
    with tf.Session() as s1, tf.Session(graph=g2) as s2:
        for _ in range(3):
            want = s1.run(ref["a"])
            got = s2.run(g2.get_tensor_by_name(ref["a"].name))
            np.testing.assert_array_equal(want, got)


def test_iterator_on_a_worker_advances_across_partitions():
    from tensorfleet.testing.cluster import local_cluster
    with local_cluster(worker=1, ps=1) as c:
        with tf.device("/job:worker/task:0"):
            t = tf.data.Dataset.range(5).make_one_shot_iterator().get_next()
            other = t + 0
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(0, dtype=tf.int64)
            bump = tf.assign_add(v, 1)
        with tf.Session(c.target("worker")) as sess:
            sess.run(v.initializer)
            got = [sess.run(t), sess.run([t, bump])[0], sess.run(other), sess.run(t)]
            assert got == [0, 1, 2, 3]
            assert sess.run(t) == 4
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(t)
