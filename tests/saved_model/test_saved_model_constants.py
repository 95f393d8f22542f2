"""``tf.saved_model.constants``: the names find the files ``simple_save`` writes."""

import os

import tensorfleet as tf
from tensorfleet.protos import saved_model_pb2
from tensorfleet.platform import tensor_bundle as bundle

c = tf.saved_model.constants


def test_constants_name_the_files_of_an_export(tmp_path):
    export_dir = str(tmp_path / "sm")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        y = tf.matmul(x, w, name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
    pb = os.path.join(export_dir, c.SAVED_MODEL_FILENAME_PB)
    sm = saved_model_pb2.SavedModel.FromString(open(pb, "rb").read())
    assert sm.saved_model_schema_version == c.SAVED_MODEL_SCHEMA_VERSION
    prefix = os.path.join(export_dir, c.VARIABLES_DIRECTORY, c.VARIABLES_FILENAME)
    assert bundle.read_index(prefix).read("w").tolist() == [[1.0], [2.0]]
    assert not os.path.exists(os.path.join(export_dir, c.SAVED_MODEL_FILENAME_PBTXT))
    assert tf.saved_model.MAIN_OP_KEY == c.MAIN_OP_KEY == "saved_model_main_op"
    assert (c.ASSETS_DIRECTORY, c.ASSETS_KEY, c.LEGACY_INIT_OP_KEY) == (
        "assets", "saved_model_assets", "legacy_init_op")
    assert (c.DEBUG_DIRECTORY, c.DEBUG_INFO_FILENAME_PB) == ("debug", "saved_model_debug_info.pb")
