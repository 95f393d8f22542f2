"""``slim.model_analyzer``: sizes of a model's variables and ops.

``analyze_vars`` returns the total number of elements and bytes of the variables;
with ``print_info`` it also writes a table of them to standard output, which is
what model-zoo scripts call it for.
"""

from __future__ import annotations

import sys
from typing import Any, Sequence, Tuple

import numpy as np


def _size(shape: Any) -> int:
    dims = shape.as_list() if getattr(shape, "dims", None) is not None else None
    if dims is None or any(d is None for d in dims):
        return 0
    return int(np.prod(dims, dtype=np.int64))


def analyze_vars(variables: Sequence[Any], print_info: bool = False) -> Tuple[int, int]:
    """``(total elements, total bytes)`` of ``variables`` (unknown shapes count 0)."""
    total_size = total_bytes = 0
    lines = ["---------", "Variables: name (type shape) [size]", "---------"]
    for var in variables:
        size = _size(var.get_shape())
        nbytes = size * var.dtype.base_dtype.size
        total_size += size
        total_bytes += nbytes
        lines.append(f"{var.name} ({var.dtype.base_dtype.name} {var.get_shape()}) "
                     f"[{size}, bytes: {nbytes}]")
    if print_info:
        lines.append(f"Total size of variables: {total_size}")
        lines.append(f"Total bytes of variables: {total_bytes}")
        sys.stdout.write("\n".join(lines) + "\n")
    return total_size, total_bytes


def analyze_ops(graph: Any, print_info: bool = False) -> int:
    """The number of elements of every op output with a fully known shape, summed."""
    total = 0
    lines = ["---------", "Operations: name -> (type shapes) [size]", "---------"]
    for op in graph.get_operations():
        size = sum(_size(o.get_shape()) for o in op.outputs)
        total += size
        shapes = ", ".join(str(o.get_shape()) for o in op.outputs)
        lines.append(f"{op.name} ({op.type} {shapes}) [{size}]")
    if print_info:
        lines.append(f"Total size of operations: {total}")
        sys.stdout.write("\n".join(lines) + "\n")
    return total


__all__ = ["analyze_vars", "analyze_ops"]
