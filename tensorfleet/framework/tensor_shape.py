"""Static tensor shapes with unknown dimensions."""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence


class Dimension:
    """One dimension of a ``TensorShape``; ``value`` is an int or None (unknown)."""

    __slots__ = ("value",)

    def __init__(self, value: Optional[int]):
        self.value = None if value is None or (isinstance(value, int) and value < 0) else int(value)

    def __eq__(self, other: Any) -> Any:
        other = other.value if isinstance(other, Dimension) else other
        if self.value is None or other is None:
            return None
        return self.value == other

    def __int__(self) -> int:
        if self.value is None:
            raise ValueError("Cannot convert an unknown Dimension to an int")
        return self.value

    __index__ = __int__

    def __repr__(self) -> str:
        return f"Dimension({self.value})"

    def __str__(self) -> str:
        return "?" if self.value is None else str(self.value)


class TensorShape:
    """The static shape of a tensor: unknown rank (``dims is None``) or a list of dims."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any):
        if dims is None:
            self._dims: Optional[List[Optional[int]]] = None
        elif isinstance(dims, TensorShape):
            self._dims = None if dims._dims is None else list(dims._dims)
        else:
            if isinstance(dims, (int, Dimension)):
                dims = [dims]
            self._dims = [_dim_value(d) for d in dims]

    @property
    def dims(self) -> Optional[List[Dimension]]:
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def ndims(self) -> Optional[int]:
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self) -> List[Optional[int]]:
        """The dims as a list of ints and Nones; raises ValueError for unknown rank."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> Optional[int]:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:  # type: ignore[union-attr]
            n *= d
        return n

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other: Any) -> "TensorShape":
        """The most specific shape compatible with both; ValueError if they conflict."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def with_rank(self, rank: int) -> "TensorShape":
        if self._dims is None:
            return unknown_shape(rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        """This shape if its rank is at least ``rank`` (or unknown); else ValueError."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> "TensorShape":
        """This shape if its rank is at most ``rank`` (or unknown); else ValueError."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        """Raises ValueError unless the rank is ``rank`` or unknown."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other: Any) -> None:
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and \
                len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_is_fully_defined(self) -> None:
        """Raises ValueError if the rank or a dimension is unknown."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def most_specific_compatible_shape(self, other: Any) -> "TensorShape":
        """The shape whose known dims are those both shapes agree on (unknown rank if
        the ranks differ or either is unknown)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: Any) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(None if self._dims is None else tuple(self._dims))

    def __repr__(self) -> str:
        return f"TensorShape({self._dims})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("?" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def to_plain(self) -> Optional[List[int]]:
        """Plain-data form: None for unknown rank, -1 for unknown dims."""
        return None if self._dims is None else [-1 if d is None else d for d in self._dims]


def _dim_value(d: Any) -> Optional[int]:
    if isinstance(d, Dimension):
        return d.value
    if d is None:
        return None
    d = int(d)
    return None if d < 0 else d


def as_shape(shape: Any) -> TensorShape:
    """Converts a list, tuple, int, None or TensorShape into a ``TensorShape``."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def dimension_at_index(shape: Any, index: int) -> "Dimension":
    """``shape[index]`` as a ``Dimension``; an unknown one when the rank is unknown.

    Raises:
      IndexError: ``index`` is out of range for a shape of known rank.
    """
    shape = as_shape(shape)
    if shape.ndims is None:
        return Dimension(None)
    dims = shape.as_list()
    if not -len(dims) <= index < len(dims):
        raise IndexError(f"dimension_at_index: index {index} is out of range for a shape of "
                         f"rank {len(dims)}")
    return Dimension(dims[index])


def unknown_shape(rank: Optional[int] = None) -> TensorShape:
    """A shape of unknown rank, or of known rank with all dims unknown."""
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape([])


def broadcast_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """Static numpy-style broadcast of two shapes; ValueError when incompatible."""
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    x, y = list(a.as_list()), list(b.as_list())
    n = max(len(x), len(y))
    x = [1] * (n - len(x)) + x
    y = [1] * (n - len(y)) + y
    out: List[Optional[int]] = []
    for p, q in zip(x, y):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None or q is None:
            out.append(p if q is None else q)
        elif p == q:
            out.append(p)
        else:
            raise ValueError(f"Dimensions must be equal or 1, but are {p} and {q} for shapes "
                             f"{a} and {b}")
    return TensorShape(out)


def shape_from_plain(dims: Optional[Sequence[int]]) -> TensorShape:
    return TensorShape(None if dims is None else [None if d < 0 else d for d in dims])


def dims_of(values: Iterable[Any]) -> List[Optional[int]]:
    return [_dim_value(v) for v in values]
