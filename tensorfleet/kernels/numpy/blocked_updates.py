"""Dense optimizer updates of large variables, a cache-sized block at a time, on up to
the process's BLAS thread limit.

A whole-array numpy update passes over the variable's memory once per arithmetic step
(Adam's takes about ten passes over the variable, its two slots and the gradient), on
one thread. Done a block of ``BLOCK`` elements at a time, the intermediate values stay
in the core's cache, so memory is read and written about once per array, and the
blocks are shared out between threads: numpy releases the GIL inside each ufunc. The
threads take blocks from one counter, so a thread that the operating system keeps off
a core holds up at most the block it is working on (a fixed split would make the step
wait for the whole of its share).

The thread count is ``tensorfleet.kernels.onednn.threads.limit()``, the BLAS limit
that the contention policy lowers when other processes use the cores: the update is
bound by memory bandwidth, which a second thread on a busy machine adds little to.
"""

from __future__ import annotations

import itertools
from typing import Callable, List, Optional

import numpy as np

from tensorfleet.kernels.onednn import threads

# Elements per block (256 KiB of float32: a few such blocks fit in a core's L2 cache).
BLOCK = 1 << 16
# Smallest variable worth the blocked path (smaller ones keep the whole-array updates).
MIN_SIZE = 1 << 18


# An update of the elements [start, stop) of flat arrays, with two scratch blocks.
Update = Callable[[int, int, np.ndarray, np.ndarray], None]
# A block of the gradient, given its bounds and a scratch block to scale it into.
GradBlock = Callable[[int, int, np.ndarray], np.ndarray]


def applies(var: np.ndarray, *others: np.ndarray) -> bool:
    """Whether the blocked path runs for ``var`` and its same-shaped operands: large,
    C-contiguous, writable, all of one float dtype."""
    if var.size < MIN_SIZE or var.dtype.kind != "f" or not var.flags.writeable:
        return False
    return all(type(a) is np.ndarray and a.dtype == var.dtype and a.flags.c_contiguous
               and a.shape == var.shape for a in (var,) + others)


def run(update: Update, size: int, dtype: np.dtype) -> None:
    """Runs ``update`` over every block of ``size`` elements, on up to the thread limit."""
    blocks = -(-size // BLOCK)
    n = max(1, min(threads.limit(), blocks))
    n = min(n, 1 + threads.helper_count())
    counter = itertools.count()

    def work() -> None:
        a = np.empty(BLOCK, dtype)
        b = np.empty(BLOCK, dtype)
        while True:
            # next() on an itertools.count is atomic under the GIL.
            start = next(counter) * BLOCK
            if start >= size:
                return
            stop = min(start + BLOCK, size)
            update(start, stop, a[:stop - start], b[:stop - start])

    futures: List = []
    if n > 1:
        futures = [threads.helpers().submit(work) for _ in range(n - 1)]
    work()
    for f in futures:
        f.result()


def _grad_blocks(g: np.ndarray, scale: Optional[np.ndarray]) -> GradBlock:
    """The gradient's block [i, j): a view of ``g``, or with a scale (a 0-d array of
    the gradient's dtype), ``g * scale`` written into the scratch block given. The product is the float32 one a ``Mul`` of
    the gradient by a scalar would have made, so the update sees the same values
    without a pass over the whole gradient to make them."""
    fg = g.reshape(-1)
    if scale is None:
        return lambda i, j, out: fg[i:j]

    def scaled(i: int, j: int, out: np.ndarray) -> np.ndarray:
        return np.multiply(fg[i:j], scale, out=out)
    return scaled


def adam(var: np.ndarray, m: np.ndarray, v: np.ndarray, g: np.ndarray, lr_t: float,
         beta1: float, beta2: float, epsilon: float, nesterov: bool,
         scale: Optional[np.ndarray] = None) -> None:
    """Adam's update of ``var``, ``m`` and ``v`` in place; ``lr_t`` is the step size
    already corrected for the moments' bias; the gradient is ``g * scale`` when a
    scale is given."""
    fv, fm, fs = var.reshape(-1), m.reshape(-1), v.reshape(-1)
    grad = _grad_blocks(g, scale)
    c1, c2 = 1.0 - beta1, 1.0 - beta2

    def update(i: int, j: int, a: np.ndarray, b: np.ndarray) -> None:
        mm, vv, gg = fm[i:j], fs[i:j], grad(i, j, b)
        np.multiply(gg, c1, out=a)
        mm *= beta1
        mm += a
        np.multiply(gg, gg, out=a)
        a *= c2
        vv *= beta2
        vv += a
        np.sqrt(vv, out=a)
        a += epsilon
        if nesterov:
            # (beta1 * m + (1 - beta1) * g) / denominator, with the two scratch blocks
            # (gg may be b itself: it is read before b is written).
            np.multiply(gg, c1, out=b)
            b /= a
            np.divide(mm, a, out=a)
            a *= beta1
            a += b
        else:
            np.divide(mm, a, out=a)
        a *= lr_t
        np.subtract(fv[i:j], a, out=fv[i:j])

    run(update, var.size, var.dtype)


def momentum(var: np.ndarray, acc: np.ndarray, g: np.ndarray, lr: float, mu: float,
             nesterov: bool, scale: Optional[np.ndarray] = None) -> None:
    """The momentum update of ``var`` and its accumulator in place; the gradient is
    ``g * scale`` when a scale is given."""
    fv, fa = var.reshape(-1), acc.reshape(-1)
    grad = _grad_blocks(g, scale)

    def update(i: int, j: int, a: np.ndarray, b: np.ndarray) -> None:
        aa, gg = fa[i:j], grad(i, j, b)
        aa *= mu
        aa += gg
        if nesterov:
            # var -= lr * (grad + momentum * accum), with the updated accum.
            np.multiply(aa, mu, out=a)
            a += gg
            a *= lr
        else:
            np.multiply(aa, lr, out=a)
        np.subtract(fv[i:j], a, out=fv[i:j])

    run(update, var.size, var.dtype)


def gradient_descent(var: np.ndarray, g: np.ndarray, lr: float,
                     scale: Optional[np.ndarray] = None) -> None:
    """``var -= lr * g`` in place (``lr * (g * scale)`` when a scale is given)."""
    fv = var.reshape(-1)
    grad = _grad_blocks(g, scale)

    def update(i: int, j: int, a: np.ndarray, b: np.ndarray) -> None:
        np.multiply(grad(i, j, b), lr, out=a)
        np.subtract(fv[i:j], a, out=fv[i:j])

    run(update, var.size, var.dtype)


__all__ = ["applies", "run", "adam", "momentum", "gradient_descent", "BLOCK", "MIN_SIZE"]
