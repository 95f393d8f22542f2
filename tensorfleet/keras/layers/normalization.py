"""Keras ``LayerNormalization``: each sample normalized over ``axis`` (the last by
default) to zero mean and unit variance, then scaled by ``gamma`` and shifted by ``beta``."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N


class LayerNormalization(Layer):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta`` over ``axis`` per sample."""

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]
        self.epsilon, self.center, self.scale = float(epsilon), bool(center), bool(scale)
        self._inits = (_inits.get(beta_initializer), _inits.get(gamma_initializer))
        self._regs = (_regs.get(beta_regularizer), _regs.get(gamma_regularizer))
        self._cons = (beta_constraint, gamma_constraint)
        self.gamma: Any = None
        self.beta: Any = None

    def build(self, input_shape: Any) -> None:
        """Creates ``gamma`` and ``beta`` shaped like the normalized axes."""
        dims = list(input_shape)
        rank = len(dims)
        axes: List[int] = []
        for a in self.axis:
            if not -rank <= a < rank:
                raise ValueError(f"LayerNormalization: axis {a} is out of range for inputs "
                                 f"of shape {input_shape}")
            axes.append(a % rank)
        self._axes = sorted(axes)
        shape = [dims[a] for a in self._axes]
        if any(d is None for d in shape):
            raise ValueError(f"LayerNormalization: the normalized axes must be known, got "
                             f"{input_shape}")
        shape = [int(d) for d in shape]
        if self.scale:
            self.gamma = self.add_weight("gamma", shape, initializer=self._inits[1],
                                         regularizer=self._regs[1], constraint=self._cons[1])
        if self.center:
            self.beta = self.add_weight("beta", shape, initializer=self._inits[0],
                                        regularizer=self._regs[0], constraint=self._cons[0])
        self._rank = rank

    def _broadcast(self, w: Any) -> Tensor:
        shape = [1] * self._rank
        for a, n in zip(self._axes, w.get_shape().as_list()):
            shape[a] = n
        return A.reshape(w, shape)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The normalized, scaled and shifted ``inputs``."""
        mean, var = N.moments(inputs, self._axes, keep_dims=True)
        y = M.multiply(M.subtract(inputs, mean), M.rsqrt(M.add(var, self.epsilon)))
        if self.gamma is not None:
            y = M.multiply(y, self._broadcast(self.gamma))
        if self.beta is not None:
            y = M.add(y, self._broadcast(self.beta))
        return y


__all__ = ["LayerNormalization"]
