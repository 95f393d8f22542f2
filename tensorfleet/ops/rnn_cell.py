"""``tf.nn.rnn_cell``: the recurrent cells, their state tuple and the cell wrappers."""

from tensorfleet.ops.rnn_cell_impl import (  # noqa: F401
    BasicLSTMCell, BasicRNNCell, GRUCell, LayerRNNCell, LSTMCell, LSTMStateTuple, MultiRNNCell,
    RNNCell)
from tensorfleet.ops.rnn_cell_wrappers import (  # noqa: F401
    DeviceWrapper, DropoutWrapper, ResidualWrapper)

__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell",
           "MultiRNNCell", "LSTMStateTuple", "DropoutWrapper", "ResidualWrapper",
           "DeviceWrapper"]
