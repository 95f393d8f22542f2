"""``tf.train.SyncReplicasOptimizer``: synchronous data-parallel training.

Every worker of a between-graph replicated job wraps its optimizer::

    opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=num_workers)
    train_op = opt.minimize(loss, global_step=global_step)
    hook = opt.make_session_run_hook(is_chief, num_tokens=0)

How a step goes:

* Each variable gets a gradient accumulator on the variable's own task (shared
  by every worker through its ``shared_name``), and each worker a
  ``sync_rep_local_step`` variable on its own task (LOCAL_VARIABLES): the global
  step its current parameters were read at.
* A worker's train op applies its gradients to the accumulators, tagged with its
  local step, then dequeues a token from the shared token queue (on the global
  step's task) and makes the token its new local step. It blocks there until the
  chief finished the step.
* The chief runs a loop (``get_chief_queue_runner``) that takes the average of
  ``replicas_to_aggregate`` gradients from every accumulator, applies it with the
  wrapped optimizer (which increments the global step), moves every
  accumulator's global step to the new one, which drops gradients computed
  before the update, and enqueues tokens carrying the new global step.

Backup workers. The chief enqueues ``max(total_num_replicas,
replicas_to_aggregate)`` tokens per step, one for every replica: each of them can
start the next step at once, the first ``replicas_to_aggregate`` gradients make
the step, and those of the slowest replicas arrive stale and are dropped. With
only ``replicas_to_aggregate`` tokens a slow replica holding one of them would
hold the next step back, which is what backup workers are there to avoid. A
replica that never runs leaves one token per step in the queue; the others
consume it and compute a gradient that is dropped, so progress never waits on it.

Ending. TF's chief blocks in ``take_grad`` forever once the workers stop, and
workers still waiting for a token block forever once the chief stops. Here the
chief's hook, at ``end()`` (and its queue runner, when the coordinator is asked
to stop), runs ``close_op``: it closes every accumulator, which fails the chief's
pending ``take_grad`` with CancelledError, ending its loop quietly, and makes
later gradients be dropped; and it closes the token queue, so the workers still
waiting for a token, or asking for one later, get OutOfRangeError, which
``MonitoredSession`` treats as a clean end of training. With backup workers the
faster replicas may take every token of the last steps and stop at the last step
while the chief still waits for a token; a replica's hook therefore leaves one token
behind at ``end()``, so the chief's pending step completes and it sees the last step.
Closed accumulators and
a closed token queue stay closed on their parameter servers: a new synchronous
job needs fresh parameter servers (or ``tf.Session.reset``).
"""

from __future__ import annotations

import logging
import numbers
import threading
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.framework.graph import GraphKeys, Operation, Tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.training import gradient_compression
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.session_run_hook import SessionRunHook
from tensorfleet.ops import array_ops, control_flow_ops, state_ops, variables
from tensorfleet.ops.accumulator_ops import ConditionalAccumulator, SparseConditionalAccumulator
from tensorfleet.ops.data_flow_ops import FIFOQueue
from tensorfleet.ops.variables import Variable
from tensorfleet.training.queue_runner import QueueRunner

logger = logging.getLogger(__name__)

TOKEN_QUEUE_NAME = "sync_token_q"
LOCAL_STEP_NAME = "sync_rep_local_step"
THREAD_JOIN_SECS = 10.0


def _check_count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")
    return int(value)


class SyncReplicasOptimizer(Optimizer):
    """Aggregates gradients from replicas and applies their average once per step.

    Args:
      opt: the optimizer that applies the averaged gradients.
      replicas_to_aggregate: gradients averaged per step.
      total_num_replicas: workers computing gradients; more than
        ``replicas_to_aggregate`` makes the extra ones backup workers. Defaults to
        ``replicas_to_aggregate``.
      variable_averages: optional ``ExponentialMovingAverage`` whose ``apply`` the
        chief runs after every step.
      variables_to_average: the variables ``variable_averages`` tracks.
      use_locking: unused (the wrapped optimizer's own setting applies).
      name: prefix of the ops this optimizer creates.
      compression: how each worker's gradients travel to the accumulators on the
        variables' tasks: ``None``/``"none"`` (as computed, the default),
        ``"float16"`` or ``"bfloat16"`` (half the bytes of float32; see
        ``training.gradient_compression``). The average is taken and applied in the
        variables' dtype. Any other value raises ValueError.
    """

    def __init__(self, opt: Optimizer, replicas_to_aggregate: int,
                 total_num_replicas: Optional[int] = None, variable_averages: Any = None,
                 variables_to_average: Optional[Sequence[Any]] = None,
                 use_locking: bool = False, name: str = "sync_replicas",
                 compression: Optional[str] = None):
        self._compression = gradient_compression.check_compression(compression)
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = _check_count(replicas_to_aggregate,
                                                   "replicas_to_aggregate")
        self._total_num_replicas = _check_count(total_num_replicas, "total_num_replicas")
        self._tokens_per_step = max(self._total_num_replicas, self._replicas_to_aggregate)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._gradients_applied = False
        self._global_step: Any = None
        self._sync_token_queue: Any = None
        self._chief_queue_runner: Any = None
        self._accumulator_list: List[Tuple[Any, Any]] = []
        self._local_step: Any = None
        self.chief_init_op: Optional[Operation] = None
        self.local_step_init_op: Optional[Operation] = None
        self.ready_for_local_init_op: Optional[Tensor] = None
        self.close_op: Optional[Operation] = None
        self.release_token_op: Optional[Operation] = None
        logger.info("SyncReplicasOptimizer: replicas_to_aggregate=%d, total_num_replicas=%d",
                    self._replicas_to_aggregate, self._total_num_replicas)

    # -- building ------------------------------------------------------------------------
    def compute_gradients(self, *args: Any, **kwargs: Any) -> List[Tuple[Any, Any]]:
        """The wrapped optimizer's ``compute_gradients``."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], global_step: Any = None,
                        name: Optional[str] = None) -> Operation:
        """Builds the worker's train op, and the chief's aggregation step beside it.

        Returns the train op each worker runs: apply its gradients to the
        accumulators, then wait for the token of the next step.

        Raises:
          ValueError: without gradients or ``global_step``, or when called twice.
        """
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        if not hasattr(global_step, "_ref"):
            raise TypeError(f"global_step must be a tf.Variable, got {global_step!r}")
        if self._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradients may be called only once")
        graph = global_step.op.graph
        self._global_step = global_step
        with graph.as_default():
            self._make_local_step(graph, global_step)
            train_ops: List[Operation] = []
            aggregated: List[Any] = []
            var_list: List[Any] = []
            with graph.name_scope(name or self._name):
                for grad, var in grads_and_vars:
                    var_list.append(var)
                    if grad is None:
                        aggregated.append(None)
                        continue
                    apply_op, taken = self._accumulate(graph, grad, var)
                    train_ops.append(apply_op)
                    aggregated.append(taken)
                if not train_ops:
                    raise ValueError("No gradients provided for any variable")
                with graph.control_dependencies(None), graph.name_scope(None), \
                        graph.colocate_with(global_step.op):
                    queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                                      name=TOKEN_QUEUE_NAME, shared_name=TOKEN_QUEUE_NAME)
                self._sync_token_queue = queue
                # Worker: the token is dequeued only once its gradients are in.
                with graph.control_dependencies(train_ops):
                    token = queue.dequeue()
                train_op = state_ops.assign(self._local_step, token, name="train_op").op

                # Chief: average, update (the wrapped optimizer increments the global
                # step), advance the accumulators' staleness threshold, then release
                # the replicas with tokens of the new step.
                update_op = self._opt.apply_gradients(list(zip(aggregated, var_list)),
                                                      global_step)
                with graph.control_dependencies([update_op]), \
                        graph.colocate_with(global_step.op):
                    new_step = global_step.read_value()
                set_ops = [acc.set_global_step(new_step) for acc, _ in self._accumulator_list]
                with graph.control_dependencies(set_ops), graph.colocate_with(global_step.op):
                    tokens = array_ops.fill([self._tokens_per_step], new_step)
                    sync_op = queue.enqueue_many((tokens,), name="sync_op")
                if self._variable_averages is not None:
                    with graph.control_dependencies([sync_op]):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                        if isinstance(sync_op, Tensor):
                            sync_op = sync_op.op

                with graph.control_dependencies(None):
                    init_ops = [self.local_step_init_op] + [
                        acc.set_global_step(global_step, name="SetGlobalStep")
                        for acc, _ in self._accumulator_list]
                    self.chief_init_op = control_flow_ops.group(*init_ops,
                                                                name="chief_init_op")
                    closers = [acc.close() for acc, _ in self._accumulator_list]
                    closers.append(queue.close(cancel_pending_enqueues=True))
                    self.close_op = control_flow_ops.group(*closers, name="close_op")
                    with graph.colocate_with(global_step.op):
                        self.release_token_op = queue.enqueue(
                            (global_step.read_value(),), name="release_token")
                    self.ready_for_local_init_op = variables.report_uninitialized_variables(
                        variables.global_variables())
                # Not added to QUEUE_RUNNERS: only the chief runs it (through the hook).
                self._chief_queue_runner = QueueRunner(queue, [sync_op],
                                                       cancel_op=self.close_op)
        coll = graph.get_collection_ref(GraphKeys.TRAIN_OP)
        if train_op not in coll:
            coll.append(train_op)
        self._gradients_applied = True
        return train_op

    def _make_local_step(self, graph: Any, global_step: Any) -> None:
        """This worker's local step: on the worker (colocated with an op the device
        scope places here, not with the variables on a parameter server)."""
        with graph.control_dependencies(None), graph.name_scope(None):
            anchor = control_flow_ops.no_op(name="sync_rep_local_anchor")
            with graph.colocate_with(anchor):
                self._local_step = Variable(
                    0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                    dtype=global_step.dtype.base_dtype, name=LOCAL_STEP_NAME)
            self.local_step_init_op = state_ops.assign(
                self._local_step, global_step, name="sync_rep_local_step_init").op

    def _accumulate(self, graph: Any, grad: Any, var: Any) -> Tuple[Operation, Any]:
        """The accumulator of ``var`` (on its task): this worker's apply op and the
        chief's averaged gradient."""
        grad = self._over_the_wire(graph, grad, var)
        with graph.colocate_with(var.op):
            if isinstance(grad, IndexedSlices):
                acc: Any = SparseConditionalAccumulator(
                    grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum")
                apply_op = acc.apply_indexed_slices_grad(grad, local_step=self._local_step)
                taken = acc.take_indexed_slices_grad(self._replicas_to_aggregate)
            elif isinstance(grad, Tensor):
                acc = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                             shared_name=var.name + "/grad_accum")
                apply_op = acc.apply_grad(grad, local_step=self._local_step)
                taken = acc.take_grad(self._replicas_to_aggregate)
            else:
                raise TypeError(f"Unsupported gradient type for {var.op.name}: {grad!r}")
        self._accumulator_list.append((acc, var))
        return apply_op, taken

    def _over_the_wire(self, graph: Any, grad: Any, var: Any) -> Any:
        """``grad`` compressed where it is computed and decompressed on ``var``'s task,
        so that only the transfer between them is narrower."""
        kind = self._compression
        if kind == gradient_compression.NONE:
            return grad
        values = grad.values if isinstance(grad, IndexedSlices) else grad
        if not isinstance(values, Tensor):
            return grad  # _accumulate reports the unsupported gradient
        with graph.colocate_with(values.op):
            wire = gradient_compression.compress(values, kind)
        with graph.colocate_with(var.op):
            values = gradient_compression.decompress(wire, kind, values.dtype)
        if isinstance(grad, IndexedSlices):
            return IndexedSlices(values, grad.indices, grad.dense_shape)
        return values

    # -- what the chief and the hook use ----------------------------------------------------
    def _require_applied(self, what: str) -> None:
        if not self._gradients_applied:
            raise ValueError(f"{what} should be called after apply_gradients().")

    def get_chief_queue_runner(self) -> Any:
        """The ``QueueRunner`` whose thread runs the chief's aggregation step in a loop.

        Its cancel op is ``close_op``, so a coordinator stop also ends a loop
        blocked waiting for gradients.
        """
        self._require_applied("get_chief_queue_runner")
        return self._chief_queue_runner

    def get_init_tokens_op(self, num_tokens: int = -1) -> Operation:
        """An op filling the token queue with ``num_tokens`` tokens of the current
        global step, so replicas may start that many steps without waiting.

        ``-1`` means ``replicas_to_aggregate``; when ``replicas_to_aggregate``
        exceeds ``total_num_replicas``, at least their difference is needed for
        the first step to complete.
        """
        self._require_applied("get_init_tokens_op")
        needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) "
                             f"vs {needed} (needed)")
        gs = self._global_step
        graph = gs.op.graph
        with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
            if num_tokens <= 0:
                return control_flow_ops.no_op(name="no_init_tokens")
            with graph.colocate_with(gs.op):
                tokens = array_ops.fill([num_tokens], gs)
                return self._sync_token_queue.enqueue_many((tokens,), name="init_tokens")

    @property
    def sync_queue(self) -> Any:
        """The token queue (a ``FIFOQueue`` shared as ``sync_token_q``)."""
        self._require_applied("sync_queue")
        return self._sync_token_queue

    @property
    def local_step(self) -> Any:
        """This worker's ``sync_rep_local_step`` variable."""
        self._require_applied("local_step")
        return self._local_step

    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1) -> SessionRunHook:
        """The hook that initializes sync training in a ``MonitoredTrainingSession``
        and, on the chief, runs the aggregation loop and ends it at ``end()``."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)

    # -- delegated --------------------------------------------------------------------------
    def get_slot(self, *args: Any, **kwargs: Any) -> Any:
        """The wrapped optimizer's ``get_slot``."""
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args: Any, **kwargs: Any) -> List[str]:
        """The wrapped optimizer's ``get_slot_names``."""
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self) -> List[Any]:
        """The wrapped optimizer's ``variables``."""
        return self._opt.variables()


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Runs the sync optimizer's init ops, and on the chief its aggregation loop."""

    def __init__(self, sync_optimizer: SyncReplicasOptimizer, is_chief: bool, num_tokens: int):
        self._opt = sync_optimizer
        self._is_chief = bool(is_chief)
        self._num_tokens = num_tokens
        self._threads: List[threading.Thread] = []
        self._q_runner: Any = None
        self._init_tokens_op: Optional[Operation] = None
        self._local_init_op: Optional[Operation] = None

    def begin(self) -> None:
        if not self._opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradients should be called before "
                             "using the hook.")
        if self._is_chief:
            self._local_init_op = self._opt.chief_init_op
            self._q_runner = self._opt.get_chief_queue_runner()
            self._init_tokens_op = self._opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = self._opt.local_step_init_op

    def after_create_session(self, session: Any, coord: Any) -> None:
        missing = session.run(self._opt.ready_for_local_init_op)
        if len(missing):
            names = [m.decode() if isinstance(m, bytes) else str(m) for m in missing]
            raise RuntimeError(f"Model is not ready for SyncReplicasOptimizer local init: "
                               f"variables not initialized: {names}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            threads = self._q_runner.create_threads(session, coord=coord, daemon=True,
                                                    start=True)
            # The loop threads come first; a coordinator adds one that waits for its stop.
            self._threads.extend(threads[:len(self._q_runner.enqueue_ops)])

    def end(self, session: Any) -> None:
        if not self._is_chief:
            self._release_token(session)
            return
        try:
            session.run(self._opt.close_op)
        except (errors.OpError, RuntimeError) as e:
            logger.warning("SyncReplicasOptimizer: could not close the sync step: %s", e)
        for t in self._threads:
            t.join(THREAD_JOIN_SECS)
            if t.is_alive():
                logger.warning("SyncReplicasOptimizer: chief thread %s did not stop within "
                               "%.0f s", t.name, THREAD_JOIN_SECS)
        self._threads = [t for t in self._threads if t.is_alive()]

    def _release_token(self, session: Any) -> None:
        # Faster replicas may take every token of the last steps; once they stop at the
        # last step, the chief can wait for a token that nobody will make, since no
        # replica is left to complete another step. A replica that ends leaves one token
        # of the current step behind: the chief's pending step completes (its stale
        # gradient is dropped), it sees the last step and closes the sync step.
        try:
            session.run(self._opt.release_token_op)
        except (errors.OpError, RuntimeError) as e:
            # The chief has closed the token queue already: nothing waits for a token.
            logger.debug("SyncReplicasOptimizer: no token released at the end: %s", e)


__all__ = ["SyncReplicasOptimizer"]
