"""Which ``_Send``s of a step may hand the receiver a variable's own buffer.

A ``_Send`` puts its tensor in the sending task's rendezvous, and the receiving
task pulls it from there later (``RecvTensor``): over the side channel, the
reply is sent, or read by ``process_vm_readv``, straight from that tensor's
memory, and over gRPC it is serialized then. A read of a variable (its
``Identity``, or the reference itself) is a view of the variable's buffer, which
updates such as ``AssignAdd`` and the optimizers' ``Apply*`` write in place. So
``_Send`` copies a view before it sends it (``kernels/numpy/sendrecv_kernels.py``):
what is sent is then the value at the send. That copy of a 64 MiB variable cost
10 ms a step, before the receiver could start reading.

The copy is needed only when a write to the buffer can land between the send and
the end of the receiver's read. Three kinds of writer exist:

1. *An op of the same step.* In-place writers of a variable take it by reference,
   so they run on the variable's task. The partitioner sees the whole step and
   marks a send as free of the copy only when:

   - the tensor sent is the variable read directly: its reference, or a chain of
     ``Identity`` ops over it (``executor.ALIAS_OPS``), from a ``VariableV2``;
   - and either no op of the step writes that variable in place (writers are
     matched by the variable's resource name, ``container`` and ``shared_name``,
     so a second op naming the same variable counts, and a writer whose variable
     cannot be traced makes every send of the step copy), or the read is one that
     the whole graph orders before every writer (``executor.reads_before_updates``:
     every use of the read, on any task, makes a new array and is an ancestor of
     every writer, which all take this very reference). A use on the receiving
     task runs only once its ``_Recv`` has the whole tensor in the receiver's own
     memory, so such a writer cannot start before the read is over: the parameter
     read that a worker multiplies and whose gradient the ps then applies.

   ``Assign`` does not write in place (it swaps in a new buffer), so a send of
   the buffer it replaced keeps its value.

2. *The same client's next step.* A step ends when every partition has run, the
   receiving ones included, so a step that follows has nothing left to race with.

3. *A concurrent step* (another worker or session updating the variable, as in
   asynchronous training). Neither path orders it against the read: the copy was
   itself made without the variable's lock and could see an update half applied,
   and a read of the variable in a local step is not a copy either. The receiver
   now gets the buffer as it is while it reads it, so it may see more of such an
   update than before: each element holds either value, as when TensorFlow serves
   a ``RecvTensor`` of a reference variable's read, which it serializes from the
   variable's buffer without a lock when the request comes. ``use_locking`` still
   keeps two updates from interleaving; it never made a read wait.

Every other tensor that is a view (a slice or reshape of a variable, a received
tensor passed on, a tensor of a task whose partition has an untraceable writer)
is copied as before. Across tasks, a received tensor never shares memory with
the sender's: the side channel and gRPC both land it in a buffer of the
receiver's own.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.runtime.executor import ALIAS_OPS, NON_MUTATING_REF_OPS

VARIABLE_OPS = frozenset({"VariableV2"})
# A reference passes through at most this many ops (Assign, AssignAdd, Apply*
# return the variable they were given) before it must reach its variable.
_MAX_REF_HOPS = 64

VariableKey = Tuple[str, str]


def _key(op: Operation) -> VariableKey:
    """The resource a variable op names (as the ``VariableV2`` kernel looks it up)."""
    return (str(op.attrs.get("container") or ""), str(op.attrs.get("shared_name") or op.name))


def _variable_of(ref: Tensor) -> Optional[VariableKey]:
    """The variable that the reference ``ref`` points to, or None when the chain of
    ops forwarding it cannot be followed back to a ``VariableV2``."""
    for _ in range(_MAX_REF_HOPS):
        op = ref.op
        if op.type in VARIABLE_OPS:
            return _key(op)
        refs = sorted(i for i in op.op_def.ref_indices(op) if i < len(op.inputs))
        if not op.op_def.ref_output or ref.value_index != 0 or not refs:
            return None
        ref = op.inputs[refs[0]]
    return None


class VariableSends:
    """Answers, for one step's graph, which sent tensors need no ``_Send`` copy.

    Args:
      ops: every op of the step, on every task.
      uncopied: the reads the whole graph orders before every update of their
        variable (``executor.reads_before_updates`` of the same ops and fetches).
    """

    def __init__(self, ops: Sequence[Operation], uncopied: Set[Operation]):
        self._uncopied = uncopied
        # variable -> the references its in-place writers take.
        self._writers: Dict[VariableKey, List[Tensor]] = {}
        self._untraced = False
        for op in ops:
            if op.type in NON_MUTATING_REF_OPS:
                continue
            for i in op.op_def.ref_indices(op):
                if i >= len(op.inputs):
                    continue
                key = _variable_of(op.inputs[i])
                if key is None:
                    self._untraced = True
                else:
                    self._writers.setdefault(key, []).append(op.inputs[i])

    def needs_no_copy(self, t: Tensor) -> bool:
        """Whether the ``_Send`` of ``t`` may hand over the variable's buffer itself."""
        if self._untraced:
            return False
        first_read: Optional[Operation] = None
        for _ in range(_MAX_REF_HOPS):
            op = t.op
            if op.type in ALIAS_OPS and op.inputs:
                first_read, t = op, op.inputs[0]
                continue
            break
        op = t.op
        if op.type not in VARIABLE_OPS or t.value_index != 0:
            return False
        writers = self._writers.get(_key(op))
        if not writers:
            return True
        return (first_read is not None and first_read in self._uncopied
                and all(w is t for w in writers))


__all__ = ["VARIABLE_OPS", "VariableSends"]
