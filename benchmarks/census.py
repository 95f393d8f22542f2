"""Census of TF 1.x programs: which ``tf.*`` names each uses that tensorfleet lacks.

Each program is parsed with ``ast`` (never run). Every attribute chain rooted at a
name bound to TensorFlow (``import tensorflow as tf``, ``import tensorflow.contrib.slim
as slim``, ``from tensorflow.contrib import rnn``, ``slim = tf.contrib.slim``) and
every ``from tensorflow... import name`` is resolved on ``import tensorfleet`` in
place of ``tensorflow``. Resolution walks modules and classes only: once a chain
reaches a function or an object (``tf.flags.FLAGS.batch_size``,
``tf.float32.as_numpy_dtype``), the rest of the chain is that object's business.

    python benchmarks/census.py [DIR_OR_FILES ...] [--json]
    python benchmarks/census.py --names tests/fixtures/tf1_census_real.json [--json]
    python benchmarks/census.py --collect FILE ... > names.json

prints, per program, the names missing (up to and including the first part that
does not resolve), then the fraction of programs with every name present (and, for
a names file whose programs record a ``family``, the fraction per family, and for
one that records ``absent_in_tf1`` names, the fraction when names TensorFlow 1.x
itself lacks are not counted) and the missing names by how many programs need them. Default input:
``tests/fixtures/tf1_census/``.

``--names`` reads programs as names already collected (a JSON file whose
``programs`` list holds ``repository``, ``path`` and ``names`` per program), so a
census of public programs keeps only derived data, not their code. ``--collect``
prints that list for program files, ready to be completed with where each came from.
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
import re
import sys
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(ROOT, "tests", "fixtures", "tf1_census")
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


_STRING = re.compile(r'("""|\'\'\')(?:.|\n)*?\1|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_COMMENT = re.compile(r"#[^\n]*")
_IMPORT = re.compile(r"^\s*import\s+(.+)$", re.M)
_FROM = re.compile(r"^\s*from\s+(tensorflow[\w.]*)\s+import\s+(\([^)]*\)|[^\n]+)", re.M)
_ALIAS_ASSIGN = re.compile(r"^\s*(\w+)\s*=\s*([A-Za-z_][\w.]*)\s*$", re.M)
_CHAIN = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+)")


def _lexical_names(source: str) -> Set[str]:
    """The names of :func:`used_names`, found line by line without parsing.

    For sources ``ast`` cannot read: Python 2 programs (``print x``) and excerpts
    that keep only the lines mentioning TensorFlow. Strings and comments are
    dropped first so that text inside them does not count.
    """
    text = _COMMENT.sub("", _STRING.sub('""', source))
    aliases: Dict[str, str] = {}
    names: Set[str] = set()
    for m in _IMPORT.finditer(text):
        for part in m.group(1).split(","):
            words = part.split()
            if words and (words[0] == "tensorflow" or words[0].startswith("tensorflow.")):
                names.add(words[0])
                if len(words) == 3 and words[1] == "as":
                    aliases[words[2]] = words[0]
                else:
                    aliases["tensorflow"] = "tensorflow"
    for m in _FROM.finditer(text):
        for part in m.group(2).strip("()").replace("\\", " ").split(","):
            words = part.split()
            if words:
                full = f"{m.group(1)}.{words[0]}"
                names.add(full)
                aliases[words[2] if len(words) == 3 and words[1] == "as" else words[0]] = full
    for _ in range(2):  # an alias may be bound through another alias
        for m in _ALIAS_ASSIGN.finditer(text):
            chain = m.group(2).split(".")
            if chain[0] in aliases:
                aliases[m.group(1)] = ".".join([aliases[chain[0]]] + chain[1:])
    for m in _CHAIN.finditer(text):
        chain = [p.strip() for p in m.group(1).split(".")]
        if chain[0] in aliases:
            names.add(".".join([aliases[chain[0]]] + chain[1:]))
    return names


def used_names(source: str, filename: str = "<program>") -> Set[str]:
    """Every ``tensorflow.*`` dotted name ``source`` uses.

    Two passes, so aliases bound later in the file (inside functions) still count.
    A source that does not parse as Python 3 is read line by line instead
    (:func:`_lexical_names`).
    """
    try:
        tree = ast.parse(source, filename)
    except SyntaxError:
        return _lexical_names(source)
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


def missing_names(names: Iterable[str], root: Any) -> List[str]:
    """The sorted unresolved prefixes of ``names`` (``tensorflow.*`` dotted names)."""
    return sorted({m for m in (resolve(n, root) for n in names) if m is not None})


def census(paths: Iterable[str], root: Any) -> List[Tuple[str, List[str]]]:
    """``(program, sorted missing names)`` for each program."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            names = used_names(f.read(), path)
        out.append((os.path.basename(path), missing_names(names, root)))
    return out


def load_names(path: str) -> List[Tuple[str, List[str]]]:
    """``(label, names)`` per program of a names file written for ``--names``.

    The label is ``repository:path``; a program without a repository is labelled by
    its path alone.
    """
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    programs = data.get("programs") if isinstance(data, dict) else None
    if not isinstance(programs, list):
        raise ValueError(f"{path}: expected an object with a 'programs' list")
    out = []
    for i, entry in enumerate(programs):
        if not isinstance(entry, dict) or "path" not in entry \
                or not isinstance(entry.get("names"), list):
            raise ValueError(f"{path}: programs[{i}] needs 'path' and a 'names' list")
        bad = [n for n in entry["names"] if not isinstance(n, str)
               or not (n == "tensorflow" or n.startswith("tensorflow."))]
        if bad:
            raise ValueError(f"{path}: programs[{i}] has names outside tensorflow.*: {bad[:3]}")
        repo = entry.get("repository")
        out.append((f"{repo}:{entry['path']}" if repo else entry["path"], entry["names"]))
    return out


def families(path: str) -> Dict[str, str]:
    """``label -> family`` for the programs of a names file that record a family."""
    with open(path, encoding="utf-8") as f:
        programs = json.load(f)["programs"]
    return {(f"{p['repository']}:{p['path']}" if p.get("repository") else p["path"]):
            p["family"] for p in programs if p.get("family")}


def by_family(results: List[Tuple[str, List[str]]],
              family_of: Dict[str, str]) -> Dict[str, List[int]]:
    """``family -> [complete, total]`` over the programs that have a family."""
    out: Dict[str, List[int]] = {}
    for label, missing in results:
        if label in family_of:
            counts = out.setdefault(family_of[label], [0, 0])
            counts[0] += not missing
            counts[1] += 1
    return dict(sorted(out.items()))


def absent_in_tf1(path: str) -> Dict[str, List[str]]:
    """``label -> names`` that TensorFlow 1.x itself lacks (``absent_in_tf1`` of a
    names file: names removed before 1.0, typos), spelled ``tf.a.b``."""
    with open(path, encoding="utf-8") as f:
        programs = json.load(f)["programs"]
    out = {}
    for p in programs:
        if p.get("absent_in_tf1"):
            label = f"{p['repository']}:{p['path']}" if p.get("repository") else p["path"]
            out[label] = ["tf" + n[len("tensorflow"):] for n in p["absent_in_tf1"]]
    return out


def complete_in_tf1_terms(results: List[Tuple[str, List[str]]],
                          absent: Dict[str, List[str]]) -> int:
    """Programs whose every missing name is one TensorFlow 1.x lacks as well."""
    def excused(label: str, name: str) -> bool:
        return any(name == a or name.startswith(a + ".") for a in absent.get(label, []))
    return sum(1 for label, missing in results if all(excused(label, m) for m in missing))


def census_names(programs: Iterable[Tuple[str, List[str]]],
                 root: Any) -> List[Tuple[str, List[str]]]:
    """``(label, sorted missing names)`` for programs given as collected names."""
    return [(label, missing_names(names, root)) for label, names in programs]


def collect(paths: Iterable[str]) -> List[Dict[str, Any]]:
    """``{"path", "names"}`` per program file: the names ``--names`` reads."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            out.append({"path": path, "names": sorted(used_names(f.read(), path))})
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
    parser.add_argument("--names", metavar="FILE",
                        help="programs as collected names (JSON) instead of program files")
    parser.add_argument("--collect", action="store_true",
                        help="print the names each program file uses, as JSON, and stop")
    args = parser.parse_args(argv)
    if args.names and (args.paths or args.collect):
        parser.error("--names takes no program files and does not combine with --collect")
    if args.collect:
        print(json.dumps(collect(_programs(args.paths)), indent=1))
        return 0
    sys.path.insert(0, ROOT)
    root = importlib.import_module("tensorfleet")
    if args.names:
        results = census_names(load_names(args.names), root)
    else:
        results = census(_programs(args.paths), root)
    complete = sum(1 for _, m in results if not m)
    counts = collections.Counter(n for _, m in results for n in m)
    per_family = by_family(results, families(args.names)) if args.names else {}
    absent = absent_in_tf1(args.names) if args.names else {}
    complete_tf1 = complete_in_tf1_terms(results, absent) if absent else complete
    if args.json:
        report = {"programs": len(results), "complete": complete, "missing": dict(results),
                  "counts": dict(counts.most_common())}
        if per_family:
            report["families"] = per_family
        if absent:
            report["complete_in_tf1_terms"] = complete_tf1
        print(json.dumps(report, indent=1))
        return 0
    for name, missing in results:
        print(f"{name}: " + ("complete" if not missing else "missing " + ", ".join(missing)))
    pct = 100.0 * complete / max(len(results), 1)
    print(f"\n{complete}/{len(results)} programs complete ({pct:.0f}%)")
    if absent:
        print(f"{complete_tf1}/{len(results)} when names that TensorFlow 1.x itself lacks "
              "(absent_in_tf1) are not held against tensorfleet")
    if per_family:
        print("by family: " + ", ".join(f"{fam} {c}/{t}" for fam, (c, t) in per_family.items()))
    if counts:
        print("missing names, by number of programs:")
        for n, c in counts.most_common():
            print(f"  {c:3d}  {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
