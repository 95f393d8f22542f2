"""``Session.partial_run_setup`` / ``partial_run``: one step run in pieces, feeding some
inputs and fetching some outputs at a time, every op running at most once.

Each piece is an ordinary step. Every tensor a piece computes (except the outputs of the
ops that create resources -- variables, queues, tables -- which are looked up again
harmlessly) is kept and fed to the later pieces, so the ops that already ran are pruned
from them: an ``assign_add`` a piece ran is not run again by a later one.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Dict, Sequence

from tensorfleet import errors
from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.runtime.executor import prune
from tensorfleet.runtime.fetch_structure import FetchStructure

_HANDLES = itertools.count(1)


class PartialRun:
    """The state of one partial run: what it may feed and fetch, and what it has computed."""

    def __init__(self, graph: Any, fetches: Sequence[Any], feeds: Sequence[Any]):
        self.graph = graph
        self.handle = f"partial_run_{next(_HANDLES)}"
        self.allowed_fetches = {self._element(f, True) for f in fetches}
        self.allowed_feeds = {self._element(f, False) for f in feeds}
        self.values: Dict[Tensor, Any] = {}   # everything computed or fed so far
        self.fed: set = set()
        self.fetched: set = set()
        self.lock = threading.Lock()

    def _element(self, f: Any, allow_operation: bool) -> Any:
        try:
            return self.graph.as_graph_element(f, allow_operation=allow_operation)
        except (KeyError, ValueError, TypeError) as e:
            raise TypeError(f"partial_run_setup: cannot interpret {f!r} as a graph element: "
                            f"{e}") from None

    def run(self, session: Any, fetches: Any, feed_dict: Dict[Any, Any]) -> Any:
        """Feeds ``feed_dict``, computes ``fetches`` (a structure as for ``run``)."""
        with self.lock:
            new_feeds = {}
            for k, v in (feed_dict or {}).items():
                t = self._element(k, False)
                if t not in self.allowed_feeds:
                    raise errors.InvalidArgumentError(
                        None, None, f"Input to feed {t.name} was not specified in "
                        f"partial_run_setup.")
                if t in self.fed:
                    raise errors.InvalidArgumentError(
                        None, None, f"The feed {t.name} has already been fed.")
                new_feeds[t] = v
            st = FetchStructure(self.graph, fetches)
            for el in list(st.tensors) + list(st.targets):
                if el not in self.allowed_fetches:
                    raise errors.InvalidArgumentError(
                        None, None, f"Fetch {el.name} was not specified in partial_run_setup.")
                if el in self.fetched:
                    raise errors.InvalidArgumentError(
                        None, None, f"The fetch {el.name} has already been fetched.")
            known = dict(self.values)
            known.update({t: None for t in new_feeds})
            pending = [t for t in st.tensors if t not in self.values]
            ops = prune(pending, [op for op in st.targets], set(known))
            missing = [op.name for op in ops if op.type == "Placeholder"]
            if missing:
                raise errors.InvalidArgumentError(
                    None, None, f"You must feed a value for placeholder tensor "
                    f"'{sorted(set(missing))[0]}' before fetching {[t.name for t in pending]}")
            keep = [t for op in ops if not _creates_resource(op) for t in op.outputs
                    if self.graph.is_feedable(t)]
            feed = dict(self.values)
            feed.update(new_feeds)
            out = session.run({"keep": keep, "targets": list(st.targets)}, feed_dict=feed)
            self.values.update(zip(keep, out["keep"]))
            for t, v in new_feeds.items():
                self.values[t] = v
            self.fed.update(new_feeds)
            self.fetched.update(st.tensors)
            self.fetched.update(st.targets)
            return st.build([self.values[t] for t in st.tensors])


def _creates_resource(op: Operation) -> bool:
    # Variables, queues, tables and iterators are stateful ops without inputs; their
    # outputs are handles, looked up again by every step, and may not be replaced by a feed.
    return op.op_def.stateful and not op.inputs


__all__ = ["PartialRun"]
