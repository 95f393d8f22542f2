"""Compiles the part of a graph that a step needs into a flat plan and runs it.

A plan is built once per (fetches, feeds, targets) and reused: a step is then a
single loop over ``(kernel, ctx, input slots, output slot)`` tuples, which is
what keeps an empty ``session.run`` in the tens of microseconds.

Plans whose ops receive tensors from other tasks (``_Recv``) run in dataflow
order instead: every receive starts at the beginning of the step and an op runs
as soon as its inputs are there, so partitions that exchange tensors in both
directions cannot deadlock.
"""

from __future__ import annotations

import heapq
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

from tensorfleet import errors
from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.kernels.registry import (_STEP, DEAD, DEAD_AWARE_OPS, KernelContext,
                                          StepState, get_kernel, resolve_kernel,
                                          set_current_step, set_plan_builder)
from tensorfleet.runtime import process
from tensorfleet.runtime.kernel_fusion import find_chains
from tensorfleet.runtime.numerics_check import CHECK_NUMERICS_ATTR, checking_kernel

ASYNC_OPS = {"_Recv"}
# Receives block on other tasks for as long as a step lasts; a large pool
# (``ProcessRuntime.async_pool``) keeps many concurrent steps (e.g. replicas waiting
# on a parameter server) from starving. Its threads are daemons: a receive still
# waiting never keeps the program from exiting.


def prune(fetches: Sequence[Tensor], targets: Sequence[Operation],
          feeds: Set[Tensor]) -> List[Operation]:
    """The ops needed to compute ``fetches`` and run ``targets``, in topological order.

    A fed tensor cuts the walk: its producer runs only if something else needs it.
    """
    needed: Dict[Operation, None] = {}
    stack: List[Operation] = [t.op for t in fetches if t not in feeds] + list(targets)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed[op] = None
        for t in op.inputs:
            if t not in feeds and t.op not in needed:
                stack.append(t.op)
        for c in op.control_inputs:
            if c not in needed:
                stack.append(c)
    return topological_order(list(needed), feeds)


def topological_order(ops: List[Operation], feeds: Set[Tensor] = frozenset(),
                      first: Set[Operation] = frozenset()) -> List[Operation]:
    """Kahn's algorithm, ties broken by creation order so plans are deterministic; the
    ops of ``first`` go before any other op that is ready at the same time."""
    opset = set(ops)
    indeg: Dict[Operation, int] = {op: 0 for op in ops}
    users: Dict[Operation, List[Operation]] = {op: [] for op in ops}
    for op in ops:
        deps = {t.op for t in op.inputs if t not in feeds and t.op in opset}
        deps.update(c for c in op.control_inputs if c in opset)
        indeg[op] = len(deps)
        for d in deps:
            users[d].append(op)
    heap = [(op not in first, op._id, op) for op in ops if indeg[op] == 0]
    heapq.heapify(heap)
    out: List[Operation] = []
    while heap:
        _, _, op = heapq.heappop(heap)
        out.append(op)
        for u in users[op]:
            indeg[u] -= 1
            if indeg[u] == 0:
                heapq.heappush(heap, (u not in first, u._id, u))
    if len(out) != len(ops):
        cyc = [op.name for op in ops if indeg[op] > 0][:5]
        raise errors.InvalidArgumentError(None, None, f"Graph has a cycle among {cyc}")
    return out


# Ops that take a variable reference without changing its buffer in place
# (Assign swaps in a new buffer), so earlier reads of it stay valid.
NON_MUTATING_REF_OPS = {"Assign", "IsVariableInitialized", "RefGate"}
# Kernels that hand back their input array itself: a variable's buffer read through
# them is still that buffer.
ALIAS_OPS = {"Identity"}
# Kernels that always return new arrays: past them nothing refers to the buffer read.
FRESH_OUTPUT_OPS = {"GatherV2", "MatMul", "Shape", "Size", "Rank"}
# Variables below this many elements are always copied: the order analysis is skipped.
SMALL_VARIABLE_ELEMENTS = 1 << 16


# Set by the master's partitioner on a read that the whole step's graph orders before
# every update of its variable, an order a task's own partition may not show (the
# update waits on a gradient received from another task).
READ_BEFORE_UPDATE_ATTR = "_read_before_update"


def reads_before_updates(ops: List[Operation], fetches: Sequence[Tensor]) -> Set[Operation]:
    """The ``Identity`` reads of variables updated in place by ``ops`` that need no copy."""
    order = _UpdateOrder(ops, fetches)
    return {op for op in ops if op.type in ALIAS_OPS and op.inputs
            and op.inputs[0] in order.mutators and op.inputs[0].op.op_def.ref_output
            and not order.needs_copy(op, op.inputs[0])}


# Control-flow primitives pass deadness along control edges: a step holding one runs
# every op as written.
DEADNESS_OPS = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
                "RefExit", "NextIteration", "RefNextIteration", "LoopCond"}
# Stateless ops that a program runs for what they check (an error).
CHECKING_OPS = {"Assert", "CheckNumerics", "CheckNumericsV2", "EnsureShape"}
# Stateful ops whose running changes nothing: a variable and its reads.
STATE_READING_OPS = {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
                     "IsVariableInitialized", "VarIsInitializedOp"}


def runs_as_written(ops: List[Operation]) -> bool:
    """Whether a step holds control-flow primitives, which pass deadness along control
    edges: such a step runs every op as written, unfused."""
    return any(op.type in DEADNESS_OPS for op in ops)


def idle_ops(ops: List[Operation], fetches: Sequence[Tensor]) -> Set[Operation]:
    """The ops of a step whose running nobody can observe, which the step skips.

    An op is idle when it changes no state (see ``_has_effect``), none of its outputs
    is fetched, it has consumers in the step (an op with none is a target), and every
    op reading its outputs is idle too: it is reached only through control edges. The
    edges stay, so the order they give still holds. Gradient gating
    (``gate_gradients``) ties each op's input gradients together with control edges, so
    without this a step computes gradients that nothing uses, such as a first conv
    layer's input gradient (the costliest kernel of a small conv net's step);
    TensorFlow's graph optimizer drops them too. ``ops`` is in topological order.
    """
    if runs_as_written(ops):
        return set()
    in_step = set(ops)
    fetched = {t.op for t in fetches}
    readers: Dict[Operation, List[Operation]] = {}
    has_users: Set[Operation] = set()
    for op in ops:
        for t in op.inputs:
            if t.op in in_step:
                readers.setdefault(t.op, []).append(op)
                has_users.add(t.op)
        has_users.update(op.control_inputs)
    idle: Set[Operation] = set()
    for op in reversed(ops):
        if (op in has_users and op not in fetched and not _has_effect(op)
                and all(r in idle for r in readers.get(op, ()))):
            idle.add(op)
    return idle


def _has_effect(op: Operation) -> bool:
    """Whether running ``op`` can be observed although nothing reads its outputs: a
    stateful op other than a variable read, an op taking a variable reference, a send
    or receive, a check, a feed, a tensor array, an op without outputs but ``NoOp``."""
    od = op.op_def
    t = op.type
    if od.stateful:
        return t not in STATE_READING_OPS
    return bool(od.ref_indices(op) or t in CHECKING_OPS or t.startswith("_")
                or t.startswith("Placeholder") or t.startswith("TensorArray")
                or (not op.outputs and t != "NoOp"))


# Dense optimizer updates of large variables: bound by memory bandwidth, they run
# beside the compute-bound kernels after them (a conv net's last convolution gradients)
# instead of before them.
DEFERRABLE_UPDATES = {"ApplyAdam", "ApplyMomentum", "ApplyGradientDescent"}
# Variables below this many elements are updated in line: too short to overlap.
DEFER_MIN_ELEMENTS = 1 << 18
_update_threads: Optional[ThreadPoolExecutor] = None
_update_threads_lock = threading.Lock()


def deferrable_updates(ops: List[Operation], fetches: Sequence[Tensor]) -> Set[Operation]:
    """The dense updates of large variables whose result nothing reads (only control
    edges wait for them) and that are not fetched."""
    fetched = {t.op for t in fetches}
    read = {t.op for op in ops for t in op.inputs}
    chosen: Set[Operation] = set()
    for op in ops:
        if op.type not in DEFERRABLE_UPDATES or op in fetched or op in read:
            continue
        var = op.inputs[0]
        size = var.shape.num_elements() if var.shape.ndims is not None else None
        if size is not None and size >= DEFER_MIN_ELEMENTS:
            chosen.add(op)
    return chosen


def hoist(ops: List[Operation], chosen: Set[Operation],
          feeds: Sequence[Tensor] = ()) -> List[Operation]:
    """``ops`` in a topological order that runs ``chosen`` and what they wait for
    before every other op, so that they start as early as they can."""
    if not chosen:
        return ops
    fed = set(feeds)
    in_step = set(ops)
    first: Set[Operation] = set()
    stack = list(chosen)
    while stack:
        op = stack.pop()
        if op in first:
            continue
        first.add(op)
        stack.extend(t.op for t in op.inputs if t not in fed and t.op in in_step)
        stack.extend(c for c in op.control_inputs if c in in_step)
    return topological_order(ops, fed, first)


def deferred_updates(ops: List[Operation], chosen: Set[Operation]
                     ) -> Tuple[Set[int], Dict[int, List[int]]]:
    """Which steps of a plan (indices into ``ops``) run on the update thread (those of
    ``chosen``), and for each later step the deferred ones it must wait for: a step
    waits for one when it waits for it by a control edge, or reads or updates the same
    variable (directly or through ``Identity`` reads), so every step sees the variables
    as the one-by-one order would have left them; the step itself waits for all
    before it returns."""
    index = {op: j for j, op in enumerate(ops)}
    deferred: Set[int] = set()
    variables: Dict[int, Tensor] = {}
    for j, op in enumerate(ops):
        if op in chosen:
            deferred.add(j)
            variables[j] = op.inputs[0]
    if not deferred:
        return set(), {}
    waits: Dict[int, List[int]] = {}
    for j, op in enumerate(ops):
        deps = {index[c] for c in op.control_inputs if c in index}
        touched = {t for t in op.inputs}
        touched.update(t.op.inputs[0] for t in op.inputs
                       if t.op.type in ALIAS_OPS and t.op.inputs)
        need = [i for i in deferred if i < j and (i in deps or variables[i] in touched)]
        if need:
            waits[j] = need
    return deferred, waits


def _update_pool() -> ThreadPoolExecutor:
    global _update_threads
    with _update_threads_lock:
        if _update_threads is None:
            _update_threads = ThreadPoolExecutor(max_workers=2,
                                                 thread_name_prefix="deferred-update")
        return _update_threads


def _run_in_step(step: Optional[StepState], kern: Callable[..., Any], ctx: KernelContext,
                 args: List[Any]) -> Any:
    prev = set_current_step(step)
    try:
        return kern(ctx, *args)
    finally:
        set_current_step(prev)


def _idle_kernel(n_outputs: int) -> Callable[..., Any]:
    result = (None,) * n_outputs if n_outputs > 1 else None

    def idle(ctx: KernelContext, *ins: Any) -> Any:
        return result
    return idle


class _UpdateOrder:
    """Answers, for one plan, whether a read of a variable updated in place must copy.

    Copying a large embedding shard on every step that also updates a few of its rows
    costs far more than the step, so a read skips the copy when its alias cannot be
    observed after an update: the read's kernel makes a new array, or it is an
    ``Identity`` whose every use (through further ``Identity`` ops) makes new arrays,
    is not fetched, and runs, by data or control dependency, before every op of the
    step that updates the variable. Anything else copies.
    """

    def __init__(self, ops: List[Operation], fetches: Sequence[Tensor]):
        self.in_plan = set(ops)
        self.fetches = set(fetches)
        self.consumers: Dict[Tensor, List[Operation]] = {}
        self.mutators: Dict[Tensor, List[Operation]] = {}
        for op in ops:
            for t in op.inputs:
                self.consumers.setdefault(t, []).append(op)
            if op.type not in NON_MUTATING_REF_OPS:
                for i in op.op_def.ref_indices(op):
                    if i < len(op.inputs):
                        self.mutators.setdefault(op.inputs[i], []).append(op)
        self._ancestors: Dict[Operation, Set[Operation]] = {}

    def ancestors(self, op: Operation) -> Set[Operation]:
        """Every op of the plan that ``op`` waits for, by data or control edges."""
        found = self._ancestors.get(op)
        if found is None:
            found, stack = set(), [op]
            while stack:
                cur = stack.pop()
                for dep in [t.op for t in cur.inputs] + list(cur.control_inputs):
                    if dep in self.in_plan and dep not in found:
                        found.add(dep)
                        stack.append(dep)
            self._ancestors[op] = found
        return found

    def needs_copy(self, reader: Operation, var: Tensor) -> bool:
        """True unless ``reader``'s view of ``var`` is provably dead before any update."""
        if reader.type in FRESH_OUTPUT_OPS or reader.attrs.get(READ_BEFORE_UPDATE_ATTR):
            return False
        if reader.type not in ALIAS_OPS:
            return True
        size = var.shape.num_elements()
        if size is not None and size < SMALL_VARIABLE_ELEMENTS:
            # Copying a small variable costs less than walking the graph to avoid it.
            return True
        uses, stack = [], [reader]
        while stack:
            op = stack.pop()
            for t in op.outputs:
                if t in self.fetches:
                    return True
                for user in self.consumers.get(t, ()):
                    if user.type in ALIAS_OPS:
                        stack.append(user)
                    elif user.type in FRESH_OUTPUT_OPS:
                        uses.append(user)
                    else:
                        return True
        return any(use not in self.ancestors(m) for m in self.mutators.get(var, ())
                   for use in uses)


def _deref_wrapper(kern: Callable[..., Any], positions: Tuple[int, ...],
                   copies: Tuple[bool, ...]) -> Callable[..., Any]:
    def run(ctx: KernelContext, *ins: Any) -> Any:
        ins = list(ins)
        for p, c in zip(positions, copies):
            ins[p] = ins[p].read().copy() if c else ins[p].read()
        return kern(ctx, *ins)
    return run


class Plan:
    """A compiled step: which kernels run, in which order, reading which slots.

    Each op's kernel is chosen here, once, by the device type of the op's device
    (``kernels.registry.resolve_kernel``). ``allow_soft_placement`` says whether an
    op on a device type without a kernel for it may run its CPU kernel; when None it
    comes from the owner's ``config`` (a local session's ConfigProto, False when it
    has none), and is True for an owner without one: a worker runs partitions that
    the master already placed under the session's own setting.
    """

    # A loop body's plan hands back values of an untaken cond branch as dead: the
    # loop records them, and its gradient skips what they feed.
    dead_fetches_ok = False

    def __init__(self, ops: List[Operation], feeds: Sequence[Tensor], fetches: Sequence[Tensor],
                 resources: Any, op_state: Callable[[Operation], Dict[str, Any]],
                 owner: Any = None, allow_soft_placement: Optional[bool] = None):
        chosen = deferrable_updates(ops, fetches)
        ops = hoist(ops, chosen, feeds)
        self.ops = ops
        if allow_soft_placement is None:
            allow_soft_placement = _soft_placement_of(owner)
        self.allow_soft_placement = allow_soft_placement
        slot: Dict[Tensor, int] = {}
        for t in feeds:
            slot[t] = len(slot)
        # Ops without outputs write their None here, so every step's result is stored
        # by the one assignment ``vals[out] = r`` (see ``_out_spec``).
        scratch = n_slots = len(slot)
        n_slots += 1
        steps: List[tuple] = []
        self.has_dead = False
        self.is_async = False
        # A read of a variable that this same step also updates in place must not
        # alias the buffer, or the update could change a value still to be used.
        mutated = {op.inputs[i] for op in ops if op.type not in NON_MUTATING_REF_OPS
                   for i in op.op_def.ref_indices(op) if i < len(op.inputs)}
        order: Optional[_UpdateOrder] = None
        idle = idle_ops(ops, fetches)
        chains = find_chains(ops, fetches, idle) if not runs_as_written(ops) else {}
        # The ops of a fused chain before its head run nothing; the head runs the chain.
        idle |= {o for c in chains.values() for o in c.before_head}
        for op in ops:
            chain = chains.get(op)
            inputs: Sequence[Tensor] = op.inputs
            attrs = op.attrs
            if op in idle:
                kern = _idle_kernel(len(op.outputs))
            elif chain is not None:
                kern = resolve_kernel(chain.kernel, op.name, op.device, allow_soft_placement)
                inputs, attrs = chain.inputs, chain.attrs()
            else:
                kern = resolve_kernel(op.type, op.name, op.device, allow_soft_placement)
            ins = []
            deref = []
            refs = op.op_def.ref_indices(op) if chain is None else chain.ref_indices
            for i, t in enumerate(inputs):
                if t not in slot:
                    raise errors.InvalidArgumentError(
                        op.name, None, f"Input {t.name} of {op.name} is not computed in this plan")
                ins.append(slot[t])
                if (t.op.op_def.ref_output and t.value_index == 0 and t not in feeds
                        and i not in refs):
                    deref.append(i)
            if deref:
                if order is None and any(inputs[i] in mutated for i in deref):
                    order = _UpdateOrder(ops, fetches)
                kern = _deref_wrapper(kern, tuple(deref),
                                      tuple(inputs[i] in mutated
                                            and order.needs_copy(op, inputs[i])
                                            for i in deref))
            if op.attrs.get(CHECK_NUMERICS_ATTR) and op.type not in ASYNC_OPS:
                kern = checking_kernel(kern, op)
            n = len(op.outputs)
            # An op's outputs get consecutive slots of their own. A fed output keeps
            # its feed slot for its readers: the value it computes is not used.
            for k, t in enumerate(op.outputs):
                if t not in slot:
                    slot[t] = n_slots + k
            out_spec = _out_spec(n_slots, n, scratch)
            n_slots += n
            if n > 1:
                kern = _counted(kern, n, op.name)
            ctx = KernelContext(op.name, chain.kernel if chain else op.type, attrs, resources,
                                op_state(op), op.device, owner)
            steps.append((kern, ctx, tuple(ins), out_spec, n > 1, op))
            if op.type == "Switch":
                self.has_dead = True
            if op.type in ASYNC_OPS:
                self.is_async = True
        self.steps = steps
        self.deferred, self.deferred_waits = (
            deferred_updates(ops, chosen) if chosen and not (self.has_dead or self.is_async)
            else (set(), {}))
        self.n_slots = n_slots
        self.feed_slots = [slot[t] for t in feeds]
        self.feed_tensors = list(feeds)
        self.fetch_slots = [slot[t] for t in fetches]
        self.fetch_names = [t.name for t in fetches]
        # A fetched variable reference is handed out as the variable's value.
        self.fetch_refs = [i for i, t in enumerate(fetches)
                           if t.op.op_def.ref_output and t.value_index == 0 and t not in feeds]

    def run(self, feed_values: Sequence[Any], step: Optional[StepState] = None) -> List[Any]:
        """Runs one step; returns the fetched values in fetch order."""
        vals: List[Any] = [None] * self.n_slots
        for s, v in zip(self.feed_slots, feed_values):
            vals[s] = v
        prev = set_current_step(step)
        try:
            if self.is_async:
                self._run_dataflow(vals)
            elif self.has_dead:
                self._run_with_dead(vals)
            else:
                self._run_fast(vals)
        finally:
            set_current_step(prev)
        out = [vals[s] for s in self.fetch_slots]
        for i in self.fetch_refs:
            if out[i] is not DEAD:
                out[i] = out[i].read()
        return out

    def _run_fast(self, vals: List[Any]) -> None:
        if self.deferred:
            self._run_deferring(vals)
            return
        op = None
        try:
            for kern, ctx, ins, out, multi, op in self.steps:
                vals[out] = kern(ctx, *[vals[i] for i in ins])
        except Exception as e:  # noqa: BLE001 - re-raised as an OpError naming the op
            raise _as_op_error(e, op) from e

    def _run_deferring(self, vals: List[Any]) -> None:
        """``_run_fast`` with the deferred updates (see ``deferred_updates``) run on a
        thread of their own, each waited for by the first step that must see it done."""
        pending: Dict[int, Any] = {}
        step = getattr(_STEP, "value", None)
        op = None
        error: Optional[BaseException] = None
        try:
            for j, (kern, ctx, ins, out, multi, op) in enumerate(self.steps):
                for i in self.deferred_waits.get(j, ()):
                    if i in pending:
                        vals[self.steps[i][3]] = self._finish(pending.pop(i), i)
                args = [vals[i] for i in ins]
                if j in self.deferred:
                    pending[j] = _update_pool().submit(_run_in_step, step, kern, ctx, args)
                else:
                    vals[out] = kern(ctx, *args)
        except errors.OpError as e:
            error = e
        except Exception as e:  # noqa: BLE001 - re-raised as an OpError naming the op
            error = _as_op_error(e, op)
            error.__cause__ = e
        except BaseException:
            for f in pending.values():
                f.exception()
            raise
        # The updates change variables: none may still run once the step returns.
        for i, f in pending.items():
            try:
                vals[self.steps[i][3]] = self._finish(f, i)
            except errors.OpError as e:
                error = error or e
        if error is not None:
            raise error

    def _finish(self, future: Any, i: int) -> Any:
        try:
            return future.result()
        except errors.OpError:
            raise
        except Exception as e:  # noqa: BLE001 - re-raised as an OpError naming the op
            raise _as_op_error(e, self.steps[i][5]) from e

    def _run_with_dead(self, vals: List[Any]) -> None:
        """Runs ops, skipping every op that reads a dead tensor or control-depends on a
        skipped op: the untaken branch of a ``cond``, constants included."""
        op = None
        index = self._step_index()
        dead = [False] * len(self.steps)
        try:
            for si, (kern, ctx, ins, out, multi, op) in enumerate(self.steps):
                args = [vals[i] for i in ins]
                skip = op.type not in DEAD_AWARE_OPS and (
                    any(a is DEAD for a in args)
                    or any(dead[index[c]] for c in op.control_inputs if c in index))
                if skip:
                    dead[si] = True
                    r = (DEAD,) * (out.stop - out.start) if multi else DEAD
                else:
                    r = kern(ctx, *args)
                vals[out] = r
        except Exception as e:  # noqa: BLE001
            raise _as_op_error(e, op) from e
        if self.dead_fetches_ok:
            return
        for t, s in zip(self.fetch_names, self.fetch_slots):
            if vals[s] is DEAD:
                raise errors.InvalidArgumentError(
                    t, None, f"Retval of {t} does not have a value: it is computed only in a "
                    f"branch of a cond that was not taken")

    def _step_index(self) -> Dict[Operation, int]:
        idx = getattr(self, "_op_index", None)
        if idx is None:
            idx = self._op_index = {s[5]: i for i, s in enumerate(self.steps)}
        return idx

    def _dataflow_structure(self) -> tuple:
        """Dependency counts, consumers and receive groups, computed once per plan."""
        df = getattr(self, "_df", None)
        if df is not None:
            return df
        producers: Dict[int, int] = {}
        for idx, (_, _, _, out, multi, _) in enumerate(self.steps):
            for o in (range(out.start, out.stop) if multi else (out,)):
                producers[o] = idx
        pending: List[int] = []
        users: List[List[int]] = [[] for _ in self.steps]
        for idx, (_, _, ins, _, _, op) in enumerate(self.steps):
            deps = {producers[i] for i in ins if i in producers}
            deps.update(self._ctrl_index(op))
            pending.append(len(deps))
            for d in deps:
                users[d].append(idx)
        # Receives that the partitioner put in one group arrive in one round trip.
        groups: Dict[tuple, List[int]] = {}
        for idx, (_, ctx, ins, _, _, op) in enumerate(self.steps):
            if op.type in ASYNC_OPS and not ins and op.attrs.get("group"):
                groups.setdefault((op.attrs.get("src_task"), op.attrs["group"]), []).append(idx)
        leader = {members[0]: members for members in groups.values() if len(members) > 1}
        grouped = {i for members in leader.values() for i in members}
        self._df = (pending, users, leader, grouped)
        return self._df

    def _run_dataflow(self, vals: List[Any]) -> None:
        """Runs ops as their inputs become ready; receives run on pool threads."""
        pending_t, users, leader, grouped = self._dataflow_structure()
        pending = list(pending_t)
        done: "queue.Queue[Tuple[int, Any, Optional[BaseException]]]" = queue.Queue()
        ready = [i for i, n in enumerate(pending) if n == 0]
        remaining = len(self.steps)
        outstanding = 0
        cur_step = getattr(_STEP, "value", None)
        async_pool = process.current().async_pool
        local = getattr(getattr(cur_step, "rendezvous", None), "local", None)
        local_task = getattr(local, "task", None)
        deferred: List[int] = []

        def run_async(i: int) -> None:
            kern, ctx, ins, _, _, _ = self.steps[i]
            set_current_step(cur_step)
            try:
                done.put((i, kern(ctx, *[vals[j] for j in ins]), None))
            except BaseException as e:  # noqa: BLE001 - delivered to the step thread
                done.put((i, None, e))

        def run_group(members: List[int]) -> None:
            set_current_step(cur_step)
            try:
                out = get_kernel(self.steps[members[0]][5].type + "Group")(
                    [self.steps[i][1] for i in members])
                for i, v in zip(members, out):
                    done.put((i, v, None))
            except BaseException as e:  # noqa: BLE001
                for i in members:
                    done.put((i, None, e))

        def finish(i: int, r: Any) -> None:
            nonlocal remaining
            vals[self.steps[i][3]] = r
            remaining -= 1
            for u in users[i]:
                pending[u] -= 1
                if pending[u] == 0:
                    ready.append(u)

        while remaining:
            while ready:
                i = ready.pop()
                kern, ctx, ins, out, multi, op = self.steps[i]
                if op.type in ASYNC_OPS:
                    if i in leader:
                        outstanding += len(leader[i])
                        async_pool.submit(run_group, leader[i])
                    elif i in grouped:
                        pass
                    elif local_task is not None and ctx.attrs.get("src_task") == local_task:
                        # Waiting on this task's own rendezvous gains nothing by
                        # starting early: wait until the step has nothing else to do.
                        deferred.append(i)
                    else:
                        outstanding += 1
                        async_pool.submit(run_async, i)
                    continue
                try:
                    r = kern(ctx, *[vals[j] for j in ins])
                except Exception as e:  # noqa: BLE001
                    raise _as_op_error(e, op) from e
                finish(i, r)
            if deferred and remaining:
                if not outstanding and len(deferred) == 1:
                    # The one thing left to wait for: wait on this thread rather
                    # than hand the wait to a pool thread and wait for that.
                    outstanding += 1
                    run_async(deferred.pop())
                else:
                    for i in deferred:
                        outstanding += 1
                        async_pool.submit(run_async, i)
                    deferred.clear()
            if remaining:
                if not outstanding:
                    raise errors.InternalError(None, None, "dataflow executor stalled")
                while True:
                    try:
                        i, r, err = done.get(timeout=0.5)
                        break
                    except queue.Empty:
                        # An aborted step must not wait on a receive that will never
                        # complete (its sender died); the receive is abandoned.
                        if cur_step is not None and cur_step.cancelled:
                            raise errors.CancelledError(None, None, "step was cancelled")
                outstanding -= 1
                if err is not None:
                    raise _as_op_error(err, self.steps[i][5]) from err
                finish(i, r)

    def _ctrl_index(self, op: Operation) -> List[int]:
        idx = self._step_index()
        return [idx[c] for c in op.control_inputs if c in idx]


def _out_spec(first: int, n: int, scratch: int) -> Union[int, slice]:
    """Where a step stores its kernel's result with ``vals[spec] = result``: one slot
    for one output, the slice of its consecutive slots for several (the kernel returns
    one value per output), the plan's scratch slot for none (the kernel returns None).
    One subscript for every case keeps the write free of branches in the step loop."""
    if n == 1:
        return first
    if n > 1:
        return slice(first, first + n)
    return scratch


def _counted(kern: Callable[..., Any], n: int, op_name: str) -> Callable[..., Any]:
    # Stored with a slice assignment, a result of the wrong length would resize the
    # step's slot list and shift every later value; only ops with several outputs
    # pay for the check.
    def run(ctx: KernelContext, *ins: Any) -> Any:
        r = kern(ctx, *ins)
        if r.__class__ is not tuple:
            r = tuple(r)
        if len(r) != n:
            raise errors.InternalError(
                op_name, None, f"The kernel of {op_name} returned {len(r)} values for its "
                f"{n} outputs")
        return r
    return run


def _soft_placement_of(owner: Any) -> bool:
    if not hasattr(owner, "config"):
        return True
    return bool(getattr(owner.config, "allow_soft_placement", False))


def _as_op_error(e: BaseException, op: Optional[Operation]) -> errors.OpError:
    name = op.name if op is not None else None
    if isinstance(e, errors.OpError):
        if e.node_def is None:
            e.node_def = name
        if e.op is None and op is not None and getattr(e.node_def, "name",
                                                       e.node_def) == name:
            e.op = op  # names where the op was defined
        return e
    if isinstance(e, MemoryError):
        return errors.ResourceExhaustedError(name, op, f"OOM: {e}")
    if isinstance(e, (ValueError, TypeError, IndexError, ZeroDivisionError, FloatingPointError)):
        return errors.InvalidArgumentError(name, op, f"{type(e).__name__}: {e}")
    return errors.InternalError(name, op, f"{type(e).__name__}: {e}")



def sub_plan(fetches: Sequence[Tensor], targets: Sequence[Operation], feeds: Sequence[Tensor],
             resources: Any, op_state: Callable[[Operation], Dict[str, Any]],
             owner: Any) -> Plan:
    """The plan of a sub-graph run by a kernel (a ``While`` body, a ``tf.data`` map
    function): the ops ``fetches`` and ``targets`` need, fed ``feeds``."""
    plan = Plan(prune(fetches, targets, set(feeds)), feeds, fetches, resources, op_state, owner)
    plan.dead_fetches_ok = True
    return plan


# Functional ops (While) run sub-graphs with plans of their own; kernels sit above
# this layer, so it hands them the way to build one.
set_plan_builder(sub_plan)


__all__ = ["Plan", "prune", "topological_order"]
