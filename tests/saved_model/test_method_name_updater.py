"""``tf.saved_model.signature_def_utils.MethodNameUpdater``."""

import pytest

import tensorfleet as tf
from tensorfleet.protos import saved_model_pb2


def _export(path):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.identity(x * 2.0, name="y")
        with tf.Session() as sess:
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": y})


def test_replaces_in_both_manifests_and_loads(tmp_path):
    src, dst = str(tmp_path / "sm"), str(tmp_path / "sm2")
    _export(src)
    updater = tf.saved_model.signature_def_utils.MethodNameUpdater(src)
    updater.replace_method_name("serving_default", "tensorflow/serving/regress",
                                tags=["serve"])
    updater.save()
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["serve"], src)
        assert meta.signature_def["serving_default"].method_name == "tensorflow/serving/regress"
    pb = saved_model_pb2.SavedModel.FromString(open(f"{src}/saved_model.pb", "rb").read())
    assert pb.meta_graphs[0].signature_def["serving_default"].method_name == \
        "tensorflow/serving/regress"
    updater.replace_method_name("serving_default", "custom")
    updater.save(dst)
    again = tf.saved_model.signature_def_utils.MethodNameUpdater(dst)
    assert again._doc["meta_graphs"][0]["signature_def"]["serving_default"]["method_name"] \
        == "custom"
    with pytest.raises(ValueError, match="does not have a signature_def"):
        updater.replace_method_name("nope", "m")
    with pytest.raises(ValueError, match="could not be found"):
        updater.replace_method_name("serving_default", "m", tags=["train"])
    with pytest.raises(OSError):
        tf.saved_model.signature_def_utils.MethodNameUpdater(str(tmp_path / "none"))
