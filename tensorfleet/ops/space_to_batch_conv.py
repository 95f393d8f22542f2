"""``tf.nn.with_space_to_batch``: runs a "VALID" spatial op (a convolution, a pooling) at a
dilation rate by moving space into the batch (``space_to_batch_nd``), applying the op and
moving it back (``batch_to_space_nd``), with the paddings and crops that "SAME" or
"VALID" output needs."""

from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops.array_transform_ops import (batch_to_space_nd,
                                                 required_space_to_batch_paddings,
                                                 space_to_batch_nd)


def with_space_to_batch(input: Any, dilation_rate: Any, padding: str,  # noqa: A002
                        op: Callable[[Tensor, int, str], Tensor], filter_shape: Any = None,
                        spatial_dims: Any = None, data_format: Optional[str] = None) -> Tensor:
    """``op(converted_input, num_spatial_dims, padding)`` evaluated at ``dilation_rate``
    over the spatial dimensions (channels last; ``spatial_dims`` the consecutive axes
    from 1)."""
    with name_scope(None, "with_space_to_batch"):
        x = convert_to_tensor(input)
        rate = [int(r) for r in np.asarray(dilation_rate).reshape(-1)]
        n = len(rate)
        if n < 1 or any(r < 1 for r in rate):
            raise ValueError(f"dilation_rate must be positive ints, got {dilation_rate}")
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
        dims = list(range(1, n + 1)) if spatial_dims is None else [int(d) for d in
                                                                   spatial_dims]
        if data_format is not None and data_format.startswith("NC") or \
                dims != list(range(1, n + 1)):
            if any(r != 1 for r in rate):
                raise ValueError("with_space_to_batch here takes channels-last data with the "
                                 "spatial dimensions 1..N when dilation_rate is not 1")
        if all(r == 1 for r in rate):
            return op(x, n, padding)
        if padding == "SAME":
            if filter_shape is None:
                raise ValueError("filter_shape must be specified for SAME padding")
            fs = [int(v) for v in np.asarray(filter_shape).reshape(-1)][:n]
            eff = [(f - 1) * r + 1 for f, r in zip(fs, rate)]
            base = [[(e - 1) // 2, e - 1 - (e - 1) // 2] for e in eff]
        else:
            base = [[0, 0] for _ in rate]
        shape = x.shape.as_list()
        spatial = shape[1:n + 1]
        if any(s is None for s in spatial):
            raise ValueError(f"with_space_to_batch needs the spatial shape known, got "
                             f"{x.shape}")
        paddings, crops = required_space_to_batch_paddings(spatial, rate, base)
        converted = space_to_batch_nd(x, rate, paddings)
        out = op(converted, n, "VALID")
        return batch_to_space_nd(out, rate, crops)
