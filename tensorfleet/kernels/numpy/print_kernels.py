"""numpy kernels of ``tf.print`` (``PrintV2``), ``tf.strings.format`` (``StringFormat``) and
``tf.timestamp`` (``Timestamp``).

``PrintV2`` and ``StringFormat`` render tensors the way TensorFlow 1.13+ does: nested
brackets as numpy prints them but without padding, at most ``summarize`` leading and
trailing entries of every dimension with ``...`` between them, floats in their shortest
exact form (``%g`` with 6 significant digits for float32, 15 for float64, widened when that
would not read back to the same value), bools as ``1``/``0`` and strings quoted with C
escapes.

The text between tensors is fixed when the op is built (``template`` attr: one more
piece than there are tensor inputs), so graphs carry only plain strings.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, List, Sequence

import numpy as np

from tensorfleet import errors
from tensorfleet.platform import tf_logging
from tensorfleet.kernels.registry import KernelContext, register_kernel

_WRITE_LOCK = threading.Lock()
_LOG_LEVELS = {"log(info)": tf_logging.info, "log(warning)": tf_logging.warning,
               "log(error)": tf_logging.error}
# Digits tried first, and the digits that always round-trip, per float width.
_FLOAT_DIGITS = {2: (4, 5), 4: (6, 9), 8: (15, 17)}


def _c_escape(b: bytes) -> str:
    out = []
    for c in b:
        ch = chr(c)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif 32 <= c < 127:
            out.append(ch)
        else:
            out.append(f"\\{c:03o}")
    return "".join(out)


def _float_text(v: float, width: int) -> str:
    short, exact = _FLOAT_DIGITS.get(width, (15, 17))
    text = f"{v:.{short}g}"
    if np.isfinite(v) and np.dtype(f"f{width}").type(float(text)) != v:
        text = f"{v:.{exact}g}"
    return text


def _item_text(v: Any, kind: str, width: int) -> str:
    if kind == "f":
        return _float_text(v, width)
    if kind == "b":
        return "1" if v else "0"
    if kind == "c":
        return str(v)
    if isinstance(v, (bytes, str)):
        return '"' + _c_escape(v if isinstance(v, bytes) else v.encode("utf-8")) + '"'
    return str(v)


def _keep(n: int, summarize: int) -> List[Any]:
    """The indices of one dimension that are shown, ``None`` where ``...`` stands."""
    if summarize < 0 or n <= 2 * summarize:
        return list(range(n))
    return list(range(summarize)) + [None] + list(range(n - summarize, n))


def format_tensor(value: Any, summarize: int = 3) -> str:
    """``value`` rendered as TensorFlow's print and string-format ops render a tensor."""
    arr = np.asarray(value)
    kind = arr.dtype.kind
    width = arr.dtype.itemsize if kind == "f" else 0
    if arr.ndim == 0:
        return _item_text(arr.item() if kind != "O" else arr[()], kind, width)

    def block(a: np.ndarray, depth: int) -> str:
        idx = _keep(a.shape[0], summarize)
        if a.ndim == 1:
            parts = ["..." if i is None else _item_text(a[i].item() if kind != "O" else a[i],
                                                         kind, width) for i in idx]
            return "[" + " ".join(parts) + "]"
        sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
        parts = ["..." if i is None else block(a[i], depth + 1) for i in idx]
        return "[" + sep.join(parts) + "]"
    return block(arr, 0)


def render_template(ctx: KernelContext, values: Sequence[Any]) -> str:
    """The op's template pieces with the rendered ``values`` between them."""
    pieces = list(ctx.attrs.get("template") or [""])
    if len(pieces) != len(values) + 1:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: template has {len(pieces) - 1} placeholders "
                               f"for {len(values)} tensors")
    summarize = int(ctx.attrs.get("summarize", 3))
    out = [pieces[0]]
    for v, piece in zip(values, pieces[1:]):
        out.append(format_tensor(v, summarize))
        out.append(piece)
    return "".join(out)


@register_kernel("StringFormat")
def _string_format(ctx: KernelContext, *values: Any) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = render_template(ctx, values).encode("utf-8")
    return out


@register_kernel("PrintV2")
def _print_v2(ctx: KernelContext, *values: Any) -> None:
    if ctx.attrs.get("bare_string"):
        # A lone scalar string is printed as its text, unquoted.
        v = np.asarray(values[0]).reshape(()).item()
        text = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    else:
        text = render_template(ctx, values)
    end = str(ctx.attrs.get("end", "\n"))
    stream = str(ctx.attrs.get("output_stream", "stderr"))
    if stream in _LOG_LEVELS:
        _LOG_LEVELS[stream]("%s", text + end if end != "\n" else text)
        return None
    with _WRITE_LOCK:
        if stream.startswith("file://"):
            try:
                with open(stream[len("file://"):], "a", encoding="utf-8") as f:
                    f.write(text + end)
            except OSError as e:
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, f"PrintV2: cannot append to {stream}: {e}") from None
            return None
        out = sys.stdout if stream == "stdout" else sys.stderr
        out.write(text + end)
        out.flush()
    return None


@register_kernel("Timestamp")
def _timestamp(ctx: KernelContext) -> np.ndarray:
    return np.array(time.time(), dtype=np.float64)


__all__ = ["format_tensor", "render_template"]
