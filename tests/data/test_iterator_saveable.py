"""tf.data.experimental.make_saveable_from_iterator: an iterator's position saved and
restored by tf.train.Saver."""

import logging

import pytest

import tensorfleet as tf

E = tf.data.experimental


def _build(one_shot=True, policy=None, seed=7):
    ds = tf.data.Dataset.range(20).shuffle(5, seed=seed).map(lambda x: x * 2).batch(3)
    it = ds.make_one_shot_iterator() if one_shot else ds.make_initializable_iterator()
    nxt = it.get_next()
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                         E.make_saveable_from_iterator(it, policy))
    tf.Variable(3.0, name="v")
    return it, nxt, tf.train.Saver()


@pytest.mark.parametrize("one_shot", [True, False])
def test_a_restored_iterator_continues_where_it_was_saved(tmp_path, one_shot):
    prefix = str(tmp_path / "model")
    with tf.Graph().as_default():
        it, nxt, saver = _build(one_shot)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            if not one_shot:
                s.run(it.initializer)
            [s.run(nxt) for _ in range(2)]
            path = saver.save(s, prefix)
            after = [s.run(nxt).tolist() for _ in range(3)]
    assert dict(tf.train.list_variables(path))["IteratorSaveable/position"] == []
    with tf.Graph().as_default():
        it, nxt, saver = _build(one_shot)
        with tf.Session() as s:
            if not one_shot:
                s.run(it.initializer)
            saver.restore(s, path)
            assert [s.run(nxt).tolist() for _ in range(3)] == after
            assert [len(s.run(nxt)) for _ in range(2)] == [3, 2]  # 20 elements, 7 batches
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(nxt)


def test_restore_before_initialization_and_external_state(tmp_path, caplog):
    with tf.Graph().as_default():
        it, nxt, saver = _build(one_shot=False)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(it.initializer)
            path = saver.save(s, str(tmp_path / "m"))
    with tf.Graph().as_default():
        _, _, saver = _build(one_shot=False)
        with tf.Session() as s:
            with pytest.raises(tf.errors.FailedPreconditionError, match="initializer"):
                saver.restore(s, path)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="shuffle without a seed"):
            _build(seed=None)
    with tf.Graph().as_default(), caplog.at_level(logging.WARNING):
        _build(seed=None, policy="warn")
    assert "shuffle without a seed" in caplog.text
    with tf.Graph().as_default():
        _build(seed=None, policy=E.ExternalStatePolicy.IGNORE)
        with pytest.raises(ValueError, match="external_state_policy"):
            _build(policy="sometimes")
        with pytest.raises(TypeError, match="Iterator"):
            E.make_saveable_from_iterator(tf.data.Dataset.range(2))
