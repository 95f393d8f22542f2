"""tf.ConfigProto takes every field of TensorFlow's message: the GPU ones are kept with no
effect (no GPUs), unknown fields and settings tensorfleet cannot honour raise."""

import pytest

import tensorfleet as tf


def test_gpu_options_are_set_as_programs_set_them():
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.4
    config.gpu_options.visible_device_list = "0,1"
    assert config.gpu_options.allow_growth is True
    assert config.gpu_options.per_process_gpu_memory_fraction == 0.4
    with tf.Session(config=config) as s:
        assert s.run(tf.constant(3.0) * 2) == 6.0
    given = tf.GPUOptions(per_process_gpu_memory_fraction=1, allow_growth=True)
    assert tf.ConfigProto(gpu_options=given).gpu_options == given
    assert given.per_process_gpu_memory_fraction == 1.0


def test_other_fields_are_accepted():
    config = tf.ConfigProto(device_count={"GPU": 0, "CPU": 1}, use_per_session_threads=True,
                            placement_period=10, share_cluster_devices_in_session=True,
                            allow_soft_placement=True, inter_op_parallelism_threads=2)
    assert config.device_count == {"GPU": 0, "CPU": 1} and config.placement_period == 10
    assert isinstance(config.graph_options, tf.GraphOptions)
    with tf.Session(config=config) as s:
        assert s.run(tf.constant(1) + 1) == 2


def test_bad_fields_raise():
    with pytest.raises(ValueError, match='no "gpu_option" field'):
        tf.ConfigProto(gpu_option=tf.GPUOptions())
    with pytest.raises(ValueError, match='no "allow_grow" field'):
        tf.GPUOptions(allow_grow=True)
    with pytest.raises(AttributeError, match="allow_grow"):
        tf.ConfigProto().gpu_options.allow_grow = True
    with pytest.raises(TypeError, match="visible_device_list"):
        tf.GPUOptions(visible_device_list=0)
    with pytest.raises(ValueError, match="per_process_gpu_memory_fraction"):
        tf.GPUOptions(per_process_gpu_memory_fraction=-0.5)
    with pytest.raises(TypeError, match="gpu_options"):
        tf.ConfigProto(gpu_options={"allow_growth": True})
    with pytest.raises(ValueError, match="device_count"):
        tf.ConfigProto(device_count={"GPU": -1})
    with pytest.raises(ValueError, match="isolate_session_state"):
        tf.ConfigProto(isolate_session_state=True)
    with pytest.raises(ValueError, match="cluster_def"):
        tf.ConfigProto(cluster_def=object())
