"""The logging ops: ``tf.print`` (TensorFlow 1.13+), ``tf.strings.format`` and
``tf.timestamp``.

``tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\\n")`` builds
one stateful ``PrintV2`` op: in graph mode it is run (or made a control dependency) to
print. Inputs may be tensors, Python values, or lists/tuples/dicts holding tensors; the
Python parts become fixed text when the op is built, so only the tensors are inputs and
the op's attributes stay plain strings. ``tf.timestamp`` is the time a ``Timestamp`` op
runs, for timing steps from inside the graph. The kernels are in
``kernels/numpy/print_kernels.py``.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.platform import tf_logging
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import scalar
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs
from tensorfleet.ops.variables import Variable

# Stateful: printing is the whole point, so the op is never pruned as a constant or cached.
register_op("PrintV2", no_outputs, stateful=True)
register_op("StringFormat", lambda op: [scalar()])
# Stateful so that every run reads the clock again instead of reusing a cached value.
register_op("Timestamp", lambda op: [scalar()], stateful=True)

_KWARGS = ("output_stream", "summarize", "sep", "end", "name")


def _stream_name(output_stream: Any) -> str:
    """The plain-string form of ``output_stream`` kept in the op's attributes."""
    if output_stream is sys.stderr or output_stream is sys.__stderr__:
        return "stderr"
    if output_stream is sys.stdout or output_stream is sys.__stdout__:
        return "stdout"
    levels: List[Tuple[Callable[..., Any], str]] = [
        (tf_logging.info, "log(info)"), (tf_logging.warning, "log(warning)"),
        (tf_logging.warn, "log(warning)"), (tf_logging.error, "log(error)")]
    for fn, text in levels:
        if output_stream is fn:
            return text
    if isinstance(output_stream, str) and output_stream.startswith("file://") \
            and len(output_stream) > len("file://"):
        return output_stream
    raise ValueError(
        f"Unsupported output stream, logging level, or file: {output_stream!r}. Supported "
        f"streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
        f"tf.logging.error, or a file given as 'file://<filepath>'.")


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


class _Template:
    """Text pieces with tensors between them, filled as a structure is walked."""

    def __init__(self) -> None:
        self.pieces: List[str] = [""]
        self.tensors: List[Tensor] = []

    def text(self, s: str) -> None:
        """Appends fixed text."""
        self.pieces[-1] += s

    def tensor(self, t: Any) -> None:
        """Appends a placeholder for the value of tensor ``t``."""
        self.tensors.append(convert_to_tensor(t))
        self.pieces.append("")

    def value(self, x: Any, nested: bool) -> None:
        """Appends ``x``: tensors as placeholders, containers element by element, other
        Python values as ``str`` at the top level and ``repr`` inside containers."""
        if _is_tensor(x):
            self.tensor(x)
        elif isinstance(x, SparseTensor):
            self.text("'SparseTensor(indices=")
            self.tensor(x.indices)
            self.text(", values=")
            self.tensor(x.values)
            self.text(", shape=")
            self.tensor(x.dense_shape)
            self.text(")'")
        elif isinstance(x, dict):
            self.text("{")
            for i, k in enumerate(sorted(x)):
                self.text((", " if i else "") + repr(k) + ": ")
                self.value(x[k], True)
            self.text("}")
        elif isinstance(x, (list, tuple)):
            opening, closing = ("[", "]") if isinstance(x, list) else ("(", ")")
            self.text(opening)
            for i, item in enumerate(x):
                if i:
                    self.text(", ")
                self.value(item, True)
            self.text("," + closing if isinstance(x, tuple) and len(x) == 1 else closing)
        else:
            self.text(repr(x) if nested else str(x))


def print(*inputs: Any, **kwargs: Any) -> Operation:  # noqa: A001 - TF name
    """Prints ``inputs`` each time the returned op runs (TensorFlow 1.13+ ``tf.print``).

    Args:
      *inputs: tensors, Python values, or lists/tuples/dicts of them, printed in order.
      output_stream: ``sys.stderr`` (default), ``sys.stdout``, ``tf.logging.info`` /
        ``warning`` / ``error``, or ``"file://<path>"`` (appended to).
      summarize: leading and trailing entries shown per dimension of each tensor
        (default 3; -1 shows all).
      sep: text between inputs (default one space).
      end: text after the last input (default a newline).
      name: op name.

    Returns:
      The ``PrintV2`` operation: run it, or use it in ``tf.control_dependencies``.

    Raises:
      ValueError: an unknown keyword or an unsupported ``output_stream``.
    """
    unknown = {k: v for k, v in kwargs.items() if k not in _KWARGS}
    if unknown:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {unknown}")
    stream = _stream_name(kwargs.get("output_stream", sys.stderr))
    summarize = kwargs.get("summarize", 3)
    summarize = 3 if summarize is None else int(summarize)
    sep = str(kwargs.get("sep", " "))
    end = str(kwargs.get("end", "\n"))
    tpl = _Template()
    for i, x in enumerate(inputs):
        if i:
            tpl.text(sep)
        tpl.value(x, False)
    attrs = {"template": tpl.pieces, "summarize": summarize, "output_stream": stream,
             "end": end, "bare_string": False}
    if len(inputs) == 1 and len(tpl.tensors) == 1 and tpl.pieces == ["", ""]:
        t = tpl.tensors[0]
        # One scalar string tensor alone prints as its text, as TensorFlow does.
        attrs["bare_string"] = t.dtype is _dtypes.string and t.shape.ndims == 0
    return make_op("PrintV2", tpl.tensors, [], attrs, name=kwargs.get("name") or "PrintV2")


def string_format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
                  name: Optional[str] = None) -> Tensor:
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by the
    rendering of the matching tensor of ``inputs`` (a tensor or a list of them).

    Raises:
      ValueError: the number of placeholders differs from the number of inputs.
    """
    if not isinstance(template, str):
        raise TypeError(f"strings.format: template must be a Python string, got "
                        f"{type(template).__name__}")
    if not placeholder:
        raise ValueError("strings.format: placeholder must not be empty")
    tensors: Sequence[Any] = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(tensors):
        raise ValueError(f"strings.format: {len(pieces) - 1} placeholders {placeholder!r} in "
                         f"the template for {len(tensors)} inputs")
    attrs = {"template": pieces, "summarize": 3 if summarize is None else int(summarize)}
    return make_tensor("StringFormat", [convert_to_tensor(t) for t in tensors], _dtypes.string,
                       attrs, name=name or "StringFormat")


def timestamp(name: Optional[str] = None) -> Tensor:
    """The time at which the op runs, in seconds since the epoch (float64)."""
    return make_tensor("Timestamp", [], _dtypes.float64, name=name or "Timestamp")


__all__ = ["print", "timestamp"]
