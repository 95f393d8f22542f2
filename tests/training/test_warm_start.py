"""tf.train.warm_start and Estimator(warm_start_from=...): selected variables start from
another checkpoint (renamed, partitioned alike or not); the others keep their initializer."""

import numpy as np
import pytest

import tensorfleet as tf

W = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
B = np.array([7.0, 8.0, 9.0], np.float32)
EMB = np.arange(12, dtype=np.float32).reshape(6, 2) * 0.5


def _save_source(path, emb_parts=2):
    """A checkpoint with w, b and a partitioned emb (emb_parts parts; 0: unpartitioned)."""
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("w", initializer=tf.constant(W))
        tf.get_variable("b", initializer=tf.constant(B))
        tf.get_variable("step_count", initializer=tf.constant(5), trainable=False)
        part = tf.fixed_size_partitioner(emb_parts) if emb_parts else None
        tf.get_variable("emb", initializer=tf.constant(EMB), partitioner=part)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            (path / "src").mkdir(exist_ok=True)
            return saver.save(sess, str(path / "src" / "model.ckpt"), global_step=3)


def _values(names):
    by_name = {v.op.name: v for v in tf.global_variables()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run({n: by_name[n] for n in names})


def test_regex_selects_trainable_variables_others_keep_initializer(tmp_path):
    ckpt = _save_source(tmp_path)
    tf.get_variable("w", [2, 3], initializer=tf.zeros_initializer())
    tf.get_variable("b", [3], initializer=tf.ones_initializer())
    tf.get_variable("step_count", [], tf.int32, initializer=tf.zeros_initializer(),
                    trainable=False)
    tf.train.warm_start(ckpt, vars_to_warm_start="w|step_count")
    got = _values(["w", "b", "step_count"])
    np.testing.assert_array_equal(got["w"], W)
    np.testing.assert_array_equal(got["b"], np.ones(3, np.float32))
    assert got["step_count"] == 0  # a string regex only considers trainable variables


def test_list_of_regexes_covers_global_variables_and_directory_resolves(tmp_path):
    _save_source(tmp_path)
    tf.get_variable("step_count", [], tf.int32, initializer=tf.zeros_initializer(),
                    trainable=False)
    tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    tf.train.warm_start(str(tmp_path / "src"), vars_to_warm_start=["step_count"])
    got = _values(["step_count", "b"])
    assert got["step_count"] == 5
    np.testing.assert_array_equal(got["b"], np.zeros(3, np.float32))


def test_renamed_variables_read_their_previous_names(tmp_path):
    ckpt = _save_source(tmp_path)
    with tf.variable_scope("new"):
        tf.get_variable("kernel", [2, 3], initializer=tf.zeros_initializer())
    tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    tf.train.warm_start(ckpt, vars_to_warm_start=".*",
                        var_name_to_prev_var_name={"new/kernel": "w"})
    got = _values(["new/kernel", "b"])
    np.testing.assert_array_equal(got["new/kernel"], W)
    np.testing.assert_array_equal(got["b"], B)


@pytest.mark.parametrize("src_parts,new_parts", [(2, 2), (2, 3), (0, 3), (3, 0)])
def test_partitioned_variables_any_partitioning(tmp_path, src_parts, new_parts):
    ckpt = _save_source(tmp_path, emb_parts=src_parts)
    part = tf.fixed_size_partitioner(new_parts) if new_parts else None
    emb = tf.get_variable("emb", [6, 2], initializer=tf.zeros_initializer(), partitioner=part)
    tf.train.warm_start(ckpt, vars_to_warm_start="emb")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        full = sess.run(tf.convert_to_tensor(emb) if new_parts else emb)
    np.testing.assert_array_equal(full, EMB)


def test_bad_settings_raise(tmp_path):
    ckpt = _save_source(tmp_path)
    tf.get_variable("w", [2, 3])
    tf.get_variable("missing", [1])
    tf.get_variable("b", [4])
    with pytest.raises(ValueError, match="vocabulary"):
        tf.train.warm_start(ckpt, "w", var_name_to_vocab_info={
            "w": tf.estimator.VocabInfo("new.txt", 3, 0, "old.txt")})
    with pytest.raises(ValueError, match="missing"):
        tf.train.warm_start(ckpt, "missing")
    with pytest.raises(ValueError, match="shape"):
        tf.train.warm_start(ckpt, "b")
    with pytest.raises(ValueError, match="not warm-started.*nothing"):
        tf.train.warm_start(ckpt, "w", var_name_to_prev_var_name={"nothing": "w"})
    with pytest.raises(ValueError, match="no checkpoint"):
        tf.train.warm_start(str(tmp_path), "w")
    with pytest.raises(ValueError, match="WarmStartSettings"):
        tf.estimator.Estimator(lambda features: None, warm_start_from=3)


class _InitialValues(tf.train.SessionRunHook):
    """Records the variables' values when the session is created (step 0)."""

    def __init__(self):
        self.values = None

    def begin(self):
        self._vars = {v.op.name: v for v in tf.global_variables()}

    def after_create_session(self, session, coord):
        self.values = session.run(self._vars)


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.constant_initializer(0.25))
    pred = tf.matmul(features["x"], w) + b
    loss = tf.reduce_mean(tf.square(pred - labels))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, predictions=pred, loss=loss, train_op=train)


def _input_fn():
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    return {"x": tf.constant(x)}, tf.constant([[1.0], [2.0]])


def test_estimator_warm_starts_only_without_own_checkpoint(tmp_path):
    src = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "src"))
    src.train(_input_fn, steps=3)
    src_w, src_b = src.get_variable_value("w"), src.get_variable_value("b")
    assert np.abs(src_w).sum() > 0
    est = tf.estimator.Estimator(
        _model_fn, model_dir=str(tmp_path / "dst"),
        warm_start_from=tf.estimator.WarmStartSettings(str(tmp_path / "src"),
                                                       vars_to_warm_start="w"))
    hook = _InitialValues()
    est.train(_input_fn, steps=2, hooks=[hook])
    np.testing.assert_array_equal(hook.values["w"], src_w)
    np.testing.assert_array_equal(hook.values["b"], [0.25])
    assert hook.values["global_step"] == 0
    trained_w = est.get_variable_value("w")
    again = _InitialValues()
    est.train(_input_fn, steps=1, hooks=[again])  # resumes its own checkpoint
    np.testing.assert_array_equal(again.values["w"], trained_w)
    assert again.values["global_step"] == 2
    # A plain path warm-starts every trainable variable.
    whole = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "all"),
                                   warm_start_from=src.latest_checkpoint())
    third = _InitialValues()
    whole.train(_input_fn, steps=1, hooks=[third])
    np.testing.assert_array_equal(third.values["b"], src_b)
    np.testing.assert_array_equal(third.values["w"], src_w)


def test_canned_estimator_passes_warm_start_from(tmp_path):
    cols = [tf.feature_column.numeric_column("x", shape=[2])]
    src = tf.estimator.LinearRegressor(cols, model_dir=str(tmp_path / "src"))
    src.train(_input_fn, steps=2)
    dst = tf.estimator.LinearRegressor(cols, model_dir=str(tmp_path / "dst"),
                                       warm_start_from=str(tmp_path / "src"))
    hook = _InitialValues()
    dst.train(_input_fn, steps=1, hooks=[hook])
    names = [n for n in hook.values if n.endswith("weights/part_0")]
    assert len(names) == 2
    for n in names:
        # Checkpoints hold a partitioned variable under its full name (here one part).
        full = n[:-len("/part_0")]
        np.testing.assert_array_equal(hook.values[n], src.get_variable_value(full))
    assert any(np.abs(hook.values[n]).sum() > 0 for n in names)
