"""Keras models and layers from configs: ``layers.deserialize``, ``model_from_config``
(graph networks and Sequential models in Keras's config form), ``model_from_json`` /
``model_from_yaml``, and ``clone_model`` (the same architecture with new weights).

Nested Keras objects in a layer's config (initializers, regularizers, constraints,
wrapped layers) are rebuilt from their ``{"class_name", "config"}`` form; class names are
looked up in the custom-object scopes and registry, ``custom_objects``, then Keras's own
layers, initializers, regularizers and constraints.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from tensorfleet.keras import constraints as _constraints
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Input, InputLayer, Layer, to_list
from tensorfleet.keras.object_registry import get_registered_object
from tensorfleet.keras.sequential import Sequential
from tensorfleet.keras.training import Model

# A config file is untrusted input: its size and nesting are bounded.
MAX_CONFIG_BYTES = 64 << 20
MAX_CONFIG_DEPTH = 64


def _layer_classes() -> Dict[str, Any]:
    """Every public Keras layer class by name (the subclasses of ``Layer`` defined in
    the Keras package)."""
    out: Dict[str, Any] = {}
    todo = [Layer]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if not sub.__name__.startswith("_") and sub.__module__.startswith(
                    "tensorfleet.keras"):
                out.setdefault(sub.__name__, sub)
    out.update({"Model": Model, "Functional": Model, "Sequential": Sequential})
    return out


def _object_classes() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    out.update(_inits._CLASSES)
    out.update(_regs._CLASSES)
    out.update(_constraints._CLASSES)
    out.update(_layer_classes())
    return out


def _depth(x: Any, level: int = 0) -> None:
    if level > MAX_CONFIG_DEPTH:
        raise ValueError(f"config nested deeper than {MAX_CONFIG_DEPTH} levels")
    if isinstance(x, dict):
        for v in x.values():
            _depth(v, level + 1)
    elif isinstance(x, list):
        for v in x:
            _depth(v, level + 1)


def _rebuild(value: Any, custom_objects: Optional[Dict[str, Any]]) -> Any:
    """Nested ``{"class_name", "config"}`` dicts in a layer config made into objects."""
    if isinstance(value, dict) and set(value) >= {"class_name", "config"} and \
            isinstance(value.get("class_name"), str):
        return deserialize(value, custom_objects)
    if isinstance(value, list):
        return [_rebuild(v, custom_objects) for v in value]
    return value


def deserialize(config: Dict[str, Any], custom_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The Keras object (a layer, model, initializer, regularizer or constraint) that a
    ``{"class_name", "config"}`` dict describes.

    Raises:
      ValueError: an unknown class name or a malformed config.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Improper config format: {config!r}")
    _depth(config)
    name = config["class_name"]
    cls = get_registered_object(name, custom_objects, _object_classes())
    if cls is None:
        raise ValueError(f"Unknown layer: {name!r}. Please ensure this object is passed to "
                         f"the `custom_objects` argument.")
    cfg = config.get("config") or {}
    if not isinstance(cfg, dict):
        raise ValueError(f"Improper config format for {name}: {cfg!r}")
    if cls is Sequential or (isinstance(cls, type) and issubclass(cls, Sequential)):
        return _sequential_from_config(cfg, custom_objects, cls)
    if cls is Model or "input_layers" in cfg:
        return _functional_from_config(cfg, custom_objects)
    cfg = {k: _rebuild(v, custom_objects) for k, v in cfg.items()}
    if hasattr(cls, "from_config"):
        return cls.from_config(cfg)
    return cls(**cfg)


def serialize(layer: Any) -> Dict[str, Any]:
    """``{"class_name", "config"}`` of a layer (or another Keras object)."""
    return {"class_name": getattr(type(layer), "_keras_registered_name", None)
            or type(layer).__name__, "config": layer.get_config()}


def _sequential_from_config(cfg: Dict[str, Any], custom_objects: Optional[Dict[str, Any]],
                            cls: Any = Sequential) -> Sequential:
    layer_cfgs = cfg.get("layers")
    if not isinstance(layer_cfgs, list):
        raise ValueError("Sequential config: 'layers' must be a list")
    model = cls(name=cfg.get("name"))
    for lc in layer_cfgs:
        if lc.get("class_name") == "InputLayer":
            c = lc.get("config") or {}
            x = Input(batch_shape=tuple(c["batch_input_shape"]), dtype=c.get("dtype"),
                      name=c.get("name"))
            model.add(x._keras_history[0])
        else:
            model.add(deserialize(lc, custom_objects))
    return model


def _functional_from_config(cfg: Dict[str, Any],
                            custom_objects: Optional[Dict[str, Any]]) -> Model:
    made: Dict[str, Layer] = {}
    outputs: Dict[tuple, List[Any]] = {}
    pending: List[tuple] = []
    for lc in cfg.get("layers", []):
        name = lc.get("name") or (lc.get("config") or {}).get("name")
        if lc.get("class_name") == "InputLayer":
            c = lc.get("config") or {}
            x = Input(batch_shape=tuple(c["batch_input_shape"]), dtype=c.get("dtype"),
                      name=c.get("name", name))
            made[name] = x._keras_history[0]
            outputs[(name, 0)] = [x]
            continue
        made[name] = deserialize({"class_name": lc["class_name"], "config": lc["config"]},
                                 custom_objects)
        for i, node in enumerate(lc.get("inbound_nodes", [])):
            pending.append((name, i, node))
    # Calls run once all their inputs exist; each pass must make progress.
    while pending:
        left = []
        for name, i, node in pending:
            refs = [(r[0], int(r[1]), int(r[2])) for r in node]
            if not all((ln, ni) in outputs for ln, ni, _ in refs):
                left.append((name, i, node))
                continue
            ins = [outputs[(ln, ni)][ti] for ln, ni, ti in refs]
            kwargs = node[0][3] if node and len(node[0]) > 3 and node[0][3] else {}
            out = made[name](ins if len(ins) > 1 else ins[0], **kwargs)
            outputs[(name, i)] = to_list(out)
        if len(left) == len(pending):
            raise ValueError(f"Model config: the calls of {[p[0] for p in left]} have inputs "
                             f"that no layer produces")
        pending = left

    def pick(refs: Any) -> List[Any]:
        return [outputs[(r[0], int(r[1]))][int(r[2])] for r in refs]
    ins, outs = pick(cfg["input_layers"]), pick(cfg["output_layers"])
    return Model(inputs=ins if len(ins) > 1 else ins[0],
                 outputs=outs if len(outs) > 1 else outs[0], name=cfg.get("name"))


def model_from_config(config: Dict[str, Any],
                      custom_objects: Optional[Dict[str, Any]] = None) -> Model:
    """The model a ``{"class_name", "config"}`` dict describes (weights newly made).

    Raises:
      ValueError: a config that is not a model's.
    """
    if not isinstance(config, dict) or config.get("class_name") not in (
            "Sequential", "Model", "Functional"):
        raise ValueError(f"model_from_config expects a model config "
                         f"({{'class_name': 'Sequential' | 'Model', ...}}), got "
                         f"{str(config)[:200]}")
    return deserialize(config, custom_objects)


def model_from_json(json_string: str, custom_objects: Optional[Dict[str, Any]] = None) -> Model:
    """The model of a ``model.to_json()`` string.

    Raises:
      ValueError: text that is too large, not JSON, or not a model config.
    """
    if len(json_string) > MAX_CONFIG_BYTES:
        raise ValueError(f"model_from_json: the config is over {MAX_CONFIG_BYTES} bytes")
    try:
        config = json.loads(json_string)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"model_from_json: not a JSON model config ({e})") from None
    return model_from_config(config, custom_objects)


def model_from_yaml(yaml_string: str, custom_objects: Optional[Dict[str, Any]] = None) -> Model:
    """The model of a YAML model config, read with PyYAML's safe loader (plain data
    only).

    Raises:
      ImportError: PyYAML is not installed.
      ValueError: text that is too large or not a model config.
    """
    try:
        import yaml  # optional: YAML configs only
    except ImportError:
        raise ImportError("model_from_yaml needs PyYAML (pip install pyyaml)") from None
    if len(yaml_string) > MAX_CONFIG_BYTES:
        raise ValueError(f"model_from_yaml: the config is over {MAX_CONFIG_BYTES} bytes")
    return model_from_config(yaml.safe_load(yaml_string), custom_objects)


def clone_model(model: Model, input_tensors: Any = None, clone_function: Any = None) -> Model:
    """A model of the same architecture with new layers and new weights (as Keras: the
    weights are not copied). ``clone_function`` maps each layer to its clone (default:
    the layer rebuilt from its config).

    Raises:
      ValueError: a subclassed model, or ``input_tensors`` (not supported).
    """
    if input_tensors is not None:
        raise ValueError("clone_model: input_tensors is not supported")
    if clone_function is None:
        def clone_function(layer: Layer) -> Layer:
            cfg = dict(layer.get_config())
            cfg.pop("name", None)  # the clone gets a fresh name, as in Keras
            return deserialize({"class_name": type(layer).__name__, "config": cfg})
    if isinstance(model, Sequential):
        clone = Sequential(name=model.name + "_clone")
        if model._input_layer is not None and (not model.layers or
                                               model.layers[0]._batch_input_shape is None):
            shape = model._input_layer._batch_input_shape
            clone.add(Input(batch_shape=tuple(shape))._keras_history[0])
        for layer in model.layers:
            clone.add(clone_function(layer))
        return clone
    if model.inputs is None or model._graph_nodes is None:
        raise ValueError("clone_model: only graph networks and Sequential models can be "
                         "cloned")
    new_inputs = [Input(batch_shape=tuple(t.shape.as_list()), dtype=t.dtype)
                  for t in model.inputs]
    clones: Dict[int, Layer] = {}
    values = {id(t): x for t, x in zip(model.inputs, new_inputs)}
    for node in model._graph_nodes:
        if isinstance(node.layer, InputLayer):
            continue
        layer = clones.get(id(node.layer))
        if layer is None:
            layer = clones[id(node.layer)] = clone_function(node.layer)
        args = [values[id(t)] for t in node.input_tensors]
        outs = to_list(layer(args if isinstance(node.inputs, list) else args[0],
                             **dict(node.arguments)))
        for old, new in zip(node.output_tensors, outs):
            values[id(old)] = new
    outs = [values[id(t)] for t in model.outputs or []]
    return Model(inputs=new_inputs if len(new_inputs) > 1 else new_inputs[0],
                 outputs=outs if len(outs) > 1 else outs[0], name=model.name + "_clone")


__all__ = ["deserialize", "serialize", "model_from_config", "model_from_json",
           "model_from_yaml", "clone_model"]
