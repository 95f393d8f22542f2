"""Keras configs and files: layer/model configs round trip, model_from_json, clone_model,
HDF5 weights and model files (Keras 2 layout, read back by h5py), custom objects."""

import json

import h5py
import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    np.random.seed(0)
    yield
    K.clear_session()


def _functional():
    x = keras.Input(shape=(4,), name="features")
    h = keras.layers.Dense(5, activation="relu", kernel_regularizer=keras.regularizers.l2(0.01),
                           kernel_constraint=keras.constraints.MaxNorm(3.0), name="hidden")(x)
    a = keras.layers.Dense(2, name="a")(h)
    b = keras.layers.Dense(2, name="b")(x)
    out = keras.layers.Add(name="sum")([a, b])
    return keras.Model(x, out, name="net")


def test_layer_config_round_trip_with_nested_objects():
    layer = keras.layers.TimeDistributed(keras.layers.Conv1D(
        3, 2, kernel_initializer=keras.initializers.RandomNormal(stddev=0.2),
        bias_regularizer=keras.regularizers.L1(0.1)))
    cfg = keras.layers.serialize(layer)
    json.dumps(cfg)
    again = keras.layers.deserialize(cfg)
    assert type(again) is keras.layers.TimeDistributed
    inner = again.layer
    assert inner.filters == 3 and inner.kernel_initializer.stddev == pytest.approx(0.2)
    with pytest.raises(ValueError, match="cannot be written"):
        keras.layers.Lambda(lambda t: t * 2).get_config()
    with pytest.raises(ValueError, match="Unknown layer"):
        keras.layers.deserialize({"class_name": "NoSuchLayer", "config": {}})


def test_functional_model_json_and_clone_have_same_architecture():
    model = _functional()
    xv = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    again = keras.models.model_from_json(model.to_json())
    assert [l.name for l in again.layers] == [l.name for l in model.layers]
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(again.predict(xv), model.predict(xv), rtol=1e-6)
    clone = keras.models.clone_model(model)
    assert [type(l) for l in clone.layers] == [type(l) for l in model.layers]
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone.predict(xv), model.predict(xv), rtol=1e-6)
    with pytest.raises(ValueError, match="not a JSON model config"):
        keras.models.model_from_json("{not json")


def test_sequential_h5_model_file_round_trip_with_optimizer(tmp_path):
    rng = np.random.RandomState(1)
    x, y = rng.randn(16, 3).astype(np.float32), rng.randn(16, 2).astype(np.float32)
    model = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse",
                  metrics=["mae", keras.metrics.RootMeanSquaredError(name="rmse")])
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    with h5py.File(path, "r") as f:
        assert json.loads(f.attrs["model_config"])["class_name"] == "Sequential"
        names = [n.decode() for n in f["model_weights"].attrs["layer_names"]]
        assert names == [l.name for l in model.layers]
        dense = model.layers[0].name
        np.testing.assert_array_equal(f["model_weights"][dense][dense]["kernel:0"][()],
                                      model.layers[0].get_weights()[0])
        assert "optimizer_weights" in f
    expected = model.predict(x)
    names = model.metrics_names
    before_opt = K.batch_get_value(model.optimizer.variables())
    K.clear_session()
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-6)
    assert loaded.metrics_names == names and names[-1] == "rmse"
    after_opt = K.batch_get_value(loaded.optimizer.variables())
    assert len(after_opt) == len(before_opt)
    for a, b in zip(after_opt, before_opt):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    loaded.fit(x, y, batch_size=8, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="HDF5"):
        keras.models.save_model(loaded, str(tmp_path / "model_dir"))


def test_h5_weights_in_order_and_by_name(tmp_path):
    model = _functional()
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    other = _functional()
    other.load_weights(path)
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    partial = keras.Sequential([keras.layers.Dense(2, input_shape=(4,), name="b")])
    partial.load_weights(path, by_name=True)
    np.testing.assert_array_equal(partial.get_weights()[0], model.get_layer("b").get_weights()[0])
    wrong = keras.Sequential([keras.layers.Dense(7, input_shape=(4,), name="b")])
    with pytest.raises(ValueError, match="shape"):
        wrong.load_weights(path, by_name=True)


def test_custom_objects_registry_and_scope():
    @keras.saving.register_keras_serializable(package="Test")
    class Scale(keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, inputs):
            return inputs * self.factor

    assert keras.saving.get_registered_name(Scale) == "Test>Scale"
    cfg = keras.saving.serialize_keras_object(Scale(3.0))
    assert cfg["class_name"] == "Test>Scale" and cfg["config"]["factor"] == 3.0
    again = keras.saving.deserialize_keras_object(cfg)
    assert isinstance(again, Scale) and again.factor == 3.0
    assert keras.saving.get_registered_object("Test>Scale") is Scale

    def my_act(x):
        return x
    with keras.saving.custom_object_scope({"my_act": my_act}):
        assert keras.saving.get_registered_object("my_act") is my_act
    assert keras.saving.get_registered_object("my_act") is None
    del keras.saving.get_custom_objects()["Test>Scale"]
