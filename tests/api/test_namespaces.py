"""The public namespaces are declared in ``tensorfleet/api/``, one module each: every declared
name resolves, nothing is declared twice, the declaration is the whole namespace, and the
namespace modules hold declarations only."""

import ast
import importlib
import pkgutil
import types
from pathlib import Path

import pytest

import tensorfleet as tf
import tensorfleet.api as api

API_DIR = Path(api.__file__).parent
NAMESPACES = sorted(m.name for m in pkgutil.iter_modules([str(API_DIR)]))


def _bound_names(tree: ast.Module):
    """Every name an import statement of the module binds, in order (repeats kept)."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                assert a.name != "*", "a namespace lists its names; no star imports"
                out.append(a.asname or a.name.split(".")[0])
    return out


@pytest.mark.parametrize("name", NAMESPACES)
def test_every_declared_name_resolves_once(name):
    mod = importlib.import_module(f"tensorfleet.api.{name}")
    tree = ast.parse((API_DIR / f"{name}.py").read_text())
    bound = [n for n in _bound_names(tree) if not n.startswith("_")]
    twice = sorted({n for n in bound if bound.count(n) > 1})
    assert not twice, f"api/{name}.py declares {twice} more than once"
    declared = list(mod.__all__)
    assert len(declared) == len(set(declared)), f"api/{name}.py: __all__ repeats a name"
    assert sorted(declared) == sorted(bound), \
        f"api/{name}.py: __all__ and the imports differ: {set(declared) ^ set(bound)}"
    for n in declared:
        assert hasattr(mod, n), f"tf API {name}.{n} does not resolve"


@pytest.mark.parametrize("name", NAMESPACES)
def test_a_namespace_module_holds_declarations_only(name):
    tree = ast.parse((API_DIR / f"{name}.py").read_text())
    for node in tree.body[1:]:  # after the docstring
        ok = isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]) or (
            # a lazily loaded attribute (the summary protos load tensorboardX on first use)
            isinstance(node, ast.FunctionDef) and node.name == "__getattr__")
        assert ok, f"api/{name}.py line {node.lineno}: implementation belongs in its package"


def test_the_top_level_exports_exactly_api_tf():
    from tensorfleet.api import tf as root
    for n in root.__all__:
        assert getattr(tf, n) is getattr(root, n), n
    undeclared = {n for n in dir(tf) if not n.startswith("_") and n not in root.__all__
                  # the package's own subpackages (tensorfleet.ops, .training ...)
                  and not isinstance(getattr(tf, n), types.ModuleType)}
    # __init__ adds the version string and nothing else.
    assert undeclared == {"VERSION"}, undeclared


# The namespaces below the top level, by their module in api/: the attribute path from tf.
NESTED = {"io_gfile": ("io", "gfile"), "distribute_experimental": ("distribute", "experimental"),
          "distribute_cluster_resolver": ("distribute", "cluster_resolver"),
          "train_queue_runner": ("train", "queue_runner"), "math_special": ("math", "special"),
          "dtypes_experimental": ("dtypes", "experimental"),
          "linalg_experimental": ("linalg", "experimental"),
          "random_experimental": ("random", "experimental"),
          "nn_experimental": ("nn", "experimental"),
          "test_experimental": ("test", "experimental"),
          "train_experimental": ("train", "experimental"),
          "mixed_precision_experimental": ("mixed_precision", "experimental"),
          "lookup_experimental": ("lookup", "experimental"),
          "layers_experimental": ("layers", "experimental"),
          "types_experimental": ("types", "experimental")}
# tf.keras.<parent> and the modules under it (keras_applications_resnet is
# tf.keras.applications.resnet, keras_datasets_boston_housing tf.keras.datasets.boston_housing)
KERAS_PARENTS = ("applications", "datasets", "preprocessing", "utils")


def _keras_path(name):
    rest = name[len("keras_"):]
    for parent in KERAS_PARENTS:
        if rest == parent or rest.startswith(parent + "_"):
            return ("keras", parent, *filter(None, [rest[len(parent) + 1:]]))
    raise AssertionError(f"api/{name}.py: tf.keras.{rest} has no known parent namespace")


NESTED.update({n: _keras_path(n) for n in NAMESPACES if n.startswith("keras_")})


@pytest.mark.parametrize("name", [n for n in NAMESPACES if n not in ("tf", *NESTED)])
def test_a_namespace_is_reachable_by_attribute_and_by_import(name):
    mod = importlib.import_module(f"tensorfleet.api.{name}")
    assert getattr(tf, name) is mod
    assert importlib.import_module(f"tensorfleet.{name}") is mod


@pytest.mark.parametrize("name", sorted(NESTED))
def test_a_nested_namespace_is_its_parents_attribute(name):
    value = tf
    for attr in NESTED[name]:
        value = getattr(value, attr)
    assert value is importlib.import_module(f"tensorfleet.api.{name}")
