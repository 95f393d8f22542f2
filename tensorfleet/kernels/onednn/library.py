"""ctypes binding of oneDNN's C API (the ``onednn-cpu-gomp`` wheel, oneDNN 3.2).

Only what the CPU kernels use is bound: the engine and the stream (one each per
process), memory descriptors and memory objects, primitive descriptors, primitives
and reorders. oneDNN 3.x keeps its memory descriptors opaque, so no struct layout
is mirrored here except ``dnnl_exec_arg_t`` and ``dnnl_version_t``. Every enum
value below is the one in ``oneapi/dnnl/dnnl_types.h`` and ``dnnl_common_types.h``
of oneDNN 3.2.0 (the ``onednn-devel-cpu-gomp`` 2023.2.0 wheel); the loaded library's
version is checked against it before anything else is called, since those values
change between minor versions.

The library is looked up where its wheel installed it (the distribution's own file
list, then ``<sys.prefix>/lib``), never through environment variables.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading
from importlib import metadata
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

logger = logging.getLogger(__name__)

# The oneDNN release whose headers the constants below come from.
VERSION = (3, 2)
DISTRIBUTION = "onednn-cpu-gomp"
_SONAME = "libdnnl.so.3"

# dnnl_common_types.h / dnnl_types.h, oneDNN 3.2.0
DNNL_MAX_NDIMS = 12
DNNL_RUNTIME_OMP = 2
SUCCESS = 0
_STATUS = {1: "out of memory", 2: "invalid arguments", 3: "unimplemented",
           4: "last implementation reached", 5: "runtime error", 6: "not required"}
ENGINE_CPU = 1
STREAM_DEFAULT_FLAGS = 1
F32 = 3
TAG_ANY = 1
TAG_A = 2            # plain 1-D
TAG_AB = 3           # row-major matrix
TAG_BA = 14          # column-major matrix
TAG_NCHW = 5         # dnnl_abcd
TAG_NHWC = 22        # dnnl_acdb
TAG_OIHW = 5         # dnnl_abcd
TAG_HWIO = 28        # dnnl_cdba: TensorFlow's filter layout over oneDNN's (O, I, H, W)
FORWARD_TRAINING = 64
FORWARD_INFERENCE = 96
BACKWARD_DATA = 160
BACKWARD_WEIGHTS = 192
CONVOLUTION_DIRECT = 1
POOLING_MAX = 511
POOLING_AVG_INCLUDE_PADDING = 767
POOLING_AVG_EXCLUDE_PADDING = 1023
ELTWISE_RELU = 0x20
BINARY_ADD = 0x1FFF0
REDUCTION_SUM = 0x2FFF4  # dnnl_resampling_linear (0x2fff1) + 3
QUERY_IMPL_INFO_STR = 8
QUERY_SRC_MD = 129
QUERY_DIFF_SRC_MD = 130
QUERY_WEIGHTS_MD = 131
QUERY_DIFF_WEIGHTS_MD = 132
QUERY_DST_MD = 133
QUERY_DIFF_DST_MD = 134
QUERY_WORKSPACE_MD = 135
ARG_SRC = 1
ARG_SRC_1 = 2
ARG_DST = 17
ARG_WEIGHTS = 33
ARG_BIAS = 41
ARG_WORKSPACE = 64
ARG_DIFF_SRC = 129
ARG_DIFF_DST = 145
ARG_DIFF_WEIGHTS = 161
ARG_FROM = 1
ARG_TO = 17

Dims = ctypes.c_int64 * DNNL_MAX_NDIMS
_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)


class ExecArg(ctypes.Structure):
    """``dnnl_exec_arg_t``: an argument index and the memory object bound to it."""

    _fields_ = [("arg", ctypes.c_int), ("memory", ctypes.c_void_p)]


class VersionInfo(ctypes.Structure):
    """``dnnl_version_t``."""

    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint),
                ("gpu_runtime", ctypes.c_uint)]


class OneDNNError(RuntimeError):
    """A oneDNN call returned an error status."""

    def __init__(self, call: str, status: int):
        super().__init__(f"oneDNN {call} failed: {_STATUS.get(status, 'status')} ({status})")
        self.call = call
        self.status = status


class LibraryUnavailable(OSError):
    """oneDNN cannot be used in this process (missing, wrong version, failed to start)."""


# name -> (restype, argtypes); restype None means dnnl_status_t, checked on every call.
_SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "dnnl_version": (ctypes.POINTER(VersionInfo), []),
    "dnnl_engine_create": (None, [_pp, ctypes.c_int, ctypes.c_size_t]),
    "dnnl_stream_create": (None, [_pp, _p, ctypes.c_uint]),
    "dnnl_stream_wait": (None, [_p]),
    "dnnl_memory_desc_create_with_tag": (None, [_pp, ctypes.c_int, Dims, ctypes.c_int,
                                                ctypes.c_int]),
    "dnnl_memory_desc_create_with_strides": (None, [_pp, ctypes.c_int, Dims, ctypes.c_int,
                                                    Dims]),
    "dnnl_memory_desc_destroy": (None, [_p]),
    "dnnl_memory_desc_equal": (ctypes.c_int, [_p, _p]),
    "dnnl_memory_desc_get_size": (ctypes.c_size_t, [_p]),
    "dnnl_memory_create": (None, [_pp, _p, _p, _p]),
    "dnnl_memory_set_data_handle": (None, [_p, _p]),
    "dnnl_memory_destroy": (None, [_p]),
    "dnnl_primitive_desc_query": (None, [_p, ctypes.c_int, ctypes.c_int, _p]),
    "dnnl_primitive_desc_query_md": (_p, [_p, ctypes.c_int, ctypes.c_int]),
    "dnnl_primitive_desc_destroy": (None, [_p]),
    "dnnl_primitive_create": (None, [_pp, _p]),
    "dnnl_primitive_execute": (None, [_p, _p, ctypes.c_int, ctypes.POINTER(ExecArg)]),
    "dnnl_primitive_destroy": (None, [_p]),
    "dnnl_reorder_primitive_desc_create": (None, [_pp, _p, _p, _p, _p, _p]),
    "dnnl_convolution_forward_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, ctypes.c_int, _p, _p, _p, _p, Dims, Dims, Dims, Dims, _p]),
    "dnnl_convolution_backward_data_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, _p, _p, _p, Dims, Dims, Dims, Dims, _p, _p]),
    "dnnl_convolution_backward_weights_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, _p, _p, _p, _p, Dims, Dims, Dims, Dims, _p, _p]),
    "dnnl_pooling_forward_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, ctypes.c_int, _p, _p, Dims, Dims, Dims, Dims, Dims, _p]),
    "dnnl_pooling_backward_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, _p, _p, Dims, Dims, Dims, Dims, Dims, _p, _p]),
    "dnnl_matmul_primitive_desc_create": (None, [_pp, _p, _p, _p, _p, _p, _p]),
    "dnnl_eltwise_forward_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, ctypes.c_int, _p, _p, ctypes.c_float, ctypes.c_float,
               _p]),
    "dnnl_eltwise_backward_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, _p, _p, _p, ctypes.c_float, ctypes.c_float, _p, _p]),
    "dnnl_binary_primitive_desc_create": (None, [_pp, _p, ctypes.c_int, _p, _p, _p, _p]),
    "dnnl_primitive_attr_create": (None, [_pp]),
    "dnnl_primitive_attr_destroy": (None, [_p]),
    "dnnl_primitive_attr_set_post_ops": (None, [_p, _p]),
    "dnnl_post_ops_create": (None, [_pp]),
    "dnnl_post_ops_destroy": (None, [_p]),
    "dnnl_post_ops_append_eltwise": (None, [_p, ctypes.c_int, ctypes.c_float, ctypes.c_float]),
    "dnnl_reduction_primitive_desc_create": (
        None, [_pp, _p, ctypes.c_int, _p, _p, ctypes.c_float, ctypes.c_float, _p]),
}


def library_path() -> str:
    """Where the ``onednn-cpu-gomp`` wheel put ``libdnnl.so.3``.

    Raises:
      LibraryUnavailable: the wheel is not installed (or its library file is gone).
    """
    candidates: List[str] = []
    try:
        for f in metadata.files(DISTRIBUTION) or ():
            if f.name == _SONAME:
                candidates.append(str(f.locate()))
    except metadata.PackageNotFoundError:
        pass
    # Wheels install data files relative to the interpreter prefix (its lib/ folder).
    candidates.append(os.path.join(sys.prefix, "lib", _SONAME))
    for path in candidates:
        if os.path.isfile(path):
            return os.path.realpath(path)
    raise LibraryUnavailable(f"{_SONAME} not found (is the {DISTRIBUTION} package installed? "
                             f"looked at {candidates})")


class Library:
    """The loaded library with its engine and stream (one per process)."""

    def __init__(self, path: str):
        try:
            self.dll = _open_with_passive_openmp(path)
        except OSError as e:
            raise LibraryUnavailable(f"cannot load {path}: {e}") from e
        try:
            for name, (restype, argtypes) in _SIGNATURES.items():
                fn = getattr(self.dll, name)
                fn.restype = ctypes.c_int if restype is None else restype
                fn.argtypes = argtypes
        except AttributeError as e:
            raise LibraryUnavailable(f"{path} lacks a oneDNN {VERSION} function: {e}") from e
        v = self.dll.dnnl_version().contents
        self.version = (v.major, v.minor, v.patch)
        if (v.major, v.minor) != VERSION:
            raise LibraryUnavailable(
                f"{path} is oneDNN {v.major}.{v.minor}.{v.patch}; tensorfleet's binding is "
                f"written against oneDNN {VERSION[0]}.{VERSION[1]} (install "
                f"{DISTRIBUTION}==2023.2.0)")
        if v.cpu_runtime != DNNL_RUNTIME_OMP:
            raise LibraryUnavailable(f"{path} is not the OpenMP build of oneDNN "
                                     f"(cpu runtime {v.cpu_runtime})")
        self.path = path
        self.engine = ctypes.c_void_p()
        self.call("dnnl_engine_create", ctypes.byref(self.engine), ENGINE_CPU, 0)
        self.stream = ctypes.c_void_p()
        self.call("dnnl_stream_create", ctypes.byref(self.stream), self.engine,
                  STREAM_DEFAULT_FLAGS)
        # Primitives and their bound memory objects are shared by every executor
        # thread; executing them one at a time also keeps two OpenMP teams from
        # running over the same cores at once.
        self.lock = threading.Lock()
        self._omp_set = _openmp_setter()
        self._threads = threading.local()

    def thread_stream(self) -> ctypes.c_void_p:
        """A stream of the calling thread's own, for plans run outside ``lock`` (a CPU
        stream is not to be shared by threads executing at the same time)."""
        stream = getattr(self._threads, "stream", None)
        if stream is None:
            stream = ctypes.c_void_p()
            self.call("dnnl_stream_create", ctypes.byref(stream), self.engine,
                      STREAM_DEFAULT_FLAGS)
            self._threads.stream = stream
        return stream

    def call(self, name: str, *args: Any) -> None:
        """Calls a status-returning function, raising ``OneDNNError`` on failure."""
        status = getattr(self.dll, name)(*args)
        if status != SUCCESS:
            raise OneDNNError(name, status)

    def set_threads(self, n: int) -> None:
        """Sets the OpenMP team size of the calling thread (OpenMP keeps it per thread)."""
        if self._omp_set is not None and getattr(self._threads, "n", None) != n:
            self._omp_set(int(n))
            self._threads.n = n


# GNU OpenMP reads its settings from the environment once, when it is loaded.
_WAIT_POLICY = "OMP_WAIT_POLICY"


def _open_with_passive_openmp(path: str) -> ctypes.CDLL:
    """Loads oneDNN, with its GNU OpenMP runtime set to let idle team threads sleep
    (``OMP_WAIT_POLICY=PASSIVE``) unless the user chose a policy.

    By default an OpenMP team's threads spin after each parallel region, waiting for
    the next. Between oneDNN's calls the process runs numpy kernels, batch slices on
    helper threads, optimizer updates and input pipelines, and on a machine of few
    cores the spinning takes the cores they need: a conv net training step measured
    77 to 84 ms with spinning threads, 67 to 71 ms with sleeping ones, and a whole
    conv net program 28 s of CPU for 17 s of wall time against 19 to 22 s for 13 to
    16. The variable is set only while the library loads, so the process's
    environment, and its children's, are left as they were."""
    chosen = _WAIT_POLICY in os.environ
    if not chosen:
        os.environ[_WAIT_POLICY] = "PASSIVE"
    try:
        return ctypes.CDLL(path)
    finally:
        if not chosen:
            os.environ.pop(_WAIT_POLICY, None)


def _openmp_setter() -> Any:
    """``omp_set_num_threads`` of the GNU OpenMP runtime oneDNN was linked with (already
    loaded with it, so this finds that same copy); None if it cannot be found."""
    try:
        fn = ctypes.CDLL("libgomp.so.1").omp_set_num_threads
    except (OSError, AttributeError):
        logger.info("GNU OpenMP not found beside oneDNN: its thread count is left alone")
        return None
    fn.argtypes = [ctypes.c_int]
    fn.restype = None
    return fn


_lib: Optional[Library] = None
_error: Optional[LibraryUnavailable] = None
_load_lock = threading.Lock()


def load() -> Library:
    """The process's oneDNN library (loaded, engine and stream created, on first call).

    Raises:
      LibraryUnavailable: oneDNN is missing or cannot be used; raised again on every
        later call without trying again.
    """
    global _lib, _error
    if _lib is not None:
        return _lib
    with _load_lock:
        if _lib is None:
            if _error is not None:
                raise _error
            try:
                _lib = Library(library_path())
            except LibraryUnavailable as e:
                _error = e
                raise
            except OneDNNError as e:
                _error = LibraryUnavailable(str(e))
                raise _error from e
            logger.debug("oneDNN %s loaded from %s", ".".join(map(str, _lib.version)),
                         _lib.path)
    return _lib


def dims(values: Sequence[int]) -> Any:
    """A ``dnnl_dims_t`` holding ``values``."""
    d = Dims()
    for i, v in enumerate(values):
        d[i] = int(v)
    return d


class MemoryDesc:
    """An owned ``dnnl_memory_desc_t``."""

    __slots__ = ("lib", "handle", "size")

    def __init__(self, lib: Library, shape: Sequence[int], tag: int = 0,
                 strides: Optional[Sequence[int]] = None):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        if strides is not None:
            lib.call("dnnl_memory_desc_create_with_strides", ctypes.byref(self.handle),
                     len(shape), dims(shape), F32, dims(strides))
        else:
            lib.call("dnnl_memory_desc_create_with_tag", ctypes.byref(self.handle), len(shape),
                     dims(shape), F32, tag)
        self.size = lib.dll.dnnl_memory_desc_get_size(self.handle)

    def __del__(self) -> None:
        if self.handle:
            self.lib.dll.dnnl_memory_desc_destroy(self.handle)


class Memory:
    """A ``dnnl_memory_t`` over a descriptor; its buffer is a numpy array, bound per call
    (``bind``) or owned (``own``, for oneDNN's blocked layouts and workspaces)."""

    __slots__ = ("lib", "handle", "md", "buffer")

    def __init__(self, lib: Library, md: Any):
        # ``md`` is a MemoryDesc or a descriptor owned by a primitive descriptor.
        self.lib = lib
        self.md = md
        self.handle = ctypes.c_void_p()
        raw = md.handle if isinstance(md, MemoryDesc) else md
        lib.call("dnnl_memory_create", ctypes.byref(self.handle), raw, lib.engine, None)
        self.buffer: Optional[np.ndarray] = None

    def own(self, size: int) -> "Memory":
        """Gives this memory a buffer of its own of ``size`` bytes (kept across calls)."""
        self.buffer = np.empty(max(1, (size + 3) // 4), np.float32)
        self.bind(self.buffer)
        return self

    def bind(self, array: np.ndarray) -> None:
        self.lib.call("dnnl_memory_set_data_handle", self.handle, array.ctypes.data)

    def __del__(self) -> None:
        if self.handle:
            self.lib.dll.dnnl_memory_destroy(self.handle)


class Primitive:
    """A primitive descriptor and the primitive built from it."""

    __slots__ = ("lib", "pd", "handle", "impl")

    def __init__(self, lib: Library, pd: Any):
        self.lib = lib
        self.pd = pd
        self.handle = ctypes.c_void_p()
        lib.call("dnnl_primitive_create", ctypes.byref(self.handle), pd)
        info = ctypes.c_char_p()
        lib.call("dnnl_primitive_desc_query", pd, QUERY_IMPL_INFO_STR, 0, ctypes.byref(info))
        self.impl = (info.value or b"").decode()

    def md(self, query: int) -> Any:
        """The descriptor the primitive chose for one of its arguments (owned by it)."""
        return self.lib.dll.dnnl_primitive_desc_query_md(self.pd, query, 0)

    def execute(self, args: Sequence[Tuple[int, Memory]], stream: Any = None) -> None:
        arr = (ExecArg * len(args))(*[ExecArg(a, m.handle) for a, m in args])
        self.lib.call("dnnl_primitive_execute", self.handle,
                      self.lib.stream if stream is None else stream, len(args), arr)

    def __del__(self) -> None:
        if self.handle:
            self.lib.dll.dnnl_primitive_destroy(self.handle)
        if self.pd:
            self.lib.dll.dnnl_primitive_desc_destroy(self.pd)


class Attr:
    """An owned ``dnnl_primitive_attr_t``, with element-wise post-ops (applied to a
    primitive's output as it is written). A primitive descriptor copies what it needs,
    so the attribute may go once the descriptor is made."""

    __slots__ = ("lib", "handle")

    def __init__(self, lib: Library, eltwise_post_ops: Sequence[int] = ()):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        lib.call("dnnl_primitive_attr_create", ctypes.byref(self.handle))
        if eltwise_post_ops:
            ops = ctypes.c_void_p()
            lib.call("dnnl_post_ops_create", ctypes.byref(ops))
            try:
                for alg in eltwise_post_ops:
                    lib.call("dnnl_post_ops_append_eltwise", ops, alg, 0.0, 0.0)
                lib.call("dnnl_primitive_attr_set_post_ops", self.handle, ops)
            finally:
                lib.dll.dnnl_post_ops_destroy(ops)

    def __del__(self) -> None:
        if self.handle:
            self.lib.dll.dnnl_primitive_attr_destroy(self.handle)


def primitive_desc(lib: Library, creator: str, *args: Any) -> ctypes.c_void_p:
    """Runs a ``dnnl_*_primitive_desc_create`` call; the new descriptor handle."""
    pd = ctypes.c_void_p()
    lib.call(creator, ctypes.byref(pd), *args)
    return pd


def same_layout(lib: Library, a: Any, b: Any) -> bool:
    """Whether two descriptors (MemoryDesc or raw handles) describe the same layout."""
    ra = a.handle if isinstance(a, MemoryDesc) else a
    rb = b.handle if isinstance(b, MemoryDesc) else b
    return bool(lib.dll.dnnl_memory_desc_equal(ra, rb))


def reorder(lib: Library, src: Any, dst: Any) -> Primitive:
    """A reorder primitive from layout ``src`` to layout ``dst``."""
    rs = src.handle if isinstance(src, MemoryDesc) else src
    rd = dst.handle if isinstance(dst, MemoryDesc) else dst
    return Primitive(lib, primitive_desc(lib, "dnnl_reorder_primitive_desc_create", rs,
                                         lib.engine, rd, lib.engine, None))


__all__ = ["load", "library_path", "Library", "LibraryUnavailable", "OneDNNError", "MemoryDesc", "Attr",
           "Memory", "Primitive", "primitive_desc", "reorder", "same_layout", "dims"]
