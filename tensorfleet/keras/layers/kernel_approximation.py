"""Keras ``RandomFourierFeatures``: random features whose inner products approximate a
shift-invariant kernel (Rahimi and Recht): ``sqrt(2 / d) * cos(x W / scale + b)``."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras.layers.base import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M


class _Cauchy(init_ops.Initializer):
    """Standard Cauchy samples: the Fourier transform of the Laplacian kernel."""

    def __init__(self, seed: Optional[int] = None):
        self.seed = seed

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        rng = np.random.RandomState(self.seed)
        return A.constant(rng.standard_cauchy(size=tuple(shape)).astype(np.float32))


class RandomFourierFeatures(Layer):
    """Maps [batch, d_in] to [batch, output_dim] random Fourier features of the
    ``gaussian`` or ``laplacian`` kernel; ``scale`` (learned with ``trainable``) is the
    kernel width, by default ``sqrt(d_in / 2)``."""

    def __init__(self, output_dim: int, kernel_initializer: str = "gaussian",
                 scale: Optional[float] = None, trainable: bool = False,
                 name: Optional[str] = None, **kwargs: Any):
        if output_dim <= 0:
            raise ValueError(f"RandomFourierFeatures: output_dim must be positive, got "
                             f"{output_dim}")
        if kernel_initializer not in ("gaussian", "laplacian"):
            raise ValueError(f"RandomFourierFeatures: kernel_initializer must be 'gaussian' or "
                             f"'laplacian', got {kernel_initializer!r}")
        if scale is not None and scale <= 0:
            raise ValueError(f"RandomFourierFeatures: scale must be positive, got {scale}")
        super().__init__(name=name, **kwargs)
        self._scale_trainable = bool(trainable)
        self.output_dim, self.kernel_initializer, self.scale = int(output_dim), \
            kernel_initializer, scale

    def build(self, input_shape: Any) -> None:
        """Creates the fixed ``unscaled_kernel`` and ``bias`` and the ``kernel_scale``."""
        d = list(input_shape)[-1]
        if d is None or len(list(input_shape)) != 2:
            raise ValueError(f"RandomFourierFeatures: inputs must be [batch, known dim], got "
                             f"{input_shape}")
        init = init_ops.RandomNormal(stddev=1.0) if self.kernel_initializer == "gaussian" \
            else _Cauchy()
        self.unscaled_kernel = self.add_weight("unscaled_kernel", [int(d), self.output_dim],
                                               initializer=init, trainable=False)
        self.bias = self.add_weight("bias", [self.output_dim], trainable=False,
                                    initializer=init_ops.RandomUniform(0.0, 2 * math.pi))
        scale = self.scale if self.scale is not None else math.sqrt(int(d) / 2.0)
        self.kernel_scale = self.add_weight("kernel_scale", [1],
                                            initializer=init_ops.Constant(scale),
                                            trainable=self._scale_trainable)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The random features of ``inputs``."""
        kernel = M.divide(self.unscaled_kernel, self.kernel_scale)
        y = M.add(M.matmul(inputs, kernel), self.bias)
        return M.multiply(math.sqrt(2.0 / self.output_dim), M.cos(y))


__all__ = ["RandomFourierFeatures"]
