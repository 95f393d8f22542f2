"""The plain-data descriptions behind ``Dataset.zip``, ``concatenate``, ``from_generator``,
``padded_batch`` and the functions (map, filter) that run inside the iterator kernel.

A function that must see elements one by one inside the pipeline (a ``filter``
predicate, a ``map`` before ``filter``/``padded_batch``/``unbatch``, or any map of a
data set bound to a reinitializable iterator) is traced into a sub-graph of its
own, carried as a ``SubGraph`` attr, and run by the kernel on every element.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, Iterator, List, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.data.iterator_ops import (ComponentSpec, flatten, map_structure,
                                           pack_sequence_as)
from tensorfleet.framework.graph import Graph, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.serialization import SubGraph
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tensorfleet.kernels.dataset_values import register_generator, unregister_generator
from tensorfleet.ops import functional_trace as _trace
from tensorfleet.ops.op_util import const_value


def call_on_element(fn: Callable[..., Any], element: Any) -> Any:
    """``fn`` applied as ``Dataset.map`` applies it: tuples are unpacked as arguments."""
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        return fn(*element)
    return fn(element)


def function_stage(op: str, fn: Callable[..., Any], in_spec: Any) -> Tuple[Dict[str, Any], Any]:
    """The kernel stage running ``fn`` on every element, and the spec of its result.

    Raises:
      ValueError: ``fn`` uses tensors or variables of another graph, or a filter
        predicate does not return a scalar bool.
    """
    g = Graph()
    with g.as_default():
        args = _trace.make_args(g, [(c.dtype, c.shape) for c in flatten(in_spec)],
                                name="element")
        holder: List[Any] = []

        def flat(res: Any) -> List[Tensor]:
            holder.append(res)
            return [convert_to_tensor(x) for x in flatten(res)]

        try:
            tr, _ = _trace.trace(g, args, lambda: call_on_element(
                fn, pack_sequence_as(in_spec, list(args))), flat, f"Dataset.{op} function")
        except ValueError as e:
            if "graph" in str(e):
                raise ValueError(f"Dataset.{op}: the function is traced on its own and may not "
                                 f"use tensors of the surrounding graph ({e})") from None
            raise
    if tr.captures or tr.variables:
        raise ValueError(f"Dataset.{op}: the function may not use variables or tensors "
                         f"created outside it")
    outs = tr.outputs
    if op == "filter":
        if len(outs) != 1 or outs[0].dtype is not _dtypes.bool or \
                outs[0].shape.ndims not in (None, 0):
            raise ValueError(f"Dataset.filter: the predicate must return a scalar bool "
                             f"tensor, got {[str(t) for t in outs]}")
        out_spec = in_spec
    else:
        out_spec = pack_sequence_as(holder[0], [ComponentSpec(t.dtype, t.shape)
                                                for t in outs])
    stage = {"op": op, "fn": SubGraph(tr.plain), "inputs": list(tr.arg_names),
             "outputs": list(tr.output_names)}
    return stage, out_spec


# -- padded_batch ---------------------------------------------------------------------------

def padded_stage(spec: Any, batch_size: int, padded_shapes: Any, padding_values: Any,
                 drop_remainder: bool) -> Tuple[Dict[str, Any], Any]:
    """The ``padded_batch`` stage and the batched spec.

    Raises:
      ValueError: a padded shape does not fit the element shape, or a padding value is
        not a scalar of the component's dtype.
    """
    comps = flatten(spec)
    shapes = _flatten_up_to(padded_shapes, spec, "padded_shapes", broadcast=False)
    if padding_values is None:
        values = [b"" if c.dtype is _dtypes.string else 0 for c in comps]
    else:
        values = [_scalar(v, c, i) for i, (v, c) in
                  enumerate(zip(_flatten_up_to(padding_values, spec, "padding_values",
                                               broadcast=True), comps))]
    plain: List[List[int]] = []
    out: List[ComponentSpec] = []
    for i, (c, s) in enumerate(zip(comps, shapes)):
        want = as_shape(_const_shape(s, i)) if isinstance(s, Tensor) else as_shape(
            list(s) if isinstance(s, (list, tuple)) else s)
        if want.ndims is None:
            raise ValueError(f"padded_batch: padded shape of component {i} must have a "
                             f"known rank")
        if not want.is_compatible_with(c.shape) and c.shape.ndims is not None and \
                c.shape.ndims != want.ndims:
            raise ValueError(f"padded_batch: padded shape {want} of component {i} has a "
                             f"different rank than its elements {c.shape}")
        if c.shape.ndims is not None:
            for d, e in zip(want.as_list(), c.shape.as_list()):
                if d is not None and e is not None and e > d:
                    raise ValueError(f"padded_batch: padded shape {want} of component {i} "
                                     f"is smaller than its element shape {c.shape}")
        plain.append([-1 if d is None else int(d) for d in want.as_list()])
        out.append(ComponentSpec(c.dtype, TensorShape(
            [batch_size if drop_remainder else None]).concatenate(want)))
    stage = {"op": "padded_batch", "batch_size": batch_size,
             "drop_remainder": bool(drop_remainder), "padded_shapes": plain,
             "padding_values": values}
    return stage, pack_sequence_as(spec, out)


def _flatten_up_to(value: Any, spec: Any, what: str, broadcast: bool) -> List[Any]:
    """The leaves of ``value`` taken along ``spec``'s nesting (a leaf of ``spec`` takes
    ``value`` whole, so a tuple there is one shape); with ``broadcast`` one non-nested
    value serves every component."""
    if isinstance(spec, tuple):
        if not isinstance(value, tuple):
            if broadcast:
                return [v for c in spec for v in _flatten_up_to(value, c, what, True)]
            raise ValueError(f"padded_batch: {what} must be nested like the elements")
        if len(value) != len(spec):
            raise ValueError(f"padded_batch: {what} has {len(value)} entries, the elements "
                             f"have {len(spec)}")
        return [v for x, c in zip(value, spec) for v in _flatten_up_to(x, c, what, broadcast)]
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            if broadcast:
                return [v for k in sorted(spec)
                        for v in _flatten_up_to(value, spec[k], what, True)]
            raise ValueError(f"padded_batch: {what} must be nested like the elements")
        if sorted(value) != sorted(spec):
            raise ValueError(f"padded_batch: {what} has keys {sorted(value)}, the elements "
                             f"have {sorted(spec)}")
        return [v for k in sorted(spec) for v in _flatten_up_to(value[k], spec[k], what,
                                                                   broadcast)]
    return [value]


def _const_shape(t: Tensor, i: int) -> List[int]:
    v = const_value(t)
    if v is None:
        raise ValueError(f"padded_batch: padded shape of component {i} must be known when "
                         f"the data set is built")
    return [None if d < 0 else int(d) for d in np.asarray(v).reshape(-1)]


def _scalar(value: Any, comp: ComponentSpec, i: int) -> Any:
    if isinstance(value, Tensor):
        v = const_value(value)
        if v is None:
            raise ValueError(f"padded_batch: padding value of component {i} must be known "
                             f"when the data set is built")
        value = v
    a = np.asarray(value)
    if a.ndim != 0:
        raise ValueError(f"padded_batch: padding value of component {i} must be a scalar, "
                         f"got shape {list(a.shape)}")
    if comp.dtype is _dtypes.string:
        item = a.item()
        if not isinstance(item, (bytes, str)):
            raise ValueError(f"padded_batch: padding value of string component {i} must be "
                             f"a string, got {item!r}")
        return item.encode() if isinstance(item, str) else item
    if a.dtype.kind in "SUO":
        raise ValueError(f"padded_batch: padding value of component {i} must be a number")
    return a.astype(comp.dtype.np).item()


# -- composite sources ----------------------------------------------------------------------

def child(ds: Any) -> Dict[str, Any]:
    """A data set as a child of ``zip``/``concatenate``: its maps must run in the kernel."""
    stages = ds._kernel_stages(all_maps=True)
    return {"source": dict(ds._source), "stages": stages, "n": len(ds._leaves)}


def most_specific_compatible(a: Any, b: Any) -> Any:
    """The spec both ``a`` and ``b`` satisfy (dims that differ become unknown)."""
    fa, fb = flatten(a), flatten(b)
    if len(fa) != len(fb):
        raise TypeError(f"Dataset.concatenate: the data sets have different structures "
                        f"({a} and {b})")
    out = []
    for x, y in zip(fa, fb):
        if x.dtype is not y.dtype:
            raise TypeError(f"Dataset.concatenate: component types differ ({x.dtype.name} "
                            f"and {y.dtype.name})")
        if x.shape.ndims is None or y.shape.ndims is None or x.shape.ndims != y.shape.ndims:
            out.append(ComponentSpec(x.dtype, unknown_shape()))
        else:
            out.append(ComponentSpec(x.dtype, [d if d == e else None for d, e in
                                               zip(x.shape.as_list(), y.shape.as_list())]))
    return pack_sequence_as(a, out)


def generator_source(generator: Callable[..., Any], output_types: Any, output_shapes: Any,
                     args: Any) -> Tuple[Dict[str, Any], Any]:
    """The ``generator`` source of ``from_generator`` and its element spec."""
    if not callable(generator):
        raise TypeError(f"from_generator: generator must be callable, got {generator!r}")
    types = map_structure(_dtypes.as_dtype, output_types)
    if output_shapes is None:
        shapes = map_structure(lambda _: unknown_shape(), types)
    else:
        shapes = pack_sequence_as(types, [as_shape(s) for s in _flat_shapes(output_shapes,
                                                                            types)])
    flat_types, flat_shapes = flatten(types), flatten(shapes)
    call_args = _const_args(args)

    def make() -> Iterator[Tuple[np.ndarray, ...]]:
        for item in generator(*call_args):
            yield _convert(item, types, flat_types, flat_shapes)

    spec = pack_sequence_as(types, [ComponentSpec(t, s) for t, s in
                                    zip(flat_types, flat_shapes)])
    token = register_generator(make)
    # The generator lives as long as the graph the data set is built in.
    weakref.finalize(get_default_graph(), unregister_generator, token)
    return {"kind": "generator", "token": token}, spec


def _flat_shapes(shapes: Any, types: Any) -> List[Any]:
    if not isinstance(types, (tuple, dict)):
        return [shapes]
    if not isinstance(shapes, (tuple, dict)):
        raise ValueError(f"from_generator: output_shapes must be nested like output_types "
                         f"{types}")
    flat = flatten(shapes)
    if len(flat) != len(flatten(types)):
        raise ValueError(f"from_generator: output_shapes must be nested like output_types "
                         f"{types}")
    return flat


def _const_args(args: Any) -> Sequence[Any]:
    if args is None:
        return ()
    out = []
    for a in (args if isinstance(args, (list, tuple)) else (args,)):
        if isinstance(a, Tensor):
            v = const_value(a)
            if v is None:
                raise errors.UnimplementedError(
                    None, None, f"from_generator: args must be known when the data set is "
                    f"built; {a.name} is computed")
            a = v
        out.append(np.asarray(a))
    return tuple(out)


def _convert(item: Any, types: Any, flat_types: List[_dtypes.DType],
             flat_shapes: List[TensorShape]) -> Tuple[np.ndarray, ...]:
    leaves = flatten(item) if isinstance(types, (tuple, dict)) else [item]
    if len(leaves) != len(flat_types):
        raise errors.InvalidArgumentError(
            None, None, f"from_generator: the generator yielded {item!r}, which does not "
            f"match output_types {types}")
    out = []
    for i, (v, dt, shape) in enumerate(zip(leaves, flat_types, flat_shapes)):
        try:
            if dt is _dtypes.string:
                a = np.asarray(v, dtype=object)
                flat = [s.encode() if isinstance(s, str) else s for s in a.reshape(-1)]
                if not all(isinstance(s, bytes) for s in flat):
                    raise TypeError("expected strings")
                a = np.empty(a.shape, dtype=object)
                a.reshape(-1)[:] = flat
            else:
                a = np.asarray(v, dtype=dt.np)
        except (TypeError, ValueError) as e:
            raise errors.InvalidArgumentError(
                None, None, f"from_generator: component {i} of a yielded element cannot "
                f"be converted to {dt.name}: {e}") from None
        if not shape.is_compatible_with(a.shape):
            raise errors.InvalidArgumentError(
                None, None, f"from_generator: component {i} of a yielded element has shape "
                f"{list(a.shape)}, expected {shape}")
        out.append(a)
    return tuple(out)


__all__ = ["function_stage", "padded_stage", "child", "most_specific_compatible",
           "generator_source", "call_on_element"]
