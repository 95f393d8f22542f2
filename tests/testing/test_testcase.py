"""tf.test: TestCase sessions and assertions, module helpers, and the TF 1.x gradient
checker (compute_gradient / compute_gradient_error) against hand-computed Jacobians."""

import os
import subprocess
import sys
import textwrap
import unittest.mock

import numpy as np
import pytest

import tensorfleet as tf


class SessionsTest(tf.test.TestCase):
    """Run by pytest as a unittest class, as TF 1.x test files are."""

    def testCachedSessionIsSharedAndDefault(self):
        x = tf.constant([1.0, 2.0])
        with self.test_session() as s1:
            self.assertIs(tf.get_default_session(), s1)
            self.assertAllClose((x * 3).eval(), [3.0, 6.0])
        with self.cached_session() as s2:
            self.assertIs(s1, s2)
        with self.session() as s3:
            self.assertIsNot(s3, s1)
            self.assertAllEqual(s3.run(x), [1.0, 2.0])

    def testGraphIsFreshPerTest(self):
        self.assertEqual(tf.get_default_graph().get_operations(), [])

    def testSessionOnAnotherGraph(self):
        g = tf.Graph()
        with g.as_default():
            c = tf.constant(5)
        with self.session(graph=g) as sess:
            self.assertIs(tf.get_default_graph(), g)
            self.assertEqual(sess.run(c), 5)

    def testAssertionsEvaluateTensorsAndNesting(self):
        x = tf.constant([1.0, 2.0])
        with self.cached_session():
            self.assertAllClose({"a": x, "b": [x, 3.0]}, {"a": [1, 2], "b": [[1, 2], 3.0]})
            self.assertAllEqual(tf.constant([[1, 2]]), np.array([[1, 2]]))
            self.assertAllCloseAccordingToType(np.float32([1.0]), [1.0 + 5e-7])
            self.assertShapeEqual(np.zeros([2]), x)
            self.assertNear(1.0, 1.05, 0.1)
            self.assertArrayNear([1.0, 2.0], [1.01, 2.0], 0.02)
            self.assertAllGreater(x, 0.5)
            self.assertAllLess(x, 2.5)
            self.assertDTypeEqual(x, np.float32)
            p = tf.placeholder(tf.float32)
            with self.assertRaisesOpError("must feed a value for placeholder"):
                (p * 2).eval()
            with self.assertRaises(AssertionError):
                with self.assertRaisesOpError("no such text"):
                    (p * 2).eval()

    def testFailuresAreReported(self):
        with self.assertRaises(AssertionError):
            self.assertAllEqual([1, 2], [1, 3])
        with self.assertRaises(AssertionError):
            self.assertAllClose([1.0, 2.0], [1.0, 2.1])
        with self.assertRaises(AssertionError):
            self.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])
        with self.assertRaises(AssertionError):
            self.assertAllCloseAccordingToType(np.float64([1.0]), [1.0 + 1e-4])
        self.assertAllCloseAccordingToType(np.float16([1.0]), [1.0 + 5e-4])
        with self.assertRaises(AssertionError):
            self.assertShapeEqual(np.zeros([3]), tf.constant([1, 2]))

    def testTempDirIsRemovedAfterTheTest(self):
        d = self.get_temp_dir()
        self.assertTrue(os.path.isdir(d))
        self.assertEqual(d, self.get_temp_dir())
        type(self).last_temp_dir = d


def test_temp_dir_was_cleaned():
    d = getattr(SessionsTest, "last_temp_dir", None)
    assert d is None or not os.path.exists(d)


def test_module_helpers():
    assert tf.test.is_gpu_available() is False
    assert tf.test.is_gpu_available(cuda_only=True) is False
    assert tf.test.gpu_device_name() == ""
    assert tf.test.is_built_with_cuda() is False
    assert os.path.isdir(tf.test.get_temp_dir())


def test_test_main_runs_a_program(tmp_path):
    prog = tmp_path / "my_test.py"
    prog.write_text(textwrap.dedent("""
        import tensorfleet as tf

        class T(tf.test.TestCase):
            def testAdd(self):
                with self.test_session():
                    self.assertAllEqual((tf.constant(2) + 3).eval(), 5)

        if __name__ == "__main__":
            tf.test.main()
    """))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Ran 2 tests" in out.stderr and "OK (skipped=1)" in out.stderr


def test_compute_gradient_matches_hand_jacobian():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
    y = tf.reduce_sum(tf.square(x), axis=1)
    x0 = np.array([[1.0, 2.0], [3.0, 4.0]])
    expected = np.array([[2.0, 0.0], [4.0, 0.0], [0.0, 6.0], [0.0, 8.0]])  # dy_k/dx_i
    with tf.Session():
        theory, numeric = tf.test.compute_gradient(x, [2, 2], y, [2], x_init_value=x0)
        err = tf.test.compute_gradient_error(x, [2, 2], y, [2], x_init_value=x0)
    np.testing.assert_allclose(theory, expected)
    np.testing.assert_allclose(numeric, expected, atol=1e-6)
    assert err < 1e-6


def test_compute_gradient_list_of_inputs_and_broken_gradient():
    a = tf.placeholder(tf.float64, [3])
    b = tf.placeholder(tf.float64, [3])
    y = a * b
    va, vb = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    with tf.Session():
        (ta, na), (tb, nb) = tf.test.compute_gradient([a, b], [[3], [3]], y, [3],
                                                      x_init_value=[va, vb])
        np.testing.assert_allclose(ta, np.diag(vb))
        np.testing.assert_allclose(tb, np.diag(va))
        np.testing.assert_allclose(na, np.diag(vb), atol=1e-6)
        # stop_gradient hides the true dependence: the error shows it.
        bad = tf.stop_gradient(a) * a
        assert tf.test.compute_gradient_error(a, [3], bad, [3], x_init_value=va) > 0.9


def test_compute_gradient_needs_a_session():
    x = tf.constant([1.0])
    with pytest.raises(ValueError, match="default session"):
        tf.test.compute_gradient(x, [1], x * 2, [1])


def test_create_local_cluster_runs_a_distributed_graph():
    workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        assert len(workers) == 2 and len(ps) == 1
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0])
        with tf.device("/job:worker/task:1"):
            y = v * 3.0
        with tf.Session(workers[0].target) as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), [3.0, 6.0])
    finally:
        for s in workers + ps:
            s.stop()
    with pytest.raises(ValueError, match="at least one worker"):
        tf.test.create_local_cluster(0, 1)


def test_mock_is_unittest_mock():
    assert tf.test.mock is unittest.mock
