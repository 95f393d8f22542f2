"""Dynamic embeddings: rows made on first use, frequency filter, eviction, training
(GradientDescent, Adagrad, Adam against a dict reference), a 2-ps cluster, checkpoints."""


import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.kernels.dynamic_embedding_resources import DynamicEmbeddingTable, find_table
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training.device_setter import replica_device_setter

de = tf.dynamic_embedding
DIM = 3
INIT = 0.5


def _tables(sess):
    return {n: r for _, n, r in sess._backend.resources.items()
            if isinstance(r, DynamicEmbeddingTable)}


def _weights(n):
    return np.random.RandomState(n).uniform(-1, 1, (n, DIM)).astype(np.float32)


class _Reference:
    """A dict model of the table: rows, counts, slots, last-seen steps."""

    def __init__(self, kind, lr, min_frequency=1, **hyper):
        self.kind, self.lr, self.minf = kind, lr, min_frequency
        self.h = dict({"init_acc": 0.0}, **hyper)
        self.rows, self.count, self.slots, self.t = {}, {}, {}, {}

    def lookup(self, ids):
        for i in ids:
            self.count[i] = self.count.get(i, 0) + 1
            if i not in self.rows and self.count[i] >= self.minf:
                self.rows[i] = np.full(DIM, INIT)
                acc0 = self.h["init_acc"] if self.kind == "adagrad" else 0.0
                self.slots[i] = [np.full(DIM, acc0), np.zeros(DIM)]
                self.t[i] = 0
        return np.array([self.rows.get(i, np.zeros(DIM)) for i in ids])

    def apply(self, ids, grads):
        summed = {}
        for i, g in zip(ids, grads):
            summed[i] = summed.get(i, 0) + g
        for i, g in summed.items():
            if i not in self.rows:
                continue
            if self.kind == "sgd":
                self.rows[i] = self.rows[i] - self.lr * g
            elif self.kind == "adagrad":
                self.slots[i][0] = self.slots[i][0] + g * g
                self.rows[i] = self.rows[i] - self.lr * g / np.sqrt(self.slots[i][0])
            else:
                b1, b2, eps = self.h["beta1"], self.h["beta2"], self.h["epsilon"]
                self.t[i] += 1
                t = self.t[i]
                m = self.slots[i][0] = b1 * self.slots[i][0] + (1 - b1) * g
                v = self.slots[i][1] = b2 * self.slots[i][1] + (1 - b2) * g * g
                lr_t = self.lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
                self.rows[i] = self.rows[i] - lr_t * m / (np.sqrt(v) + eps)


def _model(opt, n_ids, **kw):
    emb = de.get_variable("emb", DIM, initializer=tf.constant_initializer(INIT), **kw)
    ids = tf.placeholder(tf.int64, [n_ids])
    out = de.embedding_lookup(emb, ids)
    w = _weights(n_ids)
    loss = tf.reduce_sum(out * w)
    train = de.DynamicEmbeddingOptimizer(opt).minimize(loss)
    return emb, ids, out, w, train


def _export_dict(sess, emb):
    keys, vals = sess.run(emb.export())
    return {int(k): v for k, v in zip(keys, vals)}


def test_rows_are_created_on_first_use_and_only_by_training_lookups():
    emb = de.get_variable("emb", DIM, initializer=tf.constant_initializer(INIT), num_shards=2)
    ids = tf.placeholder(tf.int64, [None, 2])
    train_out = de.embedding_lookup(emb, ids)
    eval_out = de.embedding_lookup(emb, ids, training=False)
    assert train_out.shape.as_list() == [None, 2, DIM]
    with tf.Session() as sess:
        assert sess.run(emb.size()) == 0
        np.testing.assert_array_equal(sess.run(eval_out, {ids: [[4, 7]]}), np.zeros((1, 2, DIM)))
        assert sess.run(emb.size()) == 0
        got = sess.run(train_out, {ids: [[4, 7], [4, -3]]})
        np.testing.assert_array_equal(got, np.full((2, 2, DIM), INIT))
        assert sess.run(emb.size()) == 3
        tables = _tables(sess)
    # Ids go to shard id mod 2 (-3 mod 2 == 1).
    assert sorted(tables) == ["emb/part_0", "emb/part_1"]
    assert sorted(tables["emb/part_0"].export([], [], [])[0]) == [4]
    assert sorted(tables["emb/part_1"].export([], [], [])[0]) == [-3, 7]
    assert tables["emb/part_0"].export([], [], [])[2].tolist() == [2]  # id 4 seen twice


@pytest.mark.parametrize("kind", ["sgd", "adagrad", "adam"])
def test_training_matches_a_dict_reference(kind):
    opts = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.3),
            "adagrad": lambda: tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.2),
            "adam": lambda: tf.train.AdamOptimizer(0.05, beta1=0.8, beta2=0.9, epsilon=1e-3)}
    ref = _Reference(kind, {"sgd": 0.3, "adagrad": 0.3, "adam": 0.05}[kind], init_acc=0.2,
                     beta1=0.8, beta2=0.9, epsilon=1e-3)
    emb, ids, out, w, train = _model(opts[kind](), 6, num_shards=2)
    batches = [[1, 2, 1, 8, 5, 2], [2, 9, 9, 9, 1, 4], [5, 5, 1, 7, 8, 2]]
    with tf.Session() as sess:
        for b in batches:
            got, _ = sess.run([out, train], {ids: b})
            np.testing.assert_allclose(got, ref.lookup(b), rtol=1e-5, atol=1e-6)
            ref.apply(b, w)
        table = _export_dict(sess, emb)
    assert sorted(table) == sorted(ref.rows)
    for k, v in ref.rows.items():
        np.testing.assert_allclose(table[k], v, rtol=1e-5, atol=1e-6)


def test_frequency_filter_creates_rows_late_and_skips_their_gradient_before():
    ref = _Reference("sgd", 1.0, min_frequency=3)
    emb, ids, out, w, train = _model(tf.train.GradientDescentOptimizer(1.0), 3,
                                     min_frequency=3)
    batches = [[10, 11, 10], [11, 12, 13], [10, 12, 12], [11, 11, 13]]
    with tf.Session() as sess:
        sizes = []
        for b in batches:
            got, _ = sess.run([out, train], {ids: b})
            np.testing.assert_allclose(got, ref.lookup(b), rtol=1e-6)
            ref.apply(b, w)
            sizes.append(int(sess.run(emb.size())))
        table = _export_dict(sess, emb)
        pending = _tables(sess)["emb"].pending_size()
    # 10 reaches 3 sightings in batch 3 (row made there, updated once); 12 too (its two
    # sightings in batch 3 count); 11 in batch 4; 13 stays pending with two.
    assert sizes == [0, 0, 2, 3]
    assert pending == 1
    assert sorted(table) == [10, 11, 12] == sorted(ref.rows)
    for k, v in ref.rows.items():
        np.testing.assert_allclose(table[k], v, rtol=1e-6)
    np.testing.assert_allclose(table[10], INIT - w[0])  # one step of its gradient only


def test_eviction_after_steps_drops_rows_and_pending_counts_unused_for_too_long():
    emb, ids, out, w, train = _model(tf.train.GradientDescentOptimizer(0.1), 2,
                                     evict_after_steps=2)
    steps = [[1, 2], [3, 3], [1, 4], [5, 5], [6, 6]]
    kept = []
    with tf.Session() as sess:
        for b in steps:
            sess.run(train, {ids: b})
            kept.append(sorted(_export_dict(sess, emb)))
    # A row is dropped at the end of the second step in a row that did not look it up.
    assert kept == [[1, 2], [1, 2, 3], [1, 3, 4], [1, 4, 5], [5, 6]]
    # Counts of ids below min_frequency age out the same way.
    table = DynamicEmbeddingTable("t", 2, tf.float32, tf.int64, "zeros", [], 0, 2, 0, 1)
    empty = np.zeros((0, 2), np.float32)
    table.lookup(np.array([7]), True)
    table.apply("sgd", np.array([], np.int64), empty, {"learning_rate": 1.0}, {})
    assert table.pending_size() == 1
    table.apply("sgd", np.array([], np.int64), empty, {"learning_rate": 1.0}, {})
    assert table.pending_size() == 0
    table.lookup(np.array([7]), True)
    assert table.size() == 0 and table.pending_size() == 1


def test_eviction_by_capacity_drops_the_least_recently_used_rows():
    emb, ids, out, w, train = _model(tf.train.GradientDescentOptimizer(0.1), 2, capacity=3)
    with tf.Session() as sess:
        sess.run(train, {ids: [1, 2]})
        sess.run(train, {ids: [3, 1]})
        sess.run(train, {ids: [4, 4]})   # 4 rows > 3: 2 (last seen at step 0) goes
        assert sorted(_export_dict(sess, emb)) == [1, 3, 4]
        sess.run(train, {ids: [5, 6]})   # 1 and 3 were seen at step 1, 4 at step 2
        assert sorted(_export_dict(sess, emb)) == [4, 5, 6]
        table = _tables(sess)["emb"]
        assert table.allocated_rows() == 16  # freed rows are reused, nothing grows
    # One batch of more distinct new ids than the capacity cannot be held.
    with pytest.raises(errors.InvalidArgumentError, match="more than capacity"):
        table.lookup(np.arange(10, 14), True)


def test_embedding_lookup_sparse_combines_like_a_numpy_reference():
    emb = de.get_variable("emb", DIM, initializer=tf.random_uniform_initializer(-1, 1, seed=4),
                          num_shards=2)
    sp = tf.sparse_placeholder(tf.int64, [3, 3])
    spw = tf.sparse_placeholder(tf.float32, [3, 3])
    ind = np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], np.int64)
    vals = np.array([5, 8, 5, 2, 2, 9], np.int64)
    wts = np.array([1.0, 2.0, 0.5, 1.5, 0.5, 3.0], np.float32)
    outs = {c: de.embedding_lookup_sparse(emb, sp, spw, combiner=c)
            for c in ("sum", "mean", "sqrtn")}
    unweighted = de.embedding_lookup_sparse(emb, sp, None, combiner="mean")
    feed = {sp: tf.SparseTensorValue(ind, vals, [3, 3]),
            spw: tf.SparseTensorValue(ind, wts, [3, 3])}
    with tf.Session() as sess:
        got = sess.run(outs, feed)
        got_mean = sess.run(unweighted, feed)
        table = _export_dict(sess, emb)
    rows = np.array([table[v] for v in vals])
    for c, res in got.items():
        exp = np.zeros((3, DIM))
        for r in range(3):
            sel = ind[:, 0] == r
            total = (rows[sel] * wts[sel, None]).sum(0)
            exp[r] = total / {"sum": 1.0, "mean": wts[sel].sum(),
                              "sqrtn": np.sqrt((wts[sel] ** 2).sum())}[c]
        np.testing.assert_allclose(res, exp, rtol=1e-5)
    exp_mean = np.array([rows[ind[:, 0] == r].mean(0) for r in range(3)])
    np.testing.assert_allclose(got_mean, exp_mean, rtol=1e-5)


def test_sparse_lookup_trains_each_occurrence_by_its_share_of_the_combination():
    emb = de.get_variable("emb", DIM, initializer=tf.constant_initializer(INIT),
                          partitioner=tf.fixed_size_partitioner(2))
    assert emb.num_shards == 2
    sp = tf.sparse_placeholder(tf.int64, [2, 3])
    spw = tf.sparse_placeholder(tf.float32, [2, 3])
    out = de.embedding_lookup_sparse(emb, sp, spw, combiner="mean")
    w = _weights(2)
    train = de.DynamicEmbeddingOptimizer(tf.train.GradientDescentOptimizer(1.0)).minimize(
        tf.reduce_sum(out * w))
    ind = np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64)
    vals = np.array([4, 7, 4, 7], np.int64)
    wts = np.array([1.0, 2.0, 3.0, 0.5], np.float32)
    with tf.Session() as sess:
        sess.run(train, {sp: tf.SparseTensorValue(ind, vals, [2, 3]),
                         spw: tf.SparseTensorValue(ind, wts, [2, 3])})
        table = _export_dict(sess, emb)
    # d loss / d row(id) = sum over its occurrences of w[row] * weight / sum of row weights.
    expected = {4: INIT - w[0] * (1.0 + 3.0) / 6.0, 7: INIT - w[0] * 2.0 / 6.0 - w[1]}
    assert sorted(table) == [4, 7]
    for k, v in expected.items():
        np.testing.assert_allclose(table[k], v, rtol=1e-6)


def test_two_ps_cluster_each_ps_holds_only_its_ids_and_training_converges(tmp_path):
    with local_cluster(ps=2, worker=1) as c:
        with tf.device(replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
            gs = tf.train.get_or_create_global_step()
            emb = de.get_variable("user", 4, num_shards=2, seed=7)
            ids = tf.placeholder(tf.int64, [None])
            label = tf.placeholder(tf.float32, [None])
            dense = tf.get_variable("w", [4, 1], initializer=tf.constant_initializer(0.5))
            logit = tf.reshape(tf.matmul(de.embedding_lookup(emb, ids), dense), [-1])
            loss = tf.reduce_mean(tf.square(logit - label))
            train = de.DynamicEmbeddingOptimizer(tf.train.AdagradOptimizer(0.3)).minimize(
                loss, global_step=gs)
            saver = tf.train.Saver()
        # Round robin: the global step took ps 0, so part_0 went to ps 1.
        assert [s.device for s in emb.shards] == ["/job:ps/task:1", "/job:ps/task:0"]
        rng = np.random.RandomState(0)
        all_ids = np.array([3, 10, 17, 24, 1001, 2**40 + 5])
        targets = {int(i): float(i % 3) - 1.0 for i in all_ids}
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            feed_all = {ids: all_ids, label: [targets[int(i)] for i in all_ids]}
            first = sess.run(loss, feed_all)
            for _ in range(60):
                b = rng.choice(all_ids, 8)
                sess.run(train, {ids: b, label: [targets[int(i)] for i in b]})
            last = sess.run(loss, feed_all)
            step = sess.run(gs)
            keys, vals = sess.run(emb.export())
            # Each ps writes its own checkpoint shard; restoring undoes later steps.
            path = saver.save(sess, str(tmp_path / "model"), global_step=gs)
            sess.run(train, {ids: [3, 99, 100], label: [1.0, 1.0, 1.0]})
            assert sess.run(emb.size()) == len(all_ids) + 2
            saver.restore(sess, path)
            keys2, vals2 = sess.run(emb.export())
        held = []
        for i in range(2):
            tables = [r for _, n, r in c.server("ps", i).worker.resources.items()
                      if isinstance(r, DynamicEmbeddingTable)]
            assert [t.name for t in tables] == [f"user/part_{1 - i}"]
            held.append(sorted(tables[0].export([], [], [])[0].tolist()))
            assert tables[0].step == 60
        worker_tables = [r for _, _, r in c.server("worker", 0).worker.resources.items()
                         if isinstance(r, DynamicEmbeddingTable)]
    assert step == 60 and not worker_tables
    assert held[1] == sorted(int(i) for i in all_ids if i % 2 == 0)
    assert held[0] == sorted(int(i) for i in all_ids if i % 2 == 1)
    assert sorted(keys.tolist()) == sorted(all_ids.tolist())
    np.testing.assert_array_equal(keys2, keys)
    np.testing.assert_array_equal(vals2, vals)
    shards = sorted(f.name for f in tmp_path.iterdir() if ".data-" in f.name)
    assert shards == ["model-60.data-00000-of-00002", "model-60.data-00001-of-00002"]
    assert last < 0.2 * first


def test_saver_round_trip_restores_rows_counts_steps_slots_and_pending(tmp_path):
    def build():
        emb, ids, out, w, train = _model(tf.train.AdamOptimizer(0.1), 4, num_shards=2,
                                         min_frequency=2, evict_after_steps=50)
        return emb, ids, out, train, tf.train.Saver()

    emb, ids, out, train, saver = build()
    with tf.Session() as sess:
        for b in ([1, 2, 3, 1], [2, 4, 6, 8], [1, 1, 5, 9]):
            sess.run(train, {ids: b})
        state = {n: t.export(["m", "v", "t"], [0, 0, 0], [0, 0, 1])
                 for n, t in _tables(sess).items()}
        path = saver.save(sess, str(tmp_path / "model"), global_step=3)
        sess.run(train, {ids: [7, 7, 7, 1]})
        saver.restore(sess, path)
        again = {n: t.export(["m", "v", "t"], [0, 0, 0], [0, 0, 1])
                 for n, t in _tables(sess).items()}
    tf.reset_default_graph()
    emb, ids, out, train, saver = build()
    with tf.Session() as sess:
        saver.restore(sess, path)
        fresh = {n: t.export(["m", "v", "t"], [0, 0, 0], [0, 0, 1])
                 for n, t in _tables(sess).items()}
        assert _tables(sess)["emb/part_1"].step == 3
    assert sorted(state) == ["emb/part_0", "emb/part_1"]
    assert state["emb/part_1"][0].tolist() == [1]       # 3, 5, 9: seen once, still pending
    assert state["emb/part_1"][5].tolist() == [3, 5, 9]
    for restored in (again, fresh):
        for name, arrays in state.items():
            for a, b in zip(arrays, restored[name]):
                np.testing.assert_array_equal(a, b)
    saved = dict(tf.train.list_variables(path))
    assert saved["emb/part_0-values"] == [len(state["emb/part_0"][0]), DIM]
    assert saved["emb/part_0-slot-t"] == [len(state["emb/part_0"][0]), 1]
    assert {f"emb/part_1-{f}" for f in ("keys", "frequencies", "last_seen_steps", "step",
                                         "pending_keys", "slot-m", "slot-v")} <= set(saved)


def test_string_keys_route_by_fingerprint_and_survive_a_checkpoint(tmp_path):
    emb = de.get_variable("words", 2, initializer=tf.zeros_initializer(), key_dtype=tf.string,
                          num_shards=2)
    ids = tf.placeholder(tf.string, [None])
    out = de.embedding_lookup(emb, ids)
    train = de.DynamicEmbeddingOptimizer(tf.train.GradientDescentOptimizer(1.0)).minimize(
        tf.reduce_sum(out))
    saver = tf.train.Saver({"vocab": emb})
    with tf.Session() as sess:
        sess.run(train, {ids: ["cat", "dog", "cat"]})
        keys, vals = sess.run(emb.export())
        path = saver.save(sess, str(tmp_path / "words"))
        sess.run(train, {ids: ["emu"]})
        saver.restore(sess, path)
        keys2, vals2 = sess.run(emb.export())
        got = sess.run(de.embedding_lookup(emb, ["dog", "cat", "yak"], training=False))
    table = dict(zip(keys.tolist(), vals.tolist()))
    assert table == {b"cat": [-2.0, -2.0], b"dog": [-1.0, -1.0]}
    saved = dict(tf.train.list_variables(path))
    assert saved["vocab/part_0-values"][1] == 2 and "vocab/part_1-keys" in saved
    assert dict(zip(keys2.tolist(), vals2.tolist())) == table
    np.testing.assert_array_equal(got, [[-1, -1], [-2, -2], [0, 0]])


def test_bad_arguments_raise_clear_errors():
    emb = de.get_variable("emb", DIM)
    with pytest.raises(ValueError, match="already exists"):
        de.get_variable("emb", DIM)
    with tf.variable_scope("", reuse=True):
        assert de.get_variable("emb", DIM) is emb
    with pytest.raises(TypeError, match="supports GradientDescentOptimizer"):
        de.DynamicEmbeddingOptimizer(tf.train.MomentumOptimizer(0.1, 0.9))
    with pytest.raises(TypeError, match="unsupported initializer"):
        de.get_variable("e2", DIM, initializer=tf.orthogonal_initializer())
    with pytest.raises(ValueError, match="'mod' only"):
        de.embedding_lookup(emb, [1], partition_strategy="div")
    with pytest.raises(ValueError, match="min_frequency"):
        de.get_variable("e3", DIM, min_frequency=-1)
    with pytest.raises(TypeError, match="key_dtype"):
        de.get_variable("e4", DIM, key_dtype=tf.float32)
    with pytest.raises(ValueError, match="unknown number of rows"):
        de.get_variable("e5", DIM, partitioner=tf.min_max_variable_partitioner(4))
    with pytest.raises(ValueError, match="not both"):
        de.get_variable("e6", DIM, num_shards=2, partitioner=tf.fixed_size_partitioner(2))
    table = DynamicEmbeddingTable("t", 2, tf.float32, tf.int64, "zeros", [], 0, 1, 0, 0)
    empty = np.zeros(0, np.int64)
    with pytest.raises(errors.InvalidArgumentError, match="dimension 2"):
        table.load(np.array([1, 2]), np.zeros((2, 3)), np.ones(2), np.ones(2), 0, empty,
                   empty, empty, {})


def test_a_4096_id_lookup_is_vectorised():
    table = DynamicEmbeddingTable("t", 16, tf.float32, tf.int64, "random_normal", [0, 1], 1,
                                  1, 0, 0)
    rng = np.random.RandomState(1)
    table.lookup(rng.randint(0, 10**9, 200_000), True)  # a table of ~200k rows
    batch = rng.randint(0, 10**9, 4096)
    table.lookup(batch, True)
    # Speed is measured in benchmarks/; here the batch path's results.
    np.testing.assert_array_equal(table.lookup(batch, False), table.lookup(batch, True))
    # Memory follows the live rows: arrays are the next power of two, not more.
    assert table.allocated_rows() <= 2 * table.size()
    assert find_table(type("R", (), {"find": lambda s, c, n: table})(), "", "t") is table


def test_monitored_training_session_checkpoints_and_resumes_the_table(tmp_path):
    def run(n_steps):
        tf.reset_default_graph()
        gs = tf.train.get_or_create_global_step()
        emb, ids, out, w, train = _model(tf.train.GradientDescentOptimizer(1.0), 2)
        step = tf.group(train, tf.assign_add(gs, 1))
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                               save_checkpoint_secs=None,
                                               save_checkpoint_steps=1) as sess:
            first = sess.run(out, {ids: [1, 2]})
            for _ in range(n_steps):
                sess.run(step, {ids: [1, 2]})
        return first, w

    first, w = run(2)
    np.testing.assert_allclose(first, np.full((2, DIM), INIT))
    resumed, _ = run(0)  # the new session starts from the checkpoint of step 2
    np.testing.assert_allclose(resumed, INIT - 2 * w, rtol=1e-6)
