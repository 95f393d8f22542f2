"""``tf.nest`` (``tf.contrib.framework.nest``): nested structures of lists, tuples,
namedtuples and dicts, flattened to their leaves and rebuilt.

Dicts are walked in sorted key order and rebuilt with their own key order;
strings and tensors are leaves. ``flatten`` and ``pack_sequence_as`` are inverse
to each other for any structure.
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, List, Sequence


def is_nested(seq: Any) -> bool:
    """True for a list, tuple (namedtuples included) or mapping."""
    return isinstance(seq, (list, tuple, collections.abc.Mapping))


is_sequence = is_nested


def _children(seq: Any) -> List[Any]:
    if isinstance(seq, collections.abc.Mapping):
        try:
            keys = sorted(seq)
        except TypeError:
            raise TypeError(f"nest only supports dicts with sortable keys, got keys "
                            f"{list(seq)}") from None
        return [seq[k] for k in keys]
    return list(seq)


def flatten(structure: Any, expand_composites: bool = False) -> List[Any]:
    """The leaves of ``structure``, depth first (a leaf alone gives ``[leaf]``)."""
    if expand_composites:
        raise ValueError("nest.flatten: expand_composites=True is not supported")
    if not is_nested(structure):
        return [structure]
    out: List[Any] = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _rebuild(template: Any, children: List[Any]) -> Any:
    if isinstance(template, collections.abc.Mapping):
        by_key = dict(zip(sorted(template), children))
        return type(template)((k, by_key[k]) for k in template)
    if isinstance(template, tuple) and hasattr(template, "_fields"):
        return type(template)(*children)
    return type(template)(children)


def pack_sequence_as(structure: Any, flat_sequence: Sequence[Any],
                     expand_composites: bool = False) -> Any:
    """``structure`` with its leaves replaced, in order, by ``flat_sequence``.

    Raises:
      ValueError: when the counts of leaves differ.
    """
    if expand_composites:
        raise ValueError("nest.pack_sequence_as: expand_composites=True is not supported")
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat)} > 1")
        return flat[0]
    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {n} elements, but "
                         f"flat_sequence had {len(flat)} elements.")
    pos = 0

    def build(t: Any) -> Any:
        nonlocal pos
        if not is_nested(t):
            pos += 1
            return flat[pos - 1]
        return _rebuild(t, [build(c) for c in _children(t)])

    return build(structure)


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """Checks that two structures nest alike (and, with ``check_types``, with the
    same sequence types).

    Raises:
      ValueError: when they nest differently. TypeError: when their types differ.
    """
    if expand_composites:
        raise ValueError("nest.assert_same_structure: expand_composites=True is not supported")

    def walk(a: Any, b: Any) -> None:
        if is_nested(a) != is_nested(b):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{nest1!r} and {nest2!r}")
        if not is_nested(a):
            return
        if check_types and type(a) is not type(b):
            raise TypeError(f"The two structures don't have the same sequence type: "
                            f"{type(a).__name__} and {type(b).__name__}")
        if isinstance(a, collections.abc.Mapping) and set(a) != set(b):
            raise ValueError(f"The two dictionaries don't have the same keys: {sorted(a)} "
                             f"and {sorted(b)}")
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            raise ValueError(f"The two structures don't have the same number of elements: "
                             f"{nest1!r} and {nest2!r}")
        for x, y in zip(ca, cb):
            walk(x, y)

    walk(nest1, nest2)


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    """``func`` applied to the corresponding leaves of the structures, in the shape
    of the first (``check_types=False`` allows lists against tuples).

    Raises:
      ValueError: with no structure, an unknown keyword, or structures that differ.
    """
    if not structure:
        raise ValueError("map_structure needs at least one structure")
    check_types = kwargs.pop("check_types", True)
    if kwargs.pop("expand_composites", False):
        raise ValueError("nest.map_structure: expand_composites=True is not supported")
    if kwargs:
        raise ValueError(f"map_structure: unknown keyword arguments {sorted(kwargs)}")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    leaves = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*leaves)])


__all__ = ["is_nested", "is_sequence", "flatten", "pack_sequence_as", "assert_same_structure",
           "map_structure"]
