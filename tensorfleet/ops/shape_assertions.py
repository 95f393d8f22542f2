"""``tf.debugging.assert_shapes``: several tensors' shapes checked against specs that share
symbolic dimensions (``[(x, ("N", "D")), (y, ("N",))]``: x is a matrix, y a vector, and
their first dimensions agree)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.check_ops import assert_equal
from tensorfleet.ops.control_flow_ops import group, no_op


def _pairs(shapes: Any) -> List[Tuple[Tensor, list]]:
    items = shapes.items() if isinstance(shapes, dict) else shapes
    out = []
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ValueError(f"assert_shapes: each entry is (tensor, shape spec), got {item!r}")
        x, spec = item
        spec = [spec] if isinstance(spec, str) and spec != "..." else list(spec)
        out.append((convert_to_tensor(x), spec))
    return out


def assert_shapes(shapes: Any, data: Any = None, summarize: Optional[int] = None,
                  message: Optional[str] = None, name: Optional[str] = None) -> Operation:
    """Checks every ``(tensor, spec)`` of ``shapes`` (a list of pairs or a dict). A spec
    is a sequence of dims: an int (that size), a string (a symbol: the same size wherever
    it appears), None (any size); a leading ``...`` allows any leading dims. What the
    static shapes decide is checked now; the rest by the returned op when it runs.

    Raises:
      ValueError: a static shape that contradicts the specs.
    """
    prefix = f"{message}: " if message else ""
    with name_scope(name or "assert_shapes"):
        pairs = _pairs(shapes)
        static: Dict[str, Tuple[int, str]] = {}   # symbol -> (size, where it was seen)
        dynamic: Dict[str, Any] = {}              # symbol -> a run-time size tensor
        checks: List[Any] = []
        for x, spec in pairs:
            ellipsis = bool(spec) and (spec[0] is Ellipsis or spec[0] == "...")
            dims = spec[1:] if ellipsis else spec
            rank = x.shape.ndims
            if rank is not None and (rank < len(dims) if ellipsis else rank != len(dims)):
                raise ValueError(f"{prefix}Specified by tensor {x.name} dimension "
                                 f"{'>= ' if ellipsis else ''}{len(dims)}. Tensor {x.name} "
                                 f"has rank {rank}")
            known = x.shape.as_list() if rank is not None else None
            shape_t = A.shape(x, out_type=_dtypes.int64)
            for i, d in enumerate(dims):
                # Dims are counted from the end when the spec starts with "...".
                pos = (rank - len(dims) + i) if ellipsis and rank is not None else i
                size = known[pos] if known is not None else None
                run = shape_t[pos] if not ellipsis else shape_t[i - len(dims)]
                if d is None:
                    continue
                if isinstance(d, str):
                    if size is not None:
                        if d in static and static[d][0] != size:
                            raise ValueError(
                                f"{prefix}Tensor {x.name} dimension {pos} must have size "
                                f"{static[d][0]} ({d!r}, as in {static[d][1]}), got {size}")
                        static.setdefault(d, (size, x.name))
                    if d in dynamic:
                        checks.append(assert_equal(run, dynamic[d], data=data,
                                                   summarize=summarize,
                                                   message=f"{prefix}dimension {d!r}"))
                    else:
                        dynamic[d] = run
                    continue
                if isinstance(d, bool) or not isinstance(d, int):
                    raise ValueError(f"assert_shapes: a dim is an int, a symbol or None, got "
                                     f"{d!r}")
                if size is not None:
                    if size != d:
                        raise ValueError(f"{prefix}Tensor {x.name} dimension {pos} must have "
                                         f"size {d}, got {size}")
                else:
                    checks.append(assert_equal(run, A.constant(d, _dtypes.int64), data=data,
                                               summarize=summarize,
                                               message=f"{prefix}{x.name} dimension {pos}"))
        return group(*checks) if checks else no_op()


__all__ = ["assert_shapes"]
