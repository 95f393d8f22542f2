"""TensorFlow's op set, for tests that check a graph written for TensorFlow without it.

``tests/fixtures/tf_files/tf_op_defs.json`` lists every op type TensorFlow 2.21
registers with its attrs (1 when the attr has a default); ``make_fixtures.py op-defs``
regenerates it.
"""

import json
import os
from functools import lru_cache
from typing import Any, Dict, Set

OP_DEFS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "fixtures", "tf_files", "tf_op_defs.json")


@lru_cache(maxsize=1)
def tensorflow_op_defs() -> Dict[str, Dict[str, int]]:
    with open(OP_DEFS) as f:
        return json.load(f)["ops"]


def assert_tensorflow_graph(graph_def: Any) -> Set[str]:
    """Every node of ``graph_def`` (TensorFlow's message) is an op TensorFlow has, with
    only attrs its op definition declares and every attr it requires; returns the op
    types."""
    defs = tensorflow_op_defs()
    problems = []
    for node in graph_def.node:
        if node.op not in defs:
            problems.append(f"{node.name}: TensorFlow has no op {node.op}")
            continue
        declared = defs[node.op]
        extra = sorted(k for k in node.attr if k not in declared and not k.startswith("_"))
        missing = sorted(k for k, has_default in declared.items()
                         if not has_default and k not in node.attr)
        if extra or missing:
            problems.append(f"{node.name} ({node.op}): attrs {extra} not declared, "
                            f"{missing} required but absent")
    assert not problems, "\n".join(problems[:20])
    return {n.op for n in graph_def.node}
