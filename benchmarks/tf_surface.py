"""The share of TensorFlow's ``tf.compat.v1`` names that tensorfleet has, per namespace.

    /work/venvs/tf221/bin/python benchmarks/tf_surface.py --generate   # under TensorFlow
    python benchmarks/tf_surface.py [--all] [--json]                   # under tensorfleet

``--generate`` walks TensorFlow's ``tf.compat.v1`` module by module (every public
attribute; a submodule is followed when it belongs to TensorFlow or Keras) and writes the
names it finds, namespace by namespace, to ``tests/fixtures/tf_compat_v1_names.json``:
names only, no code. A module reached under two names (``tf.flags`` is ``tf.app.flags``)
is walked once, under the first in sorted order. Without it, each name is looked up on ``import tensorfleet`` (the
same attribute chain, ``tf.nn.rnn_cell.LSTMCell`` -> ``tensorfleet.nn.rnn_cell.LSTMCell``)
and the share present is printed per namespace, in three groups: the TF1 surface, ``tf.keras``
on its own, and the namespaces set apart (TPU, TFLite, MLIR, XLA, ``raw_ops``, quantization,
autograph, ``tf.config``, ``tf.experimental``, estimator), whose names are counted only with
``--all``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import types
from typing import Any, Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES_FILE = os.path.join(ROOT, "tests", "fixtures", "tf_compat_v1_names.json")

# The namespaces counted apart: hardware- or converter-specific, or TensorFlow 2 machinery.
SET_APART = ("tpu", "lite", "mlir", "xla", "raw_ops", "quantization", "autograph", "config",
             "experimental", "estimator")
_MISSING = object()


def group_of(namespace: str) -> str:
    """``surface``, ``keras`` or ``apart`` for a namespace such as ``tf.nn.rnn_cell``."""
    parts = namespace.split(".")
    if len(parts) > 1 and parts[1] == "keras":
        return "keras"
    if len(parts) > 1 and parts[1] in SET_APART:
        return "apart"
    return "surface"


def generate() -> Dict[str, List[str]]:
    """Every public name of TensorFlow's ``tf.compat.v1``, by namespace (run under TF)."""
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.keras is tf-keras
    import tensorflow as real_tf
    out: Dict[str, List[str]] = {}
    seen = set()

    def belongs(v: types.ModuleType) -> bool:
        return getattr(v, "__name__", "").startswith(("tensorflow.", "tf_keras.", "keras."))

    def walk(mod: types.ModuleType, path: str) -> None:
        seen.add(id(mod))
        names = []
        for n in sorted(x for x in dir(mod) if not x.startswith("_")):
            try:
                v = getattr(mod, n)
            except Exception:  # an optional dependency TensorFlow lacks here
                continue
            if isinstance(v, types.ModuleType):
                # tf.compat.v1/v2 would start the walk again; tf_decorator is an import
                # that leaks into tf.app.flags, not an API module.
                if (path == "tf.compat" and n in ("v1", "v2")) or n == "tf_decorator":
                    continue
                if belongs(v) and id(v) not in seen:
                    walk(v, f"{path}.{n}")
            else:
                names.append(n)
        out[path] = names

    walk(real_tf.compat.v1, "tf")
    return {"tensorflow_version": real_tf.__version__,
            "namespaces": {k: out[k] for k in sorted(out)}}


def load_names(path: str = NAMES_FILE) -> Dict[str, List[str]]:
    with open(path) as f:
        data = json.load(f)
    return data["namespaces"]


def _resolve(namespace: str, name: str) -> bool:
    obj: Any = importlib.import_module("tensorfleet")
    for part in namespace.split(".")[1:] + [name]:
        try:
            obj = getattr(obj, part, _MISSING)
        except Exception:  # a lazily loaded attribute whose loading fails
            return False
        if obj is _MISSING:
            return False
    return True


def present_names(namespaces: Dict[str, List[str]]) -> Dict[str, List[str]]:
    """The names of each namespace that resolve on tensorfleet."""
    return {ns: [n for n in names if _resolve(ns, n)] for ns, names in namespaces.items()}


def shares(namespaces: Dict[str, List[str]],
           present: Dict[str, List[str]]) -> Dict[str, Dict[str, Tuple[int, int]]]:
    """``{group: {namespace: (present, total)}}`` plus a ``"(all)"`` row per group."""
    out: Dict[str, Dict[str, Tuple[int, int]]] = {}
    for ns, names in namespaces.items():
        row = out.setdefault(group_of(ns), {})
        row[ns] = (len(present.get(ns, [])), len(names))
    for rows in out.values():
        rows["(all)"] = (sum(p for p, _ in rows.values()), sum(t for _, t in rows.values()))
    return out


def report(namespaces: Dict[str, List[str]], present: Dict[str, List[str]],
           show_apart: bool = False) -> str:
    lines = []
    table = shares(namespaces, present)
    for group in ("surface", "keras", "apart"):
        if group not in table or (group == "apart" and not show_apart):
            continue
        p, t = table[group]["(all)"]
        lines.append(f"== {group}: {p}/{t} = {100.0 * p / max(t, 1):.1f}%")
        for ns in sorted(table[group]):
            if ns == "(all)":
                continue
            p, t = table[group][ns]
            if t:
                lines.append(f"  {ns:45s} {p:5d}/{t:<5d} {100.0 * p / t:5.1f}%")
    return "\n".join(lines)


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generate", action="store_true",
                    help="walk the installed TensorFlow and write the names file")
    ap.add_argument("--all", action="store_true", help="also report the namespaces set apart")
    ap.add_argument("--json", action="store_true", help="print the names present as JSON")
    ap.add_argument("--missing", metavar="NAMESPACE", help="list the names missing there")
    args = ap.parse_args(argv)
    if args.generate:
        data = generate()
        with open(NAMES_FILE, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
        return 0
    sys.path.insert(0, ROOT)
    namespaces = load_names()
    present = present_names(namespaces)
    if args.missing:
        got = set(present.get(args.missing, []))
        sys.stdout.write("\n".join(n for n in namespaces.get(args.missing, [])
                                   if n not in got) + "\n")
    elif args.json:
        json.dump(present, sys.stdout, indent=1, sort_keys=True)
    else:
        sys.stdout.write(report(namespaces, present, args.all) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
