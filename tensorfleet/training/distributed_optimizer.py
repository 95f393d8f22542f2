"""All-reduce training for graph programs: wrap the optimizer, broadcast the variables.

``DistributedOptimizer(opt)`` computes the gradients with ``opt`` and then
averages each of them over every rank of the group before ``opt`` applies it,
so that each process (a *rank*) runs the same program on its own slice of the
data and every rank keeps identical variables. Nothing else in the program
changes; parameter servers are not needed.

How the reductions are scheduled: gradients are taken in the order backprop
produces them (the last layer first) and packed into buckets of up to
``fusion_threshold_bytes`` (tensor fusion). Each bucket gets a
``CollectiveAllReduceStart`` op that the executor runs as soon as the bucket's
last gradient is computed, so its bytes travel while the earlier layers'
gradients are still being computed; the ``CollectiveAllReduceWait`` ops that
feed the update ops run only once every bucket has started.

Variables must start equal on every rank: run ``broadcast_global_variables(0)``
once after initialization, or give ``BroadcastGlobalVariablesHook(0)`` to a
``MonitoredTrainingSession``.

Layering note: this module sits in ``collectives/`` but builds on ``training/``
(it subclasses ``Optimizer`` and ``SessionRunHook``); nothing in ``training/``
imports it.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import collective_ops, state_ops
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.session_run_hook import SessionRunHook
from tensorfleet.collectives import registry, strategy
from tensorfleet.collectives.buckets import plan_buckets, static_nbytes
from tensorfleet.ops.array_indexing_ops import unsorted_segment_sum
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.variables import global_variables

logger = logging.getLogger(__name__)

DEFAULT_FUSION_THRESHOLD = 64 << 20


class Compression:
    """Wire compression of gradients: ``Compression.none`` or ``Compression.fp16``."""

    none = "none"
    fp16 = "fp16"


def _default_group_key() -> str:
    current = strategy.current_strategy()
    return current.group_key if current is not None else collective_ops.DEFAULT_GROUP_KEY


def _schedule_when_ready(op: Operation, order: float) -> None:
    """Makes the executor run ``op`` as soon as its inputs are computed.

    The local executor breaks ties between ready ops by creation order, and a
    start op is created after every gradient op, so by default it would run
    last and nothing would overlap. Giving it a position just after its latest
    input makes it run right after that input (``order`` keeps positions
    distinct). Only the scheduling changes, never what is computed.
    """
    latest = max((t.op.schedule_key for t in op.inputs), default=op.schedule_key)
    op.set_schedule_key(latest + 0.5 + order * 1e-6)


class DistributedOptimizer(Optimizer):
    """Wraps ``optimizer`` so that gradients are averaged over the group before applying.

    Args:
      optimizer: the optimizer that computes and applies the gradients.
      name: name of this optimizer's ops (default ``Distributed<Name>``).
      compression: ``Compression.fp16`` sends float gradients as float16.
      sparse_as_dense: reduce ``IndexedSlices`` gradients as dense tensors
        (otherwise their rows and indices are all-gathered).
      op: ``"mean"`` (default) or ``"sum"`` over the ranks.
      fusion_threshold_bytes: the largest fused buffer; 0 reduces each
        gradient on its own.
      overlap: start each bucket's reduction as soon as its gradients are
        ready (default); False reduces all buckets after the backward pass.
      group_key: the collective group (default: the current strategy's, else
        ``"default"``, created from ``TF_CONFIG`` on first use).
      timeout: seconds a rank may stay silent before the step fails.
    """

    def __init__(self, optimizer: Optimizer, name: Optional[str] = None,
                 use_locking: bool = False, compression: str = Compression.none,
                 sparse_as_dense: bool = False, op: str = "mean",
                 fusion_threshold_bytes: int = DEFAULT_FUSION_THRESHOLD,
                 overlap: bool = True, group_key: Optional[str] = None,
                 timeout: Optional[float] = None):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"DistributedOptimizer wraps a tf.train.Optimizer, got {optimizer!r}")
        super().__init__(use_locking, name or f"Distributed{optimizer.get_name()}")
        reduction = {"average": "mean", "avg": "mean", "add": "sum"}.get(str(op).lower(),
                                                                          str(op).lower())
        if reduction not in ("mean", "sum"):
            raise ValueError(f"op must be 'mean' or 'sum', got {op!r}")
        self._optimizer = optimizer
        self._compression = compression or Compression.none
        self._sparse_as_dense = bool(sparse_as_dense)
        self._reduction = reduction
        self._threshold = int(fusion_threshold_bytes)
        self._overlap = bool(overlap)
        self._group_key = group_key
        self._timeout = timeout

    # -- gradients ------------------------------------------------------------------------
    def compute_gradients(self, *args: Any, **kwargs: Any) -> List[Tuple[Any, Any]]:
        """The wrapped optimizer's gradients, each averaged (or summed) over the group."""
        grads_and_vars = self._optimizer.compute_gradients(*args, **kwargs)
        return self.reduce_gradients(grads_and_vars)

    def reduce_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]]
                         ) -> List[Tuple[Any, Any]]:
        """Adds the all-reduce ops for ``grads_and_vars``; returns the reduced pairs."""
        pairs = list(grads_and_vars)
        key = self._group_key or _default_group_key()
        graph = next((g.graph for g, _ in pairs if g is not None), None)
        if graph is None:
            return pairs
        out = list(pairs)
        with graph.as_default(), graph.name_scope(self._name + "_Allreduce"):
            dense: List[int] = []
            for i, (g, v) in enumerate(pairs):
                if g is None:
                    continue
                if isinstance(g, IndexedSlices):
                    if self._sparse_as_dense:
                        out[i] = (self._densify(g, v), v)
                        dense.append(i)
                    else:
                        out[i] = (self._reduce_sparse(g, key), v)
                else:
                    out[i] = (convert_to_tensor(g), v)
                    dense.append(i)
            self._reduce_dense(out, dense, key)
        return out

    def _densify(self, g: IndexedSlices, var: Any) -> Tensor:
        rows = var.get_shape().as_list()[0]
        if rows is None:
            raise ValueError(f"sparse_as_dense needs the first dimension of {var.name}")
        return unsorted_segment_sum(g.values, g.indices, rows)

    def _reduce_sparse(self, g: IndexedSlices, key: str) -> IndexedSlices:
        values = collective_ops.all_gather(g.values, key, self._timeout)
        indices = collective_ops.all_gather(g.indices, key, self._timeout)
        if self._reduction == "mean":
            n = registry.get_group(key).size
            values = values * (1.0 / n)
        return IndexedSlices(values, indices, g.dense_shape)

    def _reduce_dense(self, out: List[Tuple[Any, Any]], dense: List[int], key: str) -> None:
        if not dense:
            return
        # Backprop order: the executor runs gradient ops in creation order.
        dense.sort(key=lambda i: out[i][0].op.schedule_key)
        grads = [out[i][0] for i in dense]
        buckets = plan_buckets([(static_nbytes(g), g.dtype.name) for g in grads],
                                      self._threshold)
        logger.debug("reducing %d gradients in %d buckets", len(grads), len(buckets))
        if not self._overlap:
            for b in buckets:
                reduced = collective_ops.all_reduce(
                    [grads[k] for k in b], self._reduction, key, self._compression,
                    self._timeout)
                for k, t in zip(b, reduced):
                    out[dense[k]] = (t, out[dense[k]][1])
            return
        handles = []
        for j, b in enumerate(buckets):
            h = collective_ops.all_reduce_start([grads[k] for k in b], self._reduction, key,
                                                self._compression, self._timeout)
            _schedule_when_ready(h.op, j)
            handles.append(h)
        graph = grads[0].graph
        # Waiting starts only once every bucket is under way.
        all_started = group(*[h.op for h in handles], name="all_started")
        for b, h in zip(buckets, handles):
            with graph.control_dependencies([all_started]):
                reduced = collective_ops.all_reduce_wait(
                    h, [grads[k].dtype for k in b], [grads[k].shape for k in b])
            for k, t in zip(b, reduced):
                out[dense[k]] = (t, out[dense[k]][1])

    # -- everything else is the wrapped optimizer's ---------------------------------------
    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], global_step: Any = None,
                        name: Optional[str] = None) -> Operation:
        """Applies the (already reduced) gradients with the wrapped optimizer."""
        return self._optimizer.apply_gradients(grads_and_vars, global_step=global_step,
                                               name=name)

    def get_slot(self, var: Any, name: str) -> Any:
        """The wrapped optimizer's slot ``name`` of ``var``."""
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self) -> List[str]:
        """The wrapped optimizer's slot names."""
        return self._optimizer.get_slot_names()

    def variables(self) -> List[Any]:
        """The wrapped optimizer's variables."""
        return self._optimizer.variables()


def broadcast_variables(variables: Sequence[Any], root_rank: int = 0,
                        group_key: Optional[str] = None, name: Optional[str] = None
                        ) -> Operation:
    """An op that sets ``variables`` on every rank to their values on ``root_rank``.

    The values travel fused, one buffer per dtype.
    """
    variables = list(variables)
    if not variables:
        return group(name=name or "broadcast_variables")
    key = group_key or _default_group_key()
    graph = variables[0].op.graph
    with graph.as_default(), graph.name_scope(name or "broadcast_variables"):
        values = collective_ops.broadcast([v.read_value() for v in variables], root_rank, key)
        if not isinstance(values, list):
            values = [values]
        assigns = [state_ops.assign(v, val) for v, val in zip(variables, values)]
        return group(*assigns, name="assign_all")


def broadcast_global_variables(root_rank: int = 0, group_key: Optional[str] = None) -> Operation:
    """``broadcast_variables`` of every global variable of the default graph."""
    return broadcast_variables(global_variables(), root_rank, group_key,
                               name="broadcast_global_variables")


class BroadcastGlobalVariablesHook(SessionRunHook):
    """Broadcasts every global variable from ``root_rank`` when a session is created.

    Give it to ``MonitoredTrainingSession(hooks=[...])`` on every rank, so that
    all ranks start from the root's initial values (and from its restored
    checkpoint after a recovery).
    """

    def __init__(self, root_rank: int = 0, device: str = "", group_key: Optional[str] = None):
        self.root_rank = root_rank
        self.device = device
        self.group_key = group_key
        self._op: Optional[Operation] = None

    def begin(self) -> None:
        """Adds the broadcast op (the graph is not finalized yet)."""
        if self._op is None:
            graph = get_default_graph()
            with graph.device(self.device) if self.device else contextlib.nullcontext():
                self._op = broadcast_global_variables(self.root_rank, self.group_key)

    def after_create_session(self, session: Any, coord: Any) -> None:
        """Runs the broadcast on the new session."""
        if self._op is not None:
            session.run(self._op)


__all__ = ["DEFAULT_FUSION_THRESHOLD", "plan_buckets", "Compression", "DistributedOptimizer", "broadcast_variables",
           "broadcast_global_variables", "BroadcastGlobalVariablesHook"]
