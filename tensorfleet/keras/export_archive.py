"""``tf.keras.export.ExportArchive``: a SavedModel for serving built from Keras models.
``track`` the models whose variables it holds, ``add_endpoint`` a function of input
specs (anything with ``shape`` and ``dtype``: a TensorSpec-like object or a placeholder),
then ``write_out`` writes a SavedModel with one signature per endpoint (tag ``serve``)
that ``tf.saved_model.loader.load`` reads."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.keras import backend as K
from tensorfleet.keras.layers.base import Layer, to_list
from tensorfleet.ops import array_ops as A
from tensorfleet.saved_model.builder import SavedModelBuilder
from tensorfleet.saved_model.signature import predict_signature_def

SERVE = "serve"


class ExportArchive:
    """Collects endpoints and variables, then writes them out as a SavedModel."""

    def __init__(self) -> None:
        self._tracked: List[Layer] = []
        self._endpoints: Dict[str, tuple] = {}
        self._collections: Dict[str, List[Any]] = {}

    def track(self, resource: Any) -> None:
        """Records a Keras layer or model whose variables the archive holds.

        Raises:
          ValueError: something other than a Keras layer.
        """
        if not isinstance(resource, Layer):
            raise ValueError(f"ExportArchive.track: expected a Keras layer or model, got "
                             f"{type(resource).__name__}")
        self._tracked.append(resource)

    def add_endpoint(self, name: str, fn: Callable[..., Any],
                     input_signature: Optional[Sequence[Any]] = None) -> Any:
        """Adds signature ``name``: ``fn`` applied to placeholders made from
        ``input_signature``; returns its outputs.

        Raises:
          ValueError: a repeated name, no input signature, or no tracked resource.
        """
        if name in self._endpoints:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if not input_signature:
            raise ValueError("add_endpoint: give input_signature (the functions are traced "
                             "once, on placeholders of these shapes and dtypes)")
        if not self._tracked:
            raise ValueError("add_endpoint: track() the model whose variables the endpoint "
                             "uses first")
        g = get_default_graph()
        inputs = []
        for i, spec in enumerate(to_list(input_signature)):
            if not hasattr(spec, "shape") or not hasattr(spec, "dtype"):
                raise ValueError(f"add_endpoint: input_signature entries need shape and "
                                 f"dtype, got {spec!r}")
            shape = spec.shape.as_list() if hasattr(spec.shape, "as_list") else spec.shape
            spec_name = getattr(spec, "name", None)
            if isinstance(spec, Tensor):
                spec_name = None
            with g.name_scope(""):
                inputs.append(A.placeholder(_dtypes.as_dtype(spec.dtype), shape=shape,
                                            name=f"{name}_{spec_name or f'input_{i}'}"))
        outputs = fn(*inputs)
        self._endpoints[name] = (inputs, outputs)
        return outputs

    def add_variable_collection(self, name: str, variables: Sequence[Any]) -> None:
        """Stores ``variables`` in graph collection ``name`` of the archive."""
        self._collections[name] = list(variables)

    def write_out(self, filepath: str, options: Any = None) -> None:
        """Writes the SavedModel to the directory ``filepath`` (which must not exist).

        Raises:
          ValueError: no endpoint, or ``options`` (not supported).
        """
        if options is not None:
            raise ValueError("write_out: options are not supported")
        if not self._endpoints:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        sigs = {}
        for name, (inputs, outputs) in self._endpoints.items():
            if isinstance(outputs, dict):
                outs = dict(outputs)
            else:
                outs = {f"output_{i}": t for i, t in enumerate(to_list(outputs))}
            sigs[name] = predict_signature_def(
                inputs={f"input_{i}": t for i, t in enumerate(inputs)}, outputs=outs)
        g = get_default_graph()
        for cname, vs in self._collections.items():
            for v in vs:
                g.add_to_collection(cname, v)
        builder = SavedModelBuilder(str(filepath))
        builder.add_meta_graph_and_variables(K.get_session(), [SERVE], signature_def_map=sigs)
        builder.save()


__all__ = ["ExportArchive"]
