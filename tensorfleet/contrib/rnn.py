"""``tf.contrib.rnn``: the recurrent cells and the static/bidirectional RNN builders."""

from tensorfleet.ops.rnn import (  # noqa: F401
    static_bidirectional_rnn, static_rnn, stack_bidirectional_dynamic_rnn)
from tensorfleet.ops.rnn_cell_impl import (  # noqa: F401
    BasicLSTMCell, BasicRNNCell, GRUCell, LayerRNNCell, LSTMCell, LSTMStateTuple, MultiRNNCell,
    RNNCell)
from tensorfleet.ops.rnn_cell_wrappers import (  # noqa: F401
    DeviceWrapper, DropoutWrapper, ResidualWrapper)

from tensorfleet.contrib.rnn_layer_norm import LayerNormBasicLSTMCell, LSTMBlockCell  # noqa: F401,E402

__all__ = ["static_rnn", "static_bidirectional_rnn", "stack_bidirectional_dynamic_rnn",
           "RNNCell", "LayerRNNCell", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell",
           "MultiRNNCell", "LSTMStateTuple", "DropoutWrapper", "ResidualWrapper",
           "DeviceWrapper"]
__all__ += ["LayerNormBasicLSTMCell", "LSTMBlockCell"]
