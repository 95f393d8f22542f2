"""Keras's premade models: ``LinearModel`` (a linear function of one or more inputs) and
``WideDeepModel`` (a linear model plus a deep one, each with its own optimizer)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import backend as K
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import optimizers as _optimizers
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer, to_list
from tensorfleet.keras.layers.core import Dense
from tensorfleet.keras.training import Model
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M


class LinearModel(Model):
    """``activation(sum_i x_i @ kernel_i + bias)`` over the inputs (a tensor or a list of
    them), one kernel per input (zeros by default)."""

    def __init__(self, units: int = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "zeros", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.units, self.activation = int(units), _acts.get(activation)
        self.use_bias = bool(use_bias)
        self._kinit, self._kreg = _inits.get(kernel_initializer), _regs.get(kernel_regularizer)
        self._binit, self._breg = _inits.get(bias_initializer), _regs.get(bias_regularizer)
        self.dense_layers: List[Dense] = []
        self.bias: Any = None

    def call(self, inputs: Any, training: Any = None) -> Tensor:  # type: ignore[override]
        """The linear function of ``inputs``."""
        if isinstance(inputs, dict):
            raise ValueError("LinearModel: dict inputs are not supported; pass a tensor or "
                             "a list of tensors")
        xs = to_list(inputs)
        if not self.dense_layers:
            self.dense_layers = [Dense(self.units, use_bias=False,
                                       kernel_initializer=self._kinit,
                                       kernel_regularizer=self._kreg) for _ in xs]
            if self.use_bias:
                with get_default_graph().name_scope(self.name):
                    self.bias = self.add_weight("bias", [self.units],
                                                initializer=self._binit,
                                                regularizer=self._breg)
        if len(xs) != len(self.dense_layers):
            raise ValueError(f"LinearModel: built for {len(self.dense_layers)} inputs, "
                             f"called on {len(xs)}")
        outs = [layer(A.cast(x, self.dtype)) for layer, x in zip(self.dense_layers, xs)]
        y = outs[0] if len(outs) == 1 else M.add_n(outs)
        if self.bias is not None:
            y = M.add(y, self.bias)
        return self.activation(y) if self.activation is not None else y

    @property
    def layers(self) -> List[Layer]:  # type: ignore[override]
        """The per-input dense layers."""
        return list(self.dense_layers)

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return Layer.get_config(self)


class WideDeepModel(Model):
    """``activation(linear_model(x) + dnn_model(x))``; called on ``[x_linear, x_dnn]``
    each part takes its own input. ``compile(optimizer=[linear_opt, dnn_opt])`` trains
    each part with its own optimizer (one optimizer trains both)."""

    def __init__(self, linear_model: Model, dnn_model: Model, activation: Any = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.linear_model, self.dnn_model = linear_model, dnn_model
        self.activation = _acts.get(activation)

    def call(self, inputs: Any, training: Any = None) -> Tensor:  # type: ignore[override]
        """The sum of both parts' outputs, through ``activation``."""
        if isinstance(inputs, (list, tuple)) and len(inputs) == 2:
            lin_in, dnn_in = inputs
        else:
            lin_in = dnn_in = inputs
        y = M.add(self.linear_model(lin_in), self.dnn_model(dnn_in))
        return self.activation(y) if self.activation is not None else y

    @property
    def layers(self) -> List[Layer]:  # type: ignore[override]
        """The linear and the deep model."""
        return [self.linear_model, self.dnn_model]

    def compile(self, optimizer: Any = "rmsprop", loss: Any = None,  # type: ignore[override]
                metrics: Any = None, **kwargs: Any) -> None:
        """As ``Model.compile``; ``optimizer`` may be a pair (linear, deep)."""
        self._part_optimizers: Optional[List[Any]] = None
        if isinstance(optimizer, (list, tuple)):
            if len(optimizer) != 2:
                raise ValueError(f"WideDeepModel: give one optimizer or two (linear, deep), "
                                 f"got {len(optimizer)}")
            self._part_optimizers = [_optimizers.get(o) for o in optimizer]
            optimizer = self._part_optimizers[0]
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    def _make_train_function(self) -> List[Any]:
        parts = getattr(self, "_part_optimizers", None)
        if parts is None or self._train_fetches is not None:
            return super()._make_train_function()
        g = get_default_graph()
        ops = []
        with g.name_scope("training"):
            for opt, part in zip(parts, (self.linear_model, self.dnn_model)):
                ops.append(opt.minimize(self.total_loss, var_list=part.trainable_weights,
                                        global_step=opt.iterations))
        for opt in parts:
            for v in opt.variables():
                K.track_variable(v)
        self._train_fetches = ops + self.updates
        return self._train_fetches


__all__ = ["LinearModel", "WideDeepModel"]
