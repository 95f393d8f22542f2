"""Numerical gradient checking, used by the tests of every differentiable op."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

# The whole public API, as a test program sees it; nothing in tensorfleet imports this module.
import tensorfleet as tf


def numeric_gradients(f: Callable[[List[np.ndarray]], float], xs: Sequence[np.ndarray],
                      delta: float = 1e-3) -> List[np.ndarray]:
    """Central-difference gradients of the scalar ``f`` with respect to each of ``xs``."""
    # order="C": writes through reshape(-1) must land in the array f reads.
    xs = [np.array(x, dtype=np.float64, order="C") for x in xs]
    out = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x)
        flat = x.reshape(-1)
        gflat = g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + delta
            hi = f(xs)
            flat[j] = old - delta
            lo = f(xs)
            flat[j] = old
            gflat[j] = (hi - lo) / (2 * delta)
        out.append(g)
    return out


def check_gradients(build: Callable[..., Any], inputs: Sequence[np.ndarray],
                    delta: float = 1e-3, rtol: float = 2e-3, atol: float = 2e-3,
                    seed: int = 0, dtype: Any = None) -> Tuple[List[np.ndarray], List[np.ndarray]]:
    """Compares ``tf.gradients`` of ``build(*placeholders)`` with central differences.

    ``build`` receives one float64 placeholder per input and returns a tensor y.
    The scalar checked is ``sum(y * w)`` for a fixed random ``w``, so every output
    element contributes with a different weight. Raises AssertionError on mismatch
    and returns ``(symbolic, numeric)`` gradients.
    """
    g = tf.Graph()
    with g.as_default():
        dt = dtype or tf.float64
        phs = [tf.placeholder(dt, np.shape(x), name=f"x{i}") for i, x in enumerate(inputs)]
        y = build(*phs)
        y = tf.convert_to_tensor(y)
        sess = tf.Session(graph=g)
        y0 = sess.run(y, {p: x for p, x in zip(phs, inputs)})
        w = np.random.RandomState(seed).uniform(0.5, 1.5, np.shape(y0)).astype(dt.np)
        wt = tf.constant(w, dtype=y.dtype)
        loss = tf.reduce_sum(y * wt)
        grads = tf.gradients(loss, phs)
        feed = {p: x for p, x in zip(phs, inputs)}
        fetch = [gr if gr is not None else tf.zeros_like(p) for gr, p in zip(grads, phs)]
        symbolic = [np.asarray(tf.convert_to_tensor(v) if False else v, dtype=np.float64)
                    for v in _densify(sess.run(fetch, feed), inputs)]

        def f(vals: List[np.ndarray]) -> float:
            return float(sess.run(loss, {p: v.astype(dt.np) for p, v in zip(phs, vals)}))

        numeric = numeric_gradients(f, inputs, delta)
        sess.close()
    for i, (s, n) in enumerate(zip(symbolic, numeric)):
        np.testing.assert_allclose(s, n, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i} differs from numeric")
    return symbolic, numeric


def _densify(vals: List[Any], inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    out = []
    for v, x in zip(vals, inputs):
        if hasattr(v, "indices") and hasattr(v, "values"):
            d = np.zeros(np.shape(x), dtype=np.float64)
            np.add.at(d, np.asarray(v.indices), np.asarray(v.values))
            out.append(d)
        else:
            out.append(np.asarray(v))
    return out


__all__ = ["check_gradients", "numeric_gradients"]
