"""The topology half of ``tf.keras.Model``: layers, weights, calling, ``summary``.

A model is either a graph network, ``Model(inputs, outputs)``, whose layers
and call order come from the ``Node`` records that Keras tensors carry, or a
subclassed model whose ``call`` the user writes; its layers are the ``Layer``
attributes assigned to it. Applying a graph network to new tensors replays
its nodes on them, reusing every layer's weights.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import backend as K
from tensorfleet.keras.layers.base import (InputLayer, Layer, Node, config_value, to_list,
                                          unpack)

logger = logging.getLogger(__name__)


def _stdout(line: str) -> None:
    # Keras's summary and progress output go to standard output, as users expect.
    sys.stdout.write(line + "\n")


class Network(Layer):
    """A layer made of layers: a graph network or a subclassed model."""

    def __init__(self, *args: Any, **kwargs: Any):
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if args:
            if len(args) > 2:
                raise TypeError("Model takes at most two positional arguments: inputs, outputs")
            inputs = args[0]
            outputs = args[1] if len(args) > 1 else outputs
        object.__setattr__(self, "_tracked_layers", [])
        Layer.__init__(self, **kwargs)
        self.inputs: Optional[List[Tensor]] = None
        self.outputs: Optional[List[Tensor]] = None
        self._graph_nodes: Optional[List[Node]] = None
        self._graph_layers: List[Layer] = []
        self.stop_training = False
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("Model: give both inputs and outputs, or neither (and "
                                 "subclass Model with a call method)")
            self._init_graph_network(inputs, outputs)

    # -- layer tracking for subclassed models ----------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        tracked = self.__dict__.get("_tracked_layers")
        if tracked is not None and not name.startswith("_"):
            for v in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(v, Layer) and v is not self and all(v is not t for t in tracked):
                    tracked.append(v)
        object.__setattr__(self, name, value)

    # -- graph networks --------------------------------------------------------------------
    def _init_graph_network(self, inputs: Any, outputs: Any) -> None:
        ins, outs = to_list(inputs), to_list(outputs)
        for t in ins + outs:
            if not K.is_keras_tensor(t):
                raise ValueError(f"Model: inputs and outputs must be Keras tensors (from "
                                 f"tf.keras.Input or a Keras layer), got {t!r}")
        input_ids = {id(t) for t in ins}
        order: List[Node] = []
        seen: set = set()

        def visit(t: Tensor, path: tuple) -> None:
            layer, ni, _ = t._keras_history
            node = layer._inbound_nodes[ni]
            if id(node) in seen:
                return
            if id(node) in path:
                raise ValueError("Model: the layer graph has a cycle")
            if id(t) not in input_ids:
                if isinstance(layer, InputLayer):
                    raise ValueError(f"Graph disconnected: cannot obtain value for tensor "
                                     f"{t.name} at layer {layer.name!r}; it is not among "
                                     f"the model's inputs")
                for x in node.input_tensors:
                    visit(x, path + (id(node),))
            seen.add(id(node))
            order.append(node)

        for t in outs:
            visit(t, ())
        self.inputs, self.outputs = ins, outs
        self._graph_nodes = order
        layers: List[Layer] = []
        for t in ins:
            layer = t._keras_history[0]
            if all(layer is not x for x in layers):
                layers.append(layer)
        for node in order:
            if all(node.layer is not x for x in layers):
                layers.append(node.layer)
        self._graph_layers = layers
        self.built = True

    @property
    def input_names(self) -> List[str]:
        """The names of the layers that produce the model's inputs."""
        return [t._keras_history[0].name for t in (self.inputs or [])]

    @property
    def output_names(self) -> List[str]:
        """The names of the layers that produce the model's outputs."""
        return [t._keras_history[0].name for t in (self.outputs or [])]

    def _run_graph(self, inputs: List[Tensor], training: Any) -> List[Tensor]:
        if self.inputs is None or self._graph_nodes is None:
            raise ValueError(f"Model {self.name!r} has no graph to run")
        if len(inputs) != len(self.inputs):
            raise ValueError(f"Model {self.name!r} expects {len(self.inputs)} inputs, got "
                             f"{len(inputs)}")
        if all(a is b for a, b in zip(inputs, self.inputs)):
            return list(self.outputs or [])
        values: Dict[int, Tensor] = {id(t): x for t, x in zip(self.inputs, inputs)}
        for node in self._graph_nodes:
            if any(id(t) == id(o) for t in node.input_tensors for o in node.output_tensors):
                continue  # an InputLayer's own node
            args = [values[id(t)] for t in node.input_tensors]
            kwargs = dict(node.arguments)
            if training is not None and node.layer._wants_training():
                kwargs["training"] = training
            outs = to_list(node.layer(args if isinstance(node.inputs, list) else args[0],
                                      *node.args, **kwargs))
            for old, new in zip(node.output_tensors, outs):
                values[id(old)] = new
        return [values[id(t)] for t in self.outputs or []]

    def call(self, inputs: Any, training: Any = None,  # type: ignore[override]
             mask: Any = None) -> Any:
        """Applies the model to ``inputs``: replays the graph (graph networks only;
        subclasses define their own ``call``).

        Raises:
          ValueError: a ``mask`` (masks are not propagated here).
        """
        if mask is not None:
            raise ValueError("Model.call: masks are not supported")
        if self._graph_nodes is None:
            raise TypeError(f"Model {self.name!r}: subclasses of Model must define "
                                      f"call(), or be built as Model(inputs, outputs)")
        return unpack(self._run_graph(to_list(inputs), training))

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Applies the model; on the model's own inputs returns its outputs."""
        if self._graph_nodes is not None and self.inputs is not None and \
                all(a is b for a, b in zip(to_list(inputs), self.inputs)) and \
                len(to_list(inputs)) == len(self.inputs):
            return unpack(list(self.outputs or []))
        if self._graph_nodes is None:
            # A subclassed model makes its layers' weights inside call(); there is
            # nothing to build beforehand.
            self.built = True
        return Layer.__call__(self, inputs, *args, **kwargs)

    # -- layers and weights ----------------------------------------------------------------
    @property
    def layers(self) -> List[Layer]:
        """The model's layers: a graph network's in call order (inputs first), else the
        layers assigned as attributes."""
        if self._graph_nodes is not None:
            return list(self._graph_layers)
        return list(self.__dict__.get("_tracked_layers", []))

    def get_layer(self, name: Optional[str] = None, index: Optional[int] = None) -> Layer:
        """A layer by name or by index.

        Raises:
          ValueError: no such layer, or neither argument given.
        """
        if index is not None:
            if not 0 <= index < len(self.layers):
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(self.layers)} layers.")
            return self.layers[index]
        if name is None:
            raise ValueError("Provide either a layer name or layer index.")
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    def _collect(self, what: Callable[[Layer], List[Any]], own: List[Any]) -> List[Any]:
        out, seen = [], set()
        for w in list(own) + [w for layer in self.layers for w in what(layer)]:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    @property
    def trainable_weights(self) -> List[Any]:  # type: ignore[override]
        """Trainable weights of every layer (none when the model is not trainable)."""
        if not self.trainable:
            return []
        return self._collect(lambda layer: layer.trainable_weights, self._trainable_weights)

    @property
    def non_trainable_weights(self) -> List[Any]:  # type: ignore[override]
        """The other weights of every layer."""
        if not self.trainable:
            return self.weights
        return self._collect(lambda layer: layer.non_trainable_weights,
                             self._non_trainable_weights)

    @property
    def weights(self) -> List[Any]:  # type: ignore[override]
        """Every weight, layer by layer (each layer's trainable ones first)."""
        own = self._trainable_weights + self._non_trainable_weights
        return self._collect(lambda layer: layer.weights, own)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def losses(self) -> List[Any]:  # type: ignore[override]
        """Regularization losses of the model and its layers."""
        return self._collect(lambda layer: layer.losses, self._keras_losses)

    @property
    def updates(self) -> List[Any]:
        """Update ops (moving statistics) of the model's layers."""
        return self._collect(lambda layer: layer.updates, self._keras_updates)

    @property
    def input(self) -> Any:
        """The model's input tensor(s)."""
        if self.inputs is None:
            raise AttributeError(f"Model {self.name!r} has no inputs yet (it is not built)")
        return unpack(self.inputs)

    @property
    def output(self) -> Any:
        """The model's output tensor(s)."""
        if self.outputs is None:
            raise AttributeError(f"Model {self.name!r} has no outputs yet (it is not built)")
        return unpack(self.outputs)

    # -- config ----------------------------------------------------------------------------
    def get_config(self) -> Dict[str, Any]:
        """A graph network's config in Keras's form: each layer's config with the calls
        that feed it (``inbound_nodes``: ``[layer name, node index, tensor index, {}]``),
        and the model's input and output layers.

        Raises:
          ValueError: a subclassed model (its ``call`` is Python code, not a config), or a
            call argument that is not a plain value.
        """
        if self._graph_nodes is None or self.inputs is None:
            raise ValueError(f"Model {self.name!r}: only graph networks (Model(inputs, "
                             f"outputs)) and Sequential models have a config")
        own = {id(n) for n in self._graph_nodes}
        index: Dict[tuple, int] = {}
        for layer in self.layers:
            mine = [n for n in layer._inbound_nodes if id(n) in own]
            for i, n in enumerate(layer._inbound_nodes):
                if id(n) in own:
                    index[(id(layer), i)] = mine.index(n)

        def ref(t: Tensor) -> list:
            layer, ni, ti = t._keras_history
            return [layer.name, index[(id(layer), ni)], ti]
        layers = []
        for layer in self.layers:
            nodes = []
            for n in layer._inbound_nodes:
                if id(n) not in own or isinstance(layer, InputLayer):
                    continue
                kwargs = config_value(dict(n.arguments), f"{layer.name} call arguments")
                if n.args:
                    raise ValueError(f"{layer.name}: positional call arguments cannot be "
                                     f"written to a config")
                nodes.append([ref(t) + [kwargs] for t in n.input_tensors])
            layers.append({"class_name": type(layer).__name__, "name": layer.name,
                           "config": layer.get_config(), "inbound_nodes": nodes})
        return {"name": self.name, "layers": layers,
                "input_layers": [ref(t) for t in self.inputs],
                "output_layers": [ref(t) for t in self.outputs or []]}

    def to_json(self, **kwargs: Any) -> str:
        """The model's class and config as a JSON string (``model_from_json`` reads it)."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config(),
                           "keras_version": "2.15.0", "backend": "tensorflow"}, **kwargs)

    # -- summary ---------------------------------------------------------------------------
    def summary(self, line_length: Optional[int] = None,
                positions: Optional[Sequence[float]] = None,
                print_fn: Optional[Callable[[str], Any]] = None) -> None:
        """Prints a table of the layers, their output shapes and parameter counts.

        Raises:
          ValueError: the model is not built yet.
        """
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or calling `fit()` with some data, or specify "
                             "an `input_shape` argument in the first layer(s) for automatic "
                             "build.")
        emit = print_fn or _stdout
        width = line_length or 65
        cols = [int(width * p) for p in (positions or (0.45, 0.85, 1.0))]
        if cols[-1] <= 1:
            cols = [int(width * p) for p in cols]

        def row(fields: Sequence[str]) -> str:
            line = ""
            for i, (field, stop) in enumerate(zip(fields, cols)):
                if i:
                    line = line[:-1] + " "  # at least one space between columns
                line = (line + str(field))[:stop]
                line += " " * (stop - len(line))
            return line.rstrip()

        emit(f'Model: "{self.name}"')
        emit("_" * width)
        emit(row(["Layer (type)", "Output Shape", "Param #"]))
        emit("=" * width)
        layers = self.layers
        for i, layer in enumerate(layers):
            try:
                shape: Any = layer.output_shape
            except AttributeError:
                shape = "multiple"
            emit(row([f"{layer.name} ({type(layer).__name__})", str(shape),
                      str(layer.count_params())]))
            emit("=" * width if i == len(layers) - 1 else "_" * width)
        if not layers:
            emit("=" * width)
        trainable = sum(int(_size(w)) for w in self.trainable_weights)
        total = sum(int(_size(w)) for w in self.weights)
        emit(f"Total params: {total:,}")
        emit(f"Trainable params: {trainable:,}")
        emit(f"Non-trainable params: {total - trainable:,}")
        emit("_" * width)


def _size(w: Any) -> int:
    n = 1
    for d in w.get_shape().as_list():
        n *= int(d)
    return n


__all__ = ["Network"]
