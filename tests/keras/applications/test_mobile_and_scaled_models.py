"""tf.keras.applications: the mobile, compound-scaled and modern architectures (MobileNet
V1-V3, EfficientNet V1/V2, RegNet, ConvNeXt, ResNet-RS) against Keras's parameter counts;
forward passes of small ones; weights='imagenet' read from a Keras .h5 file in the
cache."""

import h5py
import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.keras.applications import convnext, nasnet, regnet

keras = tf.keras
apps = keras.applications
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


# Keras's counts (1000 classes, with and without the top); these models end in global
# pooling, so the counts do not depend on the input size and a small input is used.
@pytest.mark.parametrize("builder,params,notop,n_layers", [
    ("MobileNet", 4_253_864, 3_228_864, 91),
    ("MobileNetV2", 3_538_984, None, 156),
    ("MobileNetV3Small", 2_554_968, None, None),
    ("EfficientNetB0", 5_330_571, None, None),
    ("EfficientNetV2B0", 7_200_312, None, 273),
    ("RegNetY002", 3_183_844, None, 197),
    ("ConvNeXtTiny", 28_589_128, None, 153),
])
def test_architecture_matches_keras(builder, params, notop, n_layers):
    model = getattr(apps, builder)(weights=None, input_shape=(32, 32, 3))
    assert model.count_params() == params
    assert model.output_shape == (None, 1000)
    if n_layers is not None:
        assert len(model.layers) == n_layers
    if notop is not None:
        K.clear_session()
        base = getattr(apps, builder)(weights=None, include_top=False,
                                      input_shape=(32, 32, 3))
        assert base.count_params() == notop


def test_mobilenet_width_and_forward_pass():
    model = apps.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), alpha=0.75,
                                  minimalistic=True, classes=5)
    images = np.random.RandomState(0).randint(0, 255, (2, 32, 32, 3)).astype(np.float32)
    probs = model.predict(images)
    assert probs.shape == (2, 5)
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-5)
    assert apps.mobilenet_v3.preprocess_input(images) is images  # rescaled in the model
    small = apps.MobileNetV2(weights=None, alpha=0.35, include_top=False, pooling="avg",
                             input_shape=(32, 32, 3))
    assert small.output_shape == (None, 1280)
    with pytest.raises(ValueError, match="alpha can be one of"):
        apps.MobileNet(alpha=0.3, include_top=False, input_shape=(32, 32, 3))


def test_grouped_and_depthwise_models_run():
    # a small ConvNeXt (7x7 depthwise as grouped convolution, layer scale, stochastic
    # depth) and a RegNet-Y (grouped 3x3 and squeeze-excite) on real inputs
    x = np.random.RandomState(1).rand(2, 32, 32, 3).astype(np.float32) * 255
    cnx = convnext.ConvNeXt((1, 1, 1, 1), (8, 16, 24, 32), drop_path_rate=0.5,
                                      weights=None, input_shape=(32, 32, 3), classes=3)
    out = cnx.predict(x)
    assert out.shape == (2, 3) and np.all(np.isfinite(out))
    rgn = regnet.RegNet((1, 1, 1, 1), (8, 16, 24, 32), 8, "Y", 32, weights=None,
                                input_shape=(32, 32, 3), classes=4)
    assert rgn.predict(x).shape == (2, 4)
    with pytest.raises(ValueError, match="block_type"):
        regnet.RegNet((1, 1, 1, 1), (8, 16, 24, 32), 8, "Z", 32, weights=None)


def test_a_small_nasnet_matches_keras_and_runs():
    # NASNet-A cells at a small width (Keras's count for the same arguments: 27,411)
    model = nasnet.NASNet(input_shape=(32, 32, 3), penultimate_filters=96, num_blocks=1,
                          stem_block_filters=8, skip_reduction=False, weights=None,
                          classes=5, default_size=224)
    assert model.count_params() == 27_411 and len(model.layers) == 363
    out = model.predict(np.random.RandomState(2).rand(1, 32, 32, 3).astype(np.float32))
    np.testing.assert_allclose(out.sum(), 1, rtol=1e-5)
    with pytest.raises(ValueError, match="multiple of 24"):
        nasnet.NASNet(penultimate_filters=100, weights=None)


def test_resnet_rs_weight_variants():
    assert apps.ResNetRS50(weights=None, input_shape=(32, 32, 3)).count_params() == \
        35_745_288
    with pytest.raises(ValueError, match=r"imagenet-i160"):
        apps.ResNetRS50(weights="imagenet-i224", input_shape=(32, 32, 3))


def _write_keras_h5(path, model):
    # Keras's weights layout: root attribute layer_names; per layer a group with the
    # attribute weight_names and one dataset per weight
    rng = np.random.RandomState(3)
    expected = {}
    with h5py.File(path, "w") as f:
        names = [l.name for l in model.layers]
        f.attrs["layer_names"] = np.array([n.encode() for n in names])
        for layer in model.layers:
            g = f.create_group(layer.name)
            wnames = [w.name for w in layer.weights]
            g.attrs["weight_names"] = np.array([n.encode() for n in wnames])
            arrays = [rng.rand(*w.shape.as_list()).astype(np.float32) for w in layer.weights]
            for n, a in zip(wnames, arrays):
                g.create_dataset(n, data=a)
            expected[layer.name] = arrays
    return expected


def test_imagenet_weights_are_read_from_the_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    kwargs = dict(alpha=0.25, include_top=False, input_shape=(128, 128, 3))
    template = apps.MobileNet(weights=None, **kwargs)
    models = tmp_path / ".keras" / "models"
    models.mkdir(parents=True)
    expected = _write_keras_h5(models / "mobilenet_2_5_128_tf_no_top.h5", template)
    K.clear_session()
    model = apps.MobileNet(weights="imagenet", **kwargs)
    for layer in model.layers:
        for got, want in zip(layer.get_weights(), expected[layer.name]):
            np.testing.assert_array_equal(got, want)
    assert any(expected[l.name] for l in model.layers)
    K.clear_session()
    # a weights file given by path
    again = apps.MobileNet(weights=str(models / "mobilenet_2_5_128_tf_no_top.h5"), **kwargs)
    np.testing.assert_array_equal(again.get_layer("conv1").get_weights()[0],
                                  expected["conv1"][0])
    K.clear_session()
    with pytest.raises(ValueError, match="holds arrays of shapes"):
        apps.MobileNet(weights=str(models / "mobilenet_2_5_128_tf_no_top.h5"), alpha=0.25,
                       include_top=False, input_shape=(128, 128, 3), depth_multiplier=2)
