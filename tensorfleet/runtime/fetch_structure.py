"""The structure of a ``Session.run`` fetch: nested lists, tuples, dicts and namedtuples of
tensors and ops, flattened to the unique graph elements a step computes and rebuilt from
their values. ``Session.run`` and ``partial_run`` share it."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from tensorfleet.framework.graph import Graph, Operation, Tensor


class FetchStructure:
    """Flattens nested fetches into unique tensors/ops and rebuilds the result."""

    def __init__(self, graph: Graph, fetches: Any):
        self.tensors: List[Tensor] = []
        self.targets: List[Operation] = []
        self._tindex: Dict[Tensor, int] = {}
        self._graph = graph
        self.spec = self._flatten(fetches)

    def _flatten(self, f: Any) -> Any:
        if isinstance(f, dict):
            return ("dict", type(f), [(k, self._flatten(v)) for k, v in f.items()])
        if isinstance(f, tuple) and hasattr(f, "_fields"):
            return ("namedtuple", type(f), [self._flatten(v) for v in f])
        if isinstance(f, (list, tuple)):
            return ("seq", type(f), [self._flatten(v) for v in f])
        comps = getattr(f, "_fetch_components", None)
        if comps is not None:
            parts, rebuild = comps()
            return ("composite", rebuild, [self._flatten(p) for p in parts])
        if f is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        try:
            el = self._graph.as_graph_element(f)
        except (KeyError, ValueError) as e:
            raise type(e)(f"Fetch argument {f!r} cannot be interpreted as a Tensor. ({e})") from None
        except TypeError as e:
            raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}, must be a string "
                            f"or Tensor. ({e})") from None
        if isinstance(el, Operation):
            if el not in self.targets:
                self.targets.append(el)
            return ("op",)
        if el not in self._tindex:
            self._tindex[el] = len(self.tensors)
            self.tensors.append(el)
        return ("t", self._tindex[el])

    def build(self, values: Sequence[Any]) -> Any:
        return self._build(self.spec, values)

    def _build(self, spec: Any, values: Sequence[Any]) -> Any:
        kind = spec[0]
        if kind == "t":
            return values[spec[1]]
        if kind == "op":
            return None
        if kind == "dict":
            out = spec[1]()
            for k, s in spec[2]:
                out[k] = self._build(s, values)
            return out
        if kind == "namedtuple":
            return spec[1](*[self._build(s, values) for s in spec[2]])
        if kind == "composite":
            return spec[1](*[self._build(s, values) for s in spec[2]])
        items = [self._build(s, values) for s in spec[2]]
        return items if spec[1] is list else spec[1](items)
