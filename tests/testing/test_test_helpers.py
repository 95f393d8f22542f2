"""``tf.test``'s helpers: build queries, StubOutForTesting, assert_equal_graph_def,
Benchmark, the decorators and ``tf.test.experimental.sync_devices``."""

import json
import os
import platform
import unittest

import pytest

import tensorfleet as tf


def test_build_queries_describe_a_cpu_only_build():
    assert not tf.test.is_built_with_gpu_support()
    assert not tf.test.is_built_with_rocm() and not tf.test.is_built_with_xla()
    host_is_x86 = platform.machine().lower() in ("x86_64", "amd64")
    assert tf.test.is_cpu_target_available("x86") == host_is_x86
    assert tf.test.is_cpu_target_available("systemz") == (platform.machine() == "s390x")
    with pytest.raises(ValueError, match="unknown CPU target"):
        tf.test.is_cpu_target_available("z80")
    assert tf.test.experimental.sync_devices() is None


def test_src_dir_path_finds_this_file(monkeypatch):
    monkeypatch.delenv("TEST_SRCDIR", raising=False)
    assert os.path.samefile(tf.test.test_src_dir_path("tests/testing/test_test_helpers.py"),
                            __file__)
    monkeypatch.setenv("TEST_SRCDIR", "/srcroot")
    assert tf.test.test_src_dir_path("a/b") == "/srcroot/a/b"


class _Target:
    value = 1

    @staticmethod
    def helper():
        return "real"


def test_stub_out_sets_and_restores():
    stubs = tf.test.StubOutForTesting()
    stubs.Set(_Target, "helper", lambda: "fake")
    stubs.Set(_Target, "added", 5)
    stubs.SmartSet(_Target, "value", 2)
    assert _Target.helper() == "fake" and _Target.added == 5 and _Target.value == 2
    stubs.CleanUp()
    assert _Target.helper() == "real" and _Target.value == 1 and not hasattr(_Target, "added")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        stubs.SmartSet(_Target, "nothing", 1)
    with tf.test.StubOutForTesting() as s:
        s.Set(os.path, "sep", "!")
        assert os.path.sep == "!"
    assert os.path.sep == "/"


def _graph(scale):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        tf.multiply(a, scale, name="b")
    return g.as_graph_def()


def test_assert_equal_graph_def():
    tf.test.assert_equal_graph_def(_graph(2.0), _graph(2.0))
    with pytest.raises(AssertionError, match="node 'Const' differs in attr"):
        tf.test.assert_equal_graph_def(_graph(2.0), _graph(3.0))
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="a")
    with pytest.raises(AssertionError, match="'b' is expected but missing"):
        tf.test.assert_equal_graph_def(g.as_graph_def(), _graph(2.0))
    with pytest.raises(TypeError, match="actual must be a GraphDef"):
        tf.test.assert_equal_graph_def("x", _graph(2.0))


def test_benchmark_times_an_op_and_writes_its_report(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_REPORT_FILE_PREFIX", str(tmp_path / "bench_"))
    with tf.Graph().as_default():
        x = tf.reduce_sum(tf.ones([4, 4]))
        with tf.Session(config=tf.test.benchmark_config()) as sess:
            entry = tf.test.Benchmark().run_op_benchmark(sess, x, burn_iters=1, min_iters=3,
                                                         name="sum", mbs=1)
            with pytest.raises(ValueError, match="store_trace"):
                tf.test.Benchmark().run_op_benchmark(sess, x, store_trace=True)
    assert entry["iters"] == 3 and entry["wall_time"] > 0 and entry["throughput"] > 0
    assert entry["extras"]["peak_rss_bytes"] > 0
    written = json.loads((tmp_path / "bench_sum").read_text())
    assert written["name"] == "sum" and written["iters"] == 3
    with pytest.raises(ValueError, match="'name' and 'value'"):
        tf.test.Benchmark().report_benchmark(metrics=[{"value": 1}])


def test_decorators():
    calls = []

    @tf.test.with_eager_op_as_function
    class Case(unittest.TestCase):
        @tf.test.disable_with_predicate(lambda: True, "off here")
        def test_off(self):
            calls.append("off")

        @tf.test.disable_with_predicate(lambda: False, "on")
        def test_on(self):
            calls.append("on")

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Case).run(result)
    assert calls == ["on"] and [m for _, m in result.skipped] == ["off here"]
    assert tf.test.with_eager_op_as_function(only_as_function=True)(Case) is Case
