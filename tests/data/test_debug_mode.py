"""tf.data.experimental.enable_debug_mode: every map runs element by element in the
iterator's kernel."""

import tensorfleet as tf
from tensorfleet.data import debug_mode


def _pipeline():
    return tf.data.Dataset.range(5).map(lambda x: x * 10).map(
        lambda x: tf.cast(x, tf.float32) / 4.0).batch(2)


def test_debug_mode_runs_every_map_in_the_kernel():
    normal = [b.tolist() for b in tf.data.NumpyIterator(_pipeline())]
    with tf.Graph().as_default():
        assert len(_pipeline().make_one_shot_iterator()._plan.maps) == 2
    try:
        tf.data.experimental.enable_debug_mode()
        assert debug_mode.debug_mode_enabled()
        with tf.Graph().as_default():
            plan = _pipeline().make_one_shot_iterator()._plan
            assert plan.maps == [] and [s["op"] for s in plan.stages] == ["map", "map",
                                                                          "batch"]
        debug = [b.tolist() for b in tf.data.NumpyIterator(_pipeline())]
    finally:
        debug_mode._set_debug_mode(False)
    assert debug == normal == [[0.0, 2.5], [5.0, 7.5], [10.0]]
