"""tensorfleet's public names, loaded on their first use.

``import tensorfleet`` alone loads almost nothing, so that the ``tensorfleet`` command
(``--help``, ``status``, ``k8s`` ...) does not pay for the kernels and the op library
it does not use. The first public name asked for (``tf.constant``, ``import
tensorfleet.nn``, ``dir(tf)``, ``from tensorfleet import *``) loads them all, once,
under a lock: the kernels (which registers them), the ``grpc://`` session backend, and
every name that ``tensorfleet/api/tf.py`` declares. Internal code that runs graphs
without going through a public name still finds every kernel: the kernel registry
loads the reference kernels on the first lookup that misses
(``kernels.registry``), and a session for a ``grpc://`` target loads its backend.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types
from typing import Any, List, Optional

PACKAGE = "tensorfleet"

_lock = threading.RLock()
_loaded = False
_loading_thread: Optional[int] = None  # the thread loading the names, while it does


def _loading_here() -> bool:
    return _loading_thread == threading.get_ident()


def loaded() -> bool:
    """Whether the public names are loaded."""
    return _loaded


def load() -> None:
    """Loads every public name into the package (once; a call made while loading, from
    the loading thread, returns at once)."""
    global _loaded, _loading_thread
    if _loaded or _loading_here():
        return
    with _lock:
        if _loaded:
            return
        _loading_thread = threading.get_ident()
        try:
            package = sys.modules[PACKAGE]
            from tensorfleet.kernels.registry import load_kernel_library
            load_kernel_library()
            from tensorfleet.distributed import remote  # noqa: F401  (grpc:// sessions)
            from tensorfleet.api import tf as api
            for name in api.__all__:
                setattr(package, name, getattr(api, name))
            # `from tensorfleet import *` takes every public name.
            package.__all__ = list(api.__all__)
            # tf.compat.v1 is tensorfleet itself.
            package.compat.v1 = package
            # tf.VERSION: the version string under its 1.x name.
            from tensorfleet.platform.build_info import VERSION
            package.VERSION = package.__version__ = VERSION
            # The namespaces declared in tensorfleet.api are reached under their public
            # names too: `import tensorfleet.nn`, `from tensorfleet.train import Saver`.
            for name in api.__all__:
                value = getattr(api, name)
                if getattr(value, "__name__", "").startswith(PACKAGE + ".api."):
                    sys.modules.setdefault(f"{PACKAGE}.{name}", value)
            _loaded = True
        finally:
            _loading_thread = None


_SUBMODULES: Optional[frozenset] = None


def _submodules() -> frozenset:
    """The names of the package's own modules and subpackages (files, not public names)."""
    global _SUBMODULES
    if _SUBMODULES is None:
        import os
        here = os.path.dirname(os.path.abspath(__file__))
        _SUBMODULES = frozenset(
            n[:-3] if n.endswith(".py") else n for n in os.listdir(here)
            if (n.endswith(".py") and n != "__init__.py") or
            os.path.isfile(os.path.join(here, n, "__init__.py")))
    return _SUBMODULES


def _asked_by_the_import_system() -> bool:
    # `from tensorfleet import errors` asks the package for the attribute first, from
    # importlib's bootstrap code, and imports the module when it is missing.
    frame = sys._getframe(2)
    return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")


# Public names loaded apart from the others, on their own first use.
_SUMMARY_NAMES = ("Summary", "Event", "SessionLog", "SummaryMetadata", "HistogramProto")


class Package(types.ModuleType):
    """The class of the ``tensorfleet`` module: a name it lacks loads the public names."""

    def __getattr__(self, name: str) -> Any:
        if name == "__all__" and not _loading_here():
            load()
            return self.__dict__["__all__"]
        if name.startswith("__") and name != "__version__" or _loading_here():
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")
        if name in ("__version__", "VERSION"):
            # tf.VERSION: the version string under its 1.x name.
            from tensorfleet.platform.build_info import VERSION
            return VERSION
        if name in _SUMMARY_NAMES:
            # tf.Summary, tf.Event ...: see tensorfleet.api.summary.
            from tensorfleet.ops import summary_ops
            return getattr(summary_ops, name)
        if name in _submodules() and _asked_by_the_import_system():
            raise AttributeError(f"module {PACKAGE!r} has not imported {name!r} yet")
        load()
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None

    def __dir__(self) -> List[str]:
        load()
        return sorted(self.__dict__)

    # `tf.gradients` is a function and `tensorfleet.gradients` a subpackage: whichever is
    # imported first, the attribute is the function (the import of the subpackage sets
    # the attribute to the module, which is not kept).
    @property
    def gradients(self) -> Any:
        if "_gradients" not in self.__dict__:
            load()
        return self.__dict__["_gradients"]

    @gradients.setter
    def gradients(self, value: Any) -> None:
        if not isinstance(value, types.ModuleType):
            self.__dict__["_gradients"] = value


class _Alias(importlib.abc.Loader):
    def __init__(self, module: types.ModuleType):
        self._module = module

    def create_module(self, spec: Any) -> types.ModuleType:
        return self._module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class NamespaceFinder(importlib.abc.MetaPathFinder):
    """Finds ``tensorfleet.<namespace>`` (``tensorfleet.nn``, ``tensorfleet.train`` ...),
    which are public namespaces, not files: placed after the finders of files, it loads
    the public names when an import of ``tensorfleet.*`` finds no file."""

    def find_spec(self, fullname: str, path: Any, target: Any = None
                  ) -> Optional[importlib.machinery.ModuleSpec]:
        if not fullname.startswith(PACKAGE + ".") or _loaded or _loading_here():
            return None
        load()
        module = sys.modules.get(fullname)
        if module is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(module))


def install(package: types.ModuleType) -> None:
    """Makes ``package`` load its public names on first use."""
    package.__class__ = Package
    # `import tensorfleet.compat.v1 as tf` is tensorfleet itself.
    sys.modules[f"{PACKAGE}.compat.v1"] = package
    if not any(isinstance(f, NamespaceFinder) for f in sys.meta_path):
        sys.meta_path.append(NamespaceFinder())


__all__ = ["install", "load", "loaded", "Package", "NamespaceFinder"]
