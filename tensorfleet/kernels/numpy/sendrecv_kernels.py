"""The transfer ops that partitioning inserts between tasks, and their kernels.

``_Send`` hands its input to the step's rendezvous under a key; ``_Recv`` asks
the rendezvous for the tensor under the same key from the producing task. The
rendezvous belongs to the worker running the step (see distributed/rendezvous.py).

A ``_Send`` copies a view (a variable's read) so that what it sends is the value
at the send; the partitioner marks with ``SEND_BUFFER_ATTR`` the sends of a
variable read that nothing in the step can write before the receiver has read it,
which hand over the buffer itself (see distributed/variable_sends.py).
"""

from __future__ import annotations

from typing import Any, List

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.op_registry import register_op
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.transport import buffers

# Set by the partitioner on a ``_Send`` whose variable buffer needs no copy.
SEND_BUFFER_ATTR = "_send_buffer"

register_op("_Send", lambda op: [], stateful=True)
register_op("_Recv", lambda op: [op.attrs["shape"]], stateful=True)


def _rendezvous(ctx: KernelContext) -> Any:
    step = ctx.step()
    if step is None or step.rendezvous is None:
        raise errors.InternalError(ctx.op_name, None,
                                   f"{ctx.op_type} ran outside a distributed step")
    return step.rendezvous


@register_kernel("_Send")
def _send(ctx: KernelContext, x: Any) -> None:
    # A view may alias a variable that an update writes in place before the
    # receiver has read it; a private copy keeps the value of the send. It goes
    # into pooled memory: a fresh 64 MiB copy each step spent 400 ms and more in
    # first-touch page faults on a loaded VM (see transport.buffers).
    if isinstance(x, np.ndarray) and not x.flags.owndata \
            and not ctx.attrs.get(SEND_BUFFER_ATTR):
        x = buffers.copy_of(x)
    _rendezvous(ctx).send(ctx.attrs["key"], x)


@register_kernel("_Recv")
def _recv(ctx: KernelContext) -> Any:
    return _rendezvous(ctx).recv(ctx.attrs["src_task"], ctx.attrs["key"])


@register_kernel("_RecvGroup")
def _recv_group(ctxs: List[KernelContext]) -> List[Any]:
    """Receives several tensors from one task in one round trip (see partition.py)."""
    return _rendezvous(ctxs[0]).recv_many(ctxs[0].attrs["src_task"],
                                          [c.attrs["key"] for c in ctxs])
