"""``slim.utils`` (``tf.contrib.layers.utils``): layer outputs gathered by alias.

Layers given ``outputs_collections`` tag their output with an ``alias`` (their scope
name); these helpers turn such a collection into the ``end_points`` dict model zoos
return.
"""

from __future__ import annotations

import collections
from typing import Any, Dict, Optional

from tensorfleet.framework.graph import add_to_collections, get_collection, get_collection_ref


def _alias_of(tensor: Any) -> str:
    aliases = getattr(tensor, "aliases", None)
    if aliases:
        return aliases[-1]
    alias = getattr(tensor, "alias", None)
    return alias if alias is not None else tensor.name


def append_tensor_alias(tensor: Any, alias: str) -> Any:
    """Tags ``tensor`` with ``alias`` (a trailing ``/`` dropped); returns it."""
    alias = alias[:-1] if alias.endswith("/") else alias
    existing = list(getattr(tensor, "aliases", None) or [])
    existing.append(alias)
    tensor.aliases = existing
    tensor.alias = alias
    return tensor


def collect_named_outputs(collections_: Any, alias: str, outputs: Any) -> Any:
    """Tags ``outputs`` with ``alias`` and adds it to each collection in ``collections_``."""
    if collections_:
        append_tensor_alias(outputs, alias)
        add_to_collections(collections_, outputs)
    return outputs


def convert_collection_to_dict(collection: str,
                               clear_collection: bool = False) -> Dict[str, Any]:
    """``{alias: tensor}`` for the tensors in ``collection``, in the order added.

    With ``clear_collection`` the collection is emptied afterwards.
    """
    from_collection = get_collection(collection)
    out: Dict[str, Any] = collections.OrderedDict(
        (_alias_of(t), t) for t in from_collection)
    if clear_collection:
        del get_collection_ref(collection)[:]
    return out


def last_dimension(shape: Any, min_rank: int = 1) -> int:
    """The static size of the last dimension of ``shape``.

    Raises:
      ValueError: for an unknown rank, a rank below ``min_rank`` or an unknown last
        dimension.
    """
    dims = getattr(shape, "dims", shape)
    if dims is None:
        raise ValueError("last_dimension: the shape's rank is unknown")
    dims = list(dims)
    if len(dims) < min_rank:
        raise ValueError(f"last_dimension: rank {len(dims)} is below {min_rank}")
    last: Optional[Any] = dims[-1]
    value = getattr(last, "value", last)
    if value is None:
        raise ValueError("last_dimension: the last dimension is unknown")
    return int(value)


__all__ = ["append_tensor_alias", "collect_named_outputs", "convert_collection_to_dict",
           "last_dimension"]
