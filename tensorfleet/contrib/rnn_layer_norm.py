"""The LSTM cells of ``tf.contrib.rnn`` beyond ``tf.nn.rnn_cell``'s:
``LSTMBlockCell`` (TF 1.x's fused-kernel LSTM: the same arithmetic and variables as
``LSTMCell``, which tensorfleet runs as one op per sequence when it can) and
``LayerNormBasicLSTMCell``, an LSTM whose gates and cell state are layer-normalised
(Ba et al.), with recurrent dropout on the candidate values (Semeniuta et al.).

One step, as TF 1.x computes it::

    i, j, f, o = split(concat([x, h]) @ kernel, 4)      # + bias only without layer_norm
    i, j, f, o = LN_input(i), LN_transform(j), LN_forget(f), LN_output(o)
    g = dropout(activation(j), dropout_keep_prob)
    c' = LN_state(c * sigmoid(f + forget_bias) + sigmoid(i) * g)
    h' = activation(c') * sigmoid(o)

``LN_s(v) = (v - mean) / sqrt(var + 1e-12) * s/gamma + s/beta`` over the units, with
variables ``kernel``, ``<s>/gamma`` and ``<s>/beta`` in the cell's scope
(``layer_norm_basic_lstm_cell``), so TF 1.x checkpoints of the cell load by name.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.rnn_cell_impl import LSTMCell, LSTMStateTuple, RNNCell
from tensorfleet.ops.variable_scope import get_variable, variable_scope

_LN_EPSILON = 1e-12



class LSTMBlockCell(LSTMCell):
    """``tf.contrib.rnn.LSTMBlockCell``: an LSTM with TF 1.x's block-cell arguments.

    Gates ``i, j, f, o`` in that order, ``kernel`` and ``bias`` (and ``w_i_diag``,
    ``w_f_diag``, ``w_o_diag`` with ``use_peephole``) under the scope ``lstm_cell``: the
    variables of ``LSTMCell``, so checkpoints move between the two.
    """

    def __init__(self, num_units: int, forget_bias: float = 1.0, cell_clip: Any = None,
                 use_peephole: bool = False, dtype: Any = None, reuse: Any = None,
                 name: str = "lstm_cell"):
        super().__init__(num_units, use_peepholes=use_peephole, cell_clip=cell_clip,
                         forget_bias=forget_bias, reuse=reuse, name=name, dtype=dtype)


class LayerNormBasicLSTMCell(RNNCell):
    """LSTM with layer normalisation and recurrent dropout (see the module docstring).

    Args:
      num_units: units of the cell.
      forget_bias: added to the forget gate before its sigmoid.
      input_size: not supported (deprecated in TF 1.x); must be None.
      activation: of the candidate values and the output (tanh).
      layer_norm: normalise gates and state; without it the gates get a ``bias``.
      norm_gain, norm_shift: initial ``gamma`` and ``beta`` of every normalisation.
      dropout_keep_prob: keep probability of the candidate values (a float or a
        scalar tensor, e.g. a placeholder that is 1.0 at evaluation).
      dropout_prob_seed: op seed of the dropout.
      reuse: reuse the variables of an existing scope.
    """

    _default_name = "layer_norm_basic_lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0, input_size: Any = None,
                 activation: Optional[Callable[[Any], Any]] = None, layer_norm: bool = True,
                 norm_gain: float = 1.0, norm_shift: float = 0.0,
                 dropout_keep_prob: Any = 1.0, dropout_prob_seed: Optional[int] = None,
                 reuse: Any = None):
        super().__init__(reuse=reuse)
        if input_size is not None:
            raise ValueError("LayerNormBasicLSTMCell: input_size is not supported; the "
                             "input depth comes from the inputs")
        if int(num_units) < 1:
            raise ValueError(f"LayerNormBasicLSTMCell: num_units must be positive, got "
                             f"{num_units}")
        if isinstance(dropout_keep_prob, (int, float)) and not 0 < dropout_keep_prob <= 1:
            raise ValueError(f"LayerNormBasicLSTMCell: dropout_keep_prob must be in (0, 1], "
                             f"got {dropout_keep_prob}")
        self._num_units = int(num_units)
        self._forget_bias = float(forget_bias)
        self._activation = activation or M.tanh
        self._layer_norm = bool(layer_norm)
        self._norm_gain = float(norm_gain)
        self._norm_shift = float(norm_shift)
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed

    @property
    def state_size(self) -> LSTMStateTuple:
        """``LSTMStateTuple(num_units, num_units)``."""
        return LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self) -> int:
        """``num_units``."""
        return self._num_units

    def _norm(self, x: Tensor, scope: str) -> Tensor:
        with variable_scope(scope):
            gamma = get_variable("gamma", [self._num_units], dtype=x.dtype,
                                 initializer=init_ops.constant_initializer(self._norm_gain))
            beta = get_variable("beta", [self._num_units], dtype=x.dtype,
                                initializer=init_ops.constant_initializer(self._norm_shift))
        mean, var = N.moments(x, [1], keep_dims=True)
        return (x - mean) * M.rsqrt(var + _LN_EPSILON) * gamma + beta

    def _linear(self, args: Tensor) -> Tensor:
        depth = args.shape.as_list()[-1]
        kernel = get_variable("kernel", [depth, 4 * self._num_units], dtype=args.dtype)
        out = M.matmul(args, kernel)
        if not self._layer_norm:
            bias = get_variable("bias", [4 * self._num_units], dtype=args.dtype)
            out = N.bias_add(out, bias)
        return out

    def call(self, inputs: Any, state: Any) -> Any:
        """One step: ``(h', LSTMStateTuple(c', h'))`` (see the module docstring)."""
        x = convert_to_tensor(inputs)
        if not x.dtype.is_floating:
            raise TypeError(f"LayerNormBasicLSTMCell: inputs must be floating point, got "
                            f"{x.dtype.name}")
        if x.shape.ndims != 2 or x.shape.as_list()[-1] is None:
            raise ValueError(f"LayerNormBasicLSTMCell: inputs must be [batch, depth] with a "
                             f"known depth, got {x.shape}")
        if not isinstance(state, tuple) or len(state) != 2:
            raise TypeError("LayerNormBasicLSTMCell: state must be an LSTMStateTuple (c, h)")
        c, h = (convert_to_tensor(s) for s in state)
        i, j, f, o = A.split(self._linear(A.concat([x, h], 1)), 4, axis=1)
        if self._layer_norm:
            i, j = self._norm(i, "input"), self._norm(j, "transform")
            f, o = self._norm(f, "forget"), self._norm(o, "output")
        g = self._activation(j)
        if not isinstance(self._keep_prob, (int, float)) or self._keep_prob < 1:
            keep = convert_to_tensor(self._keep_prob, dtype=g.dtype) \
                if not isinstance(self._keep_prob, Tensor) else self._keep_prob
            if keep.dtype is not g.dtype:
                keep = A.cast(keep, g.dtype)
            g = N.dropout(g, keep_prob=keep, seed=self._seed)
        new_c = c * M.sigmoid(f + A.constant(self._forget_bias, dtype=f.dtype)) \
            + M.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state")
        new_h = self._activation(new_c) * M.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


__all__ = ["LayerNormBasicLSTMCell", "LSTMBlockCell"]
