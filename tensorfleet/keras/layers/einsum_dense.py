"""Keras ``EinsumDense``: a dense layer whose product is an einsum equation
``"<input>,<kernel>-><output>"``; the kernel's shape follows from the input's and
``output_shape`` (the output without its first axis, or without the ``...`` part)."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer, weight_options
from tensorfleet.ops import linalg_ops as L
from tensorfleet.ops import math_ops as M


class EinsumDense(Layer):
    """``activation(einsum(equation, inputs, kernel) + bias)``; ``bias_axes`` names the
    output letters the bias spans."""

    def __init__(self, equation: str, output_shape: Any, activation: Any = None,
                 bias_axes: Optional[str] = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        try:
            lhs, out_spec = equation.replace(" ", "").split("->")
            in_spec, k_spec = lhs.split(",")
        except ValueError:
            raise ValueError(f"EinsumDense: equation must look like 'ab,bc->ac', got "
                             f"{equation!r}") from None
        if "..." in k_spec:
            raise ValueError("EinsumDense: the kernel spec cannot hold '...'")
        self.equation, self._specs = equation, (in_spec, k_spec, out_spec)
        self.partial_output_shape = [output_shape] if isinstance(output_shape, int) \
            else list(output_shape)
        self.activation = _acts.get(activation)
        self.bias_axes = bias_axes
        self._kw = weight_options(kernel_initializer, kernel_regularizer, kernel_constraint)
        self._bw = weight_options(bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = _regs.get(activity_regularizer)
        self.bias: Any = None

    def _dims(self, input_shape: Any) -> tuple:
        in_spec, _, out_spec = self._specs
        dims = list(input_shape)
        if "..." in in_spec:
            in_letters = in_spec.replace("...", "")
            in_dims = dict(zip(in_letters, dims[len(dims) - len(in_letters):]))
            out_letters = out_spec.replace("...", "")
        else:
            if len(in_spec) != len(dims):
                raise ValueError(f"EinsumDense: input spec {in_spec!r} does not fit inputs of "
                                 f"shape {input_shape}")
            in_dims = dict(zip(in_spec, dims))
            out_letters = out_spec[1:]
        if len(out_letters) != len(self.partial_output_shape):
            raise ValueError(f"EinsumDense: output_shape {self.partial_output_shape} does not "
                             f"fit the output spec {out_spec!r}")
        out_dims = dict(zip(out_letters, self.partial_output_shape))
        return in_dims, out_dims

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` (and ``bias`` over ``bias_axes``)."""
        in_dims, out_dims = self._dims(input_shape)
        _, k_spec, out_spec = self._specs
        shape: List[int] = []
        for c in k_spec:
            d = in_dims.get(c, out_dims.get(c))
            if d is None:
                raise ValueError(f"EinsumDense: the size of kernel axis {c!r} is unknown")
            shape.append(int(d))
        self.kernel = self.add_weight("kernel", shape, **self._kw)
        if self.bias_axes:
            letters = out_spec.replace("...", "")
            first = min(letters.index(c) for c in self.bias_axes)
            bshape = []
            for c in letters[first:]:
                if c in self.bias_axes:
                    d = out_dims.get(c, in_dims.get(c))
                    if d is None:
                        raise ValueError(f"EinsumDense: bias axis {c!r} has no known size")
                    bshape.append(int(d))
                else:
                    bshape.append(1)
            self.bias = self.add_weight("bias", bshape, **self._bw)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The einsum of ``inputs`` and ``kernel``, bias and activation."""
        y = L.einsum(self.equation, inputs, self.kernel)
        in_spec, _, out_spec = self._specs
        dims = inputs.shape.as_list() if inputs.shape.ndims is not None else None
        if dims is not None:
            lead = dims[:len(dims) - len(in_spec.replace("...", ""))] if "..." in in_spec \
                else dims[:1]
            if "..." in out_spec or "..." not in in_spec:
                y.set_shape(lead + [int(d) if d is not None else None
                                    for d in self.partial_output_shape])
        if self.bias is not None:
            y = M.add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        if self.activity_regularizer is not None:
            self._keras_losses.append(self.activity_regularizer(y))
        return y


__all__ = ["EinsumDense"]
