"""Keras optimizers (Adadelta, Adamax, Ftrl, Nadam, the legacy namespace) and learning
rate schedules against values TensorFlow 2.21's tf_keras (Keras 2) gives for the same
steps (the legacy optimizers on loss sum(c * v^2), c = [1, 2, 3], three steps, lr 0.1)."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend

REFERENCE = {
    "Nadam": [0.7527292966842651, -1.7475085258483887, 0.26472705602645874],
    "Adamax": [0.7154995203018188, -1.7076482772827148, 0.2309097945690155],
    "Adadelta": [0.999570906162262, -1.9995709657669067, 0.4995709955692291],
    "Ftrl": [0.637889564037323, -1.6993986368179321, 0.24821509420871735],
}


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_optimizer_steps_match_keras(name):
    v = tf.Variable([1.0, -2.0, 0.5])
    loss = tf.reduce_sum(v * v * tf.constant([1.0, 2.0, 3.0]))
    opt = getattr(keras.optimizers.legacy, name)(learning_rate=0.1)
    assert type(opt) is getattr(keras.optimizers, name)
    step = opt.minimize(loss, var_list=[v], global_step=opt.iterations)
    sess = K.get_session()
    sess.run(tf.variables_initializer([v] + opt.variables()))
    for _ in range(3):
        sess.run(step)
    np.testing.assert_allclose(sess.run(v), REFERENCE[name], rtol=1e-5, atol=1e-6)
    assert sess.run(opt.iterations) == 3


def test_schedules_match_keras():
    s = keras.optimizers.schedules
    sess = K.get_session()

    def values(sched, steps):
        return [sess.run(sched(tf.constant(x))) for x in steps]
    np.testing.assert_allclose(values(s.CosineDecayRestarts(1.0, 10, alpha=0.1),
                                      [0, 5, 10, 15, 25, 31]),
                               [1.0, 0.55, 1.0, 0.8681981, 0.23180196, 0.9986128], rtol=1e-5)
    np.testing.assert_allclose(values(s.CosineDecay(1.0, 10, alpha=0.1, warmup_target=2.0,
                                                    warmup_steps=4), [0, 2, 4, 9, 20]),
                               [1.0, 1.5, 2.0, 1.1, 0.2], rtol=1e-5)
    np.testing.assert_allclose(values(s.PolynomialDecay(1.0, 10, 0.1, power=2, cycle=True),
                                      [0, 5, 10, 15]), [1.0, 0.325, 0.1, 0.15625], rtol=1e-5)
    np.testing.assert_allclose(values(s.PiecewiseConstantDecay([3, 6], [1.0, 0.5, 0.1]),
                                      [0, 3, 4, 6, 7]), [1.0, 1.0, 0.5, 0.5, 0.1], rtol=1e-6)
    np.testing.assert_allclose(values(s.ExponentialDecay(1.0, 4, 0.5, staircase=True),
                                      [3, 4, 9]), [1.0, 0.5, 0.25], rtol=1e-6)
    np.testing.assert_allclose(values(s.InverseTimeDecay(1.0, 2, 1.0), [0, 2, 6]),
                               [1.0, 0.5, 0.25], rtol=1e-6)
    cfg = s.serialize(s.ExponentialDecay(0.1, 10, 0.9))
    assert s.deserialize(cfg).get_config()["decay_rate"] == 0.9


def test_schedule_drives_sgd_in_fit():
    x = np.ones((4, 1), np.float32)
    model = keras.Sequential([keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros",
                                                 input_shape=(1,))])
    sched = keras.optimizers.schedules.PiecewiseConstantDecay([0], [1.0, 0.0])
    model.compile(optimizer=keras.optimizers.SGD(sched), loss="mse")
    model.fit(x, x, batch_size=4, epochs=3, verbose=0)
    # Step 0 at rate 1 (w: 0 -> 2), then rate 0: the weight stays.
    np.testing.assert_allclose(model.get_weights()[0], [[2.0]], rtol=1e-6)
    opt = keras.optimizers.deserialize(keras.optimizers.serialize(keras.optimizers.SGD(sched)))
    assert isinstance(opt, keras.optimizers.SGD)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        keras.optimizers.deserialize({"class_name": "Lion", "config": {}})
