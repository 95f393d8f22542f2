"""``tf.sysconfig``: how tensorfleet was built and where it is installed. tensorfleet has no
C++ headers or library, so the compile and link flags of C++ custom ops are not offered."""

from tensorfleet.platform.build_info import get_build_info, get_lib

__all__ = ["get_build_info", "get_lib"]
