"""``tf.function`` and ``tf.compat.v1.wrap_function`` as TensorFlow 1.x graph-mode
programs use them.

A ``Function`` traces its Python function once per input signature and graph: the
dtypes and static shapes of the tensor arguments (or the ``input_signature``) and the
values of the Python arguments. The first call with a signature runs the Python
function in the caller's graph, recording the ops it creates; every later call with
the same signature copies those ops into the graph with the new inputs, without
running Python again -- the function's ops are inlined into the caller's graph rather
than held by a call op, which gives the same values, gradients and side effects.

As in TensorFlow, the stateful ops of one call run in program order (each waits for
the previous one) and every returned tensor waits for all of them, so a call's
``assign_add`` runs whenever any of its outputs is fetched, even if not returned.
Variables may be created on the first trace only.

There is no autograph: Python ``if``/``while`` on a tensor raise a ``TypeError``
naming the function; use ``tf.cond`` and ``tf.while_loop``.
"""

from __future__ import annotations

import functools
import inspect
import logging
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from tensorfleet.framework import nest
from tensorfleet.framework.graph import (Graph, Operation, Tensor, convert_to_tensor,
                                         get_default_graph)
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.framework.type_spec import TensorSpec
from tensorfleet.ops import array_ops_core
from tensorfleet.ops.function_type import FunctionType, Literal, Parameter
from tensorfleet.ops.functional_trace import _variable_machinery

_log = logging.getLogger(__name__)

_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")
_NO_AUTOGRAPH = ("tensorfleet's tf.function has no autograph: Python control flow on a "
                 "tensor cannot be traced; write it with tf.cond / tf.while_loop")


def _is_tensor_leaf(x: Any) -> bool:
    # Variables are not: they are passed by reference, as captures of the trace.
    return isinstance(x, (Tensor, np.ndarray))


class _Template:
    """The ops one trace recorded, ready to be copied for later calls."""

    def __init__(self, ops: List[Operation], args: List[Operation], arg_shapes: List[Any],
                 outputs: List[Any], structure: Any, scope: str):
        self.ops = ops
        self.args = args
        self.arg_shapes = arg_shapes
        self.outputs = outputs
        self.structure = structure
        self.scope = scope


class ConcreteFunction:
    """One trace of a ``Function``: callable with tensors of its signature.

    Attributes:
      structured_input_signature: ``(args, kwargs)`` of ``TensorSpec`` and Python values.
      structured_outputs: the first call's outputs, in the function's structure.
      function_type: the ``FunctionType`` of this trace.
    """

    def __init__(self, owner: "Function", key: Tuple[Any, ...], template: _Template,
                 bound: inspect.BoundArguments, specs: List[Any], graph: Graph):
        self._owner = owner
        self._key = key
        self._template = template
        self._bound = bound
        self._specs = specs
        self.graph = graph
        self.structured_outputs = nest.pack_sequence_as(template.structure, template.outputs)

    @property
    def name(self) -> str:
        return self._owner.name

    @property
    def structured_input_signature(self) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        return self._owner._structured(self._bound, self._specs)

    @property
    def function_type(self) -> FunctionType:
        return self._owner._function_type(self._bound, self._specs, self.structured_outputs)

    @property
    def outputs(self) -> List[Tensor]:
        """The output tensors of the trace (the first call's)."""
        return [t for t in self._template.outputs if isinstance(t, Tensor)]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs this trace's ops (copied into the graph) on tensors of its signature."""
        owner = self._owner
        bound = owner._bind(args, kwargs)
        leaves = nest.flatten(list(bound.arguments.values()))
        if len(leaves) != len(self._specs):
            raise TypeError(f"{self.name}: the arguments do not have the structure of this "
                            f"concrete function's signature {self.structured_input_signature}")
        for x, spec in zip(leaves, self._specs):
            if isinstance(spec, TensorSpec):
                got = owner._spec_for(x) if _is_tensor_leaf(x) else None
                if not isinstance(got, TensorSpec) or got.dtype != spec.dtype or \
                        not spec.shape.is_compatible_with(got.shape):
                    raise TypeError(f"{self.name}: argument {x!r} does not match {spec!r} of "
                                    f"this concrete function")
            elif Literal(x) != spec:
                raise TypeError(f"{self.name}: Python argument {x!r} differs from the "
                                f"{spec!r} this concrete function was traced for")
        return owner._run(self, bound, self._specs)


class Function:
    """A Python function traced once per input signature (see the module docstring).

    Args:
      python_function: the function to trace.
      input_signature: a sequence of ``tf.TensorSpec`` for every positional argument, or
        None to trace once per distinct argument signature.
      reduce_retracing: trace tensor arguments for their rank only (unknown dimensions),
        so calls with other shapes reuse the trace.
    """

    def __init__(self, python_function: Callable[..., Any],
                 input_signature: Optional[Sequence[Any]] = None,
                 reduce_retracing: bool = False, name: Optional[str] = None):
        if not callable(python_function):
            raise TypeError(f"tf.function needs a callable, got {python_function!r}")
        self.python_function = python_function
        self._signature = inspect.signature(python_function)
        self.input_signature = None if input_signature is None else tuple(input_signature)
        if self.input_signature is not None:
            for s in nest.flatten(list(self.input_signature)):
                if not isinstance(s, TensorSpec):
                    raise TypeError(f"input_signature must be a possibly nested sequence of "
                                    f"TensorSpec objects, got {s!r}")
        self._reduce_retracing = bool(reduce_retracing)
        self.name = name or getattr(python_function, "__name__", "function")
        self._concrete: Dict[Tuple[Any, ...], ConcreteFunction] = {}
        self._traces = 0
        self._variables_created = False
        self._bound_methods: "weakref.WeakKeyDictionary[Any, Function]" = \
            weakref.WeakKeyDictionary()
        functools.update_wrapper(self, python_function)

    # -- binding and keys ---------------------------------------------------------------
    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        bound = self._bound_methods.get(instance)
        if bound is None:
            bound = Function(self.python_function.__get__(instance, owner),
                             self.input_signature, self._reduce_retracing, self.name)
            self._bound_methods[instance] = bound
        return bound

    def _bind(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> inspect.BoundArguments:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None
        bound.apply_defaults()
        return bound

    def _spec_for(self, x: Any) -> Any:
        if _is_tensor_leaf(x):
            t = convert_to_tensor(x)
            shape = t.shape
            if self._reduce_retracing and shape.ndims is not None:
                shape = TensorShape([None] * shape.ndims)
            return TensorSpec(shape, t.dtype.base_dtype)
        return Literal(x)

    def _specs(self, bound: inspect.BoundArguments) -> List[Any]:
        """One entry per leaf of the bound arguments: a TensorSpec or a Literal."""
        leaves = nest.flatten(list(bound.arguments.values()))
        if self.input_signature is None:
            return [self._spec_for(x) for x in leaves]
        sig = nest.flatten(list(self.input_signature))
        n_pos = len(self.input_signature)
        given = list(bound.arguments.values())
        if len(given) != n_pos:
            raise TypeError(f"{self.name} was given {len(given)} arguments for an "
                            f"input_signature of {n_pos}")
        if len(leaves) != len(sig):
            raise TypeError(f"{self.name}: the arguments do not have the structure of the "
                            f"input_signature {self.input_signature}")
        out = []
        for x, spec in zip(leaves, sig):
            got = self._spec_for(x)
            if not isinstance(got, TensorSpec) or got.dtype != spec.dtype or \
                    not spec.shape.is_compatible_with(got.shape):
                raise TypeError(f"Binding inputs to tf.function {self.name} failed: can not "
                                f"cast {got!r} to {spec!r}")
            out.append(spec)
        return out

    def _key(self, specs: List[Any], graph: Graph) -> Tuple[Any, ...]:
        parts: List[Any] = [id(graph)]
        for s in specs:
            if isinstance(s, TensorSpec):
                parts.append(("T", s.dtype.name, tuple(s.shape.as_list())
                              if s.shape.ndims is not None else None))
            else:
                try:
                    hash(s.value)
                    parts.append(("P", type(s.value), s.value))
                except TypeError:
                    parts.append(("id", id(s.value)))
        return tuple(parts)

    # -- calling ------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        graph = get_default_graph()
        bound = self._bind(args, kwargs)
        specs = self._specs(bound)
        key = self._key(specs, graph)
        if key not in self._concrete:
            return self._trace(key, bound, specs, graph)[1]
        return self._run(self._concrete[key], bound, specs)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors, ``TensorSpec`` or Python values), made
        now if there is none; with ``input_signature`` no arguments are needed."""
        graph = get_default_graph()
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        bound = self._bind(args, kwargs)
        leaves = nest.flatten(list(bound.arguments.values()))
        if any(isinstance(x, TensorSpec) for x in leaves):
            specs = [x if isinstance(x, TensorSpec) else self._spec_for(x)
                     for x in leaves]
        else:
            specs = self._specs(bound)
        key = self._key(specs, graph)
        if key not in self._concrete:
            self._trace(key, bound, specs, graph)
        return self._concrete[key]

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced."""
        return self._traces

    @property
    def function_type(self) -> Optional[FunctionType]:
        """The ``FunctionType`` of the input signature (None without one)."""
        if self.input_signature is None:
            return None
        return self.get_concrete_function().function_type

    def _structured(self, bound: inspect.BoundArguments,
                    specs: List[Any]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        flat = [s if isinstance(s, TensorSpec) else s.value for s in specs]
        packed = nest.pack_sequence_as(list(bound.arguments.values()), flat)
        names = list(bound.arguments)
        pos, kw = [], {}
        for name, value in zip(names, packed):
            p = self._signature.parameters[name]
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                pos.append(value)
            else:
                kw[name] = value
        return tuple(pos), kw

    def _function_type(self, bound: inspect.BoundArguments, specs: List[Any],
                       outputs: Any) -> FunctionType:
        flat = list(specs)
        params = []
        values = list(bound.arguments.values())
        it = iter(flat)
        for name, value in zip(bound.arguments, values):
            n = len(nest.flatten(value))
            leaves = [next(it) for _ in range(n)]
            constraint = leaves[0] if not nest.is_nested(value) else \
                nest.pack_sequence_as(value, leaves)
            p = self._signature.parameters[name]
            params.append(Parameter(name, p.kind, p.default is not p.empty, constraint))
        out_type = nest.map_structure(
            lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor) else t, outputs)
        return FunctionType(params, return_annotation=out_type)

    # -- tracing ------------------------------------------------------------------------
    def _trace(self, key: Tuple[Any, ...], bound: inspect.BoundArguments, specs: List[Any],
               graph: Graph) -> Tuple[ConcreteFunction, Any]:
        leaves = nest.flatten(list(bound.arguments.values()))
        outer_ctrl = graph._current_control_inputs()
        recorded: List[Operation] = []
        coll_lengths = {k: len(v) for k, v in graph._collections.items()}
        arg_ops: List[Operation] = []
        arg_shapes: List[Any] = []
        with graph.control_dependencies(None), graph.name_scope(self.name) as scope:
            with graph.observing_ops(recorded.append):
                args = []
                for x, spec in zip(leaves, specs):
                    if not isinstance(spec, TensorSpec):
                        args.append(x)
                        continue
                    if isinstance(x, TensorSpec):
                        t = array_ops_core.placeholder(spec.dtype, spec.shape, name="arg")
                    else:
                        t = _arg(convert_to_tensor(x, dtype=spec.dtype), spec.shape)
                    arg_ops.append(t.op)
                    arg_shapes.append(spec.shape)
                    args.append(t)
                packed = nest.pack_sequence_as(list(bound.arguments.values()), args)
                call_bound = inspect.BoundArguments(self._signature, dict(
                    zip(bound.arguments, packed)))
                try:
                    result = self.python_function(*call_bound.args, **call_bound.kwargs)
                except TypeError as e:
                    if "as a Python bool" in str(e) or "not iterable" in str(e):
                        raise TypeError(f"{self.name}: {e} ({_NO_AUTOGRAPH})") from e
                    raise
                self._traces += 1
                new = set(recorded)
                machinery = _variable_machinery(graph, new, recorded, coll_lengths)
                if any(op.type in _VARIABLE_OPS for op in recorded):
                    if self._variables_created or self._traces > 1:
                        raise ValueError(
                            f"tf.function only supports singleton tf.Variables created on "
                            f"the first call; {self.name} created a variable while being "
                            f"traced again. Create variables once, outside the function or "
                            f"on its first call.")
                    self._variables_created = True
                body = [op for op in recorded if op not in machinery]
                flat_out = nest.flatten(result)
                outputs = _order_stateful(graph, body, set(arg_ops), flat_out, self.name)
            for op in body:
                for c in outer_ctrl:
                    op._add_control_input(c)
        template = _Template(body, arg_ops, arg_shapes, outputs, result, scope)
        concrete = ConcreteFunction(self, key, template, bound, specs, graph)
        self._concrete[key] = concrete
        return concrete, nest.pack_sequence_as(result, outputs)

    def _run(self, concrete: ConcreteFunction, bound: inspect.BoundArguments,
             specs: List[Any]) -> Any:
        graph = get_default_graph()
        if graph is not concrete.graph:
            raise ValueError(f"{self.name}: this trace belongs to another graph; call the "
                             f"function itself to trace it in the current graph")
        leaves = nest.flatten(list(bound.arguments.values()))
        inputs = [convert_to_tensor(x, dtype=s.dtype)
                  for x, s in zip(leaves, specs) if isinstance(s, TensorSpec)]
        t = concrete._template
        return nest.pack_sequence_as(t.structure, _copy(graph, t, inputs))


def _arg(x: Tensor, shape: TensorShape) -> Tensor:
    """The argument tensor of a trace: ``x`` seen with the signature's shape."""
    if shape.ndims is None or shape.as_list() != x.shape.as_list():
        return array_ops_core.placeholder_with_default(x, shape, name="arg")
    return array_ops_core.identity(x, name="arg")


def _variable_refs(graph: Graph) -> Dict[Tensor, Tensor]:
    """Each variable's shared value tensor -> its reference tensor."""
    out: Dict[Tensor, Tensor] = {}
    for items in list(graph._collections.values()):
        for v in items:
            snap, ref = getattr(v, "_snapshot", None), getattr(v, "_variable", None)
            if isinstance(snap, Tensor) and isinstance(ref, Tensor):
                out[snap] = ref
    return out


def _ref_input_indices(op: Operation) -> List[int]:
    od = op.op_def
    if od.ref_count_attr:
        return list(range(int(op.attrs.get(od.ref_count_attr, 0))))
    return [i for i in od.ref_inputs if i < len(op.inputs)]


def _reads_variable(op: Operation) -> bool:
    return any(t.op.type in _VARIABLE_OPS for t in op.inputs)


def _order_stateful(graph: Graph, body: List[Operation], args: Set[Operation],
                    flat_out: List[Any], name: str) -> List[Any]:
    """Chains the stateful ops of ``body`` in program order and makes every returned
    tensor wait for all of them; returns the outputs to hand back."""
    stateful: List[Operation] = []
    refs = _variable_refs(graph)
    writers: Dict[Tensor, Operation] = {}
    for op in list(body):
        if op in args:
            continue
        for i, x in enumerate(op.inputs):
            # A read of a variable this call wrote reads it afresh, after the write.
            ref = refs.get(x)
            if ref is not None and ref in writers:
                with graph.control_dependencies([writers[ref]]):
                    fresh = array_ops_core.identity(ref, name="read")
                body.insert(body.index(op), fresh.op)
                op.replace_input(i, fresh)
        if stateful and (op.op_def.stateful or _reads_variable(op)):
            op._add_control_input(stateful[-1])
        if op.op_def.stateful:
            stateful.append(op)
        for i in _ref_input_indices(op):
            writers[op.inputs[i]] = op
    outputs: List[Any] = []
    for t in flat_out:
        if t is None or isinstance(t, (bool, int, float, str, bytes)):
            outputs.append(t)
            continue
        try:
            if isinstance(t, Operation):
                raise TypeError("an Operation")
            t = convert_to_tensor(t)
        except (TypeError, ValueError):
            raise TypeError(f"{name} returned {t!r}; tf.function outputs must be tensors, "
                            f"variables, None or Python scalars (nested in lists, tuples or "
                            f"dicts)") from None
        with graph.control_dependencies(stateful):
            out = array_ops_core.identity(t, name="output")
        body.append(out.op)
        outputs.append(out)
    return outputs


def _copy(graph: Graph, t: _Template, inputs: List[Tensor]) -> List[Any]:
    """``t``'s ops created again in ``graph`` with ``inputs`` for its arguments."""
    mapping: Dict[Tensor, Tensor] = {}
    ops: Dict[Operation, Operation] = {}
    outer_ctrl = graph._current_control_inputs()
    scope_name = t.scope.rstrip("/")
    with graph.control_dependencies(None), graph.name_scope(scope_name.rsplit("/", 1)[-1]):
        args = dict(zip(t.args, zip(inputs, t.arg_shapes)))
        for op in t.ops:
            if op in args:
                x, shape = args[op]
                new_op = _arg(x, shape).op
            else:
                rel = op.name[len(t.scope):] if op.name.startswith(t.scope) else op.name
                new_op = graph.create_op(
                    op.type, [mapping.get(i, i) for i in op.inputs],
                    [o.dtype for o in op.outputs], dict(op.attrs), name=rel,
                    shapes=[o.shape for o in op.outputs],
                    control_inputs=[ops.get(c, c) for c in op.control_inputs])
                if op.device:
                    new_op._set_device(op.device)
            for c in outer_ctrl:
                new_op._add_control_input(c)
            ops[op] = new_op
            for a, b in zip(op.outputs, new_op.outputs):
                mapping[a] = b
    return [mapping.get(o, o) if isinstance(o, Tensor) else o for o in t.outputs]


def function(func: Optional[Callable[..., Any]] = None,
             input_signature: Optional[Sequence[Any]] = None, autograph: bool = True,
             jit_compile: Optional[bool] = None, reduce_retracing: bool = False,
             experimental_implements: Optional[str] = None,
             experimental_autograph_options: Any = None,
             experimental_attributes: Optional[Dict[str, Any]] = None,
             experimental_relax_shapes: Optional[bool] = None,
             experimental_compile: Optional[bool] = None,
             experimental_follow_type_hints: Optional[bool] = None) -> Any:
    """Makes ``func`` a ``Function`` traced once per input signature (usable as
    ``@tf.function`` or ``@tf.function(input_signature=...)``).

    ``autograph`` is accepted but there is no autograph conversion: Python control flow
    on tensors raises a ``TypeError`` naming the function. ``jit_compile`` /
    ``experimental_compile`` may be False or None (there is no XLA).

    Raises:
      ValueError: for ``jit_compile=True`` or experimental options tensorfleet does not
        have.
    """
    if jit_compile or experimental_compile:
        raise ValueError("tf.function(jit_compile=True): tensorfleet has no XLA compiler; "
                         "leave jit_compile unset")
    for arg, value in (("experimental_implements", experimental_implements),
                       ("experimental_autograph_options", experimental_autograph_options),
                       ("experimental_attributes", experimental_attributes),
                       ("experimental_follow_type_hints", experimental_follow_type_hints)):
        if value:
            raise ValueError(f"tf.function({arg}=...) is not supported by tensorfleet")
    relax = bool(reduce_retracing or experimental_relax_shapes)

    def decorate(fn: Callable[..., Any]) -> Function:
        return Function(fn, input_signature, relax)

    return decorate if func is None else decorate(func)


def wrap_function(fn: Callable[..., Any], signature: Sequence[Any],
                  name: Optional[str] = None) -> ConcreteFunction:
    """Traces the TensorFlow 1.x function ``fn`` once for ``signature`` (``TensorSpec``
    per positional argument) and returns the ``ConcreteFunction`` to call with tensors.

    ``fn`` may create variables (``tf.Variable``, ``tf.get_variable``); they join the
    current graph's collections and are initialized with the other variables.
    """
    if signature is None:
        signature = []
    f = Function(fn, list(signature), name=name)
    return f.get_concrete_function()


__all__ = ["Function", "ConcreteFunction", "function", "wrap_function"]
