"""Which tensors of a graph may be fed, and which ops fetched (``Graph.prevent_feeding``,
``Graph.prevent_fetching``); ``Session.run`` asks before it runs a step."""

from __future__ import annotations

from typing import Any, FrozenSet


class FeedFetchRules:
    """The feeding and fetching rules of a ``Graph`` (a base class of it).

    The class-level empty sets are immutable; marking gives the graph its own copy.
    A marked tensor or op stays marked.
    """

    _unfeedable: FrozenSet[Any] = frozenset()
    _unfetchable: FrozenSet[Any] = frozenset()

    def prevent_feeding(self, tensor: Any) -> None:
        """Marks ``tensor`` as one a ``Session.run`` may not feed."""
        self._unfeedable = self._unfeedable | {tensor}

    def is_feedable(self, tensor: Any) -> bool:
        """Whether ``tensor`` may be fed."""
        return tensor not in self._unfeedable

    def prevent_fetching(self, op: Any) -> None:
        """Marks ``op`` (and so its outputs) as ones a ``Session.run`` may not fetch."""
        self._unfetchable = self._unfetchable | {op}

    def is_fetchable(self, tensor_or_op: Any) -> bool:
        """Whether ``tensor_or_op`` (a Tensor or an Operation) may be fetched."""
        return getattr(tensor_or_op, "op", tensor_or_op) not in self._unfetchable


__all__ = ["FeedFetchRules"]
