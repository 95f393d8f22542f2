"""numpy kernels of the string ops: CSV decoding, number parsing, raw bytes, files, split.

String tensors hold ``bytes`` in object arrays (a fed ``str`` counts as its UTF-8
bytes). Every kernel here works on any shape unless its op says otherwise, and a
value it cannot convert raises ``InvalidArgumentError`` naming the value and where it
was (field and record for CSV).
"""

from __future__ import annotations

import os
import re
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel

_INT_BOUNDS = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def as_bytes(v: Any) -> bytes:
    """A string element as bytes (``str`` is encoded as UTF-8)."""
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytearray, memoryview, np.bytes_)):
        return bytes(v)
    raise TypeError(f"expected a string, got {type(v).__name__}")


def string_array(value: Any, op_name: Optional[str], what: str) -> np.ndarray:
    """``value`` as an object array of bytes; InvalidArgumentError when not strings."""
    arr = np.asarray(value, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    try:
        for i, v in enumerate(arr.flat):
            out.flat[i] = as_bytes(v)
    except TypeError as e:
        raise errors.InvalidArgumentError(op_name, None, f"{what}: {e}") from None
    return out


def parse_number(text: bytes, dtype: _dtypes.DType) -> Any:
    """``text`` as a number of ``dtype``; ValueError when it is not one (or overflows)."""
    s = text.decode("utf-8", "strict").strip()
    if dtype.name in _INT_BOUNDS:
        v = int(s)
        lo, hi = _INT_BOUNDS[dtype.name]
        if not lo <= v <= hi:
            raise ValueError(f"{s} is out of range for {dtype.name}")
        return v
    if dtype.name in ("float32", "float64"):
        return float(s)
    raise ValueError(f"unsupported number type {dtype.name}")


# -- CSV -------------------------------------------------------------------------------------

def split_csv(record: bytes, delim: bytes, quoted: bool, index: int,
              op_name: Optional[str]) -> List[bytes]:
    """The fields of one CSV record; with ``quoted``, ``"..."`` fields may hold the
    delimiter and ``""`` stands for one quote."""
    if not quoted or b'"' not in record:
        return record.split(delim)
    fields: List[bytes] = []
    i, n = 0, len(record)
    while True:
        if i < n and record[i:i + 1] == b'"':
            buf = bytearray()
            i += 1
            while True:
                j = record.find(b'"', i)
                if j < 0:
                    raise errors.InvalidArgumentError(
                        op_name, None, f"Quoted field has to end with quote followed by delim "
                                       f"or end of record {index}: {record!r}")
                buf += record[i:j]
                if record[j + 1:j + 2] == b'"':
                    buf += b'"'
                    i = j + 2
                    continue
                i = j + 1
                break
            if i < n and record[i:i + 1] != delim:
                raise errors.InvalidArgumentError(
                    op_name, None, f"Quote inside a string has to be escaped by another quote "
                                   f"in record {index}: {record!r}")
            fields.append(bytes(buf))
        else:
            j = record.find(delim, i)
            end = n if j < 0 else j
            if b'"' in record[i:end]:
                raise errors.InvalidArgumentError(
                    op_name, None, f"Unquoted fields cannot have quotes inside (record "
                                   f"{index}): {record!r}")
            fields.append(record[i:end])
            i = end
        if i >= n:
            return fields
        i += 1  # past the delimiter
        if i == n:
            fields.append(b"")
            return fields


def _csv_column(col: np.ndarray, dt: _dtypes.DType, default: Any,
                na: bytes) -> Optional[np.ndarray]:
    """One column of split fields converted to ``dt``, or None when a field needs the
    record-by-record path (a missing required field, a value that does not parse)."""
    missing = col == b""
    if na:
        missing |= col == na
    has_missing = bool(missing.any())
    if has_missing and default is None:
        return None
    if dt is _dtypes.string:
        if has_missing:
            col = col.copy()
            col[missing] = as_bytes(default)
        return col
    if dt.name not in _INT_BOUNDS and dt.name not in ("float32", "float64"):
        return None
    if has_missing:
        col = col.copy()
        col[missing] = b"0"
    try:
        # float() and int() parse bytes (surrounding whitespace allowed) per element.
        out = col.astype(np.float64 if dt.name.startswith("float") else np.int64)
    except (ValueError, TypeError, OverflowError):
        return None
    if dt.name == "int32":
        lo, hi = _INT_BOUNDS["int32"]
        if out.size and (out.min() < lo or out.max() > hi):
            return None
    out = out.astype(dt.np, copy=False)
    if has_missing:
        out[missing] = default
    return out


def _decode_csv_columns(recs: np.ndarray, types: List[_dtypes.DType], defs: List[Any],
                        delim: bytes, quoted: bool, na: bytes,
                        select: Optional[List[int]]) -> Optional[List[np.ndarray]]:
    """All records split at once and converted column by column, or None when a record
    needs the record-by-record path (quotes, newlines, a wrong field count, bad values),
    which also gives the precise error."""
    n = recs.size
    if n == 0 or len(delim) != 1 or delim in b'\n"':
        return None
    lines = recs.reshape(-1).tolist()
    joined = b"\n".join(lines)
    if (quoted and b'"' in joined) or joined.count(b"\n") != n - 1:
        return None
    width = lines[0].count(delim) + 1
    if any(line.count(delim) != width - 1 for line in lines) or \
            (select is None and width != len(types)) or \
            (select is not None and select and select[-1] >= width):
        return None
    fields = joined.replace(b"\n", delim).split(delim)
    grid = np.empty(len(fields), dtype=object)
    grid[:] = fields
    grid = grid.reshape(n, width)
    cols = range(width) if select is None else select
    outs: List[np.ndarray] = []
    for c, dt, default in zip(cols, types, defs):
        out = _csv_column(grid[:, c], dt, default, na)
        if out is None:
            return None
        outs.append(out.reshape(recs.shape))
    return outs


@register_kernel("DecodeCSV")
def _decode_csv(ctx: KernelContext, records: Any, *defaults: Any) -> Any:
    a = ctx.attrs
    types = [_dtypes.as_dtype(t) for t in a["OUT_TYPE"]]
    delim = as_bytes(a.get("field_delim", ","))
    quoted = bool(a.get("use_quote_delim", True))
    na = as_bytes(a.get("na_value", ""))
    select: Optional[List[int]] = a.get("select_cols")
    recs = string_array(records, ctx.op_name, "DecodeCSV records")
    defs = []
    for i, d in enumerate(defaults):
        d = np.asarray(d)
        if d.size > 1:
            raise errors.InvalidArgumentError(ctx.op_name, None, f"record_defaults[{i}] must "
                                              f"have at most one element, got shape {d.shape}")
        defs.append(d.reshape(-1)[0] if d.size else None)
    if len(defs) != len(types):
        raise errors.InvalidArgumentError(ctx.op_name, None, f"DecodeCSV: {len(defs)} "
                                          f"defaults for {len(types)} output types")
    fast = _decode_csv_columns(recs, types, defs, delim, quoted, na, select)
    if fast is not None:
        return fast[0] if len(fast) == 1 else tuple(fast)
    columns: List[List[Any]] = [[] for _ in types]
    for r, rec in enumerate(recs.flat):
        fields = split_csv(rec, delim, quoted, r, ctx.op_name)
        if select is None:
            if len(fields) != len(types):
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, f"Expect {len(types)} fields but have {len(fields)} "
                                       f"in record {r}")
            chosen: Sequence[bytes] = fields
        else:
            if select and select[-1] >= len(fields):
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, f"Expect {select[-1] + 1} fields but have "
                                       f"{len(fields)} in record {r}")
            chosen = [fields[c] for c in select]
        for f, (text, dt) in enumerate(zip(chosen, types)):
            if text == b"" or text == na:
                if defs[f] is None:
                    raise errors.InvalidArgumentError(
                        ctx.op_name, None, f"Field {f} is required but missing in record "
                                           f"{r}!")
                columns[f].append(defs[f])
            elif dt is _dtypes.string:
                columns[f].append(text)
            else:
                try:
                    columns[f].append(parse_number(text, dt))
                except (ValueError, UnicodeDecodeError):
                    raise errors.InvalidArgumentError(
                        ctx.op_name, None, f"Field {f} in record {r} is not a valid "
                                           f"{dt.name}: {text.decode('utf-8', 'replace')}") \
                        from None
    outs = []
    for col, dt in zip(columns, types):
        if dt is _dtypes.string:
            arr = np.empty(len(col), dtype=object)
            arr[:] = [as_bytes(v) for v in col]
        else:
            arr = np.asarray(col, dtype=dt.np) if col else np.zeros(0, dt.np)
        outs.append(arr.reshape(recs.shape))
    return outs[0] if len(outs) == 1 else tuple(outs)


# -- numbers, raw bytes, files -----------------------------------------------------------------

@register_kernel("StringToNumber")
def _string_to_number(ctx: KernelContext, strings: Any) -> np.ndarray:
    dt = _dtypes.as_dtype(ctx.attrs["out_type"])
    arr = string_array(strings, ctx.op_name, "StringToNumber input")
    out = np.empty(arr.shape, dtype=dt.np)
    for i, s in enumerate(arr.flat):
        try:
            out.flat[i] = parse_number(s, dt)
        except (ValueError, UnicodeDecodeError):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"StringToNumberOp could not correctly convert string: "
                                   f"{s.decode('utf-8', 'replace')}") from None
    return out


@register_kernel("DecodeRaw")
def _decode_raw(ctx: KernelContext, data: Any) -> np.ndarray:
    dt = _dtypes.as_dtype(ctx.attrs["out_type"])
    np_dt = np.dtype(dt.np).newbyteorder("<" if ctx.attrs.get("little_endian", True) else ">")
    arr = string_array(data, ctx.op_name, "DecodeRaw input")
    size = None
    rows = []
    for i, b in enumerate(arr.flat):
        if len(b) % np_dt.itemsize:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Input to DecodeRaw has length {len(b)} that is not a "
                                   f"multiple of {np_dt.itemsize}, the size of {dt.name}")
        if size is None:
            size = len(b)
        elif len(b) != size:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"DecodeRaw requires input strings to all be the same "
                                   f"size, but element {i} has size {len(b)} != {size}")
        rows.append(np.frombuffer(b, dtype=np_dt).astype(dt.np))
    n = (size or 0) // np_dt.itemsize
    out = np.stack(rows) if rows else np.zeros((0, n), dt.np)
    return out.reshape(arr.shape + (n,))


@register_kernel("ReadFile")
def _read_file(ctx: KernelContext, filename: Any) -> bytes:
    arr = string_array(filename, ctx.op_name, "ReadFile filename")
    if arr.shape != ():
        raise errors.InvalidArgumentError(ctx.op_name, None, f"ReadFile takes one file name "
                                          f"(a scalar), got shape {arr.shape}")
    path = os.fsdecode(arr.item())
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(ctx.op_name, None, f"{path}; No such file or directory") \
            from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(ctx.op_name, None, f"{path}; Is a directory") \
            from None


def split_tokens(text: bytes, delimiter: bytes, skip_empty: bool) -> List[bytes]:
    """``text`` cut at every byte of ``delimiter`` (into single bytes when it is empty)."""
    if not delimiter:
        return [text[i:i + 1] for i in range(len(text))]
    if len(delimiter) == 1:
        parts = text.split(delimiter)
    else:
        parts = re.split(b"[" + re.escape(delimiter) + b"]", text)
    return [p for p in parts if p] if skip_empty else parts


@register_kernel("StringSplit")
def _string_split(ctx: KernelContext, source: Any, delimiter: Any) -> Tuple[Any, Any, Any]:
    src = string_array(source, ctx.op_name, "StringSplit input")
    if src.ndim != 1:
        raise errors.InvalidArgumentError(ctx.op_name, None, f"StringSplit input must be a "
                                          f"vector, got shape {src.shape}")
    delim = string_array(delimiter, ctx.op_name, "StringSplit delimiter")
    if delim.shape != ():
        raise errors.InvalidArgumentError(ctx.op_name, None, f"StringSplit delimiter must be "
                                          f"a scalar, got shape {delim.shape}")
    skip = bool(ctx.attrs.get("skip_empty", True))
    indices: List[Tuple[int, int]] = []
    values: List[bytes] = []
    width = 0
    for row, text in enumerate(src):
        tokens = split_tokens(text, delim.item(), skip)
        width = max(width, len(tokens))
        indices.extend((row, j) for j in range(len(tokens)))
        values.extend(tokens)
    vals = np.empty(len(values), dtype=object)
    vals[:] = values
    return (np.asarray(indices, dtype=np.int64).reshape(-1, 2), vals,
            np.asarray([len(src), width], dtype=np.int64))


__all__ = ["as_bytes", "string_array", "parse_number", "split_csv", "split_tokens"]
