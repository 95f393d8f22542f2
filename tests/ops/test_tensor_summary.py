"""``tf.summary.tensor_summary`` and ``tf.summary.all_v2_summary_ops``."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.tensor_util import make_ndarray
from tensorfleet.protos import tensor_pb2


def test_tensor_summary_holds_the_tensor_and_metadata():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [2, 2])
        meta = tf.summary.SummaryMetadata()
        meta.plugin_data.plugin_name = "custom"
        s = tf.summary.tensor_summary("weights", x, summary_description="the weights",
                                      summary_metadata=meta, display_name="W")
        assert s in tf.get_collection(tf.GraphKeys.SUMMARIES)
        with tf.Session() as sess:
            raw = sess.run(s, {x: [[1, 2], [3, 4]]})
        summary = tf.Summary.FromString(raw)
        (value,) = summary.value
        assert value.tag == "weights"
        assert value.metadata.plugin_data.plugin_name == "custom"
        assert value.metadata.display_name == "W"
        assert value.metadata.summary_description == "the weights"
        arr = make_ndarray(tensor_pb2.TensorProto.FromString(value.tensor.SerializeToString()))
        np.testing.assert_array_equal(arr, [[1, 2], [3, 4]])
        assert tf.summary.all_v2_summary_ops() == []
    with pytest.raises(TypeError, match="SummaryMetadata proto"):
        tf.summary.tensor_summary("x", [1], summary_metadata={"plugin": "x"})
