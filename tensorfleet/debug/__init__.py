"""``tensorflow.python.debug`` (tfdbg): a session wrapper with a command-line interface that
stops at each ``Session.run``, shows the tensors the run computed and runs until a tensor
filter such as ``has_inf_or_nan`` matches."""

from tensorfleet.debug.cli_wrapper_session import (DebugTensorDatum,
    LocalCLIDebugWrapperSession, has_inf_or_nan)

__all__ = ["DebugTensorDatum", "LocalCLIDebugWrapperSession", "has_inf_or_nan"]
