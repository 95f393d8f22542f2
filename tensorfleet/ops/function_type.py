"""``tf.types.experimental.FunctionType``: the signature of a traced function -- each
parameter with the type it was traced for (a ``TensorSpec``, or the literal Python
value), the captured outer values and the type of the output."""

from __future__ import annotations

import collections
import inspect
from typing import Any, Mapping, Optional, Sequence


class Literal:
    """The type of a Python argument a function was traced for: exactly this value."""

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Literal) and type(other.value) is type(self.value) and \
            other.value == self.value

    def __hash__(self) -> int:
        try:
            return hash((type(self.value), self.value))
        except TypeError:
            return id(self.value)

    def __repr__(self) -> str:
        return f"Literal[{self.value!r}]"


class Parameter(inspect.Parameter):
    """An ``inspect.Parameter`` with the type the function was traced for."""

    __slots__ = ("_optional", "_type_constraint")

    def __init__(self, name: str, kind: Any, optional: bool, type_constraint: Any):
        super().__init__(name, kind, default=(inspect.Parameter.empty if not optional
                                              else _CapturedDefault))
        self._optional = bool(optional)
        self._type_constraint = type_constraint

    @property
    def optional(self) -> bool:
        """Whether a call may leave this parameter out (it has a default)."""
        return self._optional

    @property
    def type_constraint(self) -> Any:
        """The ``TensorSpec`` or ``Literal`` this parameter was traced for, or None."""
        return self._type_constraint

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, Parameter) and self.name == other.name and
                self.kind == other.kind and self.optional == other.optional and
                self.type_constraint == other.type_constraint)

    def __hash__(self) -> int:
        return hash((self.name, self.kind, self.optional))

    def __repr__(self) -> str:
        return (f"Parameter(name={self.name}, kind={self.kind}, optional={self.optional}, "
                f"type_constraint={self.type_constraint!r})")


class _CapturedDefaultType:
    def __repr__(self) -> str:
        return "<captured_default_value>"


_CapturedDefault = _CapturedDefaultType()


class FunctionType(inspect.Signature):
    """A function's parameters (``Parameter`` objects with type constraints), captures
    and output type.

    Args:
      parameters: the ``Parameter`` objects, in order.
      captures: outer values the function reads, by id.
      return_annotation: the output type (``TensorSpec`` structure), if known.
    """

    __slots__ = ("_captures",)

    def __init__(self, parameters: Optional[Sequence[Parameter]] = None,
                 captures: Optional[Mapping[Any, Any]] = None,
                 return_annotation: Any = inspect.Signature.empty,
                 **kwargs: Any):
        for p in parameters or ():
            if not isinstance(p, Parameter):
                raise TypeError(f"FunctionType parameters must be FunctionType Parameter "
                                f"objects, got {type(p).__name__}")
        super().__init__(parameters, return_annotation=return_annotation, **kwargs)
        self._captures = collections.OrderedDict(captures or {})

    @property
    def captures(self) -> "collections.OrderedDict[Any, Any]":
        """The outer values the function reads."""
        return self._captures

    @property
    def output(self) -> Any:
        """The type of the function's output."""
        return self.return_annotation

    def __repr__(self) -> str:
        lines = ["Input Parameters:"]
        for p in self.parameters.values():
            lines.append(f"  {p.name} ({p.kind.name}): {p.type_constraint!r}")
        lines.append("Output Type:")
        lines.append(f"  {self.output!r}")
        lines.append("Captures:")
        lines.extend([f"  {k!r}: {v!r}" for k, v in self._captures.items()] or ["  None"])
        return "\n".join(lines)

    def __str__(self) -> str:
        params = ", ".join(f"{p.name}: {p.type_constraint!r}" for p in self.parameters.values())
        return f"({params}) -> {self.output!r}"


__all__ = ["FunctionType", "Parameter", "Literal"]
