"""A checkpoint named model.ckpt-N holds global step N, even when another worker's
step lands between reading the global step and writing the variables."""

import numpy as np

import tensorfleet as tf


class _RacingSession:
    """A session where another worker's step lands right after each read of the
    global step alone (what async training does at the worst moment)."""

    def __init__(self, sess, step, bump):
        self._sess, self._step, self._bump = sess, step, bump

    def run(self, fetches, feed_dict=None, **kw):
        if fetches is self._step:
            value = self._sess.run(self._step)
            self._sess.run(self._bump)
            return value
        return self._sess.run(fetches, feed_dict, **kw)


def test_the_name_and_the_content_agree(tmp_path):
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        bump = tf.assign_add(step, 1)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(step, 41))
            racing = _RacingSession(sess, step, bump)
            prefix = saver.save(racing, str(tmp_path / "model.ckpt"), global_step=step)
            named = int(prefix.rsplit("-", 1)[1])
            held = int(tf.train.load_variable(prefix, "global_step"))
            assert named == held
            assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
            # Saving again at the same step keeps one loadable checkpoint of that name.
            again = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
            assert again == prefix
            saver.restore(sess, again)
            assert sess.run(step) == held


def test_an_int_step_or_a_step_this_saver_does_not_write_still_names_it(tmp_path):
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        counter = tf.Variable(7, name="counter")
        saver = tf.train.Saver([w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert saver.save(sess, str(tmp_path / "a"), global_step=3).endswith("a-3")
            assert saver.save(sess, str(tmp_path / "b"), global_step=counter).endswith("b-7")
            np.testing.assert_array_equal(
                tf.train.load_variable(str(tmp_path / "b-7"), "w"), [1, 1])
