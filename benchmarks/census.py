"""Census of TF 1.x programs: which ``tf.*`` names each uses that tensorfleet lacks.

Each program is parsed with ``ast`` (never run). Every attribute chain rooted at a
name bound to TensorFlow (``import tensorflow as tf``, ``import tensorflow.contrib.slim
as slim``, ``from tensorflow.contrib import rnn``, ``slim = tf.contrib.slim``) and
every ``from tensorflow... import name`` is resolved on ``import tensorfleet`` in
place of ``tensorflow``. Resolution walks modules and classes only: once a chain
reaches a function or an object (``tf.flags.FLAGS.batch_size``,
``tf.float32.as_numpy_dtype``), the rest of the chain is that object's business.

    python benchmarks/census.py [DIR_OR_FILES ...] [--json]

prints, per program, the names missing (up to and including the first part that
does not resolve), then the fraction of programs with every name present and the
missing names by how many programs need them. Default input:
``tests/data/tf1_census/``.
"""

from __future__ import annotations

import argparse
import ast
import collections
import glob
import importlib
import inspect
import json
import os
import sys
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(ROOT, "tests", "data", "tf1_census")
_MISSING = object()


def _dotted(node: ast.AST) -> Optional[List[str]]:
    """``a.b.c`` as ``["a", "b", "c"]``; None when the chain is not names only."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


class _Collector(ast.NodeVisitor):
    """Collects the TensorFlow names a module uses, as dotted ``tensorflow.*`` paths."""

    def __init__(self) -> None:
        self.aliases: Dict[str, str] = {}
        self.names: Set[str] = set()

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name == "tensorflow" or a.name.startswith("tensorflow."):
                self.names.add(a.name)
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    self.aliases[a.name.split(".")[0]] = "tensorflow"

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if node.level == 0 and (mod == "tensorflow" or mod.startswith("tensorflow.")):
            for a in node.names:
                full = f"{mod}.{a.name}"
                self.names.add(full)
                self.aliases[a.asname or a.name] = full

    def visit_Assign(self, node: ast.Assign) -> None:
        # ``slim = tf.contrib.slim`` makes ``slim`` an alias for the rest of the module.
        chain = _dotted(node.value)
        if chain and chain[0] in self.aliases and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            self.aliases[node.targets[0].id] = ".".join([self.aliases[chain[0]]] + chain[1:])
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _dotted(node)
        if chain is not None:
            if chain[0] in self.aliases:
                self.names.add(".".join([self.aliases[chain[0]]] + chain[1:]))
            return  # the inner attributes are prefixes of this chain
        self.generic_visit(node)


def used_names(source: str, filename: str = "<program>") -> Set[str]:
    """Every ``tensorflow.*`` dotted name ``source`` uses.

    Two passes, so aliases bound later in the file (inside functions) still count.
    """
    tree = ast.parse(source, filename)
    first = _Collector()
    first.visit(tree)
    second = _Collector()
    second.aliases = dict(first.aliases)
    second.visit(tree)
    return second.names | first.names


def _step(obj: Any, part: str) -> Any:
    value = getattr(obj, part, _MISSING)
    if value is _MISSING and inspect.ismodule(obj):
        try:
            value = importlib.import_module(f"{obj.__name__}.{part}")
        except ImportError:
            value = _MISSING
    return value


def resolve(name: str, root: Any) -> Optional[str]:
    """None when ``name`` (``tensorflow.a.b``) resolves on ``root``, else the prefix
    that does not (``tensorflow.a``), spelled with ``tf.`` for reading."""
    parts = name.split(".")[1:]
    obj = root
    for i, part in enumerate(parts):
        if not (inspect.ismodule(obj) or inspect.isclass(obj)):
            return None
        obj = _step(obj, part)
        if obj is _MISSING:
            return ".".join(["tf"] + parts[:i + 1])
    return None


def census(paths: Iterable[str], root: Any) -> List[Tuple[str, List[str]]]:
    """``(program, sorted missing names)`` for each program."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            names = used_names(f.read(), path)
        missing = sorted({m for m in (resolve(n, root) for n in names) if m is not None})
        out.append((os.path.basename(path), missing))
    return out


def _programs(args: List[str]) -> List[str]:
    paths: List[str] = []
    for a in args or [DEFAULT_DIR]:
        paths.extend(sorted(glob.glob(os.path.join(a, "*.py"))) if os.path.isdir(a) else [a])
    return paths


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="program files or directories of them")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)
    root = importlib.import_module("tensorfleet")
    results = census(_programs(args.paths), root)
    complete = sum(1 for _, m in results if not m)
    counts = collections.Counter(n for _, m in results for n in m)
    if args.json:
        print(json.dumps({"programs": len(results), "complete": complete,
                          "missing": dict(results), "counts": dict(counts.most_common())},
                         indent=1))
        return 0
    for name, missing in results:
        print(f"{name}: " + ("complete" if not missing else "missing " + ", ".join(missing)))
    pct = 100.0 * complete / max(len(results), 1)
    print(f"\n{complete}/{len(results)} programs complete ({pct:.0f}%)")
    if counts:
        print("missing names, by number of programs:")
        for n, c in counts.most_common():
            print(f"  {c:3d}  {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
