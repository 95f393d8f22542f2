"""Graph and Operation (and Tensor, from ``framework.tensor``): the dataflow graph."""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import device as _device
from tensorfleet.framework import op_traceback
from tensorfleet.framework.graph_feeds import FeedFetchRules
from tensorfleet.framework.graph_keys import GraphKeys  # noqa: F401  (re-exported)
from tensorfleet.framework.op_registry import get_op_def
# Re-exported: callers reach the session hook through this module as before.
from tensorfleet.framework.tensor import (  # noqa: F401
    Tensor, _register_constant_fn, convert_to_tensor, default_session_or_raise,
    register_default_session_fn, register_tensor_conversion_function)
from tensorfleet.framework.tensor_shape import as_shape, unknown_shape

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


class Operation:
    """A node of the graph: an op type applied to input tensors, with attrs."""

    def __init__(self, graph: "Graph", op_type: str, name: str, inputs: Sequence[Tensor],
                 output_dtypes: Sequence[_dtypes.DType], attrs: Dict[str, Any],
                 device: str, control_inputs: Sequence["Operation"]):
        self.graph = graph
        self.type = op_type
        self.name = name
        self._inputs = list(inputs)
        self.attrs = attrs
        self._device = device
        self._control_inputs = list(control_inputs)
        self.op_def = get_op_def(op_type)
        self._id = graph._next_id()
        self._outputs = [Tensor(self, i, dt, unknown_shape()) for i, dt in enumerate(output_dtypes)]
        # Set by Graph.create_op: the user's frames that created this op, and of the
        # device scope that placed it (imported ops have neither).
        self._frames: Tuple[op_traceback.Frame, ...] = ()
        self._device_frames: Tuple[op_traceback.Frame, ...] = ()

    @property
    def traceback(self) -> List[Tuple[str, int, str, str]]:
        """Where this op was created: ``(filename, lineno, name, line)`` per frame of the
        user's code, outermost first (tensorfleet's own frames left out)."""
        return op_traceback.with_source(self._frames)

    @property
    def defined_at(self) -> Optional[str]:
        """``file.py:42``: the line of the user's code that created this op, or None."""
        return op_traceback.location(self._frames)

    @property
    def device_defined_at(self) -> Optional[str]:
        """``file.py:40``: the ``tf.device`` scope that set this op's device, or None."""
        return op_traceback.location(self._device_frames)

    @property
    def inputs(self) -> List[Tensor]:
        return self._inputs

    @property
    def outputs(self) -> List[Tensor]:
        return self._outputs

    @property
    def control_inputs(self) -> List["Operation"]:
        return self._control_inputs

    @property
    def device(self) -> str:
        return self._device

    @property
    def node_def(self) -> Dict[str, Any]:
        """This op as a ``NodeDef`` (a plain-data dict with TensorFlow's fields)."""
        return _graph_def_writers()[1](self)

    def _set_device(self, device: Any) -> None:
        self._device = _device.canonical_name(device)

    def _add_control_input(self, op: "Operation") -> None:
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            self.graph._version += 1

    def replace_input(self, index: int, tensor: Tensor) -> None:
        """Makes input ``index`` read ``tensor`` instead (graph rewrites)."""
        self._inputs[index] = tensor
        self.graph._version += 1

    def remove_control_input(self, op: "Operation") -> None:
        """Drops the control edge from ``op``; ValueError when there is none."""
        self._control_inputs.remove(op)
        self.graph._version += 1

    def add_output(self, dtype: _dtypes.DType, shape: Any = None) -> Tensor:
        """Appends one output (a rewrite giving an op more results); returns it."""
        t = Tensor(self, len(self._outputs), dtype, as_shape(shape))
        self._outputs.append(t)
        self.graph._version += 1
        return t

    def set_attr(self, name: str, value: Any) -> None:
        """Sets attr ``name`` (graph rewrites); the graph's version moves on."""
        self.attrs[name] = value
        self.graph._version += 1

    @property
    def schedule_key(self) -> float:
        """Where the local executor puts this op among ready ops (creation order)."""
        return self._id

    def set_schedule_key(self, key: float) -> None:
        """Lets this op run earlier or later than creation order would (same results)."""
        self._id = key

    def get_attr(self, name: str) -> Any:
        """The value of attr ``name``; ValueError naming the op when absent."""
        if name not in self.attrs:
            raise ValueError(f"Operation {self.name!r} has no attr named {name!r}")
        return self.attrs[name]

    def colocation_groups(self) -> List[str]:
        return list(self.attrs.get("_class", [])) or [f"loc:@{self.name}"]

    def run(self, feed_dict: Optional[dict] = None, session: Any = None) -> None:
        """Runs this op in ``session`` or the default session."""
        (session or default_session_or_raise()).run(self, feed_dict)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Graph(FeedFetchRules):
    """A dataflow graph of ``Operation`` nodes, with scopes and collections."""

    def __init__(self) -> None:
        self._ops: List[Operation] = []
        self._ops_by_name: Dict[str, Operation] = {}
        self._names_in_use: Dict[str, int] = {}
        self._version = 0
        self._id_counter = 0
        self._collections: Dict[str, List[Any]] = {}
        self._finalized = False
        self.seed: Optional[int] = None
        self._lock = threading.RLock()
        self._thread = threading.local()

    # -- per-thread scope stacks ------------------------------------------------------
    def _stack(self, name: str) -> list:
        st = getattr(self._thread, name, None)
        if st is None:
            st = []
            setattr(self._thread, name, st)
        return st

    @contextlib.contextmanager
    def _pushed(self, name: str, entry: Any, result: Any = None) -> Iterator[Any]:
        """``entry`` on this thread's ``name`` stack for the duration of the block."""
        st = self._stack(name)
        st.append(entry)
        try:
            yield result
        finally:
            st.pop()

    @property
    def version(self) -> int:
        return self._version

    def _next_id(self) -> int:
        self._id_counter += 1
        return self._id_counter

    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        """Makes the graph read-only: adding an op raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    # -- names -------------------------------------------------------------------------
    def get_name_scope(self) -> str:
        st = self._stack("name_scope")
        return st[-1] if st else ""

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``scope/name``, suffixed ``_1``, ``_2`` ... to be unique in this graph."""
        scope = self.get_name_scope()
        full = f"{scope}/{name}" if scope else name
        key = full.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count > 0:
            base = full
            while True:
                candidate = f"{base}_{count}"
                if candidate.lower() not in self._names_in_use:
                    break
                count += 1
            if mark_as_used:
                self._names_in_use[candidate.lower()] = 1
            full = candidate
        return full

    @contextlib.contextmanager
    def name_scope(self, name: Optional[str]) -> Iterator[str]:
        """Opens a name scope; ``None`` or ``""`` resets to the root, a trailing ``/``
        re-enters an existing scope exactly."""
        st = self._stack("name_scope")
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        st.append(new)
        try:
            yield (new + "/") if new else ""
        finally:
            st.pop()

    # -- devices -------------------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """Device scope: a string merged over outer scopes, a function of the op, or
        None to clear every outer scope."""
        if device_name_or_function is not None and not callable(device_name_or_function):
            if isinstance(device_name_or_function, _device.DeviceSpec):
                device_name_or_function = device_name_or_function.to_string()
            _device.DeviceSpec.from_string(device_name_or_function)  # validate now
        site = op_traceback.user_frames(1)
        with self._pushed("device", (device_name_or_function, site)):
            yield

    def _apply_device(self, op: Operation) -> None:
        """Applies device scopes innermost first, as TensorFlow does: a device function
        sees what the scopes inside it chose (``op.device``) and decides; a string
        scope only fills the fields still unset; ``device(None)`` hides outer scopes."""
        dev = ""
        for entry, site in reversed(self._stack("device")):
            if entry is None:
                break
            if not op._device_frames:
                op._device_frames = site
            if callable(entry):
                op._device = dev
                dev = _device.canonical_name(entry(op) or "")
            else:
                spec = _device.DeviceSpec.from_string(entry)
                spec.merge_from(_device.DeviceSpec.from_string(dev))
                dev = spec.to_string()
        op._device = dev

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside are placed on the same device as ``op``."""
        if op is not None and not isinstance(op, Operation):
            op = getattr(op, "op", op)
        with self._pushed("colocate", op):
            yield

    @contextlib.contextmanager
    def container(self, container_name: str) -> Iterator[str]:
        """Stateful ops created inside (variables, queues, tables) keep their state in
        resource container ``container_name``, which ``Session.reset`` can clear."""
        if not isinstance(container_name, str):
            raise TypeError(f"container_name must be a string, got {container_name!r}")
        with self._pushed("container", container_name, container_name) as name:
            yield name

    # -- control dependencies -------------------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Optional[Sequence[Any]]) -> Iterator[None]:
        """Ops created inside run after ``control_inputs``; None clears outer scopes."""
        st = self._stack("control")
        if control_inputs is None:
            st.append(None)
        else:
            ops = []
            for c in control_inputs:
                c = self.as_graph_element(c)
                ops.append(c.op if isinstance(c, Tensor) else c)
            st.append(ops)
        try:
            yield
        finally:
            st.pop()

    def _current_control_inputs(self) -> List[Operation]:
        out: List[Operation] = []
        for entry in self._stack("control"):
            if entry is None:
                out = []
            else:
                out.extend(o for o in entry if o not in out)
        return out

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: Dict[str, str]) -> Iterator[None]:
        """Ops of the mapped types created inside take the gradient registered (with
        ``tf.RegisterGradient``) under the mapped name: ``{"Square": "MySquareGrad"}``."""
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        with self._pushed("gradient_override", dict(op_type_map)):
            yield

    # -- ops ------------------------------------------------------------------------------
    def create_op(self, op_type: str, inputs: Sequence[Tensor],
                  dtypes: Sequence[_dtypes.DType], attrs: Optional[Dict[str, Any]] = None,
                  name: Optional[str] = None, shapes: Optional[Sequence[Any]] = None,
                  control_inputs: Sequence[Operation] = ()) -> Operation:
        """Adds an op. Shapes come from the registered shape function unless given."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"Input to {op_type} must be a Tensor, got {type(t).__name__}")
            if t.graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op "
                                 f"{name or op_type} being created.")
        with self._lock:
            op_name = self.unique_name(name or op_type)
            ctrl = list(control_inputs)
            for c in self._current_control_inputs():
                if c not in ctrl:
                    ctrl.append(c)
            op = Operation(self, op_type, op_name, inputs, [_dtypes.as_dtype(d) for d in dtypes],
                           dict(attrs or {}), "", ctrl)
            op._frames = op_traceback.user_frames()
            for override in reversed(self._stack("gradient_override")):
                if op_type in override:
                    op.attrs["_gradient_op_type"] = override[op_type]
                    break
            containers = self._stack("container")
            if containers and op.attrs.get("container") == "":
                op.attrs["container"] = containers[-1]
            coloc = [c for c in self._stack("colocate") if c is not None]
            if coloc:
                target = coloc[-1]
                op.attrs["_class"] = target.colocation_groups()
                op._device = target.device
            else:
                self._apply_device(op)
            if shapes is not None:
                for t, s in zip(op._outputs, shapes):
                    t._shape = as_shape(s)
            elif op.op_def.shape_fn is not None:
                try:
                    out_shapes = op.op_def.shape_fn(op)
                except ValueError as e:
                    raise ValueError(f"{e} for '{op_name}' (op: '{op_type}') with input shapes: "
                                     f"{', '.join(str(t.shape) for t in inputs)}.") from None
                for t, s in zip(op._outputs, out_shapes):
                    t._shape = as_shape(s)
            self._ops.append(op)
            self._ops_by_name[op_name] = op
            self._version += 1
        for observe in _CREATION_HOOKS + self._stack("op_observers"):
            observe(op)
        return op

    def observing_ops(self, observer: Callable[[Operation], None]) -> Any:
        """A context in which ``observer(op)`` is called for every op this thread creates
        in this graph (``GradientTape`` records its ops this way)."""
        return self._pushed("op_observers", observer)

    def add_imported_op(self, op_type: str, name: str, inputs: Sequence[Tensor],
                        output_dtypes: Sequence[_dtypes.DType], output_shapes: Sequence[Any],
                        attrs: Dict[str, Any], device: str,
                        control_inputs: Sequence[Operation]) -> Operation:
        """Adds an op exactly as described (name, device, output shapes kept), as an
        import does; no scope, device function or control context applies."""
        with self._lock:
            if name in self._ops_by_name:
                raise ValueError(f"duplicate node name {name!r}")
            op = Operation(self, op_type, name, inputs, output_dtypes, attrs, device,
                           control_inputs)
            for t, s in zip(op._outputs, output_shapes):
                t._shape = as_shape(s)
            self._ops.append(op)
            self._ops_by_name[name] = op
            self._names_in_use[name.lower()] = 1
            self._version += 1
        return op

    def has_operation(self, name: str) -> bool:
        """Whether an op named ``name`` exists in this graph."""
        return name in self._ops_by_name

    def release_name(self, name: str) -> None:
        """Frees ``name`` claimed by a name scope so one op can take it exactly."""
        with self._lock:
            if name in self._ops_by_name:
                raise ValueError(f"An op named {name!r} already exists in the graph")
            self._names_in_use.pop(name.lower(), None)

    def move_operations(self, ops: Sequence[Operation], position: int) -> None:
        """Puts ``ops`` (in that order) at ``position`` of the op order, keeping the order
        of the ops after it; graph order must stay topological."""
        with self._lock:
            moved = set(ops)
            rest = [op for op in self._ops[position:] if op not in moved]
            self._ops[position:] = list(ops) + rest
            self._version += 1

    def remove_operations(self, ops: Any, collection_starts: Optional[Dict[str, int]] = None
                          ) -> None:
        """Removes ``ops`` and the collection entries naming them, from each collection's
        ``collection_starts`` position on (0 when not given)."""
        body = set(ops)
        starts = collection_starts or {}
        with self._lock:
            self._ops[:] = [op for op in self._ops if op not in body]
            for op in body:
                self._ops_by_name.pop(op.name, None)
            for key, items in self._collections.items():
                start = starts.get(key, 0)
                items[start:] = [x for x in items[start:]
                                 if not (isinstance(x, (Tensor, Operation))
                                         and (x.op if isinstance(x, Tensor) else x) in body)]
            self._version += 1

    def get_operations(self) -> List[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        try:
            return self._ops_by_name[name]
        except KeyError:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name: str) -> Tensor:
        op_name, _, idx = name.rpartition(":")
        if not op_name or not idx.isdigit():
            raise ValueError(f"Tensor names look like 'op:0', got {name!r}")
        op = self.get_operation_by_name(op_name)
        if int(idx) >= len(op.outputs):
            raise KeyError(f"Operation {op_name!r} has only {len(op.outputs)} outputs")
        return op.outputs[int(idx)]

    def as_graph_element(self, obj: Any, allow_tensor: bool = True,
                         allow_operation: bool = True) -> Union[Tensor, Operation]:
        """Resolves a Tensor, Operation, name or convertible object in this graph."""
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None:
            obj = conv()
        if isinstance(obj, str):
            obj = self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError(f"{obj} is not an element of this graph.")
            if isinstance(obj, Tensor) and not allow_tensor:
                raise TypeError(f"Expected an Operation, got Tensor {obj.name}")
            if isinstance(obj, Operation) and not allow_operation:
                raise TypeError(f"Expected a Tensor, got Operation {obj.name}")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    # -- collections ----------------------------------------------------------------------
    def add_to_collection(self, name: str, value: Any) -> None:
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Sequence[str], value: Any) -> None:
        for n in ([names] if isinstance(names, str) else names):
            self.add_to_collection(n, value)

    def get_collection(self, name: str, scope: Optional[str] = None) -> List[Any]:
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pat = re.compile(scope)
        return [i for i in items if pat.match(getattr(i, "name", "") or "")]

    def get_collection_ref(self, name: str) -> List[Any]:
        return self._collections.setdefault(name, [])

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    def get_all_collection_keys(self) -> List[str]:
        return list(self._collections)

    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        """Makes this graph the default for ops created in this thread."""
        _default_stack().append(self)
        try:
            yield self
        finally:
            _default_stack().pop()

    def as_graph_def(self, from_version: Optional[int] = None,
                     add_shapes: bool = False) -> Dict[str, Any]:
        """The graph as a ``GraphDef`` (a plain-data dict; output shapes always kept)."""
        if from_version is not None:
            raise ValueError("as_graph_def: from_version is not supported; the whole graph "
                             "is returned")
        return _graph_def_writers()[0](self)


_global_default_graph: Optional[Graph] = None
_local = threading.local()

# Process-wide ``hook(op)`` calls for every op any graph creates (``tf.debugging.
# enable_check_numerics`` marks ops this way).
_CREATION_HOOKS: List[Callable[[Operation], None]] = []


def add_op_creation_hook(hook: Callable[[Operation], None]) -> None:
    """Calls ``hook(op)`` for every op created from now on, in any graph and thread."""
    if hook not in _CREATION_HOOKS:
        _CREATION_HOOKS.append(hook)


def remove_op_creation_hook(hook: Callable[[Operation], None]) -> None:
    """Stops calling ``hook`` (no error when it is not installed)."""
    if hook in _CREATION_HOOKS:
        _CREATION_HOOKS.remove(hook)


def _default_stack() -> List[Graph]:
    st = getattr(_local, "stack", None)
    if st is None:
        st = _local.stack = []
    return st


def get_default_graph() -> Graph:
    """The innermost graph opened with ``as_default`` in this thread, else the global one."""
    global _global_default_graph
    st = _default_stack()
    if st:
        return st[-1]
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    """Replaces the global default graph with a new empty one."""
    global _global_default_graph
    if _default_stack():
        raise AssertionError("Do not use tf.reset_default_graph() inside a graph's "
                             "as_default() block.")
    _global_default_graph = Graph()


# An Operation has no value to convert; registered first, so it wins over every other rule.
def _refuse_operation(value: Operation, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    raise TypeError(f"Can't convert Operation '{value.name}' to Tensor")


register_tensor_conversion_function(Operation, _refuse_operation)

_graph_def_fns: Optional[tuple] = None


def _register_graph_def_fns(graph_def_of: Callable[["Graph"], Any],
                            node_def_of: Callable[[Operation], Any]) -> None:
    # GraphDef/NodeDef coding lives in framework.graph_def, a layer above this one
    # (it rebuilds Graphs when it reads sub-graph attrs); it hands its writers down here.
    global _graph_def_fns
    _graph_def_fns = (graph_def_of, node_def_of)


def _graph_def_writers() -> tuple:
    if _graph_def_fns is None:
        raise RuntimeError("tensorfleet.framework.graph_def is not loaded; import tensorfleet")
    return _graph_def_fns


def name_scope(name: Optional[str], default_name: Optional[str] = None,
               values: Any = None) -> Any:
    """``tf.name_scope``: opens a scope on the default graph."""
    return get_default_graph().name_scope(name if name is not None else default_name)


def device(device_name_or_function: Any) -> Any:
    """``tf.device``: a device scope on the default graph."""
    return get_default_graph().device(device_name_or_function)


def container(container_name: str) -> Any:
    """``tf.container``: a resource-container scope on the default graph."""
    return get_default_graph().container(container_name)


def control_dependencies(control_inputs: Any) -> Any:
    """``tf.control_dependencies`` on the default graph."""
    return get_default_graph().control_dependencies(control_inputs)


def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    """``tf.colocate_with`` on the default graph."""
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name: str, value: Any) -> None:
    """``tf.add_to_collection`` on the default graph."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Sequence[str], value: Any) -> None:
    """``tf.add_to_collections`` on the default graph."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: Optional[str] = None) -> List[Any]:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> List[Any]:
    return get_default_graph().get_collection_ref(key)


def set_random_seed(seed: Optional[int]) -> None:
    """Sets the graph-level seed of the default graph."""
    get_default_graph().seed = seed


def get_seed(op_seed: Optional[int]) -> tuple:
    """The (graph seed, op seed) pair an op should use, following TensorFlow's rules."""
    g = get_default_graph()
    if g.seed is not None:
        return g.seed, (op_seed if op_seed is not None else g._id_counter + 1)
    if op_seed is not None:
        return 87654321, op_seed
    return None, None


__all__ = [
    "Tensor", "Operation", "Graph", "GraphKeys", "get_default_graph", "reset_default_graph",
    "add_op_creation_hook", "remove_op_creation_hook",
    "convert_to_tensor", "register_tensor_conversion_function", "name_scope", "device",
    "control_dependencies", "container", "colocate_with", "add_to_collection",
    "add_to_collections", "get_collection", "get_collection_ref", "set_random_seed",
    "get_seed"]
