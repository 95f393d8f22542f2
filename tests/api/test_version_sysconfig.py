"""tf.version, tf.sysconfig, tf.resource_loader, and the tf.manip / tf.queue namespaces."""

import os

import numpy as np

import tensorfleet as tf


def test_version_names_agree_with_the_graph_format():
    assert tf.version.VERSION == tf.VERSION == tf.__version__
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0)
    assert g.as_graph_def().versions["producer"] == tf.version.GRAPH_DEF_VERSION
    assert tf.GRAPH_DEF_VERSION_MIN_CONSUMER <= tf.GRAPH_DEF_VERSION
    assert isinstance(tf.version.GIT_VERSION, str) and tf.COMPILER_VERSION


def test_sysconfig_reports_a_cpu_build_and_the_package_directory():
    info = tf.sysconfig.get_build_info()
    assert info["is_cuda_build"] is False and info["is_rocm_build"] is False
    assert os.path.isfile(os.path.join(tf.sysconfig.get_lib(), "__init__.py"))


def test_resource_loader_paths_are_relative_to_the_caller(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_data_files_path() == here
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(here, "x.txt")
    data = tf.resource_loader.load_resource("tensorfleet/__init__.py")
    assert b"import tensorfleet as tf" in data
    assert tf.resource_loader.readahead_file_path(str(tmp_path)) == str(tmp_path)
    assert os.path.isdir(tf.resource_loader.get_root_dir_with_all_resources())


def test_manip_and_queue_are_the_same_ops():
    x = np.arange(6).reshape(2, 3)
    with tf.Session() as s:
        out = s.run([tf.manip.roll(x, 1, 1), tf.manip.reverse(x, [0]),
                     tf.manip.tile(x, [1, 2])])
    np.testing.assert_array_equal(out[0], np.roll(x, 1, 1))
    np.testing.assert_array_equal(out[1], x[::-1])
    np.testing.assert_array_equal(out[2], np.tile(x, [1, 2]))
    assert tf.queue.FIFOQueue is tf.FIFOQueue
