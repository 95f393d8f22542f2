"""Keras ``InputSpec``: the dtype, rank and sizes a layer accepts. A layer with an
``input_spec`` attribute has its inputs checked on every call."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor


class InputSpec:
    """The dtype, rank (``ndim``, ``max_ndim``, ``min_ndim``), shape and per-axis sizes
    (``axes``: axis -> size) a layer accepts; ``None`` leaves a property free."""

    def __init__(self, dtype: Any = None, shape: Optional[Sequence[Optional[int]]] = None,
                 ndim: Optional[int] = None, max_ndim: Optional[int] = None,
                 min_ndim: Optional[int] = None, axes: Optional[Dict[int, int]] = None,
                 allow_last_axis_squeeze: bool = False, name: Optional[str] = None):
        self.dtype = None if dtype is None else _dtypes.as_dtype(dtype).name
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.axes = {int(k): int(v) for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name

    def __repr__(self) -> str:
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                          ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                          ("min_ndim", self.min_ndim), ("axes", self.axes))
                 if v]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> Dict[str, Any]:
        """The spec as a dict of its constructor arguments."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "InputSpec":
        """The spec made from ``get_config()``'s dict."""
        return cls(**config)

    def assert_compatible(self, x: Tensor, layer_name: str = "layer") -> None:
        """Raises ValueError when ``x`` does not meet the spec."""
        shape = x.shape
        rank = shape.ndims
        if self.dtype is not None and x.dtype.base_dtype.name != self.dtype:
            raise ValueError(f"Input of {layer_name} is incompatible: expected dtype "
                             f"{self.dtype}, found {x.dtype.name}")
        if rank is None:
            return
        if self.ndim is not None and rank != self.ndim:
            raise ValueError(f"Input of {layer_name} is incompatible: expected ndim="
                             f"{self.ndim}, found ndim={rank}. Full shape: {shape}")
        if self.max_ndim is not None and rank > self.max_ndim:
            raise ValueError(f"Input of {layer_name} is incompatible: expected max_ndim="
                             f"{self.max_ndim}, found ndim={rank}")
        if self.min_ndim is not None and rank < self.min_ndim:
            raise ValueError(f"Input of {layer_name} is incompatible: expected min_ndim="
                             f"{self.min_ndim}, found ndim={rank}")
        dims = shape.as_list()
        for axis, size in self.axes.items():
            d = dims[axis]
            if d is not None and d != size:
                raise ValueError(f"Input of {layer_name} is incompatible: expected axis "
                                 f"{axis} of size {size}, found shape {shape}")
        if self.shape is not None:
            for want, got in zip(self.shape, dims):
                if want is not None and got is not None and want != got:
                    raise ValueError(f"Input of {layer_name} is incompatible: expected shape "
                                     f"{self.shape}, found shape {shape}")


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """Checks each input against its ``InputSpec`` (a spec or a list of them)."""
    if input_spec is None:
        return
    specs = input_spec if isinstance(input_spec, (list, tuple)) else [input_spec]
    xs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    if len(specs) != len(xs):
        raise ValueError(f"Layer {layer_name} expects {len(specs)} inputs, got {len(xs)}")
    for spec, x in zip(specs, xs):
        if spec is not None:
            spec.assert_compatible(x, layer_name)



__all__ = ["InputSpec", "assert_input_compatibility"]
