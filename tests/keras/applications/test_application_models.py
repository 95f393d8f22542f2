"""tf.keras.applications builders with weights=None: the published architectures, checked
by their parameter counts (those of Keras's models, from the architecture tables), output
shapes and layer names, at the smallest input sizes the models accept; argument checks;
and weights='imagenet' read from the Keras cache."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
apps = keras.applications
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


# Parameter counts of Keras's models (1000 classes); the GAP-headed models have the same
# count at any input size, so they are built at the minimum size.
@pytest.mark.parametrize("builder,size,params,n_layers", [
    ("ResNet50", 32, 25_636_712, 177),
    ("Xception", 71, 22_910_480, 134),
    ("InceptionV3", 75, 23_851_784, 313),
])
def test_architecture_matches_keras(builder, size, params, n_layers):
    model = getattr(apps, builder)(weights=None, input_shape=(size, size, 3))
    assert model.count_params() == params
    assert len(model.layers) == n_layers
    assert model.output_shape == (None, 1000)
    assert model.layers[-1].name == "predictions"


def test_vgg_flattens_224_pixel_images_into_4096_unit_layers():
    vgg16 = apps.VGG16(weights=None)
    assert vgg16.count_params() == 138_357_544
    assert vgg16.input_shape == (None, 224, 224, 3)
    assert [l.name for l in vgg16.layers[-4:]] == ["flatten", "fc1", "fc2", "predictions"]
    assert apps.vgg19.VGG19(weights=None).count_params() == 143_667_240


def test_without_top_pooling_and_classes():
    base = apps.ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3))
    assert base.output_shape == (None, 2, 2, 2048)
    assert base.count_params() == 23_587_712
    assert apps.VGG16(weights=None, include_top=False, pooling="max",
                      input_shape=(32, 32, 3)).output_shape == (None, 512)
    m = apps.MobileNetV2(weights=None, classes=7, input_shape=(32, 32, 3),
                         classifier_activation=None)
    assert m.output_shape == (None, 7)
    assert m.count_params() == 2_257_984 + 1280 * 7 + 7
    # no top and no input shape: any image size
    assert apps.VGG19(weights=None, include_top=False).input_shape == (None, None, None, 3)


def test_builds_on_a_given_input_tensor():
    images = keras.Input((32, 32, 3))
    m = apps.MobileNet(weights=None, include_top=False, input_tensor=images, pooling="avg",
                       alpha=0.25)
    assert m.inputs == [images] and m.output_shape == (None, 256)
    plain = tf.placeholder(tf.float32, [None, 32, 32, 3])
    m2 = apps.VGG16(weights=None, include_top=False, input_tensor=plain)
    assert m2.output_shape == (None, 1, 1, 512)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="`weights` argument"):
        apps.VGG16(weights="imagenet21k")
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        apps.ResNet50(classes=10)
    with pytest.raises(ValueError, match="at least 32x32"):
        apps.ResNet50(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="at least 75x75"):
        apps.InceptionV3(weights=None, include_top=False, input_shape=(74, 74, 3))
    with pytest.raises(ValueError, match=r"should be \(224, 224, 3\)"):
        apps.VGG16(input_shape=(32, 32, 3))
    with pytest.raises(ValueError, match="pooling must be"):
        apps.VGG16(weights=None, include_top=False, pooling="sum")
    with pytest.raises(ValueError, match="classifier_activation"):
        apps.ResNet50(classifier_activation="relu")
    with pytest.raises(ValueError, match="static `input_shape`"):
        apps.VGG16(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="unknown arguments"):
        apps.ResNet50(weights=None, layers=keras.layers)


def test_imagenet_weights_absent_from_the_cache_name_file_and_url(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError,
                       match=r"\.keras/models/vgg16_weights_tf_dim_ordering_tf_kernels_notop"
                             r"\.h5.*https://storage\.googleapis\.com/tensorflow/"
                             r"keras-applications/vgg16/"):
        apps.VGG16(include_top=False, input_shape=(32, 32, 3))
