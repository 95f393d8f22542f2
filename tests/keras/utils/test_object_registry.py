"""tf.keras.utils: registering custom objects, custom-object scopes, and serializing
objects to configs and back (current and TF 1.x formats)."""

import pytest

import tensorfleet as tf

keras = tf.keras
utils = keras.utils


@pytest.fixture(autouse=True)
def _registry():
    before = dict(utils.get_custom_objects())
    yield
    objects = utils.get_custom_objects()
    objects.clear()
    objects.update(before)
    keras.backend.clear_session()


def test_register_keras_serializable_names_and_finds_a_class():
    @utils.register_keras_serializable(package="TestPkg")
    class Scale(keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def get_config(self):
            return {"factor": self.factor}

    assert utils.get_registered_name(Scale) == "TestPkg>Scale"
    assert utils.get_registered_object("TestPkg>Scale") is Scale
    assert utils.get_registered_name(keras.layers.Dense) == "Dense"
    config = utils.serialize_keras_object(Scale(3.0))
    assert config["registered_name"] == "TestPkg>Scale" and config["config"] == {"factor": 3.0}
    back = utils.deserialize_keras_object(config)
    assert isinstance(back, Scale) and back.factor == 3.0
    with pytest.raises(ValueError, match="already been registered"):
        utils.register_keras_serializable(package="TestPkg")(Scale)
    with pytest.raises(ValueError, match="get_config"):
        utils.register_keras_serializable()(type("NoConfig", (), {}))


def test_custom_object_scope_resolves_names_inside_the_block_only():
    def my_activation(x):
        return x

    assert utils.get_registered_object("my_activation") is None
    with utils.custom_object_scope({"my_activation": my_activation}):
        assert utils.get_registered_object("my_activation") is my_activation
        assert utils.deserialize_keras_object("my_activation") is my_activation
        with utils.CustomObjectScope({"other": 1}):
            assert utils.get_registered_object("my_activation") is my_activation
    assert utils.get_registered_object("my_activation") is None
    with pytest.raises(ValueError, match="Unknown object: 'my_activation'"):
        utils.deserialize_keras_object("my_activation")
    utils.get_custom_objects()["my_activation"] = my_activation
    assert utils.legacy.deserialize_keras_object("my_activation") is my_activation


def test_keras_classes_round_trip_through_both_formats():
    init = keras.initializers.RandomNormal(stddev=0.3)
    config = utils.serialize_keras_object(init)
    assert config["class_name"] == "RandomNormal" and config["config"]["stddev"] == 0.3
    back = utils.deserialize_keras_object(config)
    assert isinstance(back, keras.initializers.RandomNormal) and back.stddev == 0.3
    legacy = utils.legacy.serialize_keras_object(keras.regularizers.l2(0.1))
    assert set(legacy) == {"class_name", "config"} and legacy["config"]["l2"] == 0.1
    assert utils.legacy.deserialize_keras_object(legacy).l2 == pytest.approx(0.1)
    assert utils.legacy.serialize_keras_object(keras.activations.relu) == "relu"
    # a class named alone is instantiated, as TF 1.x Keras does
    assert isinstance(utils.legacy.deserialize_keras_object("Zeros"),
                      keras.initializers.Zeros)
    with pytest.raises(ValueError, match="safe_mode"):
        utils.deserialize_keras_object(config, safe_mode=False)
    with pytest.raises(ValueError, match="Cannot serialize"):
        utils.serialize_keras_object(object())
