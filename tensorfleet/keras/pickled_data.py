"""Reading the pickled data Keras's data sets ship in (CIFAR batches, the object arrays
inside IMDB's and Reuters' ``.npz`` files) without unpickling.

A pickle is a program for a stack machine that may import and call anything, so it is
never run here. ``pickletools.genops`` decodes the opcodes and this module interprets
only those that build plain data: numbers, strings, bytes, lists, tuples, dicts, and
numpy arrays and dtypes through the three constructors numpy's own pickles name
(``_reconstruct``, ``ndarray``, ``dtype``; ``_frombuffer`` in protocol 5), whose arguments and states are checked.
Any other global, or any other opcode, is refused.
"""

from __future__ import annotations

import io
import pickletools
import zipfile
from typing import Any, BinaryIO, Dict, List

import numpy as np

_MAX_ELEMENTS = 1 << 31  # an array larger than this many elements is refused


class UnsafePickleError(ValueError):
    """The pickle uses something other than plain data and numpy arrays."""


class _Global:
    def __init__(self, name: str):
        self.name = name


_GLOBALS = {("numpy.core.multiarray", "_reconstruct"): "reconstruct",
            ("numpy._core.multiarray", "_reconstruct"): "reconstruct",
            ("numpy", "ndarray"): "ndarray", ("numpy", "dtype"): "dtype",
            # protocol 2 pickles written by Python 3 spell bytes as encode(text, 'latin1')
            ("_codecs", "encode"): "encode",
            # protocol 5 pickles of arrays: _frombuffer(data, dtype, shape, order)
            ("numpy.core.numeric", "_frombuffer"): "frombuffer",
            ("numpy._core.numeric", "_frombuffer"): "frombuffer",
            # numpy scalars: scalar(dtype, data bytes)
            ("numpy.core.multiarray", "scalar"): "scalar",
            ("numpy._core.multiarray", "scalar"): "scalar"}


class _ArrayState:
    """An array made by ``_reconstruct`` awaiting its ``BUILD`` state."""
    array: Any = None


class _DtypeState:
    """A dtype made by ``dtype(spec, ...)`` awaiting its ``BUILD`` state."""

    def __init__(self, spec: str):
        try:
            self.dtype = np.dtype(spec)
        except TypeError as e:
            raise UnsafePickleError(f"unknown dtype {spec!r} in the pickle") from e


def _call(func: Any, args: Any) -> Any:
    if not isinstance(func, _Global) or not isinstance(args, tuple):
        raise UnsafePickleError("the pickle calls something other than numpy's array "
                                "constructors")
    if func.name == "reconstruct":
        if len(args) != 3 or not (isinstance(args[0], _Global) and args[0].name == "ndarray"):
            raise UnsafePickleError("numpy _reconstruct with unexpected arguments")
        return _ArrayState()
    if func.name == "frombuffer":
        if len(args) != 4 or args[3] not in ("C", "F"):
            raise UnsafePickleError("numpy _frombuffer with unexpected arguments")
        state = _ArrayState()
        return _build(state, (1, args[2], args[1], args[3] == "F", args[0]))
    if func.name == "scalar":
        if len(args) != 2 or not isinstance(args[1], (bytes, str)):
            raise UnsafePickleError("numpy scalar with unexpected arguments")
        dtype = _dtype(args[0])
        raw = args[1].encode("latin-1") if isinstance(args[1], str) else args[1]
        if dtype.hasobject or len(raw) != dtype.itemsize:
            raise UnsafePickleError("numpy scalar whose data does not match its dtype")
        return np.frombuffer(raw, dtype=dtype)[0]
    if func.name == "encode":
        if len(args) != 2 or not isinstance(args[0], str) or args[1] != "latin1":
            raise UnsafePickleError("_codecs.encode with unexpected arguments")
        return args[0].encode("latin-1")
    if func.name == "dtype":
        if not args or not isinstance(args[0], str):
            raise UnsafePickleError("numpy dtype with unexpected arguments")
        return _DtypeState(args[0])
    raise UnsafePickleError(f"the pickle calls {func.name}")


def _dtype(value: Any) -> np.dtype:
    if isinstance(value, _DtypeState):
        return value.dtype
    if isinstance(value, np.dtype):
        return value
    raise UnsafePickleError("an array state without a dtype")


def _build(obj: Any, state: Any) -> Any:
    if isinstance(obj, _DtypeState):
        # (version, byte order, subarray, names, fields, itemsize, alignment, flags)
        if isinstance(state, tuple) and len(state) >= 2 and state[1] in ("<", ">"):
            obj.dtype = obj.dtype.newbyteorder(state[1])
        return obj.dtype
    if isinstance(obj, _ArrayState):
        if not (isinstance(state, tuple) and len(state) == 5):
            raise UnsafePickleError("an array state of unexpected form")
        _, shape, dtype, fortran, raw = state
        dtype = _dtype(dtype)
        if not (isinstance(shape, tuple) and all(isinstance(d, int) and d >= 0
                                                 for d in shape)):
            raise UnsafePickleError(f"an array shape of unexpected form: {shape!r}")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if count > _MAX_ELEMENTS:
            raise UnsafePickleError(f"an array of {count} elements is too large")
        order = "F" if fortran else "C"
        if dtype.hasobject:
            if not isinstance(raw, list) or len(raw) != count:
                raise UnsafePickleError("an object array whose elements do not match its "
                                        "shape")
            out = np.empty(count, dtype=object)
            for i, v in enumerate(raw):
                out[i] = v
            return out.reshape(shape, order=order)
        if isinstance(raw, str):  # Python 2 str data read as text
            raw = raw.encode("latin-1")
        if not isinstance(raw, (bytes, bytearray)) or len(raw) != count * dtype.itemsize:
            raise UnsafePickleError("an array whose data does not match its shape and dtype")
        return np.frombuffer(bytes(raw), dtype=dtype).reshape(shape, order=order).copy()
    raise UnsafePickleError("the pickle sets the state of something other than an array")


def _mark_items(stack: List[Any]) -> List[Any]:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is _MARK:
            items = stack[i + 1:]
            del stack[i:]
            return items
    raise UnsafePickleError("the pickle has no MARK for a collection")


_MARK = object()


def load(data: bytes) -> Any:
    """The value the pickle ``data`` describes, if it is plain data and numpy arrays.
    Python 2 ``str`` values come back as ``bytes`` (as ``encoding='bytes'`` gives them).

    Raises:
      UnsafePickleError: the pickle names anything else, or is malformed.
    """
    stack: List[Any] = []
    memo: Dict[int, Any] = {}
    try:
        ops = list(pickletools.genops(io.BytesIO(data)))
    except ValueError as e:
        raise UnsafePickleError(f"not a pickle: {e}") from None
    for op, arg, _ in ops:
        name = op.name
        if name in ("PROTO", "FRAME"):
            continue
        if name == "STOP":
            if len(stack) != 1:
                raise UnsafePickleError("the pickle leaves more than one value")
            return stack[0]
        if name == "MARK":
            stack.append(_MARK)
        elif name in ("BININT", "BININT1", "BININT2", "LONG1", "LONG4", "INT", "LONG",
                      "BINFLOAT", "FLOAT", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8",
                      "UNICODE", "SHORT_BINBYTES", "BINBYTES", "BINBYTES8", "BYTEARRAY8"):
            stack.append(arg)
        elif name in ("SHORT_BINSTRING", "BINSTRING", "STRING"):
            stack.append(arg.encode("latin-1") if isinstance(arg, str) else arg)
        elif name == "NONE":
            stack.append(None)
        elif name in ("NEWTRUE", "NEWFALSE"):
            stack.append(name == "NEWTRUE")
        elif name in ("EMPTY_LIST", "EMPTY_DICT", "EMPTY_TUPLE"):
            stack.append({"EMPTY_LIST": [], "EMPTY_DICT": {}, "EMPTY_TUPLE": ()}[name])
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            n = int(name[-1])
            items = tuple(stack[-n:])
            del stack[-n:]
            stack.append(items)
        elif name == "TUPLE":
            stack.append(tuple(_mark_items(stack)))
        elif name == "LIST":
            stack.append(list(_mark_items(stack)))
        elif name == "DICT":
            items = _mark_items(stack)
            stack.append(dict(zip(items[::2], items[1::2])))
        elif name == "APPEND":
            value = stack.pop()
            _as(stack[-1], list).append(value)
        elif name == "APPENDS":
            items = _mark_items(stack)
            _as(stack[-1], list).extend(items)
        elif name == "SETITEM":
            value, key = stack.pop(), stack.pop()
            _as(stack[-1], dict)[_key(key)] = value
        elif name == "SETITEMS":
            items = _mark_items(stack)
            target = _as(stack[-1], dict)
            for k, v in zip(items[::2], items[1::2]):
                target[_key(k)] = v
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[int(arg)] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            if int(arg) not in memo:
                raise UnsafePickleError("the pickle reads a memo entry it never wrote")
            stack.append(memo[int(arg)])
        elif name in ("GLOBAL", "STACK_GLOBAL"):
            if name == "GLOBAL":
                module, _, attr = arg.partition(" ")
            else:
                attr, module = stack.pop(), stack.pop()
            key = _GLOBALS.get((module, attr))
            if key is None:
                raise UnsafePickleError(f"the pickle names {module}.{attr}, which is not "
                                        f"plain data")
            stack.append(_Global(key))
        elif name == "REDUCE":
            args = stack.pop()
            stack.append(_call(stack.pop(), args))
        elif name == "BUILD":
            state = stack.pop()
            stack.append(_build(stack.pop(), state))
        else:
            raise UnsafePickleError(f"the pickle uses the {name} opcode, which builds "
                                    f"more than plain data")
    raise UnsafePickleError("the pickle ends without STOP")


def _as(value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise UnsafePickleError(f"the pickle adds items to a {type(value).__name__}")
    return value


def _key(key: Any) -> Any:
    if isinstance(key, (list, dict)):
        raise UnsafePickleError("a dict key that is not hashable plain data")
    return key


def load_npz(path: str) -> Dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file at ``path``; arrays of Python objects (stored
    pickled) are read by ``load``, the others by numpy without pickles.

    Raises:
      UnsafePickleError: an object array pickled with anything but plain data.
      ValueError: not an ``.npz`` file.
    """
    out: Dict[str, np.ndarray] = {}
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as e:
        raise ValueError(f"{path}: not an .npz file ({e})") from None
    with archive:
        for member in archive.namelist():
            key = member[:-4] if member.endswith(".npy") else member
            with archive.open(member) as f:
                out[key] = _read_npy(f, f"{path}:{member}")
    return out


def _read_npy(f: BinaryIO, where: str) -> np.ndarray:
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f"{where}: unsupported .npy version {version}")
    if not dtype.hasobject:
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        raw = f.read(count * dtype.itemsize + 1)
        if len(raw) != count * dtype.itemsize:
            raise ValueError(f"{where}: the data does not match the header's shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran
                                                       else "C").copy()
    value = load(f.read())
    if not isinstance(value, np.ndarray) or value.shape != tuple(shape):
        raise UnsafePickleError(f"{where}: the pickled array does not match the header")
    return value
