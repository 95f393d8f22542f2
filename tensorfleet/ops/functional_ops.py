"""Functional control flow: ``while_loop``, and ``map_fn``, ``scan``, ``foldl`` and
``foldr`` built on it.

A loop is one ``While`` op. Its ``cond`` and ``body`` are sub-graphs held in the
op's attrs as plain data (so the op runs on any task, like any other op), traced
from the Python functions by ``functional_trace``. The op's inputs are the loop
variables followed by the captures (tensors from outside the loop that the
functions read); its outputs are the final loop variables, the trip count, and,
once a gradient has been asked for, one list per forward value the gradient needs,
recorded at every iteration. Iterations run one after another on the task of the
op: ``parallel_iterations`` and ``swap_memory`` are accepted and validated, and
change nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.device import canonical_name
from tensorfleet.framework.graph import Graph, Operation, Tensor, convert_to_tensor, \
    get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.serialization import SubGraph
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar
from tensorfleet.ops import array_ops
from tensorfleet.ops import functional_trace as _trace
from tensorfleet.ops.control_flow_ops import _name_like_scope
from tensorfleet.ops.tensor_array_ops import TensorArray

# Stateful: a body may update variables or draw random numbers on every iteration.
register_op("While", None, stateful=True)
# Element ``index`` of a list of values a While recorded per iteration.
register_op("WhileRecordGet", None)


def _is_ta(x: Any) -> bool:
    return isinstance(x, TensorArray)


def _shape_at_most(shape: TensorShape, invariant: TensorShape) -> bool:
    """Whether ``shape`` is at least as specific as ``invariant`` and agrees with it."""
    if invariant.ndims is None:
        return True
    if shape.ndims is None or shape.ndims != invariant.ndims:
        return False
    return all(i is None or s == i for s, i in zip(shape.as_list(), invariant.as_list()))


def _check_positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"'{name}' must be a positive integer: {value}")
    if value < 1:
        raise TypeError(f"'{name}' must be a positive integer.")


class LoopSpec:
    """The flat view of a loop's variables: tensors, TensorArray templates, invariants."""

    def __init__(self, loop_vars: Any, shape_invariants: Any):
        self.structure = loop_vars
        flat = _trace.flatten(loop_vars, _is_ta)
        if not flat:
            raise ValueError("No loop variables provided")
        self.templates: List[Optional[TensorArray]] = []
        self.tensors: List[Tensor] = []
        for v in flat:
            if _is_ta(v):
                self.templates.append(v)
                self.tensors.append(v.flow)
            else:
                if v is None:
                    raise ValueError("while_loop: a loop variable is None")
                self.templates.append(None)
                self.tensors.append(convert_to_tensor(v))
        if shape_invariants is None:
            self.invariants = [t.shape for t in self.tensors]
        else:
            inv = _trace.flatten(shape_invariants,
                                 lambda s: isinstance(s, TensorShape) or _is_ta(s))
            if len(inv) != len(flat):
                raise ValueError(f"shape_invariants has {len(inv)} entries for {len(flat)} "
                                 f"loop variables; it must have the structure of loop_vars")
            self.invariants = []
            for t, s, tmpl in zip(self.tensors, inv, self.templates):
                s = scalar() if tmpl is not None else as_shape(s)
                if not _shape_at_most(t.shape, s):
                    raise ValueError(
                        f"The shape invariant specified for {t.name} is not compatible with "
                        f"the initial shape of the loop variable. It enters the loop with "
                        f"shape {t.shape}, but the specified shape invariant is {s}.")
                self.invariants.append(s)

    def pack(self, flat: Sequence[Tensor]) -> Any:
        leaves = [t if tmpl is None else tmpl._with_flow(t)
                  for t, tmpl in zip(flat, self.templates)]
        return _trace.pack_as(self.structure, leaves, _is_ta)


def _call(fn: Callable[..., Any], packed: Any, as_args: bool) -> Any:
    return fn(*packed) if as_args else fn(packed)


def _flat_result(spec: LoopSpec, result: Any, as_args: bool) -> List[Tensor]:
    # As in TensorFlow: a body result that is not a list or tuple is one loop variable,
    # and lists, tuples and namedtuples of the same arity match at the top level.
    got = list(result) if isinstance(result, (list, tuple)) else [result]
    expected = list(spec.structure) if as_args else [spec.structure]
    if not _trace.same_structure(expected, got, _is_ta):
        raise ValueError(f"The two structures don't have the same nested structure: the "
                         f"loop variables are {spec.structure!r} but the body returned "
                         f"{result!r}")
    flat = _trace.flatten(got, _is_ta)
    out = []
    for v, t0, tmpl in zip(flat, spec.tensors, spec.templates):
        if tmpl is not None:
            if not _is_ta(v):
                raise TypeError(f"The body returned {v!r} where the loop variable is a "
                                f"TensorArray")
            out.append(v.flow)
            continue
        t = convert_to_tensor(v, preferred_dtype=t0.dtype)
        if t.dtype is not t0.dtype:
            raise TypeError(f"Loop variable {t0.name} enters the loop with dtype "
                            f"{t0.dtype.name}, but has dtype {t.dtype.name} after one "
                            f"iteration")
        out.append(t)
    return out


def _trace_fn(g: Graph, fn: Callable[..., Any], spec: LoopSpec, as_args: bool,
              is_cond: bool) -> Tuple[_trace.Traced, List[Tensor]]:
    args = _trace.make_args(g, [(t.dtype, s) for t, s in zip(spec.tensors, spec.invariants)],
                            name="cond_arg" if is_cond else "body_arg")

    def flatten(res: Any) -> List[Tensor]:
        if is_cond:
            c = convert_to_tensor(res)
            if c.dtype is not _dtypes.bool:
                raise TypeError(f"cond must return a boolean scalar tensor, got "
                                f"{c.dtype.name} ({c.name})")
            if c.shape.ndims not in (None, 0):
                raise ValueError(f"Shape must be rank 0 but is rank {c.shape.ndims}: cond "
                                 f"must return a scalar ({c.name})")
            return [c]
        return _flat_result(spec, res, as_args)

    tr, _ = _trace.trace(g, args, lambda: _call(fn, spec.pack(args), as_args), flatten,
                         "while_loop cond" if is_cond else "while_loop body")
    return tr, tr.outputs


def build_while(g: Graph, cond: Callable[..., Any], body: Callable[..., Any], spec: LoopSpec,
                as_args: bool, scope: str, back_prop: bool, parallel_iterations: int,
                swap_memory: bool, max_iters: Optional[Tensor], check_shapes: bool,
                colocate: Optional[Operation] = None) -> Operation:
    """Traces ``cond`` and ``body`` and adds the ``While`` op (inside name scope ``scope``)."""
    c_tr, _ = _trace_fn(g, cond, spec, as_args, True)
    b_tr, outs = _trace_fn(g, body, spec, as_args, False)
    if check_shapes:
        for t0, out, inv in zip(spec.tensors, outs, spec.invariants):
            if not _shape_at_most(out.shape, inv):
                raise ValueError(
                    f"Input tensor '{t0.name}' enters the loop with shape {inv}, but has "
                    f"shape {out.shape} after one iteration. To allow the shape to vary "
                    f"across iterations, use the `shape_invariants` argument of "
                    f"tf.while_loop to specify a less-specific shape.")
    # Keyed by identity (a Tensor hashes by id): the union of both functions' captures.
    captures = list(dict.fromkeys(c_tr.captures + b_tr.captures))
    n = len(spec.tensors)

    def names(tr: _trace.Traced) -> List[str]:
        own = dict(zip(tr.captures, tr.capture_names))
        return list(tr.arg_names) + [own.get(t, "") for t in captures]

    variables = []
    for v in c_tr.variables + b_tr.variables:
        if v not in variables:
            variables.append(v)
    devices = {canonical_name(v.device) for v in variables}
    if len(devices) > 1:
        raise ValueError(f"while_loop: the loop updates or reads by reference variables on "
                         f"different devices ({sorted(devices)}); a loop runs on one task")
    attrs: Dict[str, Any] = {
        "cond": SubGraph(c_tr.plain), "body": SubGraph(b_tr.plain),
        "cond_inputs": names(c_tr), "cond_output": c_tr.output_names[0],
        "body_inputs": names(b_tr), "body_outputs": b_tr.output_names,
        "body_record": [], "n_vars": n, "back_prop": bool(back_prop),
        "parallel_iterations": int(parallel_iterations), "swap_memory": bool(swap_memory),
        "has_max_iters": max_iters is not None}
    inputs = list(spec.tensors) + captures + ([max_iters] if max_iters is not None else [])
    dtypes = [t.dtype for t in spec.tensors] + [_dtypes.int32]
    shapes = list(spec.invariants) + [scalar()]
    ctrl = []
    for c in c_tr.external_control + b_tr.external_control:
        if c not in ctrl and c.graph is g and g.has_operation(c.name):
            ctrl.append(c)
    anchor = variables[0] if variables else colocate

    def create(name: str) -> Operation:
        if anchor is not None:
            with g.colocate_with(anchor):
                return g.create_op("While", inputs, dtypes, attrs, name=name, shapes=shapes,
                                   control_inputs=ctrl)
        return g.create_op("While", inputs, dtypes, attrs, name=name, shapes=shapes,
                           control_inputs=ctrl)
    return _name_like_scope(g, scope, create)


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
               shape_invariants: Any = None, parallel_iterations: int = 10,
               back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None,
               maximum_iterations: Any = None, return_same_structure: bool = False) -> Any:
    """Repeats ``body`` while ``cond`` is true.

    Args:
      cond: callable returning a boolean scalar tensor, called with the loop variables.
      body: callable returning new loop variables of the same structure, dtypes and
        (unless ``shape_invariants`` relaxes them) shapes.
      loop_vars: a tensor, TensorArray, or nest (lists, tuples, namedtuples) of them.
        A list or tuple is passed to ``cond`` and ``body`` as separate arguments.
      shape_invariants: the shapes the loop variables keep across iterations.
      parallel_iterations: a positive int; iterations run in order, so it is a hint
        with no effect.
      back_prop: whether gradients flow through the loop.
      swap_memory: a bool; accepted with no effect (values stay in host memory).
      name: name scope of the loop (default ``while``).
      maximum_iterations: an int or int32 scalar tensor bounding the trip count.
      return_same_structure: return the structure of ``loop_vars`` even when it has
        a single tensor.

    Returns:
      The loop variables after the last iteration.

    Raises:
      TypeError: if ``cond`` or ``body`` is not callable, ``cond`` does not return a
        bool, or a loop variable changes dtype.
      ValueError: for a structure or shape mismatch, or bad hints.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    _check_positive_int("parallel_iterations", parallel_iterations)
    if not isinstance(swap_memory, bool):
        raise TypeError(f"swap_memory must be a bool, got {swap_memory!r}")
    as_args = isinstance(loop_vars, (list, tuple))
    spec = LoopSpec(loop_vars, shape_invariants)
    g = spec.tensors[0].graph
    with g.name_scope(name or "while") as scope:
        max_t = None
        if maximum_iterations is not None:
            max_t = convert_to_tensor(maximum_iterations, dtype=_dtypes.int32,
                                      name="maximum_iterations")
            if max_t.shape.ndims not in (None, 0):
                raise ValueError(f"maximum_iterations must be a scalar, got shape "
                                 f"{max_t.shape}")
        op = build_while(g, cond, body, spec, as_args, scope, back_prop, parallel_iterations,
                         swap_memory, max_t, check_shapes=True)
    result = spec.pack(op.outputs[:len(spec.tensors)])
    if not return_same_structure and len(spec.tensors) == 1:
        return _trace.flatten(result, _is_ta)[0]
    return result



# -- higher-order functions over the first axis of tensors -------------------------------

def _elems(elems: Any) -> Tuple[List[Tensor], Any]:
    flat = [convert_to_tensor(e, name="elem") for e in _trace.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a tensor or a non-empty nest of tensors")
    for e in flat:
        if e.shape.ndims == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars "
                             f"({e.name})")
    static = {e.shape[0] for e in flat if e.shape.ndims is not None and e.shape[0] is not None}
    if len(static) > 1:
        raise ValueError(f"Elements in elems must have the same first dimension, got "
                         f"{sorted(static)}")
    if static:
        n: Any = convert_to_tensor(next(iter(static)), dtype=_dtypes.int32, name="n")
    else:
        n = array_ops.shape(flat[0])[0]
    return flat, n


def _unstacked(flat: List[Tensor], n: Tensor) -> List[TensorArray]:
    return [TensorArray(e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e)
            for e in flat]


def _static_n(flat: List[Tensor]) -> Optional[int]:
    return flat[0].shape[0] if flat[0].shape.ndims else None


def _check_fn(fn: Any, parallel_iterations: Any) -> int:
    if not callable(fn):
        raise TypeError("fn must be callable.")
    p = 10 if parallel_iterations is None else parallel_iterations
    _check_positive_int("parallel_iterations", p)
    return p


def _stack_all(tas: Sequence[TensorArray], n: Optional[int]) -> List[Tensor]:
    out = []
    for ta in tas:
        r = ta.stack()
        r.set_shape(TensorShape([n]).concatenate(ta.element_shape))
        out.append(r)
    return out


def map_fn(fn: Callable[..., Any], elems: Any, dtype: Any = None,
           parallel_iterations: Optional[int] = None, back_prop: bool = True,
           swap_memory: bool = False, infer_shape: bool = True,
           name: Optional[str] = None) -> Any:
    """Applies ``fn`` to each slice of ``elems`` along its first axis and stacks the
    results.

    Args:
      fn: called with one slice (the structure of ``elems``), returns a structure of
        tensors matching ``dtype`` (or ``elems`` when ``dtype`` is None).
      elems: a tensor or nest of tensors sharing their first dimension.
      dtype: the dtypes of ``fn``'s results, a dtype or nest of dtypes.
      parallel_iterations, swap_memory: hints, validated; iterations run in order.
      back_prop: whether gradients flow through the map.
      infer_shape: require every result of ``fn`` to have the same shape.
      name: name scope (default ``map``).
    """
    p = _check_fn(fn, parallel_iterations)
    g = get_default_graph()
    with g.name_scope(name or "map"):
        flat, n = _elems(elems)
        elems_tas = _unstacked(flat, n)
        out_struct = elems if dtype is None else dtype
        out_dtypes = ([e.dtype for e in flat] if dtype is None else
                      [_dtypes.as_dtype(d) for d in _trace.flatten(dtype)])
        accs = [TensorArray(dt, size=n, dynamic_size=False, infer_shape=infer_shape)
                for dt in out_dtypes]

        def compute(i: Tensor, tas: List[TensorArray]) -> Tuple[Any, Any]:
            out = fn(_trace.pack_as(elems, [ta.read(i) for ta in elems_tas]))
            if not _trace.same_structure(out_struct, out):
                raise ValueError(f"The structure of fn's output {out!r} does not match the "
                                 f"structure of dtype {out_struct!r}")
            return i + 1, [ta.write(i, v) for ta, v in zip(tas, _trace.flatten(out))]

        _, results = while_loop(lambda i, _: i < n, compute, (0, accs),
                                parallel_iterations=p, back_prop=back_prop,
                                swap_memory=swap_memory, maximum_iterations=n)
        return _trace.pack_as(out_struct, _stack_all(results, _static_n(flat)))


def scan(fn: Callable[..., Any], elems: Any, initializer: Any = None,
         parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
         infer_shape: bool = True, reverse: bool = False, name: Optional[str] = None) -> Any:
    """The successive values of ``a = fn(a, x)`` over the slices ``x`` of ``elems``.

    Without ``initializer`` the first slice (the last with ``reverse``) is the first
    accumulator and also the first result. Results are stacked in the order of
    ``elems`` (so with ``reverse`` the first row is the last value computed).
    """
    p = _check_fn(fn, parallel_iterations)
    g = get_default_graph()
    with g.name_scope(name or "scan"):
        flat, n = _elems(elems)
        elems_tas = _unstacked(flat, n)
        first = n - 1 if reverse else 0
        if initializer is None:
            a_struct = elems
            a_flat = [ta.read(first) for ta in elems_tas]
            start = 1
        else:
            a_struct = initializer
            a_flat = [convert_to_tensor(a) for a in _trace.flatten(initializer)]
            start = 0
        accs = [TensorArray(a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                            element_shape=a.shape if infer_shape else None) for a in a_flat]
        if initializer is None:
            accs = [ta.write(first, a) for ta, a in zip(accs, a_flat)]

        def compute(i: Tensor, a: List[Tensor], tas: List[TensorArray]) -> Tuple[Any, ...]:
            x = _trace.pack_as(elems, [ta.read(i) for ta in elems_tas])
            out = fn(_trace.pack_as(a_struct, a), x)
            if not _trace.same_structure(a_struct, out):
                raise ValueError(f"The structure of fn's output {out!r} does not match the "
                                 f"structure of the accumulator {a_struct!r}")
            out_flat = [convert_to_tensor(v) for v in _trace.flatten(out)]
            nxt = i - 1 if reverse else i + 1
            return nxt, out_flat, [ta.write(i, v) for ta, v in zip(tas, out_flat)]

        if reverse:
            i0: Any = n - 1 - start
            keep_going = lambda i, _a, _t: i >= 0  # noqa: E731
        else:
            i0 = start
            keep_going = lambda i, _a, _t: i < n  # noqa: E731
        _, _, results = while_loop(keep_going, compute, (i0, a_flat, accs),
                                   parallel_iterations=p, back_prop=back_prop,
                                   swap_memory=swap_memory, maximum_iterations=n)
        return _trace.pack_as(a_struct, _stack_all(results, _static_n(flat)))


def _fold(fn: Callable[..., Any], elems: Any, initializer: Any, parallel_iterations: int,
          back_prop: bool, swap_memory: bool, name: str, reverse: bool) -> Any:
    p = _check_fn(fn, parallel_iterations)
    g = get_default_graph()
    with g.name_scope(name):
        flat, n = _elems(elems)
        elems_tas = _unstacked(flat, n)
        if initializer is None:
            a = _trace.pack_as(elems, [ta.read(n - 1 if reverse else 0) for ta in elems_tas])
            start = 1
        else:
            a = initializer
            start = 0

        def compute(i: Tensor, acc: Any) -> List[Any]:
            x = _trace.pack_as(elems, [ta.read(i) for ta in elems_tas])
            return [i - 1 if reverse else i + 1, fn(acc, x)]

        if reverse:
            _, out = while_loop(lambda i, _: i >= 0, compute, [n - 1 - start, a],
                                parallel_iterations=p, back_prop=back_prop,
                                swap_memory=swap_memory, maximum_iterations=n)
        else:
            _, out = while_loop(lambda i, _: i < n, compute, [start, a],
                                parallel_iterations=p, back_prop=back_prop,
                                swap_memory=swap_memory, maximum_iterations=n)
        return out


def foldl(fn: Callable[..., Any], elems: Any, initializer: Any = None,
          parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
          name: Optional[str] = None) -> Any:
    """``fn(...fn(fn(initializer, x0), x1)..., x_{n-1})`` over the slices of ``elems``;
    without ``initializer`` the first slice starts the accumulation."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory,
                 name or "foldl", reverse=False)


def foldr(fn: Callable[..., Any], elems: Any, initializer: Any = None,
          parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
          name: Optional[str] = None) -> Any:
    """Like ``foldl`` from the last slice to the first; without ``initializer`` the
    last slice starts the accumulation."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory,
                 name or "foldr", reverse=True)


__all__ = ["while_loop", "map_fn", "scan", "foldl", "foldr"]
