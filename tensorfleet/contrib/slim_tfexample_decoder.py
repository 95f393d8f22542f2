"""``slim.tfexample_decoder``: decodes a serialized ``tf.train.Example`` into named items,
each made by an item handler from one or more parsed features."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops, image_ops, math_ops, sparse_ops
from tensorfleet.framework.graph import control_dependencies
from tensorfleet.ops.control_flow_ops import Assert, cond
from tensorfleet.ops.parsing_ops import parse_single_example
from tensorfleet.ops.string_ops import decode_raw


class ItemHandler:
    """Makes one item from the parsed features named ``keys``."""

    def __init__(self, keys: Any):
        self._keys = [keys] if isinstance(keys, str) else list(keys)

    @property
    def keys(self) -> List[str]:
        return self._keys

    def tensors_to_item(self, keys_to_tensors: Dict[str, Any]) -> Any:
        """The item, from the parsed features by key."""
        raise TypeError(f"{type(self).__name__} must define tensors_to_item")


class ItemHandlerCallback(ItemHandler):
    """An item computed by ``func(keys_to_tensors)``."""

    def __init__(self, keys: Any, func: Callable[[Dict[str, Any]], Any]):
        super().__init__(keys)
        if not callable(func):
            raise TypeError(f"ItemHandlerCallback: func must be callable, got {func!r}")
        self._func = func

    def tensors_to_item(self, keys_to_tensors: Dict[str, Any]) -> Any:
        return self._func(keys_to_tensors)


class Tensor(ItemHandler):
    """The feature ``tensor_key`` as it is (a sparse one made dense with
    ``default_value``), reshaped to ``shape`` or to the values of ``shape_keys``."""

    def __init__(self, tensor_key: str, shape_keys: Any = None, shape: Any = None,
                 default_value: Any = 0):
        if shape_keys is not None and shape is not None:
            raise ValueError("slim Tensor handler: give shape_keys or shape, not both")
        shape_keys = [shape_keys] if isinstance(shape_keys, str) else list(shape_keys or [])
        super().__init__([tensor_key] + shape_keys)
        self._tensor_key, self._shape_keys = tensor_key, shape_keys
        self._shape, self._default_value = shape, default_value

    def tensors_to_item(self, keys_to_tensors: Dict[str, Any]) -> Any:
        t = keys_to_tensors[self._tensor_key]
        if isinstance(t, SparseTensor):
            t = sparse_ops.sparse_tensor_to_dense(t, default_value=self._default_value)
        if self._shape_keys:
            dims = [array_ops.reshape(_dense(keys_to_tensors[k]), [-1])
                    for k in self._shape_keys]
            return array_ops.reshape(t, array_ops.concat(dims, 0))
        if self._shape is not None:
            return array_ops.reshape(t, self._shape)
        return t


def _dense(t: Any) -> Any:
    return sparse_ops.sparse_tensor_to_dense(t) if isinstance(t, SparseTensor) else t


class Image(ItemHandler):
    """An image decoded from the bytes of ``image_key`` by the format named in
    ``format_key`` (``jpeg``/``jpg``, ``png``, ``gif``, ``bmp``: by their content; ``raw``:
    ``dtype`` values reshaped to ``shape``)."""

    def __init__(self, image_key: Optional[str] = None, format_key: Optional[str] = None,
                 shape: Optional[Sequence[int]] = None, channels: int = 3,
                 dtype: Any = _dtypes.uint8, repeated: bool = False, dct_method: str = ""):
        if repeated:
            raise ValueError("slim Image handler: repeated=True is not supported")
        if dct_method not in ("", "INTEGER_ACCURATE"):
            raise ValueError(f"slim Image handler: dct_method {dct_method!r} is not supported")
        self._image_key = image_key or "image/encoded"
        self._format_key = format_key or "image/format"
        super().__init__([self._image_key, self._format_key])
        self._shape, self._channels = shape, channels
        self._dtype = _dtypes.as_dtype(dtype)

    def tensors_to_item(self, keys_to_tensors: Dict[str, Any]) -> Any:
        data, fmt = keys_to_tensors[self._image_key], keys_to_tensors[self._format_key]

        def raw() -> Any:
            img = decode_raw(data, self._dtype)
            return array_ops.reshape(img, self._shape) if self._shape is not None else img

        def encoded() -> Any:
            img = image_ops.decode_image(data, channels=self._channels)
            return array_ops.reshape(img, self._shape) if self._shape is not None else img
        is_raw = math_ops.logical_or(math_ops.equal(fmt, "raw"), math_ops.equal(fmt, "RAW"))
        if self._shape is None:
            # Raw bytes have no shape of their own: a raw record needs the handler's shape.
            check = Assert(math_ops.logical_not(is_raw),
                           ["slim Image handler: a raw-format image needs the shape argument"])
            with control_dependencies([check]):
                return array_ops.identity(encoded())
        return cond(is_raw, raw, encoded)


class TFExampleDecoder:
    """Parses with ``keys_to_features`` (as ``tf.parse_single_example``) and makes each
    item with its handler."""

    def __init__(self, keys_to_features: Dict[str, Any], items_to_handlers: Dict[str, Any]):
        for item, handler in items_to_handlers.items():
            if not isinstance(handler, ItemHandler):
                raise TypeError(f"TFExampleDecoder: the handler of {item!r} must be an "
                                f"ItemHandler, got {handler!r}")
            missing = [k for k in handler.keys if k not in keys_to_features]
            if missing:
                raise ValueError(f"TFExampleDecoder: item {item!r} needs features {missing} "
                                 f"that keys_to_features lacks")
        self._keys_to_features = dict(keys_to_features)
        self._items_to_handlers = dict(items_to_handlers)

    def list_items(self) -> List[str]:
        """The names of the items this decoder makes."""
        return list(self._items_to_handlers)

    def decode(self, serialized_example: Any, items: Optional[Sequence[str]] = None
               ) -> List[Any]:
        """The tensors of ``items`` (default: all) for one serialized Example."""
        items = self.list_items() if items is None else list(items)
        unknown = [i for i in items if i not in self._items_to_handlers]
        if unknown:
            raise ValueError(f"TFExampleDecoder: unknown items {unknown}; known: "
                             f"{self.list_items()}")
        example = parse_single_example(serialized_example, self._keys_to_features)
        out = []
        for item in items:
            handler = self._items_to_handlers[item]
            out.append(handler.tensors_to_item({k: example[k] for k in handler.keys}))
        return out


__all__ = ["ItemHandler", "ItemHandlerCallback", "Tensor", "Image", "TFExampleDecoder"]
