"""``tf.test.assert_equal_graph_def``: two GraphDefs hold the same nodes (any order), each
with the same op, inputs, device and attrs; the error names every difference."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List

from tensorfleet.framework.graph_def import GraphDef

# The per-save temporary shard names of checkpoint V2 constants differ from save to save.
_TEMP_PART = re.compile(r"_temp_[0-9a-f]{32}/part")


def _nodes(graph_def: Any, what: str, checkpoint_v2: bool,
           hash_table_shared_name: bool) -> Dict[str, Dict[str, Any]]:
    if not isinstance(graph_def, GraphDef):
        raise TypeError(f"assert_equal_graph_def: {what} must be a GraphDef, got "
                        f"{type(graph_def).__name__}")
    out = {}
    for node in graph_def.node:
        plain = json.loads(json.dumps(dict(node), default=str))
        inputs = plain.get("input", [])
        # Control inputs are a set: their order carries no meaning.
        plain["input"] = [i for i in inputs if not i.startswith("^")] + sorted(
            i for i in inputs if i.startswith("^"))
        attrs = plain.get("attr") or {}
        if hash_table_shared_name and "HashTable" in plain.get("op", ""):
            attrs.pop("shared_name", None)
        if checkpoint_v2 and plain.get("op") == "Const" and \
                _TEMP_PART.search(json.dumps(attrs.get("value"))):
            attrs.pop("value")
        plain["attr"] = attrs
        out[plain["name"]] = plain
    return out


def assert_equal_graph_def(actual: Any, expected: Any, checkpoint_v2: bool = False,
                           hash_table_shared_name: bool = False) -> None:
    """Raises AssertionError naming each node only one graph has and each node whose op,
    inputs, device or attrs differ. ``checkpoint_v2`` ignores the temporary shard-name
    constants of V2 checkpoints; ``hash_table_shared_name`` ignores hash tables'
    ``shared_name``.

    Raises:
      TypeError: ``actual`` or ``expected`` is not a GraphDef.
    """
    a = _nodes(actual, "actual", checkpoint_v2, hash_table_shared_name)
    e = _nodes(expected, "expected", checkpoint_v2, hash_table_shared_name)
    problems: List[str] = []
    for name in sorted(set(e) - set(a)):
        problems.append(f"node {name!r} is expected but missing from actual")
    for name in sorted(set(a) - set(e)):
        problems.append(f"node {name!r} is in actual but not expected")
    for name in sorted(set(a) & set(e)):
        for field in sorted(set(a[name]) | set(e[name])):
            if a[name].get(field) != e[name].get(field):
                problems.append(f"node {name!r} differs in {field}: actual "
                                f"{a[name].get(field)!r}, expected {e[name].get(field)!r}")
    if problems:
        raise AssertionError("GraphDefs differ:\n" + "\n".join(problems))


__all__ = ["assert_equal_graph_def"]
