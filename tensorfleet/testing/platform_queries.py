"""``tf.test``'s questions about the build: tensorfleet runs on the host CPU alone (numpy
and oneDNN kernels), with no CUDA, ROCm or XLA, and its ops finish before ``Session.run``
returns, so there is nothing for ``sync_devices`` to wait for."""

from __future__ import annotations

import os
import platform

# LLVM target names (as TensorFlow's XLA takes them) by the host architectures they cover.
_TARGETS = {"x86": ("x86_64", "amd64", "i386", "i686", "x86"),
            "aarch64": ("aarch64", "arm64"), "arm": ("arm", "armv7l", "aarch64", "arm64"),
            "powerpc": ("ppc64le", "ppc64", "powerpc"), "systemz": ("s390x",)}


def is_built_with_gpu_support() -> bool:
    """False: tensorfleet has no GPU kernels."""
    return False


def is_built_with_rocm() -> bool:
    """False: tensorfleet is not built against ROCm."""
    return False


def is_built_with_xla() -> bool:
    """False: tensorfleet does not compile graphs with XLA."""
    return False


def is_cpu_target_available(target: str) -> bool:
    """Whether the kernels run on CPU ``target`` (``"x86"``, ``"aarch64"``, ``"arm"``,
    ``"powerpc"``, ``"systemz"``): true for the host's own architecture, the only one
    tensorfleet's kernels run on.

    Raises:
      ValueError: ``target`` is not one of those names.
    """
    if target not in _TARGETS:
        raise ValueError(f"is_cpu_target_available: unknown CPU target {target!r}; "
                         f"known: {sorted(_TARGETS)}")
    return platform.machine().lower() in _TARGETS[target]


def sync_devices() -> None:
    """Waits for the devices' pending work: none, since tensorfleet's kernels run
    synchronously within ``Session.run``."""
    return None


def test_src_dir_path(relative_path: str) -> str:
    """The absolute path of ``relative_path`` inside tensorfleet's source tree (the
    directory holding the ``tensorfleet`` package), or under ``$TEST_SRCDIR`` when set, as
    in Bazel test runs."""
    if not isinstance(relative_path, str):
        raise TypeError(f"relative_path must be a string, got {relative_path!r}")
    root = os.environ.get("TEST_SRCDIR") or os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, relative_path)


__all__ = ["is_built_with_gpu_support", "is_built_with_rocm", "is_built_with_xla",
           "is_cpu_target_available", "sync_devices", "test_src_dir_path"]
