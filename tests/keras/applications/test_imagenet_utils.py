"""tf.keras.applications.imagenet_utils: the three preprocessing conventions on arrays
and tensors, and decoding predictions with the class index from the Keras cache."""

import json

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


def _batch():
    return np.arange(2 * 2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 2, 3) * 10


def test_caffe_mode_flips_to_bgr_and_subtracts_the_channel_means():
    x = _batch()
    out = apps.imagenet_utils.preprocess_input(x)  # caffe is the default
    assert out.dtype == np.float32
    expected = x[..., ::-1].astype(np.float32) - np.array([103.939, 116.779, 123.68],
                                                          np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    np.testing.assert_array_equal(x, _batch())  # the input is left as it was
    assert apps.vgg16.preprocess_input is not apps.imagenet_utils.preprocess_input
    np.testing.assert_allclose(apps.vgg16.preprocess_input(x), expected, rtol=1e-6)
    np.testing.assert_allclose(apps.resnet50.preprocess_input(x), expected, rtol=1e-6)


def test_tf_and_torch_modes_and_the_models_that_use_them():
    x = _batch().astype(np.float64)
    np.testing.assert_allclose(apps.inception_v3.preprocess_input(x), x / 127.5 - 1)
    np.testing.assert_allclose(apps.resnet_v2.preprocess_input(x), x / 127.5 - 1)
    torch = (x / 255 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    np.testing.assert_allclose(apps.densenet.preprocess_input(x), torch, rtol=1e-6)
    # channels_first: the channel axis is the second of a batch
    xf = np.moveaxis(x, -1, 1)
    np.testing.assert_allclose(
        apps.imagenet_utils.preprocess_input(xf, data_format="channels_first", mode="torch"),
        np.moveaxis(torch, -1, 1), rtol=1e-6)


def test_preprocess_input_on_a_tensor_matches_the_array_result():
    x = _batch()
    t = tf.placeholder(tf.uint8, [None, 2, 2, 3])
    outs = [apps.imagenet_utils.preprocess_input(t, mode=m) for m in ("caffe", "tf", "torch")]
    with tf.Session() as sess:
        got = sess.run(outs, {t: x})
    for m, g in zip(("caffe", "tf", "torch"), got):
        np.testing.assert_allclose(g, apps.imagenet_utils.preprocess_input(x, mode=m),
                                   rtol=1e-5, atol=1e-4)


def test_preprocess_input_refuses_bad_arguments():
    with pytest.raises(ValueError, match="mode must be one of"):
        apps.imagenet_utils.preprocess_input(_batch(), mode="keras")
    with pytest.raises(ValueError, match="data_format"):
        apps.imagenet_utils.preprocess_input(_batch(), data_format="nchw")
    with pytest.raises(ValueError, match="expects 3 channels"):
        apps.imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 4)), mode="caffe")


def _write_class_index(home):
    folder = home / ".keras" / "models"
    folder.mkdir(parents=True)
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (folder / "imagenet_class_index.json").write_text(json.dumps(index))


def test_decode_predictions_reads_the_class_index_from_the_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [7, 3, 999]] = [0.5, 0.3, 0.2]
    preds[1, 42] = 1.0
    with pytest.raises(FileNotFoundError, match=r"\.keras/models/imagenet_class_index\.json"
                       r".*https://storage\.googleapis\.com/download\.tensorflow\.org/data/"
                       r"imagenet_class_index\.json"):
        apps.imagenet_utils.decode_predictions(preds)
    _write_class_index(tmp_path)
    out = apps.resnet50.decode_predictions(preds, top=3)
    assert [c[:2] for c in out[0]] == [("n00000007", "class_7"), ("n00000003", "class_3"),
                                       ("n00000999", "class_999")]
    np.testing.assert_allclose([c[2] for c in out[0]], [0.5, 0.3, 0.2])
    assert out[1][0][:2] == ("n00000042", "class_42") and len(out[1]) == 3
    with pytest.raises(ValueError, match=r"\(samples, 1000\)"):
        apps.imagenet_utils.decode_predictions(np.zeros((2, 10)))


def test_decode_predictions_refuses_a_file_that_is_not_the_class_index(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / ".keras" / "models"
    folder.mkdir(parents=True)
    (folder / "imagenet_class_index.json").write_text(json.dumps({"0": ["a", "b"]}))
    with pytest.raises(ValueError, match="not an ImageNet class index"):
        apps.imagenet_utils.decode_predictions(np.zeros((1, 1000)))
