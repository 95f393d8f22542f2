"""``tf.test``: the ``TestCase`` base class and helpers of TensorFlow 1.x unit tests.

``TestCase`` is a ``unittest.TestCase`` whose every test starts on a fresh default graph;
``self.test_session()`` / ``self.cached_session()`` give one session per test (created
on first use, closed after the test), ``self.session()`` a new one each call, and each
of them is the default session and makes its graph the default inside its ``with``.
The ``assertAll*`` methods accept tensors (evaluated in the default session), numpy
arrays, Python numbers and nested lists, tuples or dicts of them.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import sys
import tempfile
import unittest
from typing import Any, Iterator, List, Optional, Tuple
from unittest import mock  # noqa: F401  (tf.test.mock)

import numpy as np

from tensorfleet import errors
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.server import Server, free_ports
from tensorfleet.framework.graph import Graph, Tensor, get_default_graph, reset_default_graph
from tensorfleet.ops.variables import Variable
from tensorfleet.runtime.session import Session, get_default_session
from tensorfleet.testing.jacobian import compute_gradient, compute_gradient_error


def _session_scope(sess: Session) -> Iterator[Session]:
    with sess.graph.as_default(), sess.as_default():
        yield sess


class TestCase(unittest.TestCase):
    """Base class of TF 1.x style tests (see the module docstring)."""

    def setUp(self) -> None:
        """Starts the test on a new, empty default graph."""
        super().setUp()
        reset_default_graph()
        self._cached_session: Optional[Session] = None
        self._temp_dir: Optional[str] = None
        self.addCleanup(self._close_cached)

    def _close_cached(self) -> None:
        if getattr(self, "_cached_session", None) is not None:
            self._cached_session.close()
            self._cached_session = None
        if getattr(self, "_temp_dir", None):
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None

    # -- sessions ------------------------------------------------------------------------

    @contextlib.contextmanager
    def session(self, graph: Optional[Graph] = None, config: Any = None,
                use_gpu: bool = False, force_gpu: bool = False) -> Iterator[Session]:
        """A new session on ``graph`` (the default graph when None), closed on exit."""
        if force_gpu:
            raise ValueError("force_gpu=True: tensorfleet runs on CPUs only")
        sess = Session(graph=graph or get_default_graph(), config=config)
        try:
            yield from _session_scope(sess)
        finally:
            sess.close()

    @contextlib.contextmanager
    def cached_session(self, graph: Optional[Graph] = None, config: Any = None,
                       use_gpu: bool = False, force_gpu: bool = False) -> Iterator[Session]:
        """The test's one session, made on first use and closed after the test.

        Raises:
          ValueError: a different ``graph`` than the cached session's.
        """
        if force_gpu:
            raise ValueError("force_gpu=True: tensorfleet runs on CPUs only")
        g = graph or get_default_graph()
        if getattr(self, "_cached_session", None) is None:
            self._cached_session = Session(graph=g, config=config)
        elif self._cached_session.graph is not g:
            raise ValueError("cached_session: the cached session belongs to another graph; "
                             "use self.session(graph=...) for a second graph")
        yield from _session_scope(self._cached_session)

    def test_session(self, graph: Optional[Graph] = None, config: Any = None,
                     use_gpu: bool = False, force_gpu: bool = False) -> Any:
        """The pre-1.11 name: the cached session, or a new one for another ``graph``
        (a context manager)."""
        if self._testMethodName == "test_session":
            # unittest collects every method named test*: this one is not a test.
            self.skipTest("test_session is a helper, not a test")
        return self._test_session(graph, config, use_gpu, force_gpu)

    @contextlib.contextmanager
    def _test_session(self, graph: Optional[Graph], config: Any, use_gpu: bool,
                      force_gpu: bool) -> Iterator[Session]:
        cached = getattr(self, "_cached_session", None)
        if graph is not None and cached is not None and cached.graph is not graph:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess
            return
        with self.cached_session(graph, config, use_gpu, force_gpu) as sess:
            yield sess

    def evaluate(self, tensors: Any) -> Any:
        """The values of ``tensors`` (any nesting) in the default session, else the
        cached one."""
        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with self.cached_session() as s:
            return s.run(tensors)

    def get_temp_dir(self) -> str:
        """A directory for this test's files, removed after the test."""
        if not getattr(self, "_temp_dir", None):
            self._temp_dir = tempfile.mkdtemp(prefix=f"{type(self).__name__}_")
        return self._temp_dir

    # -- assertions ----------------------------------------------------------------------

    def _value(self, x: Any) -> Any:
        if isinstance(x, (Tensor, Variable)):
            return self.evaluate(x)
        return x

    def _walk(self, a: Any, b: Any, path: str, check: Any) -> None:
        a, b = self._value(a), self._value(b)
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)) or set(a) != set(b):
                self.fail(f"{path or 'value'}: dict keys differ: {a!r} vs {b!r}")
            for k in a:
                self._walk(a[k], b[k], f"{path}[{k!r}]", check)
            return
        nested = (list, tuple)
        if (isinstance(a, nested) and any(isinstance(v, (nested, dict, Tensor)) for v in a)) \
                or (isinstance(b, nested) and any(isinstance(v, (nested, dict, Tensor))
                                                  for v in b)):
            if not isinstance(a, nested) or not isinstance(b, nested) or len(a) != len(b):
                self.fail(f"{path or 'value'}: structures differ: {a!r} vs {b!r}")
            for i, (x, y) in enumerate(zip(a, b)):
                self._walk(x, y, f"{path}[{i}]", check)
            return
        check(np.asarray(a), np.asarray(b), path)

    def assertAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,  # noqa: N802
                       msg: Optional[str] = None) -> None:
        """``a`` and ``b`` have one shape and ``|a - b| <= atol + rtol * |b|`` everywhere."""
        def check(x: np.ndarray, y: np.ndarray, path: str) -> None:
            if x.shape != y.shape and x.size != 1 and y.size != 1:
                self.fail(f"{path or 'value'}: shape mismatch {x.shape} vs {y.shape}. {msg or ''}")
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"{path} {msg or ''}")
        self._walk(a, b, "", check)

    def assertAllCloseAccordingToType(self, a: Any, b: Any, rtol: float = 1e-6,  # noqa: N802
                                      atol: float = 1e-6, float_rtol: float = 1e-6,
                                      float_atol: float = 1e-6, half_rtol: float = 1e-3,
                                      half_atol: float = 1e-3, bfloat16_rtol: float = 1e-2,
                                      bfloat16_atol: float = 1e-2,
                                      msg: Optional[str] = None) -> None:
        """``assertAllClose`` with tolerances widened to the given per-precision ones
        when ``a`` or ``b`` is float32 or float16."""
        a, b = self._value(a), self._value(b)
        kinds = {np.asarray(a).dtype, np.asarray(b).dtype}
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif np.dtype(np.float32) in kinds:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllEqual(self, a: Any, b: Any, msg: Optional[str] = None) -> None:  # noqa: N802
        """``a`` and ``b`` have one shape and equal elements."""
        def check(x: np.ndarray, y: np.ndarray, path: str) -> None:
            if x.shape != y.shape and x.size != 1 and y.size != 1:
                self.fail(f"{path or 'value'}: shape mismatch {x.shape} vs {y.shape}. {msg or ''}")
            np.testing.assert_array_equal(x, y, err_msg=f"{path} {msg or ''}")
        self._walk(a, b, "", check)

    def assertShapeEqual(self, np_array: Any, tf_tensor: Any,  # noqa: N802
                         msg: Optional[str] = None) -> None:
        """The numpy array's shape is the tensor's static shape."""
        if not isinstance(tf_tensor, (Tensor, Variable)):
            raise TypeError(f"assertShapeEqual: tf_tensor must be a Tensor, got "
                            f"{type(tf_tensor).__name__}")
        self.assertEqual(list(np.shape(np_array)), tf_tensor.get_shape().as_list(), msg)

    def assertNear(self, f1: float, f2: float, err: float,  # noqa: N802
                   msg: Optional[str] = None) -> None:
        """``|f1 - f2| <= err``."""
        self.assertTrue(abs(f1 - f2) <= err, f"{f1} != {f2} +/- {err} {msg or ''}")

    def assertArrayNear(self, farray1: Any, farray2: Any, err: float,  # noqa: N802
                        msg: Optional[str] = None) -> None:
        """Equal lengths and every pair of elements within ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg)

    def assertAllGreater(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        """Every element of ``a`` is greater than ``comparison_target``."""
        self.assertTrue(np.all(np.asarray(self._value(a)) > comparison_target))

    def assertAllLess(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        """Every element of ``a`` is less than ``comparison_target``."""
        self.assertTrue(np.all(np.asarray(self._value(a)) < comparison_target))

    def assertDTypeEqual(self, target: Any, expected_dtype: Any) -> None:  # noqa: N802
        """``target``'s numpy dtype is ``expected_dtype``."""
        want = getattr(expected_dtype, "np", None) or np.dtype(expected_dtype)
        self.assertEqual(np.asarray(self._value(target)).dtype, want)

    @contextlib.contextmanager
    def assertRaisesOpError(self, expected_err_re_or_predicate: Any  # noqa: N802
                            ) -> Iterator[None]:
        """The block raises an ``OpError`` whose message matches the regexp (or for which
        the predicate is true)."""
        with self.assertRaises(errors.OpError) as cm:
            yield
        pred = expected_err_re_or_predicate
        ok = pred(cm.exception) if callable(pred) else re.search(pred, str(cm.exception))
        if not ok:
            self.fail(f"OpError {cm.exception!s} does not match {pred!r}")


def main(argv: Optional[List[str]] = None) -> None:
    """Runs the ``TestCase`` classes of ``__main__`` (``tf.test.main()``)."""
    unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability: Any = None) -> bool:
    """False: tensorfleet's kernels run on CPUs."""
    return False


def gpu_device_name() -> str:
    """``''``: there is no GPU device."""
    return ""


def is_built_with_cuda() -> bool:
    """False: tensorfleet is not built against CUDA."""
    return False


def create_local_cluster(num_workers: int, num_ps: int, protocol: str = "grpc",
                         worker_config: Any = None, ps_config: Any = None
                         ) -> Tuple[List[Server], List[Server]]:
    """Starts ``num_workers`` worker and ``num_ps`` ps servers in this process, on free
    localhost ports, and returns ``(workers, ps_servers)``; a session on
    ``workers[0].target`` runs graphs across all of them. Stop them with ``stop()``.

    Raises:
      ValueError: a negative count or no worker.
    """
    if num_workers < 1 or num_ps < 0:
        raise ValueError(f"create_local_cluster needs at least one worker and no negative "
                         f"count, got num_workers={num_workers}, num_ps={num_ps}")
    ports = iter(free_ports(num_workers + num_ps))
    jobs = {"worker": [f"localhost:{next(ports)}" for _ in range(num_workers)]}
    if num_ps:
        jobs["ps"] = [f"localhost:{next(ports)}" for _ in range(num_ps)]
    spec = ClusterSpec(jobs)
    started: List[Server] = []
    try:
        for i in range(num_workers):
            started.append(Server(spec, job_name="worker", task_index=i, protocol=protocol,
                                  config=worker_config))
        for i in range(num_ps):
            started.append(Server(spec, job_name="ps", task_index=i, protocol=protocol,
                                  config=ps_config))
    except BaseException:
        for s in started:
            s.stop()
        raise
    return started[:num_workers], started[num_workers:]


def get_temp_dir() -> str:
    """A temporary directory for test files (one per process)."""
    global _PROCESS_TEMP_DIR
    if _PROCESS_TEMP_DIR is None:
        _PROCESS_TEMP_DIR = tempfile.mkdtemp(prefix="tensorfleet_test_")
    return _PROCESS_TEMP_DIR


_PROCESS_TEMP_DIR: Optional[str] = None

__all__ = ["TestCase", "main", "is_gpu_available", "gpu_device_name", "is_built_with_cuda",
           "get_temp_dir", "compute_gradient", "compute_gradient_error",
           "create_local_cluster", "mock"]
