"""Keras constraints (applied after each training step), regularizer classes,
activations and initializer names; RadialConstraint against tf_keras (Keras 2) outputs
for arange kernels."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend
C = keras.constraints


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def test_norm_constraints_against_numpy():
    rng = np.random.RandomState(0)
    w = rng.randn(4, 3).astype(np.float32) * 3
    norms = np.linalg.norm(w, axis=0, keepdims=True)
    np.testing.assert_allclose(K.eval(C.MaxNorm(2.0)(w)),
                               w * np.minimum(norms, 2.0) / (norms + 1e-7), rtol=1e-5)
    np.testing.assert_allclose(K.eval(C.UnitNorm(axis=1)(w)),
                               w / (np.linalg.norm(w, axis=1, keepdims=True) + 1e-7), rtol=1e-5)
    mm = C.MinMaxNorm(1.0, 2.0, rate=0.5)(w)
    want = 0.5 * np.clip(norms, 1, 2) + 0.5 * norms
    np.testing.assert_allclose(K.eval(mm), w * want / (norms + 1e-7), rtol=1e-5)
    np.testing.assert_array_equal(K.eval(C.non_neg()(w)), np.maximum(w, 0))


def test_radial_constraint_matches_keras():
    ref = {3: [[4, 4, 4], [4, 0, 4], [4, 4, 4]],
           4: [[15, 15, 15, 15], [15, 5, 5, 15], [15, 5, 5, 15], [15, 15, 15, 15]],
           5: [[18] * 5, [18, 12, 12, 12, 18], [18, 12, 6, 12, 18], [18, 12, 12, 12, 18],
               [18] * 5]}
    for n, want in ref.items():
        w = np.arange(n * n, dtype=np.float32).reshape(n, n, 1, 1)
        np.testing.assert_array_equal(K.eval(C.RadialConstraint()(w))[:, :, 0, 0], want)
    with pytest.raises(ValueError, match="k, k, in, out"):
        C.RadialConstraint()(np.zeros((3, 2, 1, 1), np.float32))


def test_constraint_applied_after_training_step():
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,),
                                                 kernel_constraint=C.non_neg())])
    model.compile(optimizer=keras.optimizers.SGD(1.0), loss="mse")
    x = np.ones((4, 3), np.float32)
    model.train_on_batch(x, -10 * np.ones((4, 2), np.float32))
    assert (model.get_weights()[0] >= 0).all()
    cfg = C.serialize(C.MaxNorm(3.0, axis=1))
    assert C.deserialize(cfg).get_config() == {"max_value": 3.0, "axis": 1}
    assert isinstance(C.get("unit_norm"), C.UnitNorm)
    with pytest.raises(ValueError, match="Unknown constraint"):
        C.get("nope")


def test_regularizer_classes_activations_initializers():
    R = keras.regularizers
    w = np.array([1.0, -2.0], np.float32)
    assert K.eval(R.L1(0.5)(w)) == pytest.approx(1.5)
    assert K.eval(R.L2(l2=0.1)(w)) == pytest.approx(0.5)
    again = R.deserialize(R.serialize(R.L1L2(l1=0.1, l2=0.2)))
    assert again.get_config() == {"l1": 0.1, "l2": 0.2}
    A = keras.activations
    x = np.array([-1.0, 0.5], np.float32)
    # tf_keras (Keras 2) values.
    np.testing.assert_allclose(K.eval(A.mish(x)), [-0.30340150, 0.37524524], rtol=1e-5)
    np.testing.assert_allclose(K.eval(A.swish(x)), [-0.26894143, 0.31122968], rtol=1e-5)
    assert A.deserialize("swish") is A.swish
    init = keras.initializers.deserialize({"class_name": "RandomUniform",
                                           "config": {"minval": 2.0, "maxval": 3.0}})
    vals = K.eval(init([100]))
    assert 2.0 <= vals.min() and vals.max() < 3.0
    assert keras.initializers.normal is keras.initializers.RandomNormal
