"""``tf.GradientTape`` as TensorFlow 1.x graph-mode programs use it.

In graph mode the tape records the ops the thread creates in the default graph while
it is active (and not inside ``stop_recording``). ``gradient`` then builds gradient
ops with ``tf.gradients`` semantics, restricted to the recorded ops: gradients flow
only through ops created under the tape, so a tensor computed before the tape (or
while recording was stopped) counts as a constant, and a source gets a gradient only
when it is watched -- explicitly with ``watch``, or, with
``watch_accessed_variables=True``, a trainable variable read by a recorded op.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Dict, Iterator, List, Optional, Set

from tensorfleet.framework import nest
from tensorfleet.framework.graph import (Graph, Operation, Tensor, convert_to_tensor,
                                         get_default_graph)
from tensorfleet.framework.graph_keys import GraphKeys
from tensorfleet.gradients.gradients_impl import gradients
from tensorfleet.gradients.unconnected_gradients import as_unconnected, fill_unconnected
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.ops.variables import Variable

_log = logging.getLogger(__name__)


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


class GradientTape:
    """Records the ops created in its scope so ``gradient`` can differentiate them.

    Args:
      persistent: allow more than one ``gradient``/``jacobian`` call.
      watch_accessed_variables: watch every trainable variable that a recorded op reads.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._recorded: Set[Operation] = set()
        self._order: List[Operation] = []
        self._watched: List[Any] = []
        self._recording = False
        self._used = False
        self._graph: Optional[Graph] = None
        self._scope: Optional[contextlib.ExitStack] = None

    # -- recording --------------------------------------------------------------------
    def _observe(self, op: Operation) -> None:
        if self._recording:
            self._recorded.add(op)
            self._order.append(op)

    def __enter__(self) -> "GradientTape":
        if self._scope is not None:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        graph = get_default_graph()
        if self._graph is not None and graph is not self._graph:
            raise ValueError("A GradientTape records one graph; it was first entered in "
                             "another graph than the current default graph")
        self._graph = graph
        self._scope = contextlib.ExitStack()
        self._scope.enter_context(graph.observing_ops(self._observe))
        self._recording = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self._recording = False
        scope, self._scope = self._scope, None
        if scope is not None:
            scope.close()

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops created in this block are not recorded (they act as constants)."""
        if not self._recording:
            raise ValueError("Tape must be recording when stop_recording is called; "
                             "use it inside the tape's `with` block")
        self._recording = False
        try:
            yield
        finally:
            self._recording = True

    def reset(self) -> None:
        """Forgets everything recorded and watched so far (keeps recording if active)."""
        self._recorded.clear()
        self._order.clear()
        self._watched.clear()
        self._used = False

    def watch(self, tensor: Any) -> None:
        """Makes ``tensor`` (a tensor, a variable or a nested structure of them) a source
        whose gradient ``gradient`` computes."""
        for t in nest.flatten(tensor):
            if not (_is_variable(t) or isinstance(t, Tensor)):
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 f"tf.Tensor or tf.Variable")
            dtype = t.dtype.base_dtype if hasattr(t.dtype, "base_dtype") else t.dtype
            if not (dtype.is_floating or dtype.is_complex):
                _log.warning("The dtype of the watched tensor must be floating (e.g. "
                             "tf.float32), got %r", dtype)
            if not any(t is w for w in self._watched):
                self._watched.append(t)

    def _variables_by_tensor(self) -> Dict[Tensor, Variable]:
        graph = self._graph or get_default_graph()
        out: Dict[Tensor, Variable] = {}
        for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES,
                    GraphKeys.TRAINABLE_VARIABLES):
            for v in graph.get_collection(key):
                if _is_variable(v):
                    out.setdefault(v.value(), v)
                    out.setdefault(v._ref(), v)
        return out

    def watched_variables(self) -> List[Variable]:
        """The variables this tape watches: those passed to ``watch`` and, with
        ``watch_accessed_variables``, the trainable ones recorded ops read, in order."""
        out: List[Variable] = [w for w in self._watched if _is_variable(w)]
        if self._watch_accessed:
            by_tensor = self._variables_by_tensor()
            for op in self._order:
                for t in op.inputs:
                    v = by_tensor.get(t)
                    if v is not None and v.trainable and not any(v is o for o in out):
                        out.append(v)
        return out

    def _is_watched(self, source: Any, accessed: List[Variable]) -> bool:
        if any(source is w for w in self._watched):
            return True
        if _is_variable(source):
            return any(source is v for v in accessed)
        # A variable's value tensor stands for the variable.
        by_tensor = self._variables_by_tensor()
        v = by_tensor.get(source)
        return v is not None and any(v is a for a in accessed)

    # -- differentiation --------------------------------------------------------------
    def _check_use(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute "
                               "one set of gradients (or jacobians)")
        self._used = True
        if self._recording and self._persistent:
            _log.warning("Calling GradientTape.gradient on a persistent tape inside its "
                         "context is significantly less efficient than calling it outside "
                         "the context (it causes the gradient ops to be recorded on the "
                         "tape, leading to increased CPU and memory usage).")

    def _stops(self, targets: List[Tensor]) -> List[Tensor]:
        """One output of every unrecorded op above ``targets``: gradients stop there."""
        stops: List[Tensor] = []
        seen: Set[Operation] = set()
        stack = [t.op for t in targets]
        while stack:
            op = stack.pop()
            if op in seen:
                continue
            seen.add(op)
            if op not in self._recorded:
                if op.outputs:
                    stops.append(op.outputs[0])
                continue
            stack.extend(t.op for t in op.inputs)
        return stops

    def _grads(self, targets: List[Tensor], sources: List[Any],
               output_gradients: Optional[List[Any]]) -> List[Any]:
        accessed = self.watched_variables()
        watched = [self._is_watched(s, accessed) for s in sources]
        xs = [convert_to_tensor(s) for s, w in zip(sources, watched) if w]
        if not xs:
            return [None] * len(sources)
        got = iter(gradients(targets, xs, grad_ys=output_gradients, name="gradient_tape",
                             stop_gradients=self._stops(targets) or None))
        return [next(got) if w else None for w in watched]

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = "none") -> Any:
        """Gradients of ``target`` (a tensor or nested structure; summed) with respect to
        ``sources``, in the structure of ``sources``.

        Raises:
          RuntimeError: on a second call of a non-persistent tape.
          ValueError: for an unknown ``unconnected_gradients``.
        """
        as_unconnected(unconnected_gradients)
        self._check_use()
        targets = [convert_to_tensor(t) for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if not (_is_variable(s) or isinstance(s, Tensor)):
                raise ValueError(f"GradientTape.gradient sources must be tensors or "
                                 f"variables, got {type(s).__name__}")
        grad_ys = None
        if output_gradients is not None:
            grad_ys = [None if g is None else convert_to_tensor(g)
                       for g in nest.flatten(output_gradients)]
            if len(grad_ys) != len(targets):
                raise ValueError(f"output_gradients has {len(grad_ys)} entries for "
                                 f"{len(targets)} targets")
        grads = self._grads(targets, flat_sources, grad_ys)
        grads = fill_unconnected(grads, flat_sources, unconnected_gradients)
        return nest.pack_sequence_as(sources, grads)

    def _static_size(self, t: Tensor, what: str) -> List[int]:
        dims = t.shape.as_list() if t.shape.ndims is not None else None
        if dims is None or any(d is None for d in dims):
            raise ValueError(f"GradientTape.{what} needs a target of fully known static "
                             f"shape in graph mode, got {t.shape}")
        return dims

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = "none",
                 parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """``d target[i...] / d source[j...]`` of shape ``target.shape + source.shape`` for
        each source, built one target element at a time (the target's shape must be
        static)."""
        as_unconnected(unconnected_gradients)
        self._check_use()
        y = convert_to_tensor(target)
        dims = self._static_size(y, "jacobian")
        flat_sources = nest.flatten(sources)
        n = 1
        for d in dims:
            n *= d
        with self._paused():
            with self._adopting():
                flat_y = array_ops.reshape(y, [-1])
                elems = [flat_y[i] for i in range(n)]
            rows = [self._grads([e], flat_sources, None) for e in elems]
            out = []
            for k, s in enumerate(flat_sources):
                st = convert_to_tensor(s)
                if all(r[k] is None for r in rows):
                    out.append(None if as_unconnected(unconnected_gradients).value == "none"
                               else array_ops.zeros(dims + st.shape.as_list(), st.dtype))
                    continue
                parts = [array_ops.zeros_like(st) if r[k] is None else convert_to_tensor(r[k])
                         for r in rows]
                joined = array_ops.stack(parts) if parts else array_ops.zeros([0], st.dtype)
                out.append(array_ops.reshape(joined, dims + _dims(st)))
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target: Tensor, source: Tensor,
                       unconnected_gradients: Any = "none", parallel_iterations: Any = None,
                       experimental_use_pfor: bool = True) -> Optional[Tensor]:
        """``d target[b, i...] / d source[b, j...]`` of shape
        ``[batch] + target.shape[1:] + source.shape[1:]``, assuming example ``b`` of the
        target depends only on example ``b`` of the source (as TensorFlow does)."""
        as_unconnected(unconnected_gradients)
        self._check_use()
        y = convert_to_tensor(target)
        dims = self._static_size(y, "batch_jacobian")
        x = convert_to_tensor(source)
        if len(dims) < 1 or x.shape.ndims is None or x.shape.ndims < 1:
            raise ValueError("batch_jacobian needs a target and a source of rank >= 1")
        batch = x.shape.as_list()[0]
        if batch is not None and batch != dims[0]:
            raise ValueError(f"Need first dimension of target shape ({dims[0]}) and source "
                             f"shape ({batch}) to match.")
        m = 1
        for d in dims[1:]:
            m *= d
        with self._paused():
            with self._adopting():
                per_example = array_ops.reshape(y, [dims[0], m])
                sums = [math_ops.reduce_sum(per_example[:, j]) for j in range(m)]
            cols = [self._grads([e], [source], None)[0] for e in sums]
            if all(c is None for c in cols):
                if as_unconnected(unconnected_gradients).value == "none":
                    return None
                return array_ops.zeros(dims + x.shape.as_list()[1:], x.dtype)
            cols = [array_ops.zeros_like(x) if c is None else convert_to_tensor(c)
                    for c in cols]
            stacked = array_ops.stack(cols, axis=1)
            return array_ops.reshape(stacked, dims + _dims(x)[1:])

    def _adopting(self) -> Any:
        """Ops created in this block count as recorded (the slices a jacobian takes of
        its target)."""
        return (self._graph or get_default_graph()).observing_ops(self._recorded.add)

    @contextlib.contextmanager
    def _paused(self) -> Iterator[None]:
        was, self._recording = self._recording, False
        try:
            yield
        finally:
            self._recording = was


def _dims(x: Tensor) -> List[int]:
    """The static dimensions of ``x`` as a reshape target (-1 for one unknown)."""
    if x.shape.ndims is None:
        raise ValueError(f"GradientTape: the source {x.name} needs a known rank")
    return [-1 if d is None else d for d in x.shape.as_list()]


__all__ = ["GradientTape"]
