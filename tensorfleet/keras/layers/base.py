"""The Keras ``Layer`` base, call-history nodes, and ``Input``/``InputLayer``.

A Keras layer is named when it is made (``dense``, ``dense_1`` ... per graph,
by class name) and makes its weights on its first call, inside a name scope of
its name, as ``tf.Variable``s: ``dense/kernel:0``. Later calls reuse them.
When every input of a call is a Keras tensor (from ``Input`` or another layer),
the call is recorded as a ``Node`` and the outputs carry ``_keras_history``
(layer, node index, tensor index), from which ``Model(inputs, outputs)`` finds
its layers. The ``tf.layers`` classes that match Keras layers are reused by
mixing this base in front of them: their ``build``/``call`` run unchanged, and
their ``add_weight`` calls land in the Keras ``add_weight`` here.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.keras import backend as K
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.input_spec import assert_input_compatibility
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.variables import Variable

logger = logging.getLogger(__name__)

# Whether layers cast floating inputs to their own dtype (enable_v2_dtype_behavior).
_V2_DTYPE = {"on": False}


def to_list(x: Any) -> List[Any]:
    """``x`` as a list (a list or tuple unchanged in order, anything else wrapped)."""
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def unpack(xs: List[Any]) -> Any:
    """A single item of a one-item list, else the list."""
    return xs[0] if len(xs) == 1 else xs


class Node:
    """One call of a layer on Keras tensors: what went in, what came out, with what
    keyword arguments; ``Model`` replays nodes to apply itself to new inputs."""

    def __init__(self, layer: "Layer", inputs: Any, outputs: List[Tensor],
                 arguments: Dict[str, Any], args: Sequence[Any] = ()):
        self.layer = layer
        self.args = tuple(args)
        self.inputs = inputs  # the structure the layer was called with
        self.input_tensors = to_list(inputs)
        self.output_tensors = outputs
        self.arguments = arguments


def _call_args(cls: type) -> set:
    try:
        return set(inspect.signature(cls.call).parameters)
    except (TypeError, ValueError):
        return set()


class Layer(_tfl.Layer):
    """Base of the Keras layers: naming, weights, call bookkeeping.

    Subclasses override ``build(input_shape)`` (making weights with
    ``add_weight``) and ``call(inputs, **kwargs)``. A ``call`` that takes a
    ``training`` argument receives the Keras learning phase when the caller
    gives none. ``input_shape``/``input_dim``/``batch_input_shape``/``batch_size``
    on the first layer of a ``Sequential`` give the model its input.
    """

    def __init__(self, trainable: bool = True, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any):
        rest = self._keras_kwargs(kwargs)
        _tfl.Layer.__init__(self, trainable=trainable, name=name, dtype=dtype, **rest)
        self._keras_name(name)

    # -- construction helpers shared with the tf.layers-based subclasses -------------------
    def _keras_kwargs(self, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """Takes the Keras-only constructor arguments out of ``kwargs``."""
        kwargs = dict(kwargs)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        self._initial_weights = kwargs.pop("weights", None)
        if batch_input_shape is not None:
            self._batch_input_shape: Optional[tuple] = tuple(batch_input_shape)
        elif input_shape is not None:
            self._batch_input_shape = (batch_size,) + tuple(to_list(input_shape))
        elif input_dim is not None:
            self._batch_input_shape = (batch_size, int(input_dim))
        else:
            self._batch_input_shape = None
        return kwargs

    def _keras_name(self, name: Optional[str]) -> None:
        """Names the layer (unique per graph by class name) and sets up its state."""
        if name is None:
            name = K.unique_object_name(self._base_name)
        self._name = self._name_arg = name
        if self.dtype is None:
            self.dtype = _dtypes.as_dtype(K.floatx())
        self._inbound_nodes: List[Node] = []
        self._keras_losses: List[Any] = []
        self._keras_updates: List[Any] = []
        self.supports_masking = False

    # -- weights ---------------------------------------------------------------------------
    def add_weight(self, name: str, shape: Any = None, dtype: Any = None,  # type: ignore[override]
                   initializer: Any = None, regularizer: Any = None, trainable: bool = True,
                   constraint: Any = None, **kwargs: Any) -> Any:
        """Makes a weight ``<scope>/<name>`` initialized by ``initializer`` (glorot_uniform
        for floats, zeros otherwise), records it, and its regularization loss.

        Raises:
          ValueError: for arguments other than the Keras ones named above.
        """
        if kwargs:
            raise ValueError(f"{type(self).__name__}.add_weight: unsupported arguments "
                             f"{sorted(kwargs)}")
        dt = _dtypes.as_dtype(dtype or self.dtype or K.floatx())
        init = _inits.get(initializer)
        if init is None:
            init = _inits.glorot_uniform() if dt.is_floating else _inits.zeros()
        shp = [int(d) for d in (shape or [])]
        trainable = bool(trainable) and self.trainable
        v = Variable(lambda: init(shp, dtype=dt), name=name, dtype=dt, trainable=trainable,
                     constraint=constraint)
        K.track_variable(v)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        if regularizer is not None:
            g = get_default_graph()
            with g.name_scope(name + "/Regularizer"):
                self._keras_losses.append(regularizer(v))
        return v

    def get_weights(self) -> List[np.ndarray]:
        """The values of ``weights`` as numpy arrays."""
        return K.batch_get_value(self.weights)

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Assigns numpy arrays to ``weights``, in order.

        Raises:
          ValueError: a count or shape that does not match.
        """
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"Layer {self.name!r} expects {len(params)} weights, but was "
                             f"given {len(weights)}")
        pairs = []
        for p, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(p.get_shape().as_list()) != w.shape:
                raise ValueError(f"Layer weight shape {tuple(p.get_shape().as_list())} not "
                                 f"compatible with provided weight shape {w.shape}")
            pairs.append((p, w))
        K.batch_set_value(pairs)

    def count_params(self) -> int:
        """The number of scalars in the layer's weights."""
        return int(sum(int(np.prod(w.get_shape().as_list())) for w in self.weights))

    @property
    def losses(self) -> List[Any]:  # type: ignore[override]
        """Regularization and ``add_loss`` losses of the layer."""
        return list(self._keras_losses)

    @property
    def updates(self) -> List[Any]:
        """Update ops (moving statistics) made by the layer's calls."""
        return list(self._keras_updates) + list(getattr(self, "_updates", []))

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Adds loss tensors to ``losses`` (added to the model's loss when compiled)."""
        self._keras_losses.extend(to_list(losses))

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Adds ops that ``fit`` runs with every training step."""
        self._keras_updates.extend(to_list(updates))

    # -- calling ---------------------------------------------------------------------------
    def _wants_training(self) -> bool:
        cls = type(self)
        cache = cls.__dict__.get("_call_arg_cache")
        if cache is None:
            cache = _call_args(cls)
            setattr(cls, "_call_arg_cache", cache)
        return "training" in cache

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Builds the layer on first use, applies it, and records the call."""
        flat = to_list(inputs)
        tensors = [x if isinstance(x, Tensor) or hasattr(x, "_ref") else convert_to_tensor(x)
                   for x in flat]
        node_inputs: Any = tensors if isinstance(inputs, (list, tuple)) else tensors[0]
        if _V2_DTYPE["on"] and self.dtype is not None and self.dtype.is_floating:
            tensors = [A.cast(t, self.dtype) if t.dtype.is_floating and t.dtype != self.dtype
                       else t for t in tensors]
        call_inputs: Any = tensors if isinstance(inputs, (list, tuple)) else tensors[0]
        assert_input_compatibility(getattr(self, "input_spec", None), call_inputs, self.name)
        if self._wants_training() and kwargs.get("training") is None:
            phase = K.learning_phase()
            kwargs["training"] = bool(phase) if isinstance(phase, int) else phase
        g = get_default_graph()
        before = len(g.get_collection(GraphKeys.REGULARIZATION_LOSSES))
        with g.name_scope(self.name):
            if not self.built:
                shapes = [convert_to_tensor(t).shape for t in tensors]
                self.build(shapes if isinstance(inputs, (list, tuple)) else shapes[0])
                self.built = True
                if self._initial_weights is not None:
                    self.set_weights(self._initial_weights)
                    self._initial_weights = None
            outputs = self.call(call_inputs, *args, **kwargs)
        # tf.layers activity regularizers report through the graph collection.
        self._keras_losses.extend(g.get_collection(GraphKeys.REGULARIZATION_LOSSES)[before:])
        if all(K.is_keras_tensor(t) for t in to_list(node_inputs)):
            self._add_node(node_inputs, outputs, kwargs, args)
        return outputs

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """The same as calling the layer."""
        return self.__call__(inputs, *args, **kwargs)

    def _add_node(self, inputs: Any, outputs: Any, kwargs: Dict[str, Any],
                  args: Sequence[Any] = ()) -> None:
        outs = to_list(outputs)
        # The learning-phase tensor is not kept: a replay takes the phase of its own call.
        node = Node(self, inputs, outs, {k: v for k, v in kwargs.items() if k != "training"
                                         or not isinstance(v, Tensor)}, args)
        index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for i, t in enumerate(outs):
            if isinstance(t, Tensor):
                t._keras_history = (self, index, i)

    # -- introspection ---------------------------------------------------------------------
    def _node_attr(self, what: str) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no {what} to return.")
        node = self._inbound_nodes[0]
        return unpack(node.input_tensors if what == "input" else node.output_tensors)

    @property
    def input(self) -> Any:
        """The input tensor(s) of the layer's first call on Keras tensors."""
        return self._node_attr("input")

    @property
    def output(self) -> Any:
        """The output tensor(s) of the layer's first call on Keras tensors."""
        return self._node_attr("output")

    @property
    def input_shape(self) -> Any:
        """The static input shape(s) as tuples, from the first call."""
        return _shapes(self.input)

    @property
    def output_shape(self) -> Any:
        """The static output shape(s) as tuples, from the first call."""
        return _shapes(self.output)

    def __new__(cls, *args: Any, **kwargs: Any) -> "Layer":
        # The constructor arguments, kept for get_config (a layer's config is what it was
        # made with).
        obj = super().__new__(cls)
        obj.__dict__["_ctor_args"] = (args, dict(kwargs))
        return obj

    def get_config(self) -> Dict[str, Any]:
        """The layer's constructor arguments as JSON-ready values (Keras objects as
        ``{"class_name", "config"}``, activations by name), with its name, trainability,
        dtype and batch input shape.

        Raises:
          ValueError: an argument that has no such form (a Python function given to
            ``Lambda``, for instance).
        """
        cfg: Dict[str, Any] = {"name": self.name, "trainable": self.trainable,
                               "dtype": self.dtype.name if self.dtype else None}
        if self._batch_input_shape is not None:
            cfg["batch_input_shape"] = list(self._batch_input_shape)
        args, kwargs = self.__dict__.get("_ctor_args", ((), {}))
        try:
            bound = inspect.signature(type(self).__init__).bind(self, *args, **kwargs)
        except TypeError as e:
            raise ValueError(f"{type(self).__name__}.get_config: {e}") from None
        params = inspect.signature(type(self).__init__).parameters
        for key, value in list(bound.arguments.items())[1:]:
            kind = params[key].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                if value:
                    raise ValueError(f"{type(self).__name__}.get_config: positional "
                                     f"arguments beyond the named ones cannot be kept")
                continue
            items = value.items() if kind == inspect.Parameter.VAR_KEYWORD else [(key, value)]
            for k, v in items:
                if k in _NOT_CONFIG:
                    continue
                cfg[k] = config_value(v, f"{type(self).__name__}.{k}")
        return cfg

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Layer":
        """The layer made from ``get_config()``'s dict (nested Keras objects already
        deserialized)."""
        return cls(**config)


# Constructor arguments get_config leaves out: the ones it writes itself or that give
# the layer its input and initial weights.
_NOT_CONFIG = {"name", "trainable", "dtype", "input_shape", "input_dim", "batch_size",
               "batch_input_shape", "weights"}


def weight_options(initializer: Any, regularizer: Any, constraint: Any) -> Dict[str, Any]:
    """``add_weight`` keyword arguments from a layer's initializer, regularizer and
    constraint arguments (names resolved)."""
    return {"initializer": _inits.get(initializer), "regularizer": _regs.get(regularizer),
            "constraint": constraint}


def config_value(v: Any, where: str) -> Any:
    """``v`` in a JSON-ready form for a config: numbers, strings, lists and dicts as they
    are, Keras objects as ``{"class_name", "config"}``, named functions by name.

    Raises:
      ValueError: a value with no such form.
    """
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [config_value(x, where) for x in v]
    if isinstance(v, dict):
        return {str(k): config_value(x, where) for k, x in v.items()}
    if hasattr(v, "as_datatype_enum") and hasattr(v, "name"):
        return v.name  # a dtype
    if hasattr(v, "get_config") and not inspect.isfunction(v):
        name = getattr(type(v), "_keras_registered_name", None) or type(v).__name__
        return {"class_name": name, "config": v.get_config()}
    if inspect.isfunction(v) and v.__name__ != "<lambda>" and \
            getattr(v, "_keras_serializable", True):
        return getattr(v, "_keras_registered_name", None) or v.__name__
    raise ValueError(f"{where}: {v!r} cannot be written to a config (no class name or "
                     f"function name to rebuild it from)")


def _shapes(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [K.int_shape(t) for t in x]
    return K.int_shape(x)


class InputLayer(Layer):
    """The layer behind ``Input``: a placeholder (or a given tensor) as a Keras tensor."""

    def __init__(self, input_shape: Any = None, batch_size: Optional[int] = None,
                 dtype: Any = None, input_tensor: Any = None, sparse: bool = False,
                 name: Optional[str] = None, **kwargs: Any):
        if sparse:
            raise ValueError("InputLayer: sparse=True is not supported")
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if name is None:
            name = "input_" + str(K.get_uid("input"))
        Layer.__init__(self, name=name, dtype=dtype or K.floatx(), **kwargs)
        if input_tensor is None:
            if batch_input_shape is not None:
                shape = tuple(batch_input_shape)
            elif input_shape is not None:
                shape = (batch_size,) + tuple(to_list(input_shape))
            else:
                raise ValueError("InputLayer: give input_shape, batch_input_shape or "
                                 "input_tensor")
            g = get_default_graph()
            with g.name_scope(""):
                input_tensor = A.placeholder(self.dtype, shape=shape, name=name)
        else:
            input_tensor = convert_to_tensor(input_tensor)
        self._batch_input_shape = K.int_shape(input_tensor)
        self.built = True
        self._add_node(input_tensor, [input_tensor], {})

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        """The input itself."""
        return inputs

    def get_config(self) -> Dict[str, Any]:
        """The input's batch shape, dtype and name."""
        return {"batch_input_shape": list(self._batch_input_shape), "dtype": self.dtype.name,
                "sparse": False, "name": self.name}


def Input(shape: Any = None, batch_size: Optional[int] = None,  # noqa: N802  (Keras name)
          name: Optional[str] = None, dtype: Any = None, sparse: bool = False,
          tensor: Any = None, batch_shape: Any = None, **kwargs: Any) -> Tensor:
    """A Keras tensor: a placeholder of ``[batch_size] + shape`` to build models from.

    Raises:
      ValueError: neither ``shape``, ``batch_shape`` nor ``tensor`` given.
    """
    if kwargs:
        raise ValueError(f"Input: unsupported arguments {sorted(kwargs)}")
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. "
                         "Note that `shape` does not include the batch dimension.")
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype,
                       input_tensor=tensor, sparse=sparse, name=name,
                       batch_input_shape=batch_shape)
    return layer._inbound_nodes[0].output_tensors[0]


class WrappingLayer(Layer):
    """A layer whose weights are those of the layers (or cells) it wraps, in the order
    ``_wrapped()`` lists them; frozen (``trainable=False``), they all count as
    non-trainable."""

    def _wrapped(self) -> List[Any]:
        """The wrapped layers or cells."""
        return []

    @property
    def trainable_weights(self) -> List[Any]:  # type: ignore[override]
        """The wrapped layers' trainable weights."""
        if not self.trainable:
            return []
        return [w for inner in self._wrapped() for w in inner.trainable_weights]

    @property
    def non_trainable_weights(self) -> List[Any]:  # type: ignore[override]
        """The wrapped layers' other weights (all of them, when frozen)."""
        if self.trainable:
            return [w for inner in self._wrapped() for w in inner.non_trainable_weights]
        return [w for inner in self._wrapped()
                for w in list(inner.trainable_weights) + list(inner.non_trainable_weights)]

    @property
    def weights(self) -> List[Any]:  # type: ignore[override]
        """Every weight of the wrapped layers."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights


__all__ = ["Layer", "WrappingLayer", "Node", "InputLayer", "Input", "to_list", "unpack",
           "config_value", "weight_options"]
