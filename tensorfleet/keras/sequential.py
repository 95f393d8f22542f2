"""``tf.keras.Sequential``: a linear stack of layers.

With an input shape on its first layer (``input_shape``, ``input_dim`` or
``batch_input_shape``) or an ``InputLayer``, the model is connected as each
layer is added, so ``model.output`` and ``summary()`` work at once and the
weights are named after the layers alone (``dense/kernel``). Without one it
is connected from the first data ``fit``/``predict`` sees, or by ``build``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet.keras.layers.base import Input, InputLayer, Layer, to_list
from tensorfleet.keras.training import Model


class Sequential(Model):
    """Layers applied one after another; ``add`` appends, ``pop`` removes the last."""

    def __init__(self, layers: Optional[Sequence[Layer]] = None, name: Optional[str] = None):
        super().__init__(name=name)
        self._stack: List[Layer] = []
        self._input_layer: Optional[InputLayer] = None
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self) -> List[Layer]:
        """The added layers (without the input layer)."""
        return list(self._stack)

    def add(self, layer: Layer) -> None:
        """Appends ``layer``; connects it at once when the input shape is known.

        Raises:
          TypeError: ``layer`` is not a Keras layer.
          ValueError: a layer with several outputs.
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"The added layer must be an instance of class Layer. Found: "
                            f"{layer!r}")
        if isinstance(layer, InputLayer):
            if self._stack or self._input_layer is not None:
                raise ValueError("Sequential: an InputLayer can only be the first layer")
            self._input_layer = layer
            self._connect(layer._inbound_nodes[0].output_tensors[0])
            return
        if not self._stack and self._input_layer is None and \
                layer._batch_input_shape is not None:
            x = Input(batch_shape=layer._batch_input_shape, dtype=layer.dtype,
                      name=layer.name + "_input")
            self._input_layer = x._keras_history[0]
            self.inputs = [x]
            self.outputs = [x]
        self._stack.append(layer)
        if self.outputs is not None:
            out = layer(self.outputs[0])
            if len(to_list(out)) != 1:
                raise ValueError("All layers in a Sequential model should have a single "
                                 "output tensor. For multi-output layers, use the functional "
                                 "API.")
            self.outputs = [out]
            self.built = True
        self._invalidate()

    def pop(self) -> None:
        """Removes the last layer.

        Raises:
          TypeError: the model has no layers.
        """
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        self._stack.pop()
        if self.inputs is not None:
            self._connect(self.inputs[0])
        self._invalidate()

    def _invalidate(self) -> None:
        # The compiled loss refers to the old output: compile again to train.
        if self._compiled:
            self._compiled = False
            for attr in ("total_loss", "_metric_tensors"):
                self.__dict__.pop(attr, None)
        self._train_fetches = None

    def _connect(self, x: Any) -> None:
        self.inputs = [x]
        out = x
        for layer in self._stack:
            out = layer(out)
        self.outputs = [out]
        self.built = bool(self._stack) or self.built

    def _set_inputs(self, inputs: List[Any]) -> None:
        # Built from data, the layers run inside the model's name scope, so their
        # weights are named sequential/dense/kernel (as in TF 1.x Keras).
        if len(inputs) != 1:
            raise ValueError(f"A Sequential model takes one input, got {len(inputs)}")
        self.built = True
        out = Layer.__call__(self, inputs[0])
        self.inputs, self.outputs = [inputs[0]], [out]

    @property
    def input_names(self) -> List[str]:
        """The name of the input layer."""
        return [t._keras_history[0].name for t in (self.inputs or [])]

    @property
    def output_names(self) -> List[str]:
        """The name of the last layer."""
        return [self._stack[-1].name] if self._stack else []

    def call(self, inputs: Any, training: Any = None,  # type: ignore[override]
             mask: Any = None) -> Any:
        """Applies the layers in order.

        Raises:
          ValueError: a ``mask`` (masks are not propagated here).
        """
        if mask is not None:
            raise ValueError("Sequential.call: masks are not supported")
        x = inputs
        for layer in self._stack:
            kwargs = {"training": training} if training is not None and \
                layer._wants_training() else {}
            x = layer(x, **kwargs)
        return x

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Applies the model; on its own input returns its output."""
        if self.inputs is not None and len(to_list(inputs)) == 1 and \
                to_list(inputs)[0] is self.inputs[0] and self.outputs is not None:
            return self.outputs[0]
        self.built = True
        return Layer.__call__(self, inputs, *args, **kwargs)

    def get_config(self) -> dict:
        """The model's name and its layers as ``{"class_name", "config"}`` (the input
        layer first when the model has one of its own)."""
        layers = [{"class_name": type(layer).__name__, "config": layer.get_config()}
                  for layer in self._stack]
        first = self._stack[0] if self._stack else None
        if self._input_layer is not None and (first is None or
                                              first._batch_input_shape is None):
            layers.insert(0, {"class_name": "InputLayer",
                              "config": self._input_layer.get_config()})
        return {"name": self.name, "layers": layers}


