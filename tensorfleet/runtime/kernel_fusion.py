"""Chains of ops that a step runs as one kernel: a convolution or a matrix product with
its bias and ReLU.

A conv or dense layer is three ops, ``Conv2D`` (or ``MatMul``) then ``BiasAdd`` (or
``Add`` of a per-channel bias) then ``Relu``, and run one by one each passes over the
whole activation: two of the three passes only add a bias or clip at zero, and each
writes a new array as large as the layer's output. Run as one kernel
(``_FusedConv2D``, ``_FusedMatMul``), the bias and the ReLU are applied where the
product writes its output (oneDNN's bias argument and ReLU post-op; in place in the
numpy kernels). TensorFlow's graph optimizer makes the same rewrite for its oneDNN
kernels.

A chain is fused only where nothing else can tell: the product's and the bias add's
outputs have no other reader in the step and are not fetched, no op of the chain waits
on a control edge or checks numerics, the chain sits on one device, and the bias holds
one value per output channel on the last axis (convolutions in NHWC, where ``Add`` of
a ``[C]`` bias is a per-channel bias). The fused kernel runs at the last op of the
chain; the ops before it run nothing.

One backward pair is rewritten too: ``ReluGrad`` of the gradient that ``MaxPoolGrad``
routes back through a max pool of the ReLU's output. ``MaxPoolGrad`` sends each pooled
gradient to the window position that held the maximum, where the pool's input equals
the pool's output, so whether that position's input is positive is whether the pooled
output is: applying ``ReluGrad`` to the pooled gradient against the pooled output
first, then routing, gives the same array, element for element (also with overlapping
windows, where routed gradients sum: each term is kept or dropped alike). The pooled
side holds a quarter of the elements for a 2x2 pool, so the ``ReluGrad`` pass costs a
quarter as much (``_MaxPoolGradReluGrad``).

And a dense optimizer update of a gradient times a scalar (``clip_by_global_norm``
multiplies every gradient by one) takes the gradient and the scalar
(``_ApplyScaledGradient``): the large-variable updates scale each block of the gradient
where they read it, the float32 products the ``Mul`` would have written, instead of a
``Mul`` pass writing a whole new gradient for the update to read again.
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Sequence, Set, Tuple, Union

from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.runtime.numerics_check import CHECK_NUMERICS_ATTR

# The fused kernel of each op a chain may start with.
FUSED = {"Conv2D": "_FusedConv2D", "MatMul": "_FusedMatMul"}
BIAS_OPS = {"BiasAdd", "Add", "AddV2"}


class Chain(NamedTuple):
    """A conv or product, its bias add (or None), its ReLU (or None), and the fused
    kernel's inputs: the first op's two inputs, then the bias when there is one."""

    first: Operation
    bias_add: Optional[Operation]
    relu: Optional[Operation]
    inputs: Tuple[Tensor, ...]

    @property
    def kernel(self) -> str:
        """The op type of the fused kernel."""
        return FUSED[self.first.type]

    @property
    def head(self) -> Operation:
        """The op at which the fused kernel runs (the chain's last)."""
        return self.relu or self.bias_add or self.first

    @property
    def fused_ops(self) -> Tuple[str, ...]:
        return (("BiasAdd",) if self.bias_add is not None else ()) + \
            (("Relu",) if self.relu is not None else ())

    @property
    def before_head(self) -> Tuple[Operation, ...]:
        """The chain's ops that run nothing (the head runs the chain)."""
        return tuple(o for o in (self.first, self.bias_add) if o is not None and o is not self.head)

    def attrs(self) -> dict:
        """The fused kernel's attributes: the first op's, and which ops follow it."""
        return dict(self.first.attrs, fused_ops=self.fused_ops)

    @property
    def ref_indices(self) -> Tuple[int, ...]:
        """Which of ``inputs`` the fused kernel takes as variable references."""
        return ()


# The pool attributes that must agree between a MaxPool and the MaxPoolGrad of it.
_POOL_ATTRS = ("ksize", "strides", "padding", "data_format")


class PoolReluGrad(NamedTuple):
    """``ReluGrad(MaxPoolGrad(x, MaxPool(x), g), x)``, run as ``_MaxPoolGradReluGrad``
    at the ``ReluGrad`` (see the module doc); its inputs are ``MaxPoolGrad``'s."""

    pool_grad: Operation
    relu_grad: Operation

    kernel = "_MaxPoolGradReluGrad"

    @property
    def head(self) -> Operation:
        return self.relu_grad

    @property
    def before_head(self) -> Tuple[Operation, ...]:
        return (self.pool_grad,)

    @property
    def inputs(self) -> Tuple[Tensor, ...]:
        return tuple(self.pool_grad.inputs)

    def attrs(self) -> dict:
        return dict(self.pool_grad.attrs)

    @property
    def ref_indices(self) -> Tuple[int, ...]:
        return ()


# The updates that take a scaled gradient, with their gradient's input index.
SCALED_UPDATES = {"ApplyGradientDescent": 2, "ApplyMomentum": 3, "ApplyAdam": 9}


class ScaledUpdate(NamedTuple):
    """An update whose gradient is ``Mul(g, scale)`` (maybe through ``Identity`` ops),
    run as ``_ApplyScaledGradient`` at the update."""

    update: Operation
    passed: Tuple[Operation, ...]
    grad: Tensor
    scale: Tensor

    kernel = "_ApplyScaledGradient"

    @property
    def head(self) -> Operation:
        return self.update

    @property
    def before_head(self) -> Tuple[Operation, ...]:
        return self.passed

    @property
    def inputs(self) -> Tuple[Tensor, ...]:
        ins = list(self.update.inputs)
        ins[SCALED_UPDATES[self.update.type]] = self.grad
        return tuple(ins) + (self.scale,)

    def attrs(self) -> dict:
        return dict(self.update.attrs, update=self.update.type)

    @property
    def ref_indices(self) -> Tuple[int, ...]:
        # The variable and its slots keep their places; the gradient and scale are values.
        return tuple(self.update.op_def.ref_indices(self.update))


Fusion = Union[Chain, PoolReluGrad, ScaledUpdate]


def find_chains(ops: List[Operation], fetches: Sequence[Tensor],
                idle: Set[Operation]) -> Dict[Operation, Fusion]:
    """The fusable chains of a step (``ops`` in topological order), by their head op."""
    fetched = set(fetches)
    readers: Dict[Tensor, List[Operation]] = {}
    for op in ops:
        if op in idle:
            continue
        for t in op.inputs:
            readers.setdefault(t, []).append(op)
    chains: Dict[Operation, Fusion] = {}
    for op in ops:
        if op in idle:
            continue
        chain: Optional[Fusion] = None
        if op.type in FUSED:
            chain = _chain_from(op, readers, fetched)
        elif op.type == "ReluGrad":
            chain = _pool_relu_grad(op, readers, fetched)
        elif op.type in SCALED_UPDATES:
            chain = _scaled_update(op, readers, fetched)
        if chain is not None:
            chains[chain.head] = chain
    return chains


def _plain(op: Operation) -> bool:
    return not op.control_inputs and not op.attrs.get(CHECK_NUMERICS_ATTR)


def _only_reader(t: Tensor, readers: Dict[Tensor, List[Operation]],
                 fetched: Set[Tensor]) -> Optional[Operation]:
    users = readers.get(t, ())
    if len(users) != 1 or t in fetched:
        return None
    user = users[0]
    if not _plain(user) or user.device != t.op.device:
        return None
    return user


def _per_channel_bias(add: Operation, y: Tensor, channels: int) -> Optional[Tensor]:
    """The bias that ``add`` adds to every output channel of ``y``, or None."""
    if add.type == "BiasAdd":
        fmt = add.attrs.get("data_format", "NHWC")
        fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
        return add.inputs[1] if add.inputs[0] is y and fmt == "NHWC" else None
    if len(add.inputs) != 2 or (add.inputs[0] is y) == (add.inputs[1] is y):
        return None
    bias = add.inputs[1] if add.inputs[0] is y else add.inputs[0]
    dims = bias.shape.as_list() if bias.shape.ndims is not None else None
    if dims != [channels] or bias.dtype != y.dtype:
        return None
    return bias


def _chain_from(first: Operation, readers: Dict[Tensor, List[Operation]],
                fetched: Set[Tensor]) -> Optional[Chain]:
    y = first.outputs[0]
    dims = y.shape.as_list() if y.shape.ndims is not None else None
    rank = 4 if first.type == "Conv2D" else 2
    if not _plain(first) or dims is None or len(dims) != rank or dims[-1] is None \
            or not y.dtype.is_floating:
        return None
    if first.type == "Conv2D":
        fmt = first.attrs.get("data_format", "NHWC")
        if (fmt.decode() if isinstance(fmt, bytes) else fmt) != "NHWC":
            return None
    nxt = _only_reader(y, readers, fetched)
    if nxt is None:
        return None
    bias_add = bias = None
    if nxt.type in BIAS_OPS:
        bias = _per_channel_bias(nxt, y, dims[-1])
        if bias is None:
            return None
        bias_add = nxt
        nxt = _only_reader(nxt.outputs[0], readers, fetched)
    relu = nxt if nxt is not None and nxt.type == "Relu" else None
    if bias_add is None and relu is None:
        return None
    inputs = tuple(first.inputs[:2]) + ((bias,) if bias is not None else ())
    return Chain(first, bias_add, relu, inputs)


def _pool_relu_grad(relu_grad: Operation, readers: Dict[Tensor, List[Operation]],
                    fetched: Set[Tensor]) -> Optional[PoolReluGrad]:
    if not _plain(relu_grad) or len(relu_grad.inputs) != 2:
        return None
    dy, features = relu_grad.inputs
    pool_grad = dy.op
    if pool_grad.type != "MaxPoolGrad" or not _plain(pool_grad) or len(pool_grad.inputs) != 3 \
            or _only_reader(dy, readers, fetched) is not relu_grad \
            or not dy.dtype.is_floating:
        return None
    x, pooled, _ = pool_grad.inputs
    pool = pooled.op
    if features is not x or pool.type != "MaxPool" or not pool.inputs or pool.inputs[0] is not x \
            or pooled.value_index != 0 or pool.device != pool_grad.device:
        return None
    if any(pool.attrs.get(a) != pool_grad.attrs.get(a) for a in _POOL_ATTRS):
        return None
    return PoolReluGrad(pool_grad, relu_grad)


def _scaled_update(update: Operation, readers: Dict[Tensor, List[Operation]],
                   fetched: Set[Tensor]) -> Optional[ScaledUpdate]:
    k = SCALED_UPDATES[update.type]
    if update.attrs.get(CHECK_NUMERICS_ATTR) or len(update.inputs) <= k:
        return None
    t, reader, passed = update.inputs[k], update, []
    while True:
        if _only_reader(t, readers, fetched) is not reader:
            return None
        if t.op.type != "Identity":
            break
        passed.append(t.op)
        reader, t = t.op, t.op.inputs[0]
    mul = t.op
    # The product runs nothing once rewritten: it must have no control edge or
    # numerics check of its own.
    if mul.type != "Mul" or len(mul.inputs) != 2 or not _plain(mul):
        return None
    a, b = mul.inputs
    # With a scalar factor the product has the other factor's shape.
    if _scalar_of(b, t):
        scale, grad = b, a
    elif _scalar_of(a, t):
        scale, grad = a, b
    else:
        return None
    return ScaledUpdate(update, tuple(passed) + (mul,), grad, scale)


def _scalar_of(s: Tensor, product: Tensor) -> bool:
    """Whether ``s`` is a scalar of the product's float dtype."""
    return s.shape.ndims == 0 and s.dtype == product.dtype and product.dtype.is_floating


__all__ = ["Chain", "PoolReluGrad", "ScaledUpdate", "Fusion", "find_chains", "FUSED"]
