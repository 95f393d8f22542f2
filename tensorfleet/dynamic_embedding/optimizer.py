"""Training dynamic embeddings: ``DynamicEmbeddingOptimizer`` wraps a TF optimizer.

The gradient of a loss with respect to the rows one shard returned is taken as
a dense ``[ids, dim]`` tensor and handed, with the ids, to one
``DynamicEmbeddingApply`` op per shard, placed on the shard's task (so only the
gradient rows of the ids a shard holds travel to it). The table applies the
optimizer's rule to those rows only, with slots it keeps per row; ordinary
variables go through the wrapped optimizer unchanged.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients import gradients
from tensorfleet.dynamic_embedding.ops import (VARIABLES_COLLECTION, DynamicEmbeddingShard,
                                               DynamicEmbeddingVariable)
from tensorfleet.kernels.numpy.dynamic_embedding_kernels import HYPER_INPUTS
from tensorfleet.ops import array_ops, control_flow_ops, state_ops
from tensorfleet.ops.op_util import make_op
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.optimizers import (AdagradOptimizer, AdamOptimizer,
                                             GradientDescentOptimizer)
from tensorfleet.training.sparse_optimizers import LazyAdamOptimizer

_KINDS = {GradientDescentOptimizer: "sgd", AdagradOptimizer: "adagrad",
          AdamOptimizer: "adam", LazyAdamOptimizer: "adam"}

_GRADIENT_ARGS = frozenset(("gate_gradients", "aggregation_method",
                            "colocate_gradients_with_ops", "grad_loss"))


def _slot_specs(kind: str, opt: Optimizer) -> List[Tuple[str, float, int]]:
    if kind == "adagrad":
        return [("accumulator", opt._initial_accumulator_value, 0)]
    if kind == "adam":
        return [("m", 0.0, 0), ("v", 0.0, 0), ("t", 0.0, 1)]
    return []


class DynamicEmbeddingOptimizer:
    """Wraps a ``GradientDescentOptimizer``, ``AdagradOptimizer`` or ``AdamOptimizer``
    (``LazyAdamOptimizer``) so that ``minimize`` also trains dynamic embeddings.

    Each table applies the same rule to the rows looked up in the step: Adagrad's
    accumulator starts at ``initial_accumulator_value``; Adam is lazy (only looked-up
    rows move) and its bias correction counts each row's own updates.

    Raises:
      TypeError: for another optimizer.
    """

    def __init__(self, optimizer: Optimizer):
        kind = _KINDS.get(type(optimizer))
        if kind is None:
            raise TypeError(f"DynamicEmbeddingOptimizer supports GradientDescentOptimizer, "
                            f"AdagradOptimizer, AdamOptimizer and LazyAdamOptimizer, got "
                            f"{type(optimizer).__name__}")
        self._opt = optimizer
        self._kind = kind

    def __getattr__(self, name: str) -> Any:
        # get_slot, get_name, variables... are the wrapped optimizer's.
        return getattr(self._opt, name)

    def minimize(self, loss: Tensor, global_step: Any = None,
                 var_list: Optional[Sequence[Any]] = None, name: Optional[str] = None,
                 **kwargs: Any) -> Any:
        """``compute_gradients`` then ``apply_gradients``; returns the train op."""
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, **kwargs)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError(f"No gradients provided for any variable or dynamic embedding "
                             f"from loss {loss}")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Tensor, var_list: Optional[Sequence[Any]] = None,
                          **kwargs: Any) -> List[Tuple[Any, Any]]:
        """The wrapped optimizer's pairs for variables, then one
        ``(IndexedSlices, DynamicEmbeddingShard)`` pair per training lookup of a
        dynamic embedding that ``loss`` depends on.

        ``kwargs`` are ``compute_gradients``'s: ``gate_gradients``,
        ``aggregation_method``, ``colocate_gradients_with_ops`` and ``grad_loss``."""
        unknown = set(kwargs) - _GRADIENT_ARGS
        if unknown:
            raise TypeError(f"compute_gradients() got unexpected arguments {sorted(unknown)}")
        loss = convert_to_tensor(loss)
        g = loss.graph
        if var_list is None:
            plain = (g.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                     + g.get_collection(getattr(GraphKeys, "TRAINABLE_RESOURCE_VARIABLES",
                                                "trainable_resource_variables")))
            dyn = list(g.get_collection(VARIABLES_COLLECTION))
        else:
            plain = [v for v in var_list if not isinstance(v, DynamicEmbeddingVariable)]
            dyn = [v for v in var_list if isinstance(v, DynamicEmbeddingVariable)]
        pairs: List[Tuple[Any, Any]] = []
        if plain:
            pairs = self._opt.compute_gradients(loss, var_list=plain, **kwargs)
        lookups = [(v, i, ids, out) for v in dyn for i, ids, out in v._lookups]
        if not lookups and not plain:
            raise ValueError("No variables or dynamic embedding lookups to optimize.")
        grads = gradients(loss, [out for *_, out in lookups], grad_ys=kwargs.get("grad_loss"),
                          aggregation_method=kwargs.get("aggregation_method"),
                          colocate_gradients_with_ops=kwargs.get(
                              "colocate_gradients_with_ops", False)) if lookups else []
        for (v, i, ids, _), grad in zip(lookups, grads):
            if grad is None:
                continue
            if isinstance(grad, IndexedSlices):
                grad = convert_to_tensor(grad)
            pairs.append((IndexedSlices(grad, ids), v.shards[i]))
        return pairs

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]],
                        global_step: Any = None, name: Optional[str] = None) -> Any:
        """Applies the variables' gradients through the wrapped optimizer and one update
        per dynamic embedding shard (the gradients of all its lookups together); with
        ``global_step``, increments it once everything ran."""
        plain = [(gr, v) for gr, v in grads_and_vars if not isinstance(v, DynamicEmbeddingShard)]
        per_shard: Dict[int, Tuple[DynamicEmbeddingShard, List[IndexedSlices]]] = {}
        for gr, v in grads_and_vars:
            if isinstance(v, DynamicEmbeddingShard) and gr is not None:
                if not isinstance(gr, IndexedSlices):
                    raise TypeError(f"The gradient of dynamic embedding shard {v.name} must be "
                                    f"an IndexedSlices of ids and rows, got {gr!r}")
                per_shard.setdefault(id(v), (v, []))[1].append(gr)
        if not per_shard and not any(gr is not None for gr, _ in plain):
            raise ValueError("No gradients provided for any variable or dynamic embedding.")
        ops: List[Any] = []
        graph = None
        if any(gr is not None for gr, _ in plain):
            ops.append(self._opt.apply_gradients(plain, name=name))
            graph = ops[0].graph
        if per_shard:
            shards = [s for s, _ in per_shard.values()]
            graph = shards[0].graph
            with graph.as_default(), graph.name_scope(name or self._opt.get_name()):
                self._opt._prepare()
                for shard, grads in per_shard.values():
                    ops.append(self._apply_shard(shard, grads))
        with graph.as_default():
            update = control_flow_ops.group(*ops, name="update" if global_step is not None
                                            else (name or self._opt.get_name()))
            if global_step is None:
                return update
            with graph.control_dependencies([update]), graph.colocate_with(global_step.op):
                return state_ops.assign_add(global_step, 1, name=self._opt.get_name()).op

    def _apply_shard(self, shard: DynamicEmbeddingShard, grads: List[IndexedSlices]) -> Any:
        var = shard._variable
        specs = _slot_specs(self._kind, self._opt)
        var._set_optimizer(self._kind, specs)
        g = shard.graph
        with g.name_scope(f"update_{shard.name}"):
            if len(grads) == 1:
                ids, rows = grads[0].indices, grads[0].values
            else:
                ids = array_ops.concat([gr.indices for gr in grads], 0)
                rows = array_ops.concat([gr.values for gr in grads], 0)
            hypers = [self._opt._get_hyper(h, shard) for h in HYPER_INPUTS[self._kind]]
            attrs = {"kind": self._kind, "slot_names": [s[0] for s in specs],
                     "slot_inits": [float(s[1]) for s in specs]}
            with g.colocate_with(shard.op):
                return make_op("DynamicEmbeddingApply", [shard.handle, ids, rows] + hypers, [],
                               attrs, name="Apply")


__all__ = ["DynamicEmbeddingOptimizer"]
