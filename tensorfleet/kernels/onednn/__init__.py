"""CPU kernels through oneDNN's C API (backend ``"onednn"``); importing this registers
them beside the numpy reference kernels. The library itself loads on first use."""

from tensorfleet.kernels.onednn import bias, conv, eltwise, matmul, pool  # noqa: F401
