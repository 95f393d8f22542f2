"""One convolution kernel call at a time, with the shapes of ``mnist_cnn``'s two layers.

Times the forward pass, the filter gradient and the input gradient of each layer
(batch 128, float32, 5x5 filters, SAME padding, unit strides), and the bare BLAS
product that the second layer's forward pass amounts to (25,088 x 800 by 800 x 64),
so that the convolution's cost can be read against the machine's matmul speed::

    python benchmarks/bench_conv_kernels.py --framework tensorfleet
    benchmarks/.venv-tf/bin/python benchmarks/bench_conv_kernels.py --framework tensorflow

Prints one JSON line per layer: median milliseconds of ``--repeats`` calls after one
warm-up call, and GFLOP/s of the forward pass.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Callable, Dict, List, Optional

import numpy as np

LAYERS = [((128, 28, 28, 1), (5, 5, 1, 32)), ((128, 14, 14, 32), (5, 5, 32, 64))]


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


def _tensorfleet_calls(x: np.ndarray, w: np.ndarray, dy: np.ndarray) -> Dict[str, Callable]:
    # The kernels of the CPU backend in use (oneDNN where it loads; TENSORFLEET_CPU_KERNELS
    # =numpy for the reference ones), as a graph would run them.
    from tensorfleet.kernels.registry import KernelContext, get_kernel

    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC",
             "dilations": [1, 1, 1, 1]}
    ctx = KernelContext("bench", "Conv2D", attrs, None, {})
    fwd, fgrad, igrad = (get_kernel(op) for op in (
        "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"))
    return {"fwd": lambda: fwd(ctx, x, w),
            "filter_grad": lambda: fgrad(ctx, x, np.array(w.shape), dy),
            "input_grad": lambda: igrad(ctx, np.array(x.shape), w, dy)}


def _tensorflow_calls(x: np.ndarray, w: np.ndarray, dy: np.ndarray) -> Dict[str, Callable]:
    import tensorflow as tf

    tx, tw, tdy = tf.constant(x), tf.constant(w), tf.constant(dy)
    strides = [1, 1, 1, 1]
    fwd = tf.function(lambda: tf.nn.conv2d(tx, tw, strides, "SAME"))
    fgrad = tf.function(lambda: tf.raw_ops.Conv2DBackpropFilter(
        input=tx, filter_sizes=list(w.shape), out_backprop=tdy, strides=strides,
        padding="SAME"))
    igrad = tf.function(lambda: tf.raw_ops.Conv2DBackpropInput(
        input_sizes=list(x.shape), filter=tw, out_backprop=tdy, strides=strides,
        padding="SAME"))
    return {"fwd": lambda: fwd().numpy(), "filter_grad": lambda: fgrad().numpy(),
            "input_grad": lambda: igrad().numpy()}


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--framework", choices=("tensorfleet", "tensorflow"), required=True)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args(argv)
    rng = np.random.RandomState(0)
    make = _tensorfleet_calls if args.framework == "tensorfleet" else _tensorflow_calls
    for xs, ws in LAYERS:
        x = rng.rand(*xs).astype(np.float32)
        w = rng.rand(*ws).astype(np.float32)
        dy = rng.rand(*xs[:3], ws[3]).astype(np.float32)
        row = {"framework": args.framework, "input": list(xs), "filter": list(ws)}
        if args.framework == "tensorfleet":
            import tensorfleet
            row["cpu_kernels"] = tensorfleet.cpu_kernel_backend()
        for name, fn in make(x, w, dy).items():
            row[f"{name}_ms"] = round(_median_ms(fn, args.repeats), 2)
        flops = 2.0 * np.prod(dy.shape) * ws[0] * ws[1] * ws[2]
        row["fwd_gflops"] = round(flops / row["fwd_ms"] / 1e6, 1)
        print(json.dumps(row), flush=True)
    a = rng.rand(25088, 800).astype(np.float32)
    b = rng.rand(800, 64).astype(np.float32)
    gemm_ms = _median_ms(lambda: a @ b, args.repeats)
    print(json.dumps({"framework": "numpy", "gemm": "25088x800 @ 800x64",
                      "ms": round(gemm_ms, 2),
                      "gflops": round(2.0 * 25088 * 800 * 64 / gemm_ms / 1e6, 1)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
