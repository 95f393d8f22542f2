"""Shared helpers of the oneDNN kernel tests: run a graph under one CPU kernel backend."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import contextlib
from unittest import mock

import numpy as np

import tensorfleet as tf
from tensorfleet.kernels import registry


def run_under(backend: str, build: Callable[[], List[Any]], feeds: Callable[[Dict], Dict]
              ) -> List[np.ndarray]:
    """Builds a fresh graph with ``build`` (its fetches) and runs it with ``backend``'s
    CPU kernels; ``feeds`` maps the graph's placeholders (by name) to values."""
    tf.set_cpu_kernel_backend(backend)
    try:
        with tf.Graph().as_default() as g:
            fetches = build()
            with tf.Session() as sess:
                return sess.run(fetches, feed_dict=feeds(g))
    finally:
        tf.set_cpu_kernel_backend(None)


def kernel_in_use(op_type: str, backend: str) -> Any:
    """The kernel a graph compiled under ``backend`` runs for ``op_type`` on CPU."""
    tf.set_cpu_kernel_backend(backend)
    try:
        return registry.resolve_kernel(op_type, "probe", "", False)
    finally:
        tf.set_cpu_kernel_backend(None)


def assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """float32 agreement up to summation order: relative to the largest magnitude."""
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5 * scale, err_msg=what)


@contextlib.contextmanager
def counting_plan_runs():
    """Counts the oneDNN kernel calls inside the block (a list holding the count): runs
    of a whole-batch plan, and kernels run over slices of their batch."""
    from tensorfleet.kernels.onednn import batch_split, plan
    count = [0]
    real = plan.Plan.run
    real_split = batch_split.run

    def run(self, *args, **kwargs):
        count[0] += 1
        return real(self, *args, **kwargs)

    def run_split(*args, **kwargs):
        ran = real_split(*args, **kwargs)
        count[0] += bool(ran)
        return ran

    with mock.patch.object(plan.Plan, "run", run), \
            mock.patch.object(batch_split, "run", run_split):
        yield count


def onednn_loads() -> bool:
    """Whether oneDNN can be used in this process (whatever backend is selected)."""
    from tensorfleet.kernels.onednn import library
    try:
        library.load()
        return True
    except library.LibraryUnavailable:
        return False


def bias_and_relu(y: Any, bias: Any, bias_kind: Any, relu: bool) -> Any:
    """``y`` through the ops a fused chain may hold after its product: a bias added by
    ``tf.nn.bias_add`` ("bias_add"), by ``+`` ("add") or not at all (None), then a ReLU
    when ``relu``."""
    if bias_kind == "bias_add":
        y = tf.nn.bias_add(y, bias)
    elif bias_kind == "add":
        y = y + bias
    elif bias_kind == "add_left":
        y = bias + y
    return tf.nn.relu(y) if relu else y
